import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MAX_MESSAGE_BYTES } from '../../shared/ws-protocol';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin/agents.cjs');

/** The process's resident set, from the kernel, in MB. */
function rssMb(pid: number): number {
  const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}

const CONNECTIONS = 50;
const FRAMES = 2_000;

/** A malformed frame of one of several kinds, some of them as large as a message may be, or larger. */
function malformed(i: number): { data: string | Buffer; binary: boolean } {
  switch (i % 5) {
    case 0:
      return { data: '{"type":"call","id":'.padEnd(MAX_MESSAGE_BYTES - 1, 'x'), binary: false };
    case 1:
      return { data: 'y'.repeat(MAX_MESSAGE_BYTES + 1 + (i % 7) * 100_000), binary: false };
    case 2:
      return { data: Buffer.alloc(256 * 1024, i), binary: true };
    case 3:
      return { data: JSON.stringify({ type: 'call', id: i, channel: 'plans.nothing', request: { pad: 'z'.repeat(512 * 1024) } }), binary: false };
    default:
      return { data: JSON.stringify({ type: 'subscribe', id: -1, subscription: { kind: 'x'.repeat(200_000) } }), binary: false };
  }
}

describe('agents serve under malformed frames', () => {
  let child: ChildProcessWithoutNullStreams | undefined;
  let home: string | undefined;
  afterEach(() => {
    if (child?.exitCode === null) child.kill('SIGKILL');
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it(`keeps its memory: ${FRAMES} malformed frames over ${CONNECTIONS} connections leave its RSS within 100 MB of where it started`, async () => {
    home = mkdtempSync(path.join(tmpdir(), 'agents-serve-memory-'));
    const served = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--project-root', home], { env: { ...process.env, AGENTS_HOME: home }, cwd: ROOT });
    child = served;
    const url = await new Promise<URL>((resolve, reject) => {
      let stdout = '';
      served.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        const match = /^agents console: (http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+)$/m.exec(stdout);
        if (match) resolve(new URL(match[1]!));
      });
      served.on('exit', (code) => reject(new Error(`agents serve exited with ${code}`)));
    });
    const ws = `ws://${url.host}/ws?token=${url.searchParams.get('token')}`;
    // Settled after start: one connection and a reply.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const before = rssMb(served.pid!);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(served.pid!))), 50);

    await Promise.all(
      Array.from({ length: CONNECTIONS }, (_, c) =>
        new Promise<void>((resolve) => {
          const socket = new WebSocket(ws, { origin: url.origin, maxPayload: 64 * MAX_MESSAGE_BYTES });
          let sent = 0;
          const next = () => {
            // A socket the server closed (a frame over its hard limit) is opened again for the rest.
            if (sent >= FRAMES / CONNECTIONS || socket.readyState !== WebSocket.OPEN) return socket.close();
            const frame = malformed(c * 41 + sent);
            sent += 1;
            socket.send(frame.data, { binary: frame.binary }, () => setImmediate(next));
          };
          socket.on('open', next);
          socket.on('error', () => undefined);
          socket.on('close', () => resolve());
        }),
      ),
    );
    clearInterval(sampler);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const after = rssMb(served.pid!);
    console.log(`agents serve RSS: ${before.toFixed(0)} MB before, ${peak.toFixed(0)} MB at the peak, ${after.toFixed(0)} MB after ${FRAMES} malformed frames over ${CONNECTIONS} connections`);
    expect(after - before).toBeLessThan(100);
  }, 120_000);
});
