import { describe, expect, it } from 'vitest';
import type { Elicitation } from '../../../shared/elicitation';
import { resolveProfile } from '../../../shared/profiles';
import { ElicitationGate, stoppedForQuestion } from './elicitation-gate';
import { InMemoryApprovalStore, inMemoryLifecycle } from '../test-support/in-memory-stores';
import { pendingApprovalId } from '../test-support/pending-approval';

async function gate(profile: 'supervised' | 'full-auto' = 'supervised') {
  const lifecycle = inMemoryLifecycle();
  const approvals = new InMemoryApprovalStore();
  const plan = await lifecycle.createPlan({ name: 'p', definitionOfDone: ['x'], automationProfile: resolveProfile(profile) });
  return { approvals, gate: new ElicitationGate(approvals, lifecycle.events, plan.id, plan.automationProfile) };
}

const step = { id: 'S1', description: 'Ask' };
const question = (message: string): Elicitation => ({ server: 'srv', message, requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });

describe("a server's questions at the gate", () => {
  it('stops at each new question of a call, replays the answered ones when the call runs again, and uses them up once it ends', async () => {
    const { approvals, gate: g } = await gate();
    // First run: the first question waits.
    const first = await pendingApprovalId(() => g.forCall(step, 0, 'srv.ask').ask(question('Who?')));
    expect(await approvals.get(first)).toMatchObject({ kind: 'input', decisionId: 'S1', callIndex: 0, tool: 'srv.ask', elicitation: { server: 'srv', message: 'Who?' }, rationale: 'The MCP server "srv" asks: Who?' });
    await approvals.update(first, { status: 'approved', args: { name: 'Ada' } });
    // Second run: the first is answered, the second waits; the first is not used up (the call did not end).
    let call = g.forCall(step, 0, 'srv.ask');
    expect(await call.ask(question('Who?'))).toEqual({ action: 'accept', content: { name: 'Ada' } });
    const second = await pendingApprovalId(() => call.ask(question('Why?')));
    expect((await approvals.get(first))?.usedAt).toBeNull();
    await approvals.update(second, { status: 'rejected', reason: 'no' });
    // Third run: both answered, in order; the call ends and both are used.
    call = g.forCall(step, 0, 'srv.ask');
    expect(await call.ask(question('Who?'))).toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(await call.ask(question('Why?'))).toEqual({ action: 'decline' });
    await call.settle();
    expect((await approvals.listForPlan((await approvals.get(first))!.planId)).every((a) => a.usedAt !== null)).toBe(true);
    // A later run of the call (an operator's retry) asks again.
    expect(await pendingApprovalId(() => g.forCall(step, 0, 'srv.ask').ask(question('Who?')))).not.toBe(first);
  });

  it('asks again for a question that changed, or at another call', async () => {
    const { approvals, gate: g } = await gate();
    const first = await pendingApprovalId(() => g.forCall(step, 0, 'srv.ask').ask(question('Who?')));
    await approvals.update(first, { status: 'approved', args: { name: 'Ada' } });
    expect(await pendingApprovalId(() => g.forCall(step, 0, 'srv.ask').ask(question('Who now?')))).not.toBe(first);
    expect(await pendingApprovalId(() => g.forCall(step, 1, 'srv.ask').ask(question('Who?')))).not.toBe(first);
  });

  it('keeps the approval of a call that stopped for its question, until the question is used up', () => {
    const base = { planId: 'P', decisionId: 'S1', callIndex: 0, tool: 'srv.ask', args: {}, description: '', rationale: '', diff: null, hunks: null, scope: null, answeredBy: 'ann', answeredAt: null, reason: null, createdAt: '2026-12-06T00:00:00.000Z' };
    const tool = { ...base, id: 'T', kind: 'tool' as const, status: 'approved' as const, usedAt: '2026-12-06T00:00:01.000Z' };
    const asked = { ...base, id: 'Q', kind: 'input' as const, status: 'pending' as const, usedAt: null, createdAt: '2026-12-06T00:00:02.000Z' };
    expect(stoppedForQuestion(tool, [tool, asked])).toBe(true);
    expect(stoppedForQuestion(tool, [tool, { ...asked, usedAt: '2026-12-06T00:00:03.000Z' }])).toBe(false);
    expect(stoppedForQuestion(tool, [tool, { ...asked, callIndex: 1 }])).toBe(false);
  });

  it('under full-auto asks nobody: the server hears decline', async () => {
    const { gate: g } = await gate('full-auto');
    expect(await g.forCall(step, 0, 'srv.ask').ask(question('Who?'))).toEqual({ action: 'decline' });
  });
});
