import { useCallback, useEffect, useLayoutEffect, useRef, useState, type CSSProperties, type HTMLAttributes, type ReactNode } from 'react';

type DataAttributes = { [key: `data-${string}`]: string | number | boolean | undefined };

export interface VirtualListProps {
  count: number;
  /** Every row has this height in pixels; rows read it as `var(--row-height)`. */
  rowHeight: number;
  /** `slot` is the row's place among the rows rendered (0 for the first), for keying rows by position. */
  renderRow(index: number, slot: number): ReactNode;
  overscan?: number;
  /** Scrolls just enough to show this row (the keyboard selection). */
  scrollToIndex?: number | null;
  /** Sticks to the last row as rows arrive, while true. */
  follow?: boolean;
  /** Reports whether the view is at the end, as the operator scrolls. */
  onAtEndChange?(atEnd: boolean): void;
  /** Reports the rows on screen, e.g. to load the next page. */
  onRangeChange?(start: number, end: number): void;
  /**
   * A stable key per row, and where a key is now. With both, rows added or dropped above the view
   * (an older page put in front, the oldest dropped from a full window) leave the rows on screen in place.
   */
  rowKey?(index: number): number | string;
  indexOfKey?(key: number | string): number;
  className?: string;
  containerProps?: HTMLAttributes<HTMLDivElement> & DataAttributes;
  /** Attributes of the element that holds the rows, e.g. `role: 'list'` so rows can be list items. */
  windowProps?: HTMLAttributes<HTMLDivElement>;
}

/**
 * Renders only the rows in view (plus a few), so lists of any length stay fast. It never reads
 * the element's layout while rendering or in its effects (a read after React changed the DOM
 * forces a synchronous layout, several per frame while a log streams): it keeps its own copy of
 * the scroll position, updated from scroll events and whenever it scrolls the element itself.
 */
export function VirtualList({
  count,
  rowHeight,
  renderRow,
  overscan = 6,
  scrollToIndex = null,
  follow = false,
  onAtEndChange,
  onRangeChange,
  rowKey,
  indexOfKey,
  className,
  containerProps,
  windowProps,
}: VirtualListProps) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);
  /** Where the element is scrolled to, as last seen in a scroll event or set here. */
  const position = useRef(0);
  const atEnd = useRef(true);
  /** The row at the top of the view and how far into it the view starts, by key. */
  const anchor = useRef<{ key: number | string; offset: number } | null>(null);
  const firstKey = useRef<number | string | undefined>(undefined);

  const scrollTo = (element: HTMLDivElement, top: number) => {
    const clamped = Math.max(0, Math.min(top, count * rowHeight - viewport));
    if (clamped !== position.current) {
      element.scrollTop = clamped;
      position.current = clamped;
    }
    setScrollTop(clamped);
  };

  const rememberAnchor = () => {
    if (!rowKey || count === 0) {
      anchor.current = null;
      return;
    }
    const index = Math.min(count - 1, Math.floor(position.current / rowHeight));
    anchor.current = { key: rowKey(index), offset: position.current - index * rowHeight };
  };

  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    setViewport(element.clientHeight || 600);
    if (typeof ResizeObserver === 'undefined') return;
    const observer = new ResizeObserver(() => setViewport(element.clientHeight || 600));
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  useLayoutEffect(() => {
    const element = ref.current;
    if (!element || !follow) return;
    scrollTo(element, count * rowHeight);
      }, [count, follow, viewport]);

  useLayoutEffect(() => {
    const element = ref.current;
    if (!element || scrollToIndex === null || scrollToIndex < 0) return;
    const top = scrollToIndex * rowHeight;
    if (top < position.current) scrollTo(element, top);
    else if (top + rowHeight > position.current + viewport) scrollTo(element, top + rowHeight - viewport);
      }, [scrollToIndex, rowHeight]);

  // Rows changed above the view (its first key moved): scroll so the anchored row stays where it was.
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element || !rowKey || !indexOfKey) return;
    const first = count > 0 ? rowKey(0) : undefined;
    if (follow) {
      // Stuck to the end: nothing to hold in place.
      firstKey.current = first;
      anchor.current = null;
      return;
    }
    if (first !== firstKey.current && anchor.current) {
      const index = indexOfKey(anchor.current.key);
      if (index >= 0) scrollTo(element, index * rowHeight + anchor.current.offset);
    }
    firstKey.current = first;
    rememberAnchor();
  });

  const onScroll = useCallback(() => {
    const element = ref.current;
    if (!element) return;
    position.current = element.scrollTop;
    rememberAnchor();
    setScrollTop(position.current);
    const end = position.current + viewport >= count * rowHeight - rowHeight;
    if (end !== atEnd.current) {
      atEnd.current = end;
      onAtEndChange?.(end);
    }
  }, [onAtEndChange, rowHeight, rowKey, count, viewport]);

  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((scrollTop + viewport) / rowHeight) + overscan);

  useEffect(() => {
    // Where the view is now: a layout effect may have moved it since this render (rows put above).
    const top = position.current;
    onRangeChange?.(Math.max(0, Math.floor(top / rowHeight) - overscan), Math.min(count, Math.ceil((top + viewport) / rowHeight) + overscan));
  }, [first, last, onRangeChange]);

  const rows: ReactNode[] = [];
  for (let i = first; i < last; i++) rows.push(renderRow(i, i - first));

  const style = { ...containerProps?.style, '--row-height': `${rowHeight}px` } as CSSProperties;
  return (
    <div {...containerProps} ref={ref} className={`vlist ${className ?? ''}`} style={style} onScroll={onScroll}>
      <div className="vlist-spacer" style={{ height: count * rowHeight }}>
        <div {...windowProps} className="vlist-window" style={{ transform: `translateY(${first * rowHeight}px)` }}>
          {rows}
        </div>
      </div>
    </div>
  );
}
