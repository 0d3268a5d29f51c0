import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { isHolderAlive, isProcessAlive } from './process-liveness';

describe('isProcessAlive', () => {
  it('is true for a running process and false for a pid nobody has', () => {
    expect(isProcessAlive(process.pid)).toBe(true);
    expect(isProcessAlive(2 ** 22 + 12345)).toBe(false);
    expect(isProcessAlive(0)).toBe(false);
  });

  it('counts a zombie as gone: it has exited, and nothing may ever reap it', async () => {
    // sh starts a child, then becomes `sleep`, which never reaps it. The child exits only after
    // the exec: a child that died first could be reaped by sh itself.
    const parent = spawn('/bin/sh', ['-c', 'sh -c "sleep 0.3; exit 0" & echo $!; exec sleep 5'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const [chunk] = (await once(parent.stdout, 'data')) as [Buffer];
      const zombie = Number(chunk.toString().trim());
      const deadline = Date.now() + 3000;
      let state = '';
      while (Date.now() < deadline && state !== 'Z') {
        await new Promise((r) => setTimeout(r, 20));
        const stat = readFileSync(`/proc/${zombie}/stat`, 'utf8');
        state = stat.charAt(stat.lastIndexOf(')') + 2);
      }
      expect(state).toBe('Z');
      expect(() => process.kill(zombie, 0)).not.toThrow(); // what the old check trusted
      expect(isProcessAlive(zombie)).toBe(false);
      expect(isProcessAlive(parent.pid!)).toBe(true);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});

describe('isHolderAlive', () => {
  const now = Date.parse('2026-01-01T00:10:00.000Z');
  it('asks the process table on this host, and the heartbeat age on another', () => {
    expect(isHolderAlive({ pid: process.pid, hostname: hostname(), heartbeatAt: '2000-01-01T00:00:00.000Z' }, { now })).toBe(true);
    expect(isHolderAlive({ pid: 2 ** 22 + 12345, hostname: hostname(), heartbeatAt: new Date(now).toISOString() }, { now })).toBe(false);
    expect(isHolderAlive({ pid: 1, hostname: 'elsewhere', heartbeatAt: '2026-01-01T00:09:30.000Z' }, { now })).toBe(true);
    expect(isHolderAlive({ pid: 1, hostname: 'elsewhere', heartbeatAt: '2026-01-01T00:08:00.000Z' }, { now })).toBe(false);
    expect(isHolderAlive({ pid: 1, hostname: 'elsewhere', heartbeatAt: 'not a date' }, { now })).toBe(false);
  });
});
