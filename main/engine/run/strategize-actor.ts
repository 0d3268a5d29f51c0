import type { DefinitionOfDone, Plan, PlanStep, StrategyDecision } from '../../../shared/domain';
import { normalizeCheck } from '../../../shared/checks';
import { newId } from '../../../shared/ids';

export interface InvariantRecord {
  scope: 'project' | 'action';
  invariant: string;
  status: 'accepted';
  enforcement: 'stub';
}

export interface StrategizeResult {
  decisionRootId: string;
  decisions: StrategyDecision[];
  invariantRecords: InvariantRecord[];
}

const BULLET = /^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.+?)\s*$/;

/** Turns a definition of done into ordered steps: markdown bullets, or the plan file's step list. */
export function parseDefinitionOfDone(definition: DefinitionOfDone): PlanStep[] {
  if (typeof definition === 'string') {
    const lines = definition.split(/\r?\n/);
    const bullets = lines.map((line) => BULLET.exec(line)?.[1]).filter((s): s is string => Boolean(s));
    if (bullets.length > 0) return bullets.map((step) => ({ step, tools: [] }));
    const text = definition.trim();
    return text ? [{ step: text, tools: [] }] : [];
  }
  return definition.map((item) =>
    typeof item === 'string' ? { step: item, tools: [] } : { step: item.step, rationale: item.rationale, tools: item.tools ?? [], ...(item.check ? { check: item.check } : {}) },
  );
}

/** The project's and the plan's invariants, accepted as a strategy takes them on. */
export function acceptedInvariants(projectInvariants: readonly string[], planInvariants: readonly string[]): InvariantRecord[] {
  const accepted = (scope: InvariantRecord['scope']) => (invariant: string): InvariantRecord => ({ scope, invariant, status: 'accepted', enforcement: 'stub' });
  return [...projectInvariants.map(accepted('project')), ...planInvariants.map(accepted('action'))];
}

/** The tree's root: the plan's definition of done, done as soon as it is written down. */
export function rootDecision(plan: Pick<Plan, 'id' | 'name' | 'description'>, rationale: string, id: string, now: string): StrategyDecision {
  return {
    id,
    planId: plan.id,
    parentId: null,
    type: 'prompt_definition',
    order: 0,
    description: plan.description || plan.name,
    rationale,
    toolCalls: [],
    status: 'done',
    createdAt: now,
    updatedAt: now,
  };
}

/** Read-only: builds the decision tree for a plan without touching any resource. */
export class StrategizeStubActor {
  strategize(plan: Pick<Plan, 'id' | 'name' | 'description' | 'definitionOfDone' | 'invariants'>, projectInvariants: readonly string[] = []): StrategizeResult {
    const now = new Date().toISOString();
    const root = rootDecision(plan, 'Definition of done, as given by the plan', newId(), now);
    const rootId = root.id;
    const steps = parseDefinitionOfDone(plan.definitionOfDone).map<StrategyDecision>((step, index) => ({
      id: newId(),
      planId: plan.id,
      parentId: rootId,
      type: 'strategy_choice',
      order: index + 1,
      description: step.step,
      rationale: step.rationale ?? (step.tools.length > 0 ? `Scripted: ${step.tools.map((t) => t.tool).join(', ')}` : 'No tool calls'),
      toolCalls: step.tools,
      ...(step.check ? { check: normalizeCheck(step.check, 'step') } : {}),
      status: 'pending',
      createdAt: now,
      updatedAt: now,
    }));
    const invariantRecords = acceptedInvariants(projectInvariants, plan.invariants);
    return { decisionRootId: rootId, decisions: [root, ...steps], invariantRecords };
  }
}
