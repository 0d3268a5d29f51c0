// `agents mcp call` against real servers: the reference "everything" server from npm (text, an
// image, structured content, progress, a question) and the SDK probe server (one that never
// answers), each started confined as `agents mcp list` starts it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agents, ROOT, sandboxWorkspace } from './cli-harness';

const EVERYTHING = join(ROOT, 'node_modules/.bin/mcp-server-everything');
const PROBE = join(ROOT, 'tests/support/mcp-probe-server.mjs');
const LONG = { timeout: 120_000 };

/** A data directory whose settings name the everything server (with `timeoutMs`) and the probe. */
function home(timeoutMs?: number): string {
  const { home: dir } = sandboxWorkspace();
  mkdirSync(dir, { recursive: true });
  const servers = { everything: { command: EVERYTHING, args: [], env: {}, ...(timeoutMs ? { timeoutMs } : {}) }, probe: { command: process.execPath, args: [PROBE], env: {}, timeoutMs: 800 } };
  writeFileSync(join(dir, 'settings.json'), JSON.stringify({ mcp: { servers } }), { mode: 0o600 });
  return dir;
}

describe('agents mcp call: one tool of a configured server, its result printed', () => {
  it('prints text, names an image, shows structured content as JSON, and --json gives the whole result', LONG, async () => {
    const dir = home();
    const echo = await agents(['mcp', 'call', 'everything', 'echo', '--args', '{"message":"hello there"}'], dir);
    expect(echo.code, echo.stderr).toBe(0);
    expect(echo.stdout).toBe('Echo: hello there\n');

    const image = await agents(['mcp', 'call', 'everything', 'get-tiny-image'], dir);
    expect(image.code, image.stderr).toBe(0);
    expect(image.stdout).toMatch(/^\[image: image\/png, \d+ bytes\]$/m);

    const structured = await agents(['mcp', 'call', 'everything', 'get-structured-content', '--args', '{"location":"Chicago"}'], dir);
    expect(structured.code, structured.stderr).toBe(0);
    const json = structured.stdout.slice(structured.stdout.indexOf('structured content:\n') + 'structured content:\n'.length);
    expect(JSON.parse(json)).toMatchObject({ temperature: expect.any(Number), conditions: expect.any(String) });

    const whole = await agents(['mcp', 'call', 'everything', 'get-sum', '--args', '{"a":2,"b":40}', '--json'], dir);
    expect(whole.code, whole.stderr).toBe(0);
    const parsed = JSON.parse(whole.stdout);
    expect(parsed).toMatchObject({ name: 'everything', tool: 'get-sum', ok: true, protocolVersion: '2025-11-25' });
    expect(parsed.result.content[0].text).toContain('42');
  });

  it('shows progress while a long call runs, and its time limit starts again at each report', LONG, async () => {
    // 3 s of work reporting every 0.5 s, under a 1.5 s limit: the reports keep it going.
    const dir = home(1_500);
    const run = await agents(['mcp', 'call', 'everything', 'trigger-long-running-operation', '--args', '{"duration":3,"steps":6}'], dir);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Long running operation completed');
    expect(run.stderr).toMatch(/^progress 1\/6 \(17%\)/m);
    expect(run.stderr).toMatch(/^progress 5\/6 \(83%\)/m);
  });

  it("answers the server's question with --input (its defaults fill the rest), and declines it with no terminal to ask on", LONG, async () => {
    const dir = home();
    const answered = await agents(['mcp', 'call', 'everything', 'trigger-elicitation-request', '--input', '{"name":"Ada"}'], dir);
    expect(answered.code, answered.stderr).toBe(0);
    expect(answered.stderr).toMatch(/^the server asks: /m);
    expect(answered.stdout).toContain('- Name: Ada');
    // Left out of --input, filled in from the schema's defaults.
    expect(answered.stdout).toContain('- Favorite Integer: 42');

    // Checked against the question as plan approve --input is: one line, exit 2, and the server hears cancel.
    const wrong = await agents(['mcp', 'call', 'everything', 'trigger-elicitation-request', '--input', '{"name":"Ada","integer":500}'], dir);
    expect(wrong.code).toBe(2);
    expect(wrong.stdout).toBe('');
    expect(wrong.stderr.split('\n').filter((line) => line.startsWith('error:'))).toEqual(['error: --input: "integer" must be from 1 to 100; the server was told the question was cancelled']);
    const unasked = await agents(['mcp', 'call', 'everything', 'trigger-elicitation-request', '--input', '{"name":"Ada","color":"red"}'], dir);
    expect(unasked.code).toBe(2);
    expect(unasked.stderr).toMatch(/^error: --input: "color" is not asked for; the fields are name, /m);

    const declined = await agents(['mcp', 'call', 'everything', 'trigger-elicitation-request'], dir);
    expect(declined.code, declined.stderr).toBe(0);
    expect(declined.stderr).toContain('declined: no terminal to ask on; answer with --input JSON');
    expect(declined.stdout).toContain('declined');
  });

  it('fails with the server named when a call does not answer in time, and refuses a tool or server that is not there', LONG, async () => {
    const dir = home();
    const hang = await agents(['mcp', 'call', 'probe', 'hang'], dir);
    expect(hang.code).toBe(1);
    expect(hang.stderr).toContain('error: probe.hang: the MCP server "probe" did not answer within 800 ms');
    expect(hang.stderr).toContain('hint: The MCP server "probe" failed.');

    const unknown = await agents(['mcp', 'call', 'probe', 'nope'], dir);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^error: tool: the MCP server "probe" has no tool "nope"; its tools are write, connect, getenv, log, hang, echo, write-then-ask\n/);
    const noServer = await agents(['mcp', 'call', 'elsewhere', 'echo'], dir);
    expect(noServer.code).toBe(2);
    expect(noServer.stderr).toContain('no MCP server "elsewhere"; the servers are everything, probe');
    const badArgs = await agents(['mcp', 'call', 'probe', 'echo', '--args', 'text'], dir);
    expect(badArgs.code).toBe(2);
    expect(badArgs.stderr).toMatch(/^error: --args: is not JSON/);
  });
});
