// The approval gate before an MCP tool's call: it asks under supervised (where the sandbox tool
// of the same kind would not), and the approval names the server, the tool and its description.
import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../../shared/profiles';
import type { StrategyDecision } from '../../../shared/domain';
import type { McpCallInfo } from '../../../shared/mcp';
import { ApprovalGate } from '../gates/approval-gate';
import { ApprovalPending } from '../errors';
import { InMemoryApprovalStore, inMemoryLifecycle } from '../test-support/in-memory-stores';

const info: McpCallInfo = { server: 'files', tool: 'write_file', description: 'Create a new file', readOnly: false };

async function setup(profileRef: Parameters<typeof resolveProfile>[0]) {
  const lifecycle = inMemoryLifecycle();
  const profile = resolveProfile(profileRef);
  const plan = await lifecycle.createPlan({ name: 'mcp', definitionOfDone: 'x', automationProfile: profile });
  const approvals = new InMemoryApprovalStore();
  const gate = new ApprovalGate(approvals, lifecycle.events, plan.id, profile, null);
  const now = new Date().toISOString();
  const step: StrategyDecision = { id: 'D1', planId: plan.id, parentId: null, type: 'strategy_choice', order: 1, description: 'Write the notes', rationale: '', toolCalls: [], status: 'running', createdAt: now, updatedAt: now };
  return { gate, approvals, plan, step };
}

describe('the approval gate before an MCP call', () => {
  it('holds the call under trusted, with the server, the tool and its description on the approval', async () => {
    const { gate, approvals, plan, step } = await setup('trusted');
    const call = { tool: 'files.write_file', args: { path: 'a.md', content: 'x' } };
    expect(gate.applies(call, info)).toBe(true);
    expect(gate.applies({ tool: 'file.write', args: {} })).toBe(false);
    await expect(gate.check(step, call, 0, 'exec', info)).rejects.toBeInstanceOf(ApprovalPending);
    expect(await approvals.listForPlan(plan.id)).toMatchObject([{ kind: 'tool', tool: 'files.write_file', args: call.args, status: 'pending', mcp: info, diff: null }]);
  });

  it('lets it through where the profile allows it by name, and under full-auto', async () => {
    const refs: Parameters<typeof resolveProfile>[0][] = [{ base: 'supervised', allow: ['files.*'] }, { base: 'manual', allow: ['files.write_file'] }, 'full-auto'];
    for (const ref of refs) {
      const { gate, approvals, plan, step } = await setup(ref);
      await gate.check(step, { tool: 'files.write_file', args: {} }, 0, 'exec', info);
      expect(await approvals.listForPlan(plan.id), JSON.stringify(ref)).toEqual([]);
    }
  });
});
