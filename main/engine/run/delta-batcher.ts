/**
 * Batches streamed text (a model's tokens, a check's output) so the event log gets one event per
 * interval or size, not one per chunk; a timer sends what waits, so quiet output is not held back.
 * Sends may be asynchronous (an event append): `flush` resolves once every one so far is done, and
 * rejects with the first that failed.
 */
export class DeltaBatcher {
  private buffer = '';
  private timer: ReturnType<typeof setTimeout> | null = null;
  private sent: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly send: (text: string) => unknown,
    private readonly intervalMs = 100,
    private readonly maxChars = 2000,
  ) {}

  push(delta: string): void {
    this.buffer += delta;
    if (this.buffer.length >= this.maxChars) this.flushQuietly();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flushQuietly(), this.intervalMs);
      this.timer.unref?.();
    }
  }

  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.buffer) {
      const text = this.buffer;
      this.buffer = '';
      this.sent = Promise.all([this.sent, this.send(text)]);
    }
    return this.sent.then(() => undefined);
  }

  /** A flush nobody waits for: a failed send is thrown by the next flush. */
  private flushQuietly(): void {
    this.flush().catch(() => {});
  }
}
