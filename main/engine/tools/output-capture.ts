/** The length of `buffer` without a UTF-8 character cut off at its end, so a cut never splits one. */
function completeUtf8Length(buffer: Buffer): number {
  for (let back = 1; back <= Math.min(4, buffer.length); back++) {
    const byte = buffer[buffer.length - back];
    if ((byte & 0xc0) === 0x80) continue;
    const needed = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return needed > back ? buffer.length - back : buffer.length;
  }
  return buffer.length;
}

/**
 * Keeps the first and last `limit / 2` bytes of a stream; what falls between is counted and shown
 * as one visible marker. The head says how a command started, the tail why it ended.
 */
export class OutputCapture {
  private readonly half: number;
  private head = Buffer.alloc(0);
  private tailChunks: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;

  constructor(readonly limit = 64 * 1024) {
    this.half = Math.floor(limit / 2);
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.head.length < this.half) {
      const room = this.half - this.head.length;
      this.head = Buffer.concat([this.head, chunk.subarray(0, room)]);
      chunk = chunk.subarray(room);
    }
    if (chunk.length === 0) return;
    this.tailChunks.push(chunk);
    this.tailBytes += chunk.length;
    // Drop whole chunks that fall entirely out of the tail window.
    while (this.tailChunks.length > 1 && this.tailBytes - this.tailChunks[0].length >= this.half) {
      this.tailBytes -= (this.tailChunks.shift() as Buffer).length;
    }
  }

  get totalBytes(): number {
    return this.total;
  }

  get truncatedBytes(): number {
    return Math.max(0, this.total - this.limit);
  }

  toString(): string {
    const tail = Buffer.concat(this.tailChunks);
    if (this.total <= this.limit) return Buffer.concat([this.head, tail]).toString('utf8');
    const headCut = completeUtf8Length(this.head);
    let tailStart = tail.length - this.half;
    while (tailStart < tail.length && (tail[tailStart] & 0xc0) === 0x80) tailStart += 1;
    const dropped = this.total - headCut - (tail.length - tailStart);
    return `${this.head.subarray(0, headCut).toString('utf8')}\n… [truncated ${dropped} bytes] …\n${tail.subarray(tailStart).toString('utf8')}`;
  }

  /** The last `bytes` bytes, for error details. */
  tail(bytes = 4096): string {
    const text = this.toString();
    return text.length > bytes ? `…${text.slice(-bytes)}` : text;
  }
}
