import { useCallback, useEffect, useLayoutEffect, useRef, useState, type CSSProperties, type HTMLAttributes, type ReactNode } from 'react';

type DataAttributes = { [key: `data-${string}`]: string | number | boolean | undefined };

export interface VirtualListProps {
  count: number;
  /** Every row has this height in pixels; rows read it as `var(--row-height)`. */
  rowHeight: number;
  renderRow(index: number): ReactNode;
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
}

/** Renders only the rows in view (plus a few), so lists of any length stay fast. */
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
}: VirtualListProps) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);
  const atEnd = useRef(true);
  /** The row at the top of the view and how far into it the view starts, by key. */
  const anchor = useRef<{ key: number | string; offset: number } | null>(null);
  const firstKey = useRef<number | string | undefined>(undefined);

  const rememberAnchor = (element: HTMLDivElement) => {
    if (!rowKey || count === 0) {
      anchor.current = null;
      return;
    }
    const index = Math.min(count - 1, Math.floor(element.scrollTop / rowHeight));
    anchor.current = { key: rowKey(index), offset: element.scrollTop - index * rowHeight };
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
    element.scrollTop = element.scrollHeight;
    setScrollTop(element.scrollTop);
  }, [count, follow]);

  useLayoutEffect(() => {
    const element = ref.current;
    if (!element || scrollToIndex === null || scrollToIndex < 0) return;
    const top = scrollToIndex * rowHeight;
    if (top < element.scrollTop) element.scrollTop = top;
    else if (top + rowHeight > element.scrollTop + element.clientHeight) element.scrollTop = top + rowHeight - element.clientHeight;
    setScrollTop(element.scrollTop);
  }, [scrollToIndex, rowHeight]);

  // Rows changed above the view (its first key moved): scroll so the anchored row stays where it was.
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element || !rowKey || !indexOfKey) return;
    const first = count > 0 ? rowKey(0) : undefined;
    if (first !== firstKey.current && !follow && anchor.current) {
      const index = indexOfKey(anchor.current.key);
      if (index >= 0) {
        const top = index * rowHeight + anchor.current.offset;
        if (Math.abs(element.scrollTop - top) >= 1) {
          element.scrollTop = top;
          setScrollTop(element.scrollTop);
        }
      }
    }
    firstKey.current = first;
    rememberAnchor(element);
  });

  const onScroll = useCallback(() => {
    const element = ref.current;
    if (!element) return;
    rememberAnchor(element);
    setScrollTop(element.scrollTop);
    const end = element.scrollTop + element.clientHeight >= element.scrollHeight - rowHeight;
    if (end !== atEnd.current) {
      atEnd.current = end;
      onAtEndChange?.(end);
    }
  }, [onAtEndChange, rowHeight, rowKey, count]);

  const rangeAt = (top: number): [number, number] => [
    Math.max(0, Math.floor(top / rowHeight) - overscan),
    Math.min(count, Math.ceil((top + viewport) / rowHeight) + overscan),
  ];
  const [first, last] = rangeAt(scrollTop);

  useEffect(() => {
    // Where the view is now: a layout effect may have moved it since this render (rows put above).
    const element = ref.current;
    const [start, end] = element ? rangeAt(element.scrollTop) : [first, last];
    onRangeChange?.(start, end);
  }, [first, last, onRangeChange]);

  const rows: ReactNode[] = [];
  for (let i = first; i < last; i++) rows.push(renderRow(i));

  const style = { '--row-height': `${rowHeight}px` } as CSSProperties;
  return (
    <div {...containerProps} ref={ref} className={`vlist ${className ?? ''}`} style={style} onScroll={onScroll}>
      <div className="vlist-spacer" style={{ height: count * rowHeight }}>
        <div className="vlist-window" style={{ transform: `translateY(${first * rowHeight}px)` }}>
          {rows}
        </div>
      </div>
    </div>
  );
}
