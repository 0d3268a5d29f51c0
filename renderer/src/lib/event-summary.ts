import type { StreamEvent } from '../../../shared/events';
import { type EventTone, eventText } from '../../../shared/event-text';

export type { EventTone };

/** One readable line per event for the log, worded as `agents plan run --stream` words it. */
export function summarizeEvent(event: StreamEvent, describe: (decisionId: string) => string | undefined): { text: string; tone: EventTone } {
  return eventText(event, describe);
}
