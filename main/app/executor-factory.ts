import { ValidationError } from '../../shared/errors';
import { EngineError } from '../engine/errors';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Plan } from '../../shared/domain';
import { recordSandboxBase } from '../engine/changeset/hand-edits';
import { remakeHere, sandboxKept } from './sandbox-remaking';
import { BudgetGate } from '../engine/gates/budget-gate';
import { PlanExecutionContext } from '../engine/run/execution-context';
import { McpSession } from '../engine/mcp/mcp-servers';
import { mcpAuthFile } from './mcp-auth';
import { SignInGate } from '../engine/gates/sign-in-gate';
import { ModelAgent } from '../engine/model/model-agent';
import { createLanguageModel } from '../engine/model/provider';
import { PlanExecutor, type Strategizer } from '../engine/run/plan-executor';
import { createSandbox } from '../engine/sandbox/sandbox';
import { cloneGitSource } from '../engine/sandbox/git-source';
import { type ToolRegistry, ToolRunner } from '../engine/run/tool-runner';
import { AGENT_HOMES_FOLDER, SANDBOXES_FOLDER } from '../persistence/data-dir';
import type { AcpPlanAgent } from '../../shared/acp';
import { AcpActor, type AcpActorOptions } from '../engine/acp/acp-actor';
import { acpStrategize } from '../engine/acp/acp-strategize';
import { InvariantRules } from '../engine/gates/invariants';
import { acpSettingsOf, resolvePlanAgent } from './acp-agents';
import { prepareAgentHome } from './acp-agent-home';
import { mcpServersOf } from './mcp-settings';
import { DEFAULT_MAX_PROJECT_BYTES } from './project-policy';
import type { PlanContext } from './use-cases/plan-context';
import type { ExecutorFactory } from './run-vocabulary';
import type { PlanVerifying } from './use-cases/verifying';
import { reviewFeedbackOf } from './use-cases/reviewing';
import { scriptedStepRunner, type StepRunner } from '../engine/run/runtime-execute-actor';

/** With `verifyEach: true`, each step's own check runs right after the step, and its failure fails the step. */
function checkedSteps(plan: Plan, steps: StepRunner, checkStep: PlanVerifying['checkStep']): StepRunner {
  if (!plan.verify?.verifyEach) return steps;
  return {
    async run(decision, context) {
      await steps.run(decision, context);
      // What the step queued is committed first, so the log has the step before its check.
      await context.flush();
      await checkStep(plan, decision);
    },
  };
}



/** `.agents/invariants.yaml` as the lines the decision tree's invariant records show. */
function projectInvariantRecords(plan: Plan): string[] {
  const rules = plan.projectInvariants;
  if (!rules) return [];
  return [...rules.protect.map((g) => `protect ${g}`), ...rules.denyCommands.map((g) => `deny command ${g}`), ...(rules.allowCommands ?? []).map((g) => `allow command ${g}`), ...rules.notes];
}

/** The coding agent a plan runs over ACP, started (confined) in the plan's sandbox with a home of its own for the plan; its version recorded once it reports one. */
function acpActor(ctx: PlanContext, plan: Plan, recorded: AcpPlanAgent, sandboxRoot: string, registry: ToolRegistry): { actor: AcpActor; options: AcpActorOptions } {
  const settings = acpSettingsOf(ctx.options.settings);
  let agent: ReturnType<typeof resolvePlanAgent>;
  try {
    agent = resolvePlanAgent(recorded, settings, ctx.env);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    // A machine (a team worker) without the plan's agent: the plan says which, and how to go on.
    throw new EngineError(error.message, 'tool', {
      agent: recorded.name,
      hint: `Add the agent "${recorded.name}" on this machine (\`agents acp add ${recorded.name} -- COMMAND\`, or install the built-in), or run the plan where it is, then \`agents plan retry\`.`,
    });
  }
  const home = join(ctx.options.dataDir, AGENT_HOMES_FOLDER, plan.id);
  prepareAgentHome(recorded.name, settings, home);
  const options: AcpActorOptions = {
    planId: plan.id,
    agent,
    sandboxRoot,
    home,
    lifecycle: ctx.lifecycle,
    registry,
    allowNetwork: plan.automationProfile.allowNetwork,
    allowUnconfined: plan.automationProfile.allowUnconfinedShell,
    rules: plan.projectInvariants ? new InvariantRules(plan.projectInvariants) : undefined,
    reviewFeedback: () => reviewFeedbackOf(ctx, plan.id),
    earlierFailure: async (decisionId) => (await ctx.options.stores.errors.listForPlan(plan.id)).filter((e) => e.decisionId === decisionId).at(-1)?.message ?? null,
    startTimeoutMs: settings.startTimeoutSeconds ? settings.startTimeoutSeconds * 1000 : undefined,
    turnTimeoutMs: recorded.turnTimeoutSeconds ? recorded.turnTimeoutSeconds * 1000 : undefined,
    budgets: { maxOutputTokens: recorded.maxOutputTokens, maxCostUsd: recorded.maxCostUsd },
    budgetGate: new BudgetGate(ctx.options.stores.approvals, ctx.events, plan.id, plan.automationProfile),
    onStarted: async (version) => {
      if (version && version !== recorded.version) await ctx.lifecycle.update(plan.id, { acp: { ...recorded, version } });
    },
  };
  return { actor: new AcpActor(options), options };
}

/**
 * Executors over a sandbox in `<dataDir>/sandboxes/<planId>` (made at the first run, a copy of the
 * project), the context's tools and stores, and the plan's model when it is an agent plan.
 */
export function sandboxExecutorFactory(ctx: PlanContext, checkStep: PlanVerifying['checkStep']): ExecutorFactory {
  const { options, lifecycle, stores } = ctx;
  return async (known, runOptions) => {
    let plan = known;
    const planId = plan.id;
    // A strategy made with the operator's feedback (a rejected proposal's reason) uses it up.
    const feedbackTaken = (strategize: Strategizer['strategize']): Strategizer => ({
      strategize: async (p, invariants, emit) => {
        const result = await strategize(p, invariants, emit);
        if (p.agentFeedback) await lifecycle.update(planId, { agentFeedback: null });
        return result;
      },
    });
    let sandboxRoot = plan.sandboxRefs[0] ?? null;
    const sandboxesDir = join(options.dataDir, SANDBOXES_FOLDER);
    if (sandboxRoot && options.remakeSandboxes && !(await sandboxKept(ctx, plan))) {
      // Made on another machine or in another data directory, gone, or not as the plan's last capture saw it: remade here from its base and the recorded changes.
      plan = await remakeHere(ctx, plan, sandboxesDir);
      sandboxRoot = plan.sandboxRefs[0];
    } else if (!sandboxRoot) {
      // Private: a sandbox is a copy of the operator's project.
      mkdirSync(sandboxesDir, { recursive: true, mode: 0o700 });
      if (plan.projectPath) {
        sandboxRoot = await createSandbox(plan.projectPath, sandboxesDir, planId, { maxBytes: options.maxProjectBytes ?? DEFAULT_MAX_PROJECT_BYTES });
      } else if (plan.projectSource) {
        // A git project: the sandbox is a clone at its ref, and the commit it starts from is the plan's base.
        sandboxRoot = join(sandboxesDir, planId);
        const { baseCommit } = await cloneGitSource(plan.projectSource, sandboxRoot);
        await lifecycle.update(planId, { projectSource: { ...plan.projectSource, baseCommit } });
      } else {
        sandboxRoot = join(sandboxesDir, planId);
        mkdirSync(sandboxRoot, { recursive: true });
      }
      await recordSandboxBase(stores.sandboxFiles, planId, sandboxRoot);
      plan = await lifecycle.update(planId, { sandboxRefs: [sandboxRoot] });
    } else if ((await ctx.captureHandEdits(plan)).length > 0) {
      plan = await ctx.get(planId);
    }
    const context = new PlanExecutionContext({
      planId,
      decisionRootId: plan.decisionRootId,
      sandboxRoot,
      automationProfile: plan.automationProfile.name,
      projectResources: {
        ...(plan.projectPath ? { project: { path: plan.projectPath } } : {}),
        // The project's rules as text records, as the strategize actor records the plan's own invariants.
        invariants: projectInvariantRecords(plan),
      },
      resourceBindings: {
        sandbox: { name: 'sandbox', kind: 'directory', path: sandboxRoot },
        ...(plan.projectPath ? { project: { name: 'project', kind: 'directory', path: plan.projectPath } } : {}),
      },
      changesetStore: stores.changesets,
    });
    // An agent plan's MCP servers, and a coding agent's own tools, add their tools to this run's registry only.
    const servers = plan.agent ? mcpServersOf(plan, ctx.options.settings) : {};
    const registry = Object.keys(servers).length > 0 || plan.acp ? ctx.registry.copy() : ctx.registry;
    const mcp = Object.keys(servers).length > 0 ? new McpSession(servers, registry, { sandboxRoot, profile: plan.automationProfile, auth: mcpAuthFile(ctx.options.dataDir, ctx.options.settings.codec).providerFor(servers) }) : null;
    const toolRunner = new ToolRunner(registry, stores.invocations);
    let agent: ModelAgent | null = null;
    if (plan.agent) {
      const config = ctx.modelConfig(plan.agent);
      agent = new ModelAgent({
        model: await createLanguageModel(config),
        config,
        spec: plan.agent,
        toolRunner,
        lifecycle,
        sandboxRoot,
        // A server that needs a sign-in makes the step wait for it (SignInGate), as a call waits for approval.
        prepareTools: mcp ? (step) => new SignInGate(stores.approvals, ctx.events, planId, plan.automationProfile).started(step, () => mcp.start()) : undefined,
        budgetGate: new BudgetGate(stores.approvals, ctx.events, planId, plan.automationProfile),
        price: ctx.options.settings.read().price,
        reviewFeedback: () => reviewFeedbackOf(ctx, planId),
      });
    }
    const started = plan.acp ? acpActor(ctx, plan, plan.acp, sandboxRoot, registry) : null;
    const acp = started?.actor ?? null;
    const executor = new PlanExecutor({
      lifecycleService: lifecycle,
      strategizer: agent
        ? feedbackTaken((p, invariants, emit) => agent.strategize(p, invariants, emit, p.agentFeedback ?? undefined))
        : started && plan.acp?.propose
          ? // The agent proposes the steps in a read-only turn; they wait for the operator as a model's do.
            feedbackTaken((p, invariants, emit) => acpStrategize(started.options, p, invariants, emit))
          : undefined,
      stepRunner: checkedSteps(plan, agent ? agent.stepRunner(plan, runOptions.corrections) : acp ? acp.stepRunner(plan, runOptions.corrections) : scriptedStepRunner, checkStep),
      toolRunner,
      executionContext: context,
      errorRecoveryService: ctx.recovery,
      sleep: options.sleep,
    });
    const close = async () => {
      await mcp?.close();
      await acp?.close();
    };
    return { executor, plan, close: mcp || acp ? close : undefined };
  };
}
