// Project command rules on real plans: real SQLite, a real sandbox, real (confined) shell commands.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type App, openApp } from './open-app';

let dir: string;
let app: App;

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'agents-shell-rules-'));
  app = await openApp({ dataDir: path.join(dir, 'home') });
});
afterEach(() => {
  app.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A project with docs/ and the given `.agents/invariants.yaml`, and a plan of one step per command. */
async function planRunning(invariants: string, profile: string, ...commands: string[]): Promise<string> {
  const project = path.join(dir, 'project');
  mkdirSync(path.join(project, 'docs'), { recursive: true });
  writeFileSync(path.join(project, 'docs', 'guide.md'), '# Guide\n');
  if (invariants) {
    mkdirSync(path.join(project, '.agents'));
    writeFileSync(path.join(project, '.agents', 'invariants.yaml'), invariants);
  }
  const steps = commands.map((command, i) => `  - step: Step ${i + 1}\n    tools:\n      - { tool: shell.run, args: { command: ${JSON.stringify(command)} } }\n`).join('');
  const file = path.join(dir, 'plan.yaml');
  writeFileSync(file, `name: shell-rules\nproject: ${JSON.stringify(project)}\nautomationProfile: ${profile}\ndefinitionOfDone:\n${steps}`);
  return (await app.service.createFromFile(file)).id;
}

const sandboxDocs = async (planId: string) => path.join((await app.service.get(planId)).sandboxRefs[0], 'docs');
const failedCall = async (planId: string) => (await app.service.invocations(planId)).find((i) => !i.ok);

describe('project command rules', () => {
  it('allowCommands refuses a simple command none of its globs matches, naming it', async () => {
    const id = await planRunning('allowCommands: ["echo *", "ls*"]\n', 'trusted', 'echo hi && ls docs; touch made.txt');
    const plan = await app.service.run(id);
    expect(plan).toMatchObject({ processingState: 'errored' });
    expect(plan.errorMessage).toContain('"touch made.txt" is not allowed by the project invariant allowCommands (it matches none of "echo *", "ls*")');
    expect((await failedCall(id))?.error).toMatchObject({ category: 'invariant', commandRule: { command: 'touch made.txt', rule: 'allowCommands (it matches none of "echo *", "ls*")' } });
    expect(existsSync(path.join(await sandboxDocs(id), '..', 'made.txt'))).toBe(false);
  });

  it('allowCommands lets through a command whose every simple command it allows', async () => {
    const id = await planRunning('allowCommands: ["echo *", "cat *"]\n', 'trusted', 'echo hi | cat -n > out.txt');
    expect(await app.service.run(id)).toMatchObject({ phase: 'apply', processingState: 'queued' });
  });

  it('denyCommands matches a command run by its path, and refuses it without asking under supervised', async () => {
    const id = await planRunning('denyCommands: ["rm -rf *"]\n', 'supervised', '/bin/rm -rf docs');
    const plan = await app.service.run(id);
    expect(plan.processingState).toBe('errored');
    expect((await app.service.approvals(id)).approvals).toEqual([]);
    expect((await failedCall(id))?.error?.commandRule).toEqual({ command: '/bin/rm -rf docs', rule: 'denyCommands "rm -rf *"' });
    expect(existsSync(await sandboxDocs(id))).toBe(true);
  });

  it('a command built at run time waits for the operator where the project has command rules, with the reason', async () => {
    const id = await planRunning('denyCommands: ["rm -rf *"]\n', 'trusted', 'X=rm; $X -rf docs');
    const paused = await app.service.run(id);
    expect(paused).toMatchObject({ processingState: 'paused', waitingFor: 'approval' });
    const { pending } = await app.service.approvals(id);
    expect(pending?.commandRule).toEqual({ command: '$X -rf docs', rule: 'unanalysable: its command name is built at run time' });
    expect(existsSync(await sandboxDocs(id))).toBe(true);
    const rejected = await app.service.reject(id, { by: 'tester', reason: 'no deleting' });
    expect(rejected.processingState).toBe('errored');
    expect(existsSync(await sandboxDocs(id))).toBe(true);
  });

  it('a denied command with an option built at run time waits for the operator, naming the word; a harmless one runs', async () => {
    const id = await planRunning('denyCommands: ["rm -rf *"]\n', 'trusted', 'echo $HOME', 'rm -rf${u} docs');
    await app.service.run(id);
    expect((await app.service.approvals(id)).pending?.commandRule).toEqual({ command: 'rm -rf${u} docs', rule: 'unanalysable: its word -rf${u} is only known at run time, and a command rule names rm' });
    expect((await app.service.invocations(id)).map((i) => [i.args.command, i.ok])).toEqual([['echo $HOME', true]]);
    expect(existsSync(await sandboxDocs(id))).toBe(true);
  });

  it('the operator can approve such a command, and it runs', async () => {
    const id = await planRunning('denyCommands: ["git push*"]\n', 'trusted', 'eval "$(echo touch made.txt)"');
    await app.service.run(id);
    expect((await app.service.approvals(id)).pending?.commandRule?.rule).toBe('unanalysable: eval runs a string built at run time');
    expect(await app.service.approve(id, { by: 'tester' })).toMatchObject({ phase: 'apply', processingState: 'queued' });
    expect(existsSync(path.join(await sandboxDocs(id), '..', 'made.txt'))).toBe(true);
  });

  it('without command rules, trusted runs such a command without asking', async () => {
    const id = await planRunning('', 'trusted', 'X=touch; $X made.txt');
    expect(await app.service.run(id)).toMatchObject({ phase: 'apply', processingState: 'queued' });
  });

  it('under supervised, approving every shell.run call does not cover a command no rule can check', async () => {
    const id = await planRunning('', 'supervised', 'touch one.txt', 'X=touch; $X two.txt');
    await app.service.run(id);
    expect((await app.service.approvals(id)).pending?.commandRule).toBeUndefined();
    await app.service.approve(id, { by: 'tester', all: true });
    const { pending } = await app.service.approvals(id);
    expect(pending).toMatchObject({ tool: 'shell.run', commandRule: { command: '$X two.txt' } });
  });

  it('restricted (with the shell allowed) refuses a command no rule can check', async () => {
    const id = await planRunning('', '{ base: restricted, allowShell: true }', 'X=rm; eval "$X -rf docs"');
    const plan = await app.service.run(id);
    expect(plan.processingState).toBe('errored');
    expect(plan.errorMessage).toContain('the restricted profile refuses it');
    expect((await failedCall(id))?.error).toMatchObject({ category: 'policy', commandRule: { command: 'eval $X -rf docs', rule: 'unanalysable: eval runs a string built at run time' } });
    expect(existsSync(await sandboxDocs(id))).toBe(true);
  });
});
