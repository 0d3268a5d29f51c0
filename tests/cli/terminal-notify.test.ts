// `agents plan run` on a terminal (a pseudo-terminal from script(1)) rings the bell and sends the
// desktop-notification sequences when the plan starts to wait for its operator.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const BIN = resolve(__dirname, '../../bin/agents.cjs');
const homes: string[] = [];
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
});

function agents(home: string, ...args: string[]): string {
  const ran = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, AGENTS_HOME: home }, encoding: 'utf8' });
  expect(ran.status, ran.stderr).toBe(0);
  return ran.stdout.trim();
}

/** `plan run` under script(1); once the approval prompt is up, Esc leaves it (the plan stays waiting). */
function runOnTerminal(home: string, planId: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn('script', ['-qfec', `'${process.execPath}' '${BIN}' plan run ${planId}`, '/dev/null'], {
      env: { ...process.env, AGENTS_HOME: home, TERM: 'xterm-256color' },
    });
    let out = '';
    let continued = false;
    let left = false;
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      // The manual profile steps on a terminal: continue to the end, then leave the approval prompt.
      if (!continued && out.includes('c = continue')) {
        continued = true;
        child.stdin.write('c');
      }
      if (!left && /\[y\]es, \[n\]o/.test(out)) {
        left = true;
        child.stdin.write('\u001b');
      }
    });
    child.on('error', fail);
    child.on('exit', () => done(out));
  });
}

function waitingPlan(): { home: string; id: string } {
  const home = mkdtempSync(join(tmpdir(), 'agents-terminal-'));
  homes.push(home);
  const demo = join(home, 'demo');
  agents(home, 'demo', demo);
  return { home, id: agents(home, 'plan', 'create', join(demo, 'add-license.yaml'), '--profile', 'manual') };
}

describe('agents plan run on a terminal', () => {
  it('rings the bell and writes OSC 9 and OSC 777 when the plan starts to wait for approval', async () => {
    const { home, id } = waitingPlan();
    const out = await runOnTerminal(home, id);
    const text = 'add-license waits for approval of file.write';
    expect(out).toContain(`\u0007\u001b]9;${text}\u0007\u001b]777;notify;CleverAgents;${text}\u0007`);
  }, 60_000);

  it.each([['notifyTerminal'], ['notifyApproval']])('stays quiet once %s is off', async (key) => {
    const { home, id } = waitingPlan();
    agents(home, 'config', 'set', key, 'off');
    expect(agents(home, 'config', 'get', key)).toBe('off');
    const out = await runOnTerminal(home, id);
    expect(out).toMatch(/\[y\]es, \[n\]o/);
    expect(out).not.toContain('\u001b]9;');
    expect(out).not.toContain('\u0007');
  }, 60_000);
});
