import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../../shared/profiles';
import { EngineError } from '../errors';
import { serverFailure } from '../mcp/launch';
import { SignInGate } from './sign-in-gate';
import { InMemoryApprovalStore, inMemoryLifecycle } from '../test-support/in-memory-stores';
import { pendingApprovalId } from '../test-support/pending-approval';

async function gate(profile: 'supervised' | 'full-auto' = 'supervised') {
  const lifecycle = inMemoryLifecycle();
  const approvals = new InMemoryApprovalStore();
  const plan = await lifecycle.createPlan({ name: 'p', definitionOfDone: ['x'], automationProfile: resolveProfile(profile) });
  return { approvals, planId: plan.id, gate: new SignInGate(approvals, lifecycle.events, plan.id, plan.automationProfile) };
}

const step = { id: 'S1', description: 'File the bug' };
/** How connectMcpServer fails for a server that wants a sign-in. */
const needsSignIn = () => Promise.reject(serverFailure('tracker', 'MCP server "tracker": did not start: HTTP 401', 'tool', { signIn: true }));

describe('a plan whose MCP server needs a sign-in', () => {
  it('waits with "Sign in to NAME", waits on the same approval while unanswered, and goes on (using the answer up) once it is approved', async () => {
    const { approvals, planId, gate: g } = await gate();
    const asked = await pendingApprovalId(() => g.started(step, needsSignIn));
    expect(await approvals.get(asked)).toMatchObject({ kind: 'signin', tool: 'tracker', decisionId: 'S1', description: 'Sign in to tracker', status: 'pending' });
    expect((await approvals.get(asked))?.rationale).toContain('run agents mcp login tracker');
    expect(await pendingApprovalId(() => g.started(step, needsSignIn))).toBe(asked);
    await approvals.update(asked, { status: 'approved' });
    let started = 0;
    await g.started(step, async () => void started++);
    expect(started).toBe(1);
    expect((await approvals.get(asked))?.usedAt).not.toBeNull();
    // A later need of a sign-in asks again.
    expect(await pendingApprovalId(() => g.started(step, needsSignIn))).not.toBe(asked);
    expect((await approvals.listForPlan(planId)).filter((a) => a.kind === 'signin')).toHaveLength(2);
  });

  it('fails the step when the sign-in is rejected, and passes any other failure on', async () => {
    const { approvals, gate: g } = await gate();
    const asked = await pendingApprovalId(() => g.started(step, needsSignIn));
    await approvals.update(asked, { status: 'rejected', answeredBy: 'ada', reason: 'no account there' });
    await expect(g.started(step, needsSignIn)).rejects.toMatchObject({ category: 'rejected', message: 'ada did not sign in to the MCP server "tracker": no account there' });
    const other = new EngineError('MCP server "files": did not start', 'tool', { server: 'files' });
    await expect(g.started(step, () => Promise.reject(other))).rejects.toBe(other);
  });

  it('under full-auto asks nobody: the failure, naming the command, fails the step', async () => {
    const { approvals, planId, gate: g } = await gate('full-auto');
    await expect(g.started(step, needsSignIn)).rejects.toMatchObject({ details: { signIn: true, server: 'tracker' } });
    expect(await approvals.listForPlan(planId)).toEqual([]);
  });
});
