import type { ChangeEntry, ChangeEntryMeta, ChangeSet } from '../../../shared/changes';
import { PlanError, ValidationError } from '../../../shared/errors';
import type { ChangeSetStore } from '../ports/changeset-store';
import { InMemoryChangeSetStore } from './in-memory-changeset-store';

/** A resource the plan may use, resolved to where it lives. */
export interface BoundResource {
  name: string;
  kind: string;
  path?: string;
  [key: string]: unknown;
}

export interface PlanExecutionContextOptions {
  planId: string | null | undefined;
  decisionRootId?: string | null;
  sandboxRoot?: string | null;
  automationProfile?: string | null;
  projectResources?: Record<string, unknown>;
  resourceBindings?: Record<string, BoundResource>;
  /** Default: an in-memory store; the app always passes its SQLite store. */
  changesetStore?: ChangeSetStore;
}

/** Bridges a plan's metadata into the tool runtime and tracks the changesets it opens. */
export class PlanExecutionContext {
  readonly planId: string;
  decisionRootId: string | null;
  readonly sandboxRoot: string | null;
  readonly automationProfile: string | null;
  readonly projectResources: Record<string, unknown>;
  readonly resourceBindings: Record<string, BoundResource>;
  readonly changesetStore: ChangeSetStore;
  private readonly changesetIds: string[] = [];

  constructor(options: PlanExecutionContextOptions) {
    if (typeof options.planId !== 'string' || options.planId.trim() === '') {
      throw new ValidationError('planId', 'is required and must be a non-empty string');
    }
    this.planId = options.planId;
    this.decisionRootId = options.decisionRootId ?? null;
    this.sandboxRoot = options.sandboxRoot ?? null;
    this.automationProfile = options.automationProfile ?? null;
    this.projectResources = options.projectResources ?? {};
    this.resourceBindings = options.resourceBindings ?? {};
    this.changesetStore = options.changesetStore ?? new InMemoryChangeSetStore();
  }

  /** Opens a new changeset for this plan; later changes are recorded into it. */
  async startChangeset(): Promise<string> {
    const id = await this.changesetStore.start(this.planId);
    this.changesetIds.push(id);
    return id;
  }

  /** Continues an existing changeset (a retry keeps adding to the plan's changeset). */
  async resumeChangeset(changesetId: string): Promise<void> {
    if (!(await this.changesetStore.get(changesetId))) throw new PlanError(`unknown changeset ${changesetId}`);
    if (!this.changesetIds.includes(changesetId)) this.changesetIds.push(changesetId);
  }

  get activeChangesetId(): string | undefined {
    return this.changesetIds.at(-1);
  }

  get activeChangesetIds(): readonly string[] {
    return [...this.changesetIds];
  }

  recordChange(entry: ChangeEntry): Promise<ChangeEntryMeta> {
    const changesetId = this.activeChangesetId;
    if (!changesetId) return Promise.reject(new PlanError('no active changeset: call startChangeset() first', 'no_active_changeset'));
    return this.changesetStore.record(changesetId, entry);
  }

  /** Runs `fn` as one transaction of the changeset store (and the stores sharing its database), where it has them. */
  atomically<T>(fn: () => Promise<T>): Promise<T> {
    return this.changesetStore.atomically ? this.changesetStore.atomically(fn) : fn();
  }

  getChangeset(changesetId: string): Promise<ChangeSet | undefined> {
    return this.changesetStore.get(changesetId);
  }

  async summarize(): Promise<Record<string, unknown>> {
    let changeCount = 0;
    for (const id of this.changesetIds) changeCount += (await this.changesetStore.summarize(id)).entryCount;
    return {
      planId: this.planId,
      decisionRootId: this.decisionRootId,
      sandboxRoot: this.sandboxRoot,
      automationProfile: this.automationProfile,
      projectResourceCount: Object.keys(this.projectResources).length,
      resourceBindingCount: Object.keys(this.resourceBindings).length,
      changesetIds: [...this.changesetIds],
      changeCount,
    };
  }
}
