// An agent plan's MCP servers live as long as its run: started for its steps, stopped when it ends,
// whether it finished or failed. The real filesystem server, confined, and the scripted model server.
import { SANDBOXES_FOLDER } from '../persistence/data-dir';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isStrategize, toolResults } from '../../tests/support/scripted-agent';
import { type ChatRequest, ScriptedModelServer, type ScriptedReply } from '../../tests/support/scripted-model-server';
import { type App, openApp } from './open-app';

const FILESYSTEM = join(__dirname, '../../node_modules/.bin/mcp-server-filesystem');
const server = new ScriptedModelServer();
let root: string;
let app: App;

beforeAll(async () => {
  await server.start();
});
afterAll(() => server.close());
beforeEach(async () => {
  server.reset();
  root = mkdtempSync(join(tmpdir(), 'agents-mcp-run-'));
  mkdirSync(join(root, 'project'));
  writeFileSync(join(root, 'project', 'README.md'), '# Demo\n');
  app = await openApp({ dataDir: join(root, 'data'), env: { AGENTS_MODEL: 'openai-compatible:scripted', AGENTS_BASE_URL: server.baseUrl }, sleep: () => Promise.resolve() });
});
afterEach(async () => {
  await app.service.idle();
  app.close();
  rmSync(root, { recursive: true, force: true });
});

/** Live (not zombie) processes whose command line names `marker`: bubblewrap's names the sandbox it binds. */
function processesNaming(marker: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker) && !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
      } catch {
        return false;
      }
    })
    .map(Number);
}

const planFile = () =>
  `name: mcp-run\nproject: ${JSON.stringify(join(root, 'project'))}\nautomationProfile: { base: full-auto, autoRetryTransient: 0 }\nagent: true\ndefinitionOfDone: NOTES.md says hello\nmcp:\n  servers:\n    files: { command: ${JSON.stringify(FILESYSTEM)}, args: ["."] }\n`;

describe("an agent plan's MCP servers", () => {
  it.each([
    ['finishes', 'done'],
    ['fails', 'errored'],
  ] as const)('are running during its step and stopped once its run %s', async (_how, outcome) => {
    let running: number[] = [];
    let sandbox = '';
    server.respondWith((request: ChatRequest): ScriptedReply => {
      if (isStrategize(request)) return { toolCalls: [{ name: 'propose_plan', args: { steps: [{ description: 'Write NOTES.md', rationale: 'asked', acceptance: 'it exists' }] } }] };
      if (toolResults(request) === 0) return { toolCalls: [{ name: 'files_write_file', args: { path: 'NOTES.md', content: 'hello\n' } }] };
      sandbox = join(app.dataDir, SANDBOXES_FOLDER, plan.id);
      running = processesNaming(sandbox);
      // The model server fails the step here, or the model finishes it.
      return outcome === 'done' ? { toolCalls: [{ name: 'finish_step', args: { summary: 'Wrote it.' } }] } : { status: 401, errorBody: { error: { message: 'bad key' } } };
    });
    const plan = await app.service.createFromContent({ content: planFile() }, root);
    const ended = await app.service.run(plan.id);
    expect(ended.processingState === 'errored' ? 'errored' : 'done').toBe(outcome);
    expect(readFileSync(join(sandbox, 'NOTES.md'), 'utf8')).toBe('hello\n');
    expect(running.length).toBeGreaterThan(0);
    expect(processesNaming(sandbox)).toEqual([]);
  });
});
