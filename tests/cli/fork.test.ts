// Fork and compare from the command line (README, "Checkpoints"): real processes, real bubblewrap,
// real SQLite, and an agent plan against the scripted model server. That the shared steps are not
// run again is read from what the runs recorded: the tool calls, the events and the files.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlanCompare } from '../../shared/plan-compare';
import type { StreamEvent } from '../../shared/events';
import type { ToolInvocation } from '../../shared/tool-calls';
import { openApp } from '../../main/app/open-app';
import { treeHash } from '../../main/engine/test-support/tree-hash';
import { fileWritingAgent, isStrategize, stepOf } from '../support/scripted-agent';
import { ScriptedModelServer } from '../support/scripted-model-server';
import { agents, agentsJson, startAgents } from './cli-harness';
import { agentPlanFile, createdPlan, ranPlan, scriptedModelEnv, scriptedPlanFile } from './plan-files';

const LONG = { timeout: 300_000 };

interface Shown {
  id: string;
  sandboxPath: string;
  phase: string;
  processingState: string;
  automationProfile: { name: string };
  agent?: { model: string | null };
  forkedFrom?: { planId: string; atStep: number; by: string };
  forks?: { planId: string; atStep: number }[];
  usage?: { inputTokens: number; outputTokens: number; steps: { decisionId: string | null; summary: string | null }[] };
}

const bases: string[] = [];
function workspace(): { base: string; home: string; project: string } {
  const base = mkdtempSync(join(tmpdir(), 'agents-fork-'));
  bases.push(base);
  const project = join(base, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# Demo\n');
  return { base, home: join(base, 'home'), project };
}
afterAll(() => {
  for (const base of bases) rmSync(base, { recursive: true, force: true });
});

const step = (name: string, tool: string, args: string) => [`  - step: ${name}`, '    tools:', `      - tool: ${tool}`, `        args: ${args}`];
const STEPS = [
  step('Write a', 'file.write', '{ path: a.txt, content: "a\\n" }'),
  // Appends: run twice, the log would say so.
  step('Log a run', 'shell.run', '{ command: "echo run >> log.txt" }'),
  step('Write c', 'file.write', '{ path: c.txt, content: "c\\n" }'),
];

const planFile = scriptedPlanFile;
const created = createdPlan;
const ran = (home: string, file: string, env: Record<string, string> = {}) => ranPlan<Shown>(home, file, env);

/** What the data directory recorded for a plan: its tool calls, its events and its steps' decision ids. */
async function recorded(home: string, planId: string): Promise<{ calls: ToolInvocation[]; events: StreamEvent[]; steps: string[] }> {
  const app = await openApp({ dataDir: home });
  try {
    const { service } = app;
    const steps = (await service.decisions(planId)).filter((d) => d.type === 'strategy_choice').sort((a, b) => a.order - b.order).map((d) => d.id);
    return { calls: await service.stores.invocations.listForPlan(planId), events: await service.stores.events.list(planId, 0, 100_000), steps };
  } finally {
    app.close();
  }
}

/** The decisions whose calls started in the plan's own runs (tool_call_started events). */
const startedIn = (events: StreamEvent[]): string[] => [...new Set(events.filter((e) => e.type === 'tool_call_started').map((e) => (e.data as { decisionId: string | null }).decisionId ?? ''))];

describe('agents plan fork', () => {
  it('forks with another profile: the shared step is not run again, the new profile governs the rest', LONG, async () => {
    const { base, home, project } = workspace();
    const origin = await ran(home, planFile(base, project, 'origin', STEPS));
    const originHash = treeHash(origin.sandboxPath);
    const before = await recorded(home, origin.id);

    const fork = await agents(['plan', 'fork', origin.id, '--at-step', '2', '--profile', 'supervised'], home);
    expect(fork.code, fork.stderr).toBe(0);
    const forkId = fork.stdout.trim();
    expect(forkId).toMatch(/^[0-9A-Z]{26}$/);
    const shown = await agentsJson<Shown>(['plan', 'show', forkId], home);
    expect(shown).toMatchObject({ phase: 'execute', processingState: 'queued', automationProfile: { name: 'supervised' }, forkedFrom: { planId: origin.id, atStep: 2 } });
    expect((await agentsJson<Shown>(['plan', 'show', origin.id], home)).forks).toEqual([expect.objectContaining({ planId: forkId, atStep: 2 })]);
    const text = await agents(['plan', 'show', forkId], home);
    expect(text.stdout).toContain(`forked:     from plan ${origin.id} at step 2 by `);
    expect((await agents(['plan', 'show', origin.id], home)).stdout).toContain(`fork:       plan ${forkId} at step 2 by `);
    // Made from the checkpoint of step 2: step 1's file, no log yet.
    expect(readdirSync(shown.sandboxPath).sort()).toEqual(['README.md', 'a.txt']);

    // Under supervised, shell.run waits for the operator: the new profile governs step 2.
    const run = await agents(['plan', 'run', forkId], home);
    expect(run.code, run.stderr).toBe(3);
    const approved = await agents(['plan', 'approve', forkId], home);
    expect(approved.code, approved.stderr).toBe(0);
    expect((await agentsJson<Shown>(['plan', 'show', forkId], home)).phase).toBe('apply');
    expect(readFileSync(join(shown.sandboxPath, 'log.txt'), 'utf8')).toBe('run\n');
    expect(readdirSync(shown.sandboxPath).sort()).toEqual(['README.md', 'a.txt', 'c.txt', 'log.txt']);

    // Step 1's call is the origin's, copied with its time; no call of it started in the fork's runs.
    const after = await recorded(home, forkId);
    expect(startedIn(after.events).sort()).toEqual([after.steps[1], after.steps[2]].sort());
    const step1 = after.calls.filter((c) => c.decisionId === after.steps[0]);
    expect(step1.map((c) => [c.tool, c.startedAt])).toEqual(before.calls.filter((c) => c.decisionId === before.steps[0]).map((c) => [c.tool, c.startedAt]));
    expect(after.events.filter((e) => e.type === 'plan_forked').map((e) => e.data)).toEqual([
      expect.objectContaining({ forkId, from: origin.id, atStep: 2, sharedSteps: 1, sharedEntries: 1, changes: { profile: 'supervised' } }),
    ]);
    // The origin is as it was.
    expect(treeHash(origin.sandboxPath)).toBe(originHash);
    expect((await recorded(home, origin.id)).calls).toHaveLength(before.calls.length);
  });

  it('forks with other steps from a plan file, and compare sets the fork beside its origin', LONG, async () => {
    const { base, home, project } = workspace();
    const origin = await ran(home, planFile(base, project, 'origin', STEPS));
    const steps = planFile(base, project, 'other-steps', [step('Write A instead', 'file.write', '{ path: a.txt, content: "A\\n" }'), step('Write d', 'file.write', '{ path: d.txt, content: "d\\n" }')]);

    const fork = await agents(['plan', 'fork', origin.id, '--at-step', '3', '--file', steps], home);
    expect(fork.code, fork.stderr).toBe(0);
    const forkId = fork.stdout.trim();
    const run = await agents(['plan', 'run', forkId], home);
    expect(run.code, run.stderr).toBe(0);
    const tree = await agents(['plan', 'tree', forkId], home);
    expect(tree.stdout).toMatch(/✓ Write a[\s\S]*✓ Log a run[\s\S]*✓ Write A instead[\s\S]*✓ Write d/);
    expect(tree.stdout).not.toContain('Write c');
    const shown = await agentsJson<Shown>(['plan', 'show', forkId], home);
    expect(readFileSync(join(shown.sandboxPath, 'log.txt'), 'utf8')).toBe('run\n');
    expect(readFileSync(join(shown.sandboxPath, 'a.txt'), 'utf8')).toBe('A\n');
    expect(existsSync(join(shown.sandboxPath, 'c.txt'))).toBe(false);
    const after = await recorded(home, forkId);
    expect(after.steps).toHaveLength(4);
    // Only the two new steps ran in the fork.
    expect(startedIn(after.events).sort()).toEqual(after.steps.slice(2).sort());

    const compared = await agentsJson<PlanCompare>(['plan', 'compare', origin.id, forkId], home);
    expect(compared.projectPath).toBe(project);
    expect(compared.onlyA).toEqual(['c.txt']);
    expect(compared.onlyB).toEqual(['d.txt']);
    expect(compared.both.map((f) => [f.path, f.same])).toEqual([['a.txt', false], ['log.txt', true]]);
    const a = compared.both[0];
    expect(a.hunks?.[0].rows.map((r) => `${r.kind}:${r.text}`)).toEqual(['del:a', 'add:A']);
    expect(a.diff).toContain('--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-a\n+A');
    expect(compared.a).toMatchObject({ planId: origin.id, stepsDone: 3, steps: 3, toolCalls: 3, inputTokens: 0, outputTokens: 0, cost: null });
    // The fork counts its two shared steps' calls and the two it made.
    expect(compared.b).toMatchObject({ planId: forkId, stepsDone: 4, steps: 4, toolCalls: 4 });
    expect(compared.a.files.map((f) => f.path)).toEqual(['a.txt', 'c.txt', 'log.txt']);
    expect(compared.b.durationMs).toBeGreaterThan(0);

    const text = await agents(['plan', 'compare', origin.id, forkId], home);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`changed only by ${origin.id}:\n  A c.txt (+1 -0)`);
    expect(text.stdout).toContain(`changed only by ${forkId}:\n  A d.txt (+1 -0)`);
    expect(text.stdout).toMatch(/steps done +3 of 3 +4 of 4/);
    expect(text.stdout).toContain('-a\n+A');
  });

  it('refuses bad input with exit 2 and one line, and changes nothing', LONG, async () => {
    const { base, home, project } = workspace();
    const file = planFile(base, project, 'bad-input', STEPS);
    const fresh = await created(home, file);
    const origin = await ran(home, file);
    const other = join(base, 'other');
    mkdirSync(other);
    const elsewhere = await ran(home, planFile(base, other, 'elsewhere', [STEPS[0]]));
    const slow = await created(home, planFile(base, project, 'slow', [STEPS[0], step('Wait', 'shell.run', '{ command: "sleep 60" }')]));
    const running = startAgents(['plan', 'run', slow], home);
    const ended = new Promise((resolve) => running.on('close', resolve));
    for (let i = 0; i < 400; i++) {
      const s = await agentsJson<Shown>(['plan', 'show', slow], home);
      if (s.processingState === 'processing' && s.phase === 'execute') break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }

    const plans = async () => (await agentsJson<{ plans: { id: string }[] }>(['plan', 'list'], home)).plans.length;
    const count = await plans();
    const sandboxes = readdirSync(join(home, 'sandboxes')).sort();
    const hash = treeHash(origin.sandboxPath);
    // First, while the slow plan's step runs in the other process.
    const refused = await agents(['plan', 'fork', slow, '--at-step', '1'], home);
    const held = (before: string) => `error: plan ${slow} is Running; stop it first (Pause in the console, or Ctrl-C in the terminal that runs it), or wait for it to end, before ${before}`;
    expect([refused.code, refused.stderr.trim()]).toEqual([2, held('forking')]);
    // Rewind and discard from a second terminal say the same: what the CLI can do, in the status's own word.
    for (const [args, before] of [[['rewind', slow, '--to-step', '1', '--yes'], 'rewinding'], [['discard', slow], 'discarding']] as const) {
      const result = await agents(['plan', ...args], home);
      expect([result.code, result.stderr.trim()]).toEqual([2, held(before)]);
    }
    running.kill('SIGKILL');
    await ended;
    for (const [args, message] of [
      [['fork', origin.id, '--at-step', '4'], `error: atStep: 4 is out of range: plan ${origin.id} has steps 1 to 3`],
      [['fork', origin.id, '--at-step', '0'], 'error: --at-step: must be a step number (1, 2, ...), not "0"'],
      [['fork', fresh, '--at-step', '1'], `error: plan ${fresh} has no checkpoint yet; one is recorded as each step starts`],
      [['fork', origin.id, '--at-step', '2', '--model', 'openai-compatible:other'], `error: model: plan ${origin.id} is not an agent plan; only an agent plan has a model`],
      [['fork', origin.id, '--at-step', '2', '--profile', 'reckless'], 'error: profile: "reckless" is neither a profile (manual, restricted, supervised, trusted, full-auto) nor a file'],
      [['compare', origin.id, elsewhere.id], `error: plans: plan ${origin.id} is over ${project} and plan ${elsewhere.id} over ${other}; compare needs two plans over the same project`],
    ] as const) {
      const result = await agents(['plan', ...args], home);
      expect({ args, code: result.code, stderr: result.stderr.trim().split('\n') }).toEqual({ args, code: 2, stderr: [message] });
    }
    expect(await plans()).toBe(count);
    expect(readdirSync(join(home, 'sandboxes')).sort()).toEqual(sandboxes);
    expect(treeHash(origin.sandboxPath)).toBe(hash);
    expect((await agentsJson<Shown>(['plan', 'show', origin.id], home)).forks ?? []).toEqual([]);
  });

  describe('an agent plan', () => {
    const server = new ScriptedModelServer();
    beforeAll(() => server.start());
    afterAll(() => server.close());

    it('forks with another model: the fork is told the summaries of the shared steps and runs only the rest', LONG, async () => {
      const { base, home, project } = workspace();
      const env = scriptedModelEnv(server);
      server.respondWith(fileWritingAgent({ 'A.md': 'a\n', 'B.md': 'b\n', 'C.md': 'c\n' }));
      const origin = await ran(home, agentPlanFile(base, project), env);

      const fork = await agents(['plan', 'fork', origin.id, '--at-step', '2', '--model', 'openai-compatible:other'], home, env);
      expect(fork.code, fork.stderr).toBe(0);
      const forkId = fork.stdout.trim();
      const shown = await agentsJson<Shown>(['plan', 'show', forkId], home);
      expect(shown.agent?.model).toBe('openai-compatible:other');
      // The conversation is the checkpoint's: the summary of step 1 only.
      expect(shown.usage?.steps.map((s) => s.summary).filter(Boolean)).toEqual(['Wrote A.md and read it back.']);
      // And so are the tokens: those used before step 2 started.
      const { checkpoints } = await agentsJson<{ checkpoints: { step: number; inputTokens: number; outputTokens: number }[] }>(['plan', 'checkpoints', origin.id], home);
      const at2 = checkpoints.find((c) => c.step === 2);
      expect(at2?.inputTokens).toBeGreaterThan(0);
      expect([shown.usage?.inputTokens, shown.usage?.outputTokens]).toEqual([at2?.inputTokens, at2?.outputTokens]);
      expect(readdirSync(shown.sandboxPath).sort()).toEqual(['A.md', 'README.md']);

      server.reset();
      server.respondWith(fileWritingAgent({ 'A.md': 'a\n', 'B.md': 'b\n', 'C.md': 'c\n' }));
      const run = await agents(['plan', 'run', forkId], home, env);
      expect(run.code, run.stderr).toBe(0);
      // No strategize and no step 1: only steps 2 and 3 went to the model, and to the fork's model.
      expect(server.requests.some(isStrategize)).toBe(false);
      expect([...new Set(server.requests.map(stepOf))]).toEqual([expect.stringContaining('B.md'), expect.stringContaining('C.md')]);
      expect(new Set(server.requests.map((r) => r.model))).toEqual(new Set(['other']));
      const step2 = JSON.stringify(server.requests.find((r) => stepOf(r)?.includes('B.md'))?.messages);
      expect(step2).toContain('Wrote A.md and read it back.');
      expect(readdirSync(shown.sandboxPath).sort()).toEqual(['A.md', 'B.md', 'C.md', 'README.md']);
      const after = await recorded(home, forkId);
      expect(startedIn(after.events).sort()).toEqual(after.steps.slice(1).sort());
    });
  });
});
