import type { Plan } from '../../../shared/domain';
import { resolveProfile } from '../../../shared/profiles';
import { agentSpecOf, type PlanModelView, type SettingsPatch, type SettingsView } from '../../../shared/agent';
import type { LoadedPlanFile } from '../plan-file';
import type { ProjectPolicy } from '../project-policy';
import { planModelView, recordModel } from '../settings';
import type { PlanContext } from './plan-context';
import { ValidationError } from '../../../shared/errors';
import { describeMcpServer, isStdioServer, type McpServersView } from '../../../shared/mcp';
import { commandWords } from './acp-settings';
import { addMcpServer, removeMcpServer } from '../mcp-settings';
import { acpSettingsOf, planAgentOf } from '../acp-agents';
import { isAcpAgentFile } from '../../../shared/acp';

/** Making plans from plan files, and the model settings they run with. */
export function planAuthoring(ctx: PlanContext) {
  const { settings } = ctx.options;

  // Plan files (YAML) are read by the commands that make plans: the parser is loaded then, not at every start.
  const planFiles = () => import('../plan-file');

  const createFromLoaded = async ({ plan, projectPath, projectSource }: LoadedPlanFile): Promise<Plan> => {
    const { planVerify } = await planFiles();
    // A coding agent over ACP names its own model: the plan records which agent, and no model of ours.
    const acp = isAcpAgentFile(plan.agent) ? planAgentOf(plan.agent, acpSettingsOf(settings), ctx.env) : undefined;
    const spec = isAcpAgentFile(plan.agent) ? undefined : agentSpecOf(plan.agent);
    const agent = spec && recordModel(spec, ctx.env, settings);
    const created = await ctx.lifecycle.createPlan({
      agent,
      name: plan.name,
      description: plan.description,
      definitionOfDone: plan.definitionOfDone,
      invariants: plan.invariants,
      automationProfile: resolveProfile(plan.automationProfile),
      projectPath,
      // A git project: its URL and ref; the run that clones it records the base commit.
      projectSource: projectSource && { git: projectSource.git, ref: projectSource.ref ?? null, baseCommit: null },
      verify: planVerify(plan, projectPath),
    });
    // The plan file's MCP servers and its agent are kept with the plan: every run starts the same ones.
    const kept = { ...(plan.mcp ? { mcp: plan.mcp } : {}), ...(acp ? { acp } : {}) };
    return Object.keys(kept).length > 0 ? ctx.lifecycle.update(created.id, kept) : created;
  };

  const settingsView = (): SettingsView => settings.view(ctx.env);
  const mcpServersView = (): McpServersView => ({
    servers: Object.entries(settings.read().mcp?.servers ?? {}).map(([name, server]) => ({ name, summary: describeMcpServer(server), local: isStdioServer(server) })),
  });

  return {
    async createFromFile(file: string, overrides: { project?: string; profile?: string } = {}): Promise<Plan> {
      return createFromLoaded((await planFiles()).loadPlanFile(file, ctx.registry, overrides));
    },

    /**
     * From a plan file's text, as a browser's file picker sends it; nothing is written to disk. An
     * uploaded file has no folder of its own, so a relative `project` resolves against `baseDir` (and,
     * with a policy, its roots).
     */
    async createFromContent(input: { content: string; fileName?: string; project?: string; profile?: string }, baseDir: string, policy?: ProjectPolicy): Promise<Plan> {
      const { parsePlanText, validatePlanFile } = await planFiles();
      const raw = parsePlanText(input.content, 'content', input.fileName);
      return createFromLoaded(validatePlanFile(raw, baseDir, ctx.registry, { project: input.project, profile: input.profile }, policy));
    },

    modelConfig: ctx.modelConfig.bind(ctx),

    /** The agent plan's model and whether this process can use it; null for a scripted plan. */
    planModel(plan: Plan): PlanModelView | null {
      return plan.agent ? planModelView(plan.agent, ctx.env, settings) : null;
    },

    settingsView,

    updateSettings(patch: SettingsPatch): SettingsView {
      settings.patch(patch);
      return settingsView();
    },

    /** The MCP servers every agent plan may use (settings.json's mcp.servers), each in one line without its secret values. */
    mcpServersView,

    /**
     * Adds a server from the console's Settings: a command line (one command, its words as the
     * shell would split them, a program on PATH or by its absolute path) or a URL.
     */
    async addMcpServer(request: { name: string; commandLine?: string; url?: string }): Promise<McpServersView> {
      if ((request.commandLine === undefined) === (request.url === undefined)) throw new ValidationError('command', 'give a command line or a URL');
      if (request.url !== undefined) addMcpServer(settings, request.name, { url: request.url });
      else {
        const [command, ...args] = await commandWords(request.commandLine ?? '');
        addMcpServer(settings, request.name, { command, args });
      }
      return mcpServersView();
    },

    removeMcpServer(name: string): McpServersView {
      removeMcpServer(settings, name);
      return mcpServersView();
    },
  };
}

export type PlanAuthoring = ReturnType<typeof planAuthoring>;
