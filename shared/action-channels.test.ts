import { describe, expect, it } from 'vitest';
import { ACTION_IDS, ACTIONS, type ActionSpec } from './actions';
import { CHANNELS, type Channel, contract } from './contract';

describe("an action's channel", () => {
  const withChannel = ACTION_IDS.map((id) => [id, ACTIONS[id] as ActionSpec] as const).filter(([, spec]) => spec.channel !== undefined);

  it('is a channel of the contract, named by one action only', () => {
    const channels = withChannel.map(([, spec]) => spec.channel);
    for (const channel of channels) expect(CHANNELS).toContain(channel);
    expect(new Set(channels).size).toBe(channels.length);
  });

  it("takes the plan and the action's arguments, with a plan file as its text", () => {
    for (const [id, spec] of withChannel) {
      const request = contract[spec.channel as Channel].request as unknown as { shape: Record<string, unknown> };
      const args = Object.keys((spec.args as unknown as { shape: Record<string, unknown> }).shape).map((key) => (key === 'file' ? 'content' : key));
      expect(Object.keys(request.shape).sort(), id).toEqual(['planId', ...args].sort());
    }
  });

  it('refuses what the entry refuses, and fills what it defaults', () => {
    expect(contract['plans.reject'].request.safeParse({ planId: 'P', reason: '  ' }).error?.issues[0]?.message).toBe('say why the call is rejected');
    expect(contract['plans.approve'].request.parse({ planId: 'P' })).toEqual({ planId: 'P', all: false });
    expect(contract['plans.fork'].request.safeParse({ planId: 'P', atStep: 1, file: 'plan.yaml' }).success).toBe(false);
  });
});
