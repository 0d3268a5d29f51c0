import type { StreamEvent } from '../../../../shared/events';

/** An event as it waits in the per-frame buffer: from the open plan's subscription, or the all-plans one. */
export interface IngestItem {
  scope: 'plan' | 'all';
  event: StreamEvent;
}

export interface LiveSlice {
  /** Applies one animation frame's worth of stream events. */
  ingestEvents(items: readonly IngestItem[]): void;
}
