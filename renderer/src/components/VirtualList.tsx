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
  className,
  containerProps,
}: VirtualListProps) {
  const ref = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewport, setViewport] = useState(600);
  const atEnd = useRef(true);

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

  const onScroll = useCallback(() => {
    const element = ref.current;
    if (!element) return;
    setScrollTop(element.scrollTop);
    const end = element.scrollTop + element.clientHeight >= element.scrollHeight - rowHeight;
    if (end !== atEnd.current) {
      atEnd.current = end;
      onAtEndChange?.(end);
    }
  }, [onAtEndChange, rowHeight]);

  const first = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan);
  const last = Math.min(count, Math.ceil((scrollTop + viewport) / rowHeight) + overscan);

  useEffect(() => {
    onRangeChange?.(first, last);
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
