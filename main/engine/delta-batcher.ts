/**
 * Batches streamed text (a model's tokens, a check's output) so the event log gets one event per
 * interval or size, not one per chunk; a timer sends what waits, so quiet output is not held back.
 */
export class DeltaBatcher {
  private buffer = '';
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly send: (text: string) => void,
    private readonly intervalMs = 100,
    private readonly maxChars = 2000,
  ) {}

  push(delta: string): void {
    this.buffer += delta;
    if (this.buffer.length >= this.maxChars) this.flush();
    else if (!this.timer) {
      this.timer = setTimeout(() => this.flush(), this.intervalMs);
      this.timer.unref?.();
    }
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (!this.buffer) return;
    const text = this.buffer;
    this.buffer = '';
    this.send(text);
  }
}
