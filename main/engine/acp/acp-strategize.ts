import type { StopReason } from '@agentclientprotocol/sdk/unstable';
import { RequestError } from '@agentclientprotocol/sdk/unstable';
import type { Plan, StrategyDecision } from '../../../shared/domain';
import { newId } from '../../../shared/ids';
import type { Subtask } from '../../../shared/subtasks';
import { EngineError } from '../errors';
import { strategizePrompt } from '../model/prompts';
import type { Emit } from '../ports/event-stream';
import { acceptedInvariants, rootDecision, type StrategizeResult } from '../run/strategize-actor';
import { AcpConnection, DEFAULT_ACP_TURN_TIMEOUT_MS } from './acp-connection';
import type { AcpActorOptions } from './acp-actor';
import { startAgentProcess } from './agent-process';
import { subtasksOf } from './acp-subtasks';
import { SandboxWatch } from './sandbox-watch';
import { AcpUsageMeter } from './agent-usage';
import type { CapturedChange } from '../tools/definition';
import { pickOption, readSandboxText } from './client-side';

/** The modes in which the agents only read and plan (TOOLCHAIN.md): Claude Code's and Qwen Code's `plan`, Codex's `read-only`. */
const PLANNING_MODES = ['plan', 'read-only'];
/** Where an agent has no planning mode, one in which it asks before it acts: each ask is refused. */
const ASKING_MODES = ['default'];

/** What the agent is told on top of the plan: the steps go in its plan (todo) list, and nothing changes now. */
export const ACP_STRATEGIZE_INSTRUCTIONS = `Propose the steps of this plan; do not carry them out. This is a read-only planning turn:
you may read the project, but every edit and every command is refused. Record the ordered steps
that meet the definition of done as your plan (your todo or task list), one entry per step, each a
short imperative sentence, then end your turn. The steps are carried out later, one at a time, once
the operator approves them.`;

export type AcpStrategizeOptions = Pick<AcpActorOptions, 'planId' | 'agent' | 'sandboxRoot' | 'home' | 'lifecycle' | 'allowNetwork' | 'allowUnconfined' | 'startTimeoutMs' | 'turnTimeoutMs' | 'start'>;

/**
 * A coding agent proposes a plan's steps in one read-only turn (its plan mode where it has one):
 * every permission it asks is refused, a write through the client is refused, and the sandbox is
 * compared before and after, so an agent that changed a file by itself fails the proposal. The
 * steps are the entries of its last `plan` update; the proposal then waits for the operator's
 * approval as a model's does (reviewProposedTree).
 */
export async function acpStrategize(options: AcpStrategizeOptions, plan: Plan, projectInvariants: readonly string[], emit: Emit): Promise<StrategizeResult> {
  const { agent, sandboxRoot } = options;
  // One turn, compared before and after: two whole scans, no change notices to keep.
  const watch = new SandboxWatch(sandboxRoot, { watch: false });
  let turn: PlanningTurn;
  let changed: CapturedChange[];
  try {
    await watch.baseline();
    turn = await planningTurn(options, plan, projectInvariants, emit);
    changed = await watch.changes();
  } finally {
    await watch.dispose();
  }
  const { entries, text, stopReason } = turn;
  if (changed.length > 0) {
    throw new EngineError(`agent ${agent.name} changed ${changed.map((c) => c.path).join(', ')} during its read-only planning turn`, 'invariant', { agent: agent.name, paths: changed.map((c) => c.path) });
  }
  if (text.trim()) await emit('model_output', { decisionId: null, phase: 'strategize', text: text.slice(0, 8_000) });
  if (entries.length === 0) {
    throw new EngineError(`agent ${agent.name} proposed no steps: it ended its planning turn (${stopReason}) without a plan update`, 'model_output', { agent: agent.name, stopReason });
  }
  const existing = plan.decisionRootId ? (await options.lifecycle.listDecisions(plan.id)).filter((d) => d.parentId === plan.decisionRootId) : [];
  return proposal(plan, agent.name, entries, projectInvariants, existing);
}

interface PlanningTurn {
  entries: Subtask[];
  text: string;
  stopReason: StopReason;
}

/** The agent's read-only turn in its own session: its last plan update, what it said, and why it stopped. Its usage counts as the plan's strategize phase. */
async function planningTurn(options: AcpStrategizeOptions, plan: Plan, projectInvariants: readonly string[], emit: Emit): Promise<PlanningTurn> {
  const { agent, sandboxRoot } = options;
  const request = { file: agent.command, args: agent.args, env: agent.env, sandboxRoot, home: options.home, readOnlyPaths: [], allowHosts: agent.allowHosts, allowNetwork: options.allowNetwork };
  const connection = await AcpConnection.start({ ...agent, planId: options.planId }, request, options.startTimeoutMs, (r) => (options.start ?? startAgentProcess)(r, options.allowUnconfined));
  const turn: PlanningTurn = { entries: [], text: '', stopReason: 'end_turn' };
  const usage = new AcpUsageMeter({ planId: options.planId, agentName: agent.name, lifecycle: options.lifecycle, budgets: {} });
  usage.startTurn();
  try {
    // Its own session: the steps' session is started (or resumed) by the run that executes them.
    const session = await connection.newSession(sandboxRoot);
    let planning = false;
    for (const mode of PLANNING_MODES) if ((planning = await connection.setMode(session, mode))) break;
    if (!planning) for (const mode of ASKING_MODES) if (await connection.setMode(session, mode)) break;
    const prompt = [strategizePrompt(plan, projectInvariants, plan.agentFeedback ?? undefined), ACP_STRATEGIZE_INSTRUCTIONS, `The project is the folder ${sandboxRoot} (your working folder).`].join('\n\n');
    turn.stopReason = await connection.prompt(
      session.sessionId,
      prompt,
      {
        update: async ({ update }) => {
          if (update.sessionUpdate === 'plan') turn.entries = subtasksOf(update);
          else if (update.sessionUpdate === 'agent_message_chunk' && update.content.type === 'text') turn.text += update.content.text;
          await usage.record('planning', usage.counter.update(update), emit);
        },
        // Read-only: whatever it asks to do is refused (reject, else cancelled).
        permission: async (params) => {
          const reject = pickOption(params.options, ['reject_once', 'reject_always']);
          return reject ? { outcome: { outcome: 'selected', optionId: reject.optionId } } : { outcome: { outcome: 'cancelled' } };
        },
        writeTextFile: async (params) => {
          throw RequestError.invalidParams(undefined, `${params.path}: this is a read-only planning turn; no file may be written`);
        },
        readTextFile: (params) => readSandboxText(sandboxRoot, params, connection.info.agentInfo?.name),
      },
      options.turnTimeoutMs ?? DEFAULT_ACP_TURN_TIMEOUT_MS,
    );
    await usage.record('planning', usage.counter.response(connection.lastUsage), emit, 1);
  } finally {
    await connection.close();
  }
  return turn;
}

/**
 * The tree of the agent's proposal: the plan's root, and one pending step per entry of its plan. A
 * new proposal (after a rejection) goes under the tree's root, after the steps it replaces.
 */
function proposal(plan: Plan, agentName: string, entries: readonly Subtask[], projectInvariants: readonly string[], existing: readonly StrategyDecision[]): StrategizeResult {
  const now = new Date().toISOString();
  const first = existing.length > 0 ? Math.max(...existing.map((d) => d.order)) + 1 : 1;
  const root = rootDecision(plan, `Steps proposed by agent ${agentName} in a read-only planning turn`, plan.decisionRootId ?? newId(), now);
  const steps = entries.map<StrategyDecision>((entry, index) => ({
    id: newId(),
    planId: plan.id,
    parentId: root.id,
    type: 'strategy_choice',
    order: first + index,
    description: entry.content,
    rationale: `Proposed by agent ${agentName}${entry.priority === 'medium' ? '' : ` (priority ${entry.priority})`}`,
    toolCalls: [],
    status: 'pending',
    createdAt: now,
    updatedAt: now,
  }));
  const invariantRecords = acceptedInvariants(projectInvariants, plan.invariants);
  return { decisionRootId: root.id, decisions: plan.decisionRootId ? steps : [root, ...steps], invariantRecords };
}
