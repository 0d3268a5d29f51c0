import type { PlanUsage } from '../../../shared/agent';
import { newId } from '../../../shared/ids';
import type { StoredCheckpoint } from './checkpoint-store';

/** How a fork names what it shares with its origin. */
export interface ForkMapping {
  planId: string;
  changesetId: string | null;
  /** The origin's decision ids to the fork's copies; decisions not copied are left out. */
  decisions: ReadonlyMap<string, string>;
  /**
   * How many of the fork's changeset entries stand for the origin's first `n`: entries a rewind made
   * history are not carried over, so the counts differ once the origin was rewound.
   */
  entries(n: number): number;
}

/** The origin's usage as the fork starts with it: each step's tokens and summary under the fork's decision. */
export function forkUsage(usage: PlanUsage | null, mapping: Pick<ForkMapping, 'decisions'>): PlanUsage | undefined {
  if (!usage) return undefined;
  const steps = usage.steps.flatMap((s) => {
    if (s.decisionId === null) return [s];
    const id = mapping.decisions.get(s.decisionId);
    return id ? [{ ...s, decisionId: id }] : [];
  });
  return { ...usage, steps };
}

/**
 * The origin's checkpoints up to the fork's step, as the fork's own: the same file deltas (their
 * contents are in the object store already, so nothing is copied but the rows), under the fork's
 * plan, decisions and changeset. The fork can then be rewound to any of them, or forked again.
 */
export function forkCheckpoints(chain: readonly StoredCheckpoint[], mapping: ForkMapping): StoredCheckpoint[] {
  const origin = chain.at(-1)?.changesetId ?? null;
  return chain.map((c) => {
    const decisions: StoredCheckpoint['decisions'] = {};
    for (const [id, status] of Object.entries(c.decisions)) {
      const mapped = mapping.decisions.get(id);
      if (mapped) decisions[mapped] = status;
    }
    // An earlier changeset of the origin (or none yet) holds nothing the fork has.
    const same = c.changesetId !== null && c.changesetId === origin;
    return {
      ...c,
      id: newId(),
      planId: mapping.planId,
      decisionId: mapping.decisions.get(c.decisionId) ?? c.decisionId,
      changesetId: same ? mapping.changesetId : null,
      entries: same ? mapping.entries(c.entries) : 0,
      decisions,
      usage: forkUsage(c.usage, mapping) ?? null,
    };
  });
}
