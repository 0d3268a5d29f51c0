import { planCheckpoints } from './checkpoints';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { gitIn as git, makeBareRepo } from '../../engine/test-support/git-repos';
import { sandboxExecutorFactory } from '../executor-factory';
import { planYaml } from '../test-support';
import { planApplying } from './applying';
import { planAuthoring } from './authoring';
import { planFixing } from './fixing';
import { planReading } from './reading';
import { planRunning } from './running';
import { useCaseHarness } from './test-support';

describe('applying a plan whose project is a git repository', () => {
  let h: ReturnType<typeof useCaseHarness>;
  afterEach(() => h.dispose());

  const gitPlanYaml = (url: string, ref = 'main') =>
    planYaml('unused', { steps: 2 }).replace('project: "unused"', `project: { git: ${JSON.stringify(url)}, ref: ${ref} }`);
  const running = () => planRunning(h.ctx, h.runs, sandboxExecutorFactory(h.ctx, h.verifying.checkStep), h.verifying.verifyPass);

  /** A plan from a file:// repository, run: its sandbox a clone, its base commit recorded. */
  const ranGitPlan = async () => {
    h = useCaseHarness();
    const repo = makeBareRepo(h.root);
    const plan = await planAuthoring(h.ctx).createFromContent({ content: gitPlanYaml(repo.url) }, h.root);
    await running().run(plan.id);
    const ran = await h.ctx.get(plan.id);
    expect(ran.phase).toBe('apply');
    expect(ran.projectSource).toEqual({ git: repo.url, ref: 'main', baseCommit: repo.head });
    expect(existsSync(path.join(ran.sandboxRefs[0]!, '.git'))).toBe(true);
    return { repo, plan, baseCommit: repo.head, applying: planApplying(h.ctx, h.runs, planReading(h.ctx), h.verifying) };
  };

  it('fails a plan whose repository cannot be cloned as project_unreachable, with a hint naming the URL, and can be retried', async () => {
    h = useCaseHarness();
    const missing = path.join(h.root, 'later');
    const url = pathToFileURL(path.join(missing, 'origin.git')).href;
    const plan = await planAuthoring(h.ctx).createFromContent({ content: gitPlanYaml(url) }, h.root);
    const run = running();
    await run.run(plan.id);
    const failed = await h.ctx.get(plan.id);
    expect(failed.processingState).toBe('errored');
    expect(failed.errorDetails).toMatchObject({ category: 'project_unreachable', next: { action: 'retry' } });
    expect(failed.errorMessage).toContain(`cannot clone ${url} at main: `);
    expect(String(failed.errorDetails.hint)).toContain(url);
    expect(failed.sandboxRefs).toEqual([]);

    // The repository appears: a retry clones it and runs the plan.
    mkdirSync(missing);
    const repo = makeBareRepo(missing);
    await planFixing(h.ctx, h.runs, run.run, h.verifying, planCheckpoints(h.ctx, h.runs)).retry(plan.id);
    expect(await h.ctx.get(plan.id)).toMatchObject({ phase: 'apply', processingState: 'queued', projectSource: { baseCommit: repo.head } });
  });

  it('keeps a plan file\'s { git, ref } as the plan\'s project source, with no folder', async () => {
    h = useCaseHarness();
    const content = ['name: team', 'project: { git: "https://git.example/team/demo.git", ref: main }', 'definitionOfDone: "- done"', ''].join('\n');
    const plan = await planAuthoring(h.ctx).createFromContent({ content }, h.root);
    expect(plan.projectPath).toBeNull();
    expect((await h.ctx.get(plan.id)).projectSource).toEqual({ git: 'https://git.example/team/demo.git', ref: 'main', baseCommit: null });
  });

  it('asks for a target, then writes into a local clone (a conflict first) and completes the plan', async () => {
    const { repo, plan, applying } = await ranGitPlan();
    await expect(applying.apply(plan.id)).rejects.toThrow(`project: plan ${plan.id}'s project is the git repository ${repo.url}: give --project DIR (a local clone) or --branch NAME`);

    const mine = path.join(h.root, 'operator-clone');
    git(h.root, 'clone', '-q', repo.url, mine);
    // The operator made out/1.txt in their clone: the plan's base had none.
    mkdirSync(path.join(mine, 'out'));
    writeFileSync(path.join(mine, 'out/1.txt'), 'mine');
    const conflict = await applying.apply(plan.id, { project: mine });
    expect(conflict.conflicts.map((c) => c.path)).toEqual(['out/1.txt']);
    expect(conflict.complete).toBe(false);
    expect(existsSync(path.join(mine, 'out/2.txt'))).toBe(false);

    const clean = path.join(h.root, 'clean-clone');
    git(h.root, 'clone', '-q', repo.url, clean);
    const done = await applying.apply(plan.id, { project: clean });
    expect(done).toMatchObject({ applied: ['out/1.txt', 'out/2.txt'], conflicts: [], complete: true });
    expect(readFileSync(path.join(clean, 'out/2.txt'), 'utf8')).toBe('2');
    expect((await h.ctx.get(plan.id)).processingState).toBe('complete');
  });

  it('refuses a folder that is not a clone of the repository', async () => {
    const { plan, applying } = await ranGitPlan();
    const other = path.join(h.root, 'other');
    git(h.root, 'init', '-q', other);
    await expect(applying.apply(plan.id, { project: other })).rejects.toThrow(/^--project: .* is not a clone of file:/);
    expect((await h.ctx.get(plan.id)).phase).toBe('apply');
  });

  it('commits to a new branch, pushes it, and refuses a branch that exists', async () => {
    const { repo, plan, baseCommit, applying } = await ranGitPlan();
    await expect(applying.apply(plan.id, { branch: 'main' })).rejects.toThrow(`--branch: ${repo.url} has a branch main already; choose another name`);
    const result = await applying.apply(plan.id, { branch: 'agents/host-test', author: 'Ada Operator' });
    expect(result).toMatchObject({ applied: ['out/1.txt', 'out/2.txt'], complete: true, branch: { name: 'agents/host-test', url: repo.url } });
    expect(git(repo.bare, 'ls-remote', repo.bare, 'refs/heads/agents/host-test')).toBe(`${result.branch?.commit}\trefs/heads/agents/host-test`);
    expect(git(repo.bare, 'show', 'agents/host-test:out/2.txt')).toBe('2');
    expect(git(repo.bare, 'log', '-1', '--format=%an|%s|%P', 'agents/host-test')).toBe(`Ada Operator|host-test|${baseCommit}`);
    expect((await h.ctx.get(plan.id)).processingState).toBe('complete');
  });
});
