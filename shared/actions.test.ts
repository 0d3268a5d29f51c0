import { describe, expect, it } from 'vitest';
import { type ActionId, NextStepSchema } from './action-ids';
import { ACTION_IDS, ACTIONS, actionList, allowed, commandLine, TOOLBAR_ACTIONS } from './actions';
import type { PlanFacts } from './action-rules';
import type { Phase, ProcessingState } from './domain';

const facts = (phase: Phase, processingState: ProcessingState, more: Partial<PlanFacts> = {}): PlanFacts => {
  const running = processingState === 'processing';
  return { id: 'P1', phase, processingState, projectPath: '/p', agent: false, running, runHere: running, pendingApproval: false, failedStep: false, steps: 2, hasTree: true, missingSandbox: null, checkpoints: 0, partlyApplied: false, ...more };
};
const toolbar = (plan: PlanFacts): ActionId[] => TOOLBAR_ACTIONS.filter((action) => allowed(action, plan).allowed);

describe('the action rules', () => {
  it('offer Run and Step (start in step mode) on a queued plan before apply', () => {
    expect(toolbar(facts('strategize', 'queued', { steps: 0, hasTree: false }))).toEqual(['run', 'step', 'discard']);
    expect(toolbar(facts('execute', 'queued'))).toEqual(['run', 'step', 'discard']);
  });

  it('offer Step, Continue and Pause while this process runs the plan, and no Discard', () => {
    expect(toolbar(facts('execute', 'processing'))).toEqual(['step', 'continue', 'pause']);
  });

  it('offer Step and Continue to a run paused in step mode, not Pause or Discard', () => {
    expect(toolbar(facts('execute', 'paused', { running: true, runHere: true }))).toEqual(['step', 'continue']);
    expect(allowed('pause', facts('execute', 'paused', { running: true, runHere: true }))).toMatchObject({ reason: 'plan P1 is Paused; pause needs a plan that is Running' });
  });

  it('say that a run of another process is not this one to step', () => {
    expect(allowed('continue', facts('execute', 'processing', { runHere: false }))).toEqual({ allowed: false, reason: 'plan P1 is not running in this process', code: 'not_running' });
  });

  it('let a plan that waits for an answer be answered or discarded, nothing else', () => {
    const waiting = facts('execute', 'paused', { waitingFor: 'approval', pendingApproval: true });
    expect(toolbar(waiting)).toEqual(['discard']);
    expect(allowed('approve', waiting).allowed).toBe(true);
    expect(allowed('run', waiting)).toMatchObject({ reason: 'plan P1 is Waiting for approval; run needs a plan that is Ready to run; approve or reject the waiting call first' });
    expect(allowed('approve', facts('execute', 'queued'))).toMatchObject({ reason: 'plan P1 has no call waiting for approval (it is Ready to run)' });
  });

  it('offer Retry and Reset on an errored plan, and say Retry where Run is refused', () => {
    const failed = facts('execute', 'errored', { failedStep: true });
    expect(toolbar(failed)).toEqual(['retry', 'reset', 'discard']);
    expect(allowed('run', failed)).toMatchObject({ reason: 'plan P1 is Failed; run needs a plan that is Ready to run; retry it to go on from the failed step' });
    expect(allowed('skip', failed).allowed).toBe(true);
    expect(allowed('correct', failed)).toMatchObject({ code: 'not_agent' });
    expect(allowed('correct', { ...failed, agent: true }).allowed).toBe(true);
  });

  it('point a plan whose checks failed to Run checks and, an agent plan, to Ask the agent, where Run and Retry are refused', () => {
    const checksFailed = facts('apply', 'errored', { errorDetails: { category: 'verification' } });
    const again = 'fix the cause and run the checks again';
    expect(allowed('run', checksFailed)).toMatchObject({ reason: `plan P1 is Checks failed; run needs a plan that is Ready to run; ${again}` });
    expect(allowed('retry', checksFailed)).toMatchObject({ reason: `plan P1's checks failed; ${again}` });
    expect(allowed('run', { ...checksFailed, agent: true })).toMatchObject({ reason: `plan P1 is Checks failed; run needs a plan that is Ready to run; ${again}, or ask the agent to fix it` });
    expect(allowed('run', facts('apply', 'errored'))).toMatchObject({ reason: expect.stringMatching(/; resolve the conflicts, then apply again$/) });
  });

  it('offer Apply when the plan waits in the apply phase, or failed to apply (but not Retry)', () => {
    expect(toolbar(facts('apply', 'queued'))).toEqual(['apply', 'discard']);
    expect(toolbar(facts('apply', 'errored'))).toEqual(['reset', 'apply', 'discard']);
    expect(allowed('retry', facts('apply', 'errored'))).toMatchObject({ reason: 'plan P1 failed to apply; resolve the conflicts, then apply again' });
    expect(allowed('apply', facts('execute', 'queued'))).toMatchObject({ code: 'wrong_phase', reason: 'plan P1 is Ready to run; apply needs a plan that is Ready to apply or Failed' });
  });

  it('offer no Apply to a plan without a project directory, and say why', () => {
    expect(allowed('apply', facts('apply', 'queued', { projectPath: null }))).toEqual({ allowed: false, code: 'no_project', reason: 'plan P1 has no project directory to apply to' });
  });

  it('offer nothing that changes a finished plan', () => {
    for (const done of [facts('apply', 'complete'), facts('execute', 'cancelled')]) {
      // Reading only: the errors, and a comparison with another run.
      expect(ACTION_IDS.filter((a) => allowed(a, done).allowed)).toEqual(['compare', 'show_errors']);
    }
  });

  it('offer Rewind to a stopped plan with a checkpoint before it is applied, and say why not otherwise', () => {
    expect(allowed('rewind', facts('apply', 'queued', { checkpoints: 2 })).allowed).toBe(true);
    expect(allowed('rewind', facts('execute', 'errored', { checkpoints: 1, failedStep: true })).allowed).toBe(true);
    expect(allowed('rewind', facts('execute', 'processing', { checkpoints: 2 }))).toMatchObject({ reason: 'plan P1 is Running; stop it first (Pause in the console, or Ctrl-C in the terminal that runs it), or wait for it to end, before rewinding' });
    expect(allowed('rewind', facts('apply', 'complete', { checkpoints: 2 }))).toMatchObject({
      reason: 'plan P1 is Applied; rewind needs a plan that is Ready to run or Failed or Interrupted or Ready to apply',
    });
    expect(allowed('rewind', facts('apply', 'queued', { checkpoints: 2, partlyApplied: true }))).toMatchObject({
      reason: 'plan P1 is partly applied; a rewind would leave the project and the changeset apart (apply the rest, or discard it)',
    });
    expect(allowed('rewind', facts('execute', 'queued'))).toMatchObject({ reason: 'plan P1 has no checkpoint yet; one is recorded as each step starts' });
    expect(allowed('rewind', facts('execute', 'paused', { waitingFor: 'approval', pendingApproval: true, checkpoints: 1 }))).toMatchObject({
      reason: 'plan P1 is Waiting for approval; approve or reject the waiting call first',
    });
  });

  it('offer Fork from a checkpoint of a plan no run holds, whatever else it is doing, and say why not otherwise', () => {
    expect(allowed('fork', facts('apply', 'queued', { checkpoints: 2 })).allowed).toBe(true);
    expect(allowed('fork', facts('execute', 'paused', { waitingFor: 'approval', pendingApproval: true, checkpoints: 1 })).allowed).toBe(true);
    // The fork is made from the checkpoint's files: the origin's own sandbox need not be there.
    expect(allowed('fork', facts('execute', 'errored', { checkpoints: 1, missingSandbox: '/gone' })).allowed).toBe(true);
    expect(allowed('fork', facts('execute', 'processing', { checkpoints: 2 }))).toMatchObject({ reason: 'plan P1 is Running; stop it first (Pause in the console, or Ctrl-C in the terminal that runs it), or wait for it to end, before forking' });
    expect(allowed('fork', facts('execute', 'queued'))).toMatchObject({ reason: 'plan P1 has no checkpoint yet; one is recorded as each step starts' });
    expect(commandLine('P1', { action: 'fork', args: { atStep: 3 } })).toBe('agents plan fork P1 --at-step 3');
    expect(commandLine('P1', { action: 'compare', args: { with: 'P2' } })).toBe('agents plan compare P1 P2');
  });

  it('while a rewind is unfinished, allow only the rewind again (to finish it), discard and reading', () => {
    const unfinished = facts('apply', 'queued', { checkpoints: 3, rewindPending: 2 });
    expect(ACTION_IDS.filter((id) => allowed(id, unfinished).allowed)).toEqual(['discard', 'rewind', 'compare', 'show_errors']);
    for (const id of ['apply', 'verify', 'run', 'correct', 'fork'] as const) {
      expect(allowed(id, unfinished)).toEqual({ allowed: false, code: 'wrong_state', reason: 'plan P1 has an unfinished rewind; finish it by rewinding to before step 2 again, or discard the plan' });
    }
    // Under way in another process: wait for it.
    expect(allowed('apply', { ...unfinished, running: true })).toMatchObject({ reason: 'plan P1 is being rewound; wait for the rewind to finish' });
  });

  it('list every action with its reason, as plan show --json does', () => {
    const list = actionList(facts('execute', 'queued'));
    expect(list.map((a) => a.id)).toEqual(ACTION_IDS);
    expect(list.find((a) => a.id === 'retry')).toEqual({ id: 'retry', allowed: false, reason: 'plan P1 is Ready to run; retry needs a plan that is Failed or Interrupted' });
  });
});

describe('next steps', () => {
  it('are written as commands from the action table, with placeholders for what the operator supplies', () => {
    expect(commandLine('P1', { action: 'retry', args: {} })).toBe('agents plan retry P1');
    expect(commandLine('P1', { action: 'skip', args: { step: 2 } })).toBe('agents plan skip P1 --step 2');
    expect(commandLine('P1', { action: 'edit_step', args: {} })).toBe('agents plan edit-step P1 --step N --file step.yaml');
    expect(commandLine('P1', { action: 'set_profile', args: { profile: 'trusted' } })).toBe('agents plan profile P1 trusted');
    expect(commandLine('P1', { action: 'correct', args: {} })).toBe('agents plan correct P1 --note "what to do differently"');
    expect(commandLine('P1', { action: 'show_errors', args: {} })).toBe('agents plan errors P1');
    expect(commandLine('P1', { action: 'pause', args: {} })).toBeNull();
    expect(commandLine('P1', { action: 'rewind', args: { toStep: 2 } })).toBe('agents plan rewind P1 --to-step 2');
  });

  it('hold an action and its arguments, never a command', () => {
    expect(NextStepSchema.safeParse({ action: 'retry', args: {}, message: 'm' }).success).toBe(true);
    expect(NextStepSchema.safeParse({ action: 'agents plan retry P1', args: {}, message: 'm' }).success).toBe(false);
  });

  it('each action has a label, a description and an argument schema', () => {
    for (const id of ACTION_IDS) {
      const spec = ACTIONS[id];
      expect(spec.id).toBe(id);
      expect(spec.label.length * spec.description.length).toBeGreaterThan(0);
      expect(typeof spec.args.safeParse).toBe('function');
    }
  });
});
