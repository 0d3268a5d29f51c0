import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { MAX_MESSAGE_BYTES } from '../../shared/ws-protocol';
import { HARD_PAYLOAD_LIMIT } from './server';
import { connect } from './test-support';

const ROOT = path.resolve(__dirname, '../..');
const BIN = path.join(ROOT, 'bin/agents.cjs');
const CONNECTIONS = 50;
const FRAMES = 2_000;
/**
 * How far above its start the server's RSS may stay once the load has stopped. Issue 39 asks 100 MB;
 * without the fix it stayed 88-105 MB above (3 runs), with it 9-12 MB 3 s after the load.
 */
const BOUND_MB = 50;

/** The process's resident set, from the kernel, in MB. */
function rssMb(pid: number): number {
  const kb = Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}

/** A malformed frame of one of several kinds, some as large as a message may be, some over the hard limit (the server closes those sockets). */
function malformed(i: number): { data: string | Buffer; binary: boolean } {
  if (i % 40 === 39) return { data: Buffer.alloc(HARD_PAYLOAD_LIMIT + 1, 1), binary: true };
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

/** Sends `count` malformed frames over one connection at a time, opening another whenever the server closes one; resolves to the frames sent. */
async function hammer(wsUrl: string, origin: string, first: number, count: number): Promise<number> {
  let sent = 0;
  // Sockets in a row that carried no frame: a server that no longer takes connections ends the hammer, not the test's timeout.
  let idle = 0;
  while (sent < count) {
    if (idle >= 20) throw new Error(`agents serve took no frame over ${idle} connections in a row, after ${sent} of ${count}`);
    const before = sent;
    await new Promise<void>((resolve) => {
      const socket = new WebSocket(wsUrl, { origin });
      const next = () => {
        if (sent >= count) return socket.close();
        if (socket.readyState !== WebSocket.OPEN) return;
        const frame = malformed(first + sent);
        sent += 1;
        // The callback's error (the server closed the socket mid-frame) ends this socket; 'close' follows.
        socket.send(frame.data, { binary: frame.binary }, (error) => (error ? socket.terminate() : setImmediate(next)));
      };
      socket.on('open', next);
      // Refused frames end in a reset or a 1009 close: expected here, and heard so none goes unhandled.
      socket.on('error', () => socket.terminate());
      socket.on('close', () => resolve());
    });
    idle = sent === before ? idle + 1 : 0;
  }
  return sent;
}

describe('agents serve under malformed frames', () => {
  let child: ChildProcessWithoutNullStreams | undefined;
  const home = mkdtempSync(path.join(tmpdir(), 'agents-serve-memory-'));
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(home, { recursive: true, force: true });
  });

  it(`keeps its memory: ${FRAMES} malformed frames over ${CONNECTIONS} connections leave its RSS within ${BOUND_MB} MB of where it started, once idle`, async () => {
    const served = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--project-root', home, '--no-demo'], { env: { ...process.env, AGENTS_HOME: home }, cwd: ROOT });
    child = served;
    let stderr = '';
    served.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const url = await new Promise<URL>((resolve, reject) => {
      let stdout = '';
      served.stdout.on('data', (d: Buffer) => {
        stdout += d.toString();
        const match = /^agents console: (http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+)$/m.exec(stdout);
        if (match) resolve(new URL(match[1]!));
      });
      served.once('exit', (code) => reject(new Error(`agents serve exited with ${code}: ${stderr}`)));
    });
    const wsUrl = `ws://${url.host}/ws?token=${url.searchParams.get('token')}`;
    // Settled after start: a connection with a reply, then a quiet second.
    const client = await connect(wsUrl, url.origin);
    expect(await client.call('app.info', {})).toMatchObject({ ok: true });
    await client.close();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const pid = served.pid!;
    // Started again by bin/agents.cjs (same pid) with malloc's threshold set (scripts/serve-malloc.cjs).
    if (process.env.MALLOC_MMAP_THRESHOLD_ === undefined) expect(readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')).toContain('MALLOC_MMAP_THRESHOLD_=65536');
    const before = rssMb(pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);

    const perConnection = FRAMES / CONNECTIONS;
    const sent = await Promise.all(Array.from({ length: CONNECTIONS }, (_, c) => hammer(wsUrl, url.origin, c * perConnection, perConnection)));
    clearInterval(sampler);
    expect(sent.reduce((a, b) => a + b, 0)).toBe(FRAMES);
    const loaded = rssMb(pid);

    // Idle: a few quiet seconds (the server collects after one), then polled until it is back within the bound, or 30 s have passed.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    let idle = rssMb(pid);
    for (let waited = 0; idle - before >= BOUND_MB && waited < 30_000; waited += 250) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      idle = rssMb(pid);
    }
    console.log(
      `agents serve RSS: ${before.toFixed(0)} MB before, ${peak.toFixed(0)} MB at the peak, ${loaded.toFixed(0)} MB right after, ${idle.toFixed(0)} MB idle (${(idle - before).toFixed(0)} MB from the start) after ${FRAMES} malformed frames over ${CONNECTIONS} connections`,
    );
    expect(served.exitCode).toBeNull();
    expect(idle - before).toBeLessThan(BOUND_MB);
    // Still serving.
    const after = await connect(wsUrl, url.origin);
    expect(await after.call('app.info', {})).toMatchObject({ ok: true });
    await after.close();
  }, 240_000);
});
