// Automatic retries under a profile that asks for approval: one approval covers the retries of its
// call, and each step counts its own attempts against its own allowance. Real shell commands in a
// real sandbox directory; the stores are the engine's in-memory test stores.
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type AutomationProfile, resolveProfile } from '../../shared/profiles';
import type { ToolCallSpec } from '../../shared/tool-calls';
import { ApprovalGate } from './gates/approval-gate';
import { pendingApproval } from './ports/approvals';
import { ErrorRecoveryService } from './run/error-recovery-service';
import { ApprovalPending } from './errors';
import { PlanExecutionContext } from './run/execution-context';
import { PlanExecutor } from './run/plan-executor';
import { InMemoryApprovalStore, InMemoryChangeSetStore, InMemoryErrorLog, InMemoryInvocationLog, inMemoryLifecycle } from './test-support/in-memory-stores';
import { ToolRegistry, ToolRunner } from './run/tool-runner';
import { registerBuiltinTools } from './tools';
import { cleanupTempDirs, tempDir } from './tools/test-support';

afterEach(cleanupTempDirs);

/** A command that exits 75 (EX_TEMPFAIL) its first `failures` times, counting in `counter`. */
const flaky = (counter: string, failures: number): ToolCallSpec => ({
  tool: 'shell.run',
  args: { command: `n=$(cat ${counter} 2>/dev/null || echo 0); n=$((n+1)); echo "$n" > ${counter}; [ "$n" -gt ${failures} ] || exit 75` },
});

async function setup(steps: { step: string; tools: ToolCallSpec[] }[], profile: AutomationProfile) {
  const sandbox = realpathSync(tempDir('agents-retry-'));
  const lifecycle = inMemoryLifecycle();
  const approvals = new InMemoryApprovalStore();
  const log = new InMemoryErrorLog();
  const plan = await lifecycle.createPlan({ name: 'retries', definitionOfDone: steps, automationProfile: profile });
  const executor = new PlanExecutor({
    lifecycleService: lifecycle,
    toolRunner: new ToolRunner(registerBuiltinTools(new ToolRegistry()), new InMemoryInvocationLog()),
    executionContext: new PlanExecutionContext({ planId: plan.id, sandboxRoot: sandbox, changesetStore: new InMemoryChangeSetStore() }),
    errorRecoveryService: new ErrorRecoveryService(log, lifecycle, { baseDelayMs: 1 }),
    sleep: async () => undefined,
  });
  let asked = 0;
  /** One run as the app starts it (a new gate per run), resumed where an answered approval stopped it. */
  const run = async (resumeAt?: { decisionId: string; callIndex: number }): Promise<'waiting' | 'done' | 'failed'> => {
    const gate = new ApprovalGate(approvals, lifecycle.events, plan.id, profile, sandbox);
    try {
      await executor.runExecute(plan.id, { gate, resumeAt });
      return 'done';
    } catch (error) {
      if (error instanceof ApprovalPending) {
        asked += 1;
        return 'waiting';
      }
      return 'failed';
    }
  };
  /** The operator approves the call the plan waits for, and the run goes on from it. */
  const approve = async () => {
    const waiting = pendingApproval(await approvals.listForPlan(plan.id));
    if (!waiting?.decisionId || waiting.callIndex === null) throw new Error('no call waits for approval');
    await approvals.update(waiting.id, { status: 'approved', scope: 'once', answeredBy: 'operator', answeredAt: new Date().toISOString() });
    await lifecycle.transition(plan.id, 'queued');
    return run({ decisionId: waiting.decisionId, callIndex: waiting.callIndex });
  };
  return {
    sandbox,
    lifecycle,
    approvals,
    log,
    plan,
    asked: () => asked,
    start: async () => {
      await executor.runStrategize(plan.id);
      return run();
    },
    approve,
    steps: async () => (await lifecycle.listDecisions(plan.id)).filter((d) => d.type === 'strategy_choice'),
    attempts: () => log.records.map((r) => [r.attempt, r.outcome]),
  };
}

describe('automatic retry under supervised', () => {
  it('asks once for a command that exits 75 twice: the approval covers its automatic retries', async () => {
    const t = await setup([{ step: 'Sync', tools: [flaky('.sync', 2)] }], resolveProfile('supervised'));
    expect(await t.start()).toBe('waiting');
    expect(await t.approve()).toBe('done');
    expect(t.asked()).toBe(1);
    expect(await t.approvals.listForPlan(t.plan.id)).toHaveLength(1);
    expect(await t.lifecycle.getPlan(t.plan.id)).toMatchObject({ phase: 'apply', processingState: 'queued' });
    expect(t.attempts()).toEqual([
      [1, 'retried'],
      [2, 'retried'],
    ]);
    const retries = (await t.lifecycle.events.log.list(t.plan.id)).filter((e) => e.type === 'retry_scheduled');
    expect(retries.map((e) => e.data.attempt)).toEqual([2, 3]);
  });

  it('reaches the limit after one approval for a command that always exits 75', async () => {
    const t = await setup([{ step: 'Sync', tools: [flaky('.sync', 1000)] }], resolveProfile('supervised'));
    expect(await t.start()).toBe('waiting');
    expect(await t.approve()).toBe('failed');
    expect(t.asked()).toBe(1);
    expect(t.attempts()).toEqual([
      [1, 'retried'],
      [2, 'retried'],
      [3, 'retried'],
      [4, 'gave_up'],
    ]);
    expect(await t.lifecycle.getPlan(t.plan.id)).toMatchObject({ processingState: 'errored', errorDetails: { category: 'transient', retryCount: 3, maxRetries: 3 } });
  });

  it('asks again when a retried call has other arguments than the approved one', async () => {
    const sandbox = realpathSync(tempDir('agents-gate-'));
    const lifecycle = inMemoryLifecycle();
    const approvals = new InMemoryApprovalStore();
    const profile = resolveProfile('supervised');
    const plan = await lifecycle.createPlan({ name: 'gate', definitionOfDone: [{ step: 'Run', tools: [{ tool: 'shell.run', args: { command: 'true' } }] }], automationProfile: profile });
    await new PlanExecutor({ lifecycleService: lifecycle }).runStrategize(plan.id);
    const step = (await lifecycle.listDecisions(plan.id)).find((d) => d.type === 'strategy_choice');
    if (!step) throw new Error('no step');
    const gate = new ApprovalGate(approvals, lifecycle.events, plan.id, profile, sandbox);
    const call = { tool: 'shell.run', args: { command: 'true' } };
    await expect(gate.check(step, call, 0, 'exec')).rejects.toBeInstanceOf(ApprovalPending);
    const [request] = await approvals.listForPlan(plan.id);
    await approvals.update(request.id, { status: 'approved', scope: 'once', answeredBy: 'operator', answeredAt: new Date().toISOString() });
    await gate.check(step, call, 0, 'exec');
    await gate.check(step, { tool: 'shell.run', args: { command: 'true' } }, 0, 'exec');
    await expect(gate.check(step, { tool: 'shell.run', args: { command: 'rm -f x' } }, 0, 'exec')).rejects.toBeInstanceOf(ApprovalPending);
    // A new run (an operator's retry) asks again for the same call.
    const nextRun = new ApprovalGate(approvals, lifecycle.events, plan.id, profile, sandbox);
    await expect(nextRun.check(step, call, 0, 'exec')).rejects.toBeInstanceOf(ApprovalPending);
  });

  it('goes on counting a step\'s attempts when the run resumes it after an approval', async () => {
    const t = await setup([{ step: 'Two commands', tools: [flaky('.a', 1), flaky('.b', 1)] }], resolveProfile('supervised'));
    expect(await t.start()).toBe('waiting');
    expect(await t.approve()).toBe('waiting');
    expect(await t.approve()).toBe('done');
    expect(t.asked()).toBe(2);
    expect(t.attempts()).toEqual([
      [1, 'retried'],
      [2, 'retried'],
    ]);
    expect(existsSync(path.join(t.sandbox, '.b'))).toBe(true);
  });
});

describe('the retry allowance is per step', () => {
  it('counts a later step\'s first failure as its attempt 1, within its own allowance', async () => {
    const profile = { ...resolveProfile('trusted'), autoRetryTransient: 1 };
    const t = await setup(
      [
        { step: 'First', tools: [flaky('.first', 1)] },
        { step: 'Second', tools: [flaky('.second', 1)] },
      ],
      profile,
    );
    expect(await t.start()).toBe('done');
    const [first, second] = await t.steps();
    expect(t.log.records.map((r) => [r.decisionId, r.attempt, r.outcome])).toEqual([
      [first.id, 1, 'retried'],
      [second.id, 1, 'retried'],
    ]);
    const retries = (await t.lifecycle.events.log.list(t.plan.id)).filter((e) => e.type === 'retry_scheduled');
    expect(retries.map((e) => [e.data.decisionId, e.data.attempt])).toEqual([
      [first.id, 2],
      [second.id, 2],
    ]);
  });
});
