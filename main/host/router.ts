import { withMcpHidden } from '../../shared/mcp';
import { type Channel, contract, type Envelope, type ParsedRequestOf, type ResponseOf } from '../../shared/contract';
import { PlanError } from '../../shared/errors';
import { homedir } from 'node:os';
import { checkProjectField } from '../app/plan-file';
import { findPlanFolder } from '../app/project-policy';
import type { PlanService } from '../app/plan-service';
import { ACTIONS, type ActionChannelOf, type ChannelAction } from '../../shared/actions';
import { BreakpointBook } from './breakpoints';
import { type ActionHost, PERFORM } from './action-table';
import { inTreeOrder } from './decision-order';
import { invalidRequest, toBridgeError } from './errors';
import type { TeamStatus } from '../../shared/team';
import packageJson from '../../package.json';

export type HostLog = (message: string, error?: unknown) => void;

/** Who answered, as the decision tree records it, when the host names nobody. */
const CONSOLE = 'console';

export interface RouterOptions {
  /** Shown by `app.info`. */
  dataDir?: string;
  version?: string;
  /** Where a relative `project` of an uploaded plan resolves; default: the working directory. */
  baseDir?: string;
  /** Internal errors and failed background runs go here, with their stacks; never to the client. */
  log?: HostLog;
  breakpoints?: BreakpointBook;
  /** Where the projects of plans created by clients must lie; default: the user's home. */
  projectRoots?: readonly string[];
  /**
   * Folders whose plan files the console's clients may pick (the demo copy, the repository's
   * examples/): a plan whose text matches one there resolves its relative `project` beside it.
   */
  planFolders?: readonly string[];
  /** The desktop app's file dialog: resolves to the chosen plan file, or null when cancelled. */
  pickPlanFile?: () => Promise<string | null>;
  /** The desktop app's file manager: shows a folder of the host (a plan's sandbox, nothing else). */
  openFolder?: (folder: string) => Promise<void>;
  /** Who the console's answers are recorded as, read at each answer (main/app/operator.ts); default "console". */
  operator?: () => string;
  /** Team mode: the queue's depth and the workers; absent over the embedded database (`team.status` answers null). */
  teamStatus?: () => Promise<TeamStatus>;
}

/** Contract channel -> engine call; the one host that Electron IPC and the WebSocket both bind. */
export interface Router {
  handle(channel: unknown, request: unknown): Promise<Envelope<unknown>>;
}

type Handlers = { [C in Channel]: (request: ParsedRequestOf<C>) => ResponseOf<C> | Promise<ResponseOf<C>> };

export const defaultHostLog: HostLog = (message, error) => {
  console.error(`agents host: ${message}`, error ?? '');
};

export function isChannel(channel: unknown): channel is Channel {
  return typeof channel === 'string' && Object.hasOwn(contract, channel);
}

export function createRouter(service: PlanService, options: RouterOptions = {}): Router {
  const log = options.log ?? defaultHostLog;
  const breakpoints = options.breakpoints ?? new BreakpointBook();
  const plan = async (planId: string) => ({ plan: await service.get(planId) });
  const answerer = options.operator ?? (() => CONSOLE);
  const workingDir = options.baseDir ?? process.cwd();
  /** Where a plan's relative `project` resolves: beside its file where the host finds the file, else the working folder. */
  const baseFor = (content: string | undefined) => (content !== undefined && options.planFolders ? findPlanFolder(content, options.planFolders) : null) ?? workingDir;

  const host: ActionHost = {
    service,
    by: answerer,
    breakpoints,
    baseDir: workingDir,
    projectRoots: options.projectRoots,
    async startRun(planId, begin) {
      let started = false;
      let onStarted = () => {};
      const running = new Promise<void>((resolve) => {
        onStarted = () => {
          started = true;
          resolve();
        };
      });
      const run = begin({ breakpoints: breakpoints.list(planId), onStarted });
      run.catch((error: unknown) => {
        if (started) log(`the run of plan ${planId} failed`, error);
      });
      await Promise.race([running, run]);
      return plan(planId);
    },
  };
  // Every action's channel: its entry in the host's action table performs it.
  const actionHandlers = Object.fromEntries(
    (Object.keys(PERFORM) as ChannelAction[]).map((id) => {
      const perform = PERFORM[id] as (host: ActionHost, planId: string, args: object) => Promise<unknown>;
      return [ACTIONS[id].channel, ({ planId, ...args }: { planId: string }) => perform(host, planId, args)];
    }),
  ) as Pick<Handlers, ActionChannelOf<ChannelAction>>;

  const handlers: Handlers = {
    ...actionHandlers,
    'app.info': () => ({ version: options.version ?? packageJson.version, dataDir: options.dataDir ?? '', tools: service.registry.discover(), nativeFileDialog: Boolean(options.pickPlanFile) }),
    'plans.list': async (r) => ({ plans: await service.listItems({ state: r.state, search: r.search }) }),
    'plans.get': async (r) => {
      const found = await service.get(r.planId);
      return { plan: found, model: service.planModel(found), actions: await service.actions(r.planId), trace: await service.planTrace(r.planId) };
    },
    'plans.create': async (r) => ({
      plan: await service.createFromContent(
        { content: r.content, fileName: r.fileName, project: r.project, profile: r.profile },
        baseFor(r.content),
        { roots: options.projectRoots },
      ),
    }),
    'plans.checkProject': (r) => {
      const base = baseFor(r.content);
      const roots = options.projectRoots ?? [homedir()];
      return { ...checkProjectField(r, base, { roots: options.projectRoots }), relativeTo: [...new Set([base, ...roots])] };
    },
    'plans.createFromDialog': async () => {
      if (!options.pickPlanFile) throw new PlanError('a file dialog exists only in the desktop app; send the file with plans.create', 'unsupported');
      const path = await options.pickPlanFile();
      return { plan: path ? await service.createFromFile(path) : null };
    },
    'plans.decisions': async (r) => {
      const all = inTreeOrder(await service.decisions(r.planId));
      return { decisions: all.slice(r.offset, r.limit === undefined ? undefined : r.offset + r.limit), total: all.length };
    },
    'plans.invocations': async (r) => ({ invocations: await service.invocations(r.planId) }),
    'plans.invocationsForDecision': async (r) => ({ invocations: await service.invocationsForDecision(r.planId, r.decisionId) }),
    'plans.toolTallies': (r) => service.toolTallies(r.planId),
    'plans.events': async (r) => {
      // Seqs run 1, 2, ... per plan, so the newest `limit` are the ones after lastSeq - limit.
      const after = r.newest ? Math.max(r.afterSeq, (await service.eventsAfter(r.planId, 0, 0)).lastSeq - r.limit) : r.afterSeq;
      return service.eventsAfter(r.planId, after, r.limit);
    },
    'plans.changes': (r) => service.changes(r.planId, r.offset, r.limit),
    'plans.change': (r) => service.change(r.planId, r.entryId),
    'plans.review': (r) => service.review(r.planId),
    'plans.reviewDiff': (r) => service.reviewDiff(r.planId, r.path),
    'plans.breakpoint': async (r) => {
      await service.get(r.planId);
      const pending = breakpoints.set(r.planId, r.decisionId, r.enabled);
      if (!service.isRunning(r.planId)) return { breakpoints: pending };
      // The running controller has its own set; keep it the same as the host's.
      const running = service.controller(r.planId).breakpoints;
      if (r.enabled) running.add(r.decisionId);
      else running.delete(r.decisionId);
      return { breakpoints: [...running] };
    },
    'plans.approvals': (r) => service.approvals(r.planId),
    'plans.readFile': (r) => service.readFile(r.planId, r.path),
    'plans.saveFile': (r) => service.saveFile(r.planId, r.path, r.content),
    'plans.checks': (r) => service.checks(r.planId),
    'plans.checkpoints': async (r) => ({ checkpoints: await service.checkpoints(r.planId) }),
    'plans.rewindPreview': (r) => service.rewindPreview(r.planId, r.toStep),
    'plans.rejectHunks': async (r) => ({ plan: await service.rejectHunks(r.planId, { hunks: { [r.path]: r.hunks }, reason: r.reason, by: answerer() }) }),
    'plans.restoreHunks': async (r) => ({ plan: await service.restoreHunks(r.planId, { path: r.path, hunks: r.hunks }) }),
    'team.status': async () => (options.teamStatus ? await options.teamStatus() : null),
    'settings.get': () => service.settingsView(),
    'settings.set': (r) => service.updateSettings(r),
    'settings.mcp': () => service.mcpServersView(),
    'settings.mcpAdd': (r) => service.addMcpServer(r),
    'settings.mcpRemove': (r) => service.removeMcpServer(r.name),
    'settings.acp': () => service.acpAgentsView(),
    'settings.acpAdd': (r) => service.addAcpAgent(r),
    'settings.acpRemove': (r) => service.removeAcpAgent(r.name),
    'plans.openSandbox': async (r) => {
      // An unknown plan is bad input in any host; then, only the desktop app has a file manager to open.
      const found = await service.get(r.planId);
      if (!options.openFolder) throw new PlanError('a file manager opens only from the desktop app; copy the sandbox path instead', 'unsupported');
      const sandbox = found.sandboxRefs[0];
      if (!sandbox || found.processingState === 'cancelled') throw new PlanError(`plan ${r.planId} has no sandbox`, 'wrong_state');
      await options.openFolder(sandbox);
      return {};
    },
  };

  return {
    async handle(channel, request) {
      if (!isChannel(channel)) {
        const name = typeof channel === 'string' ? JSON.stringify(channel.slice(0, 64)) : `of type ${channel === null ? 'null' : typeof channel}`;
        return { ok: false, error: { code: 'unknown_channel', message: `unknown channel ${name}` } };
      }
      try {
        const schema = contract[channel];
        const parsed = schema.request.safeParse(request);
        if (!parsed.success) return { ok: false, error: invalidRequest(parsed.error) };
        const handler = handlers[channel] as (request: unknown) => unknown;
        const result = await handler(parsed.data);
        const checked = schema.response.safeParse(result);
        if (!checked.success) {
          log(`the response of ${channel} does not match the contract`, checked.error);
          return { ok: false, error: { code: 'internal', message: `internal error: the response of ${channel} does not match the contract` } };
        }
        return { ok: true, data: withMcpHidden(checked.data) };
      } catch (error) {
        return { ok: false, error: toBridgeError(error, log) };
      }
    },
  };
}
