import { existsSync } from 'node:fs';

/**
 * A point where a test holds the process: with `name` set to a file's path in the environment, it
 * waits (at most a minute) until that file exists, so another process acts there at a known moment.
 */
export function testGate(env: NodeJS.ProcessEnv, name: string): void {
  const gate = env[name];
  if (!gate) return;
  const cell = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; waited < 60_000 && !existsSync(gate); waited += 20) Atomics.wait(cell, 0, 0, 20);
}
