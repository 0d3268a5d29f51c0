import { type Attention, type AttentionKind, attentionOf, attentionText } from '../../../shared/attention';
import type { StreamEvent } from '../../../shared/events';
import { shownUrl } from '../../../shared/mcp';

/** What the webhook receives: `text` is what Slack and ntfy show; the rest is for a program. */
export interface WebhookMessage {
  text: string;
  planId: string;
  planName: string;
  status: string;
  reason: string;
  /** Where the plan opens in a console, when this process knows one; else null. */
  url: string | null;
}

export interface WebhookNotifierOptions {
  /** The webhook's address, read at each event so a change in the settings applies at once; null: off. */
  url(): string | null;
  /** Whether this kind is announced (the `notify` settings' per-kind switches), read at each event; all when absent. */
  sends?: (kind: AttentionKind) => boolean;
  /** The plan's name and status, as the operator reads them. */
  plan(planId: string): Promise<{ name: string; status: string }>;
  consoleUrl?: (planId: string) => string | null;
  log(message: string): void;
  /** Milliseconds before retry `attempt` (1-based); the default doubles from 1 s. */
  backoffMs?: (attempt: number) => number;
  attempts?: number;
  fetch?: typeof fetch;
}

export interface WebhookNotifier {
  /** Resolves when every message in flight was delivered or given up on. */
  settled(): Promise<void>;
  dispose(): void;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Posts one message per event that needs the operator (shared/attention.ts), from the process
 * whose run committed the event: `events` is this process's publisher, so a reconnect or a
 * catch-up never sends one again. A failed post (a network error, 429, 5xx) is retried with
 * backoff; nothing waits for it, so the run is never held up.
 */
export function startWebhookNotifier(events: { subscribe(listener: (event: StreamEvent) => void): () => void }, options: WebhookNotifierOptions): WebhookNotifier {
  const post = options.fetch ?? fetch;
  const attempts = options.attempts ?? 4;
  const backoff = options.backoffMs ?? ((attempt) => 1000 * 2 ** (attempt - 1));
  const sent = new Set<string>();
  const inFlight = new Set<Promise<void>>();

  const deliver = async (url: string, event: StreamEvent, attention: Attention) => {
    const plan = await options.plan(event.planId);
    const message: WebhookMessage = {
      text: attentionText(plan.name, attention),
      planId: event.planId,
      planName: plan.name,
      status: plan.status,
      reason: attention.reason,
      url: options.consoleUrl?.(event.planId) ?? null,
    };
    const body = JSON.stringify(message);
    for (let attempt = 1; ; attempt++) {
      let problem: string;
      try {
        const response = await post(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body, signal: AbortSignal.timeout(10_000) });
        if (response.ok) return;
        problem = `answered ${response.status}`;
        if (response.status < 500 && response.status !== 429) {
          options.log(`notify: the webhook ${shownUrl(url)} ${problem}; not sent again`);
          return;
        }
      } catch (error) {
        problem = `could not be reached (${(error as Error).message})`;
      }
      if (attempt >= attempts) {
        options.log(`notify: the webhook ${shownUrl(url)} ${problem}; gave up after ${attempts} attempts`);
        return;
      }
      await sleep(backoff(attempt));
    }
  };

  const unsubscribe = events.subscribe((event) => {
    const attention = attentionOf(event);
    if (!attention) return;
    const url = options.url();
    const key = `${event.planId}:${event.seq}`;
    if (!url || sent.has(key) || options.sends?.(attention.kind) === false) return;
    sent.add(key);
    const delivery = deliver(url, event, attention).catch((error: unknown) => options.log(`notify: ${String(error)}`));
    inFlight.add(delivery);
    void delivery.finally(() => inFlight.delete(delivery));
  });

  return {
    settled: async () => {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    dispose: unsubscribe,
  };
}
