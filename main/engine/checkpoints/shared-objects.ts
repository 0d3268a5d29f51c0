import { createHash } from 'node:crypto';
import { ObjectStore } from './object-store';

/** Checkpointed file contents every machine of a team reaches (PostgreSQL's `checkpoint_objects`). */
export interface SharedObjects {
  put(content: Buffer, hash: string): Promise<string>;
  /** Copies into `local` the contents among `hashes` it lacks; throws naming one nobody has. */
  materialize(hashes: Iterable<string>, local: ObjectStore): Promise<number>;
}

/**
 * The local object folder, written through to the team's shared contents: a checkpoint taken on
 * one worker can be rewound or forked on any other, which first brings what it lacks into its own
 * folder (a restore copies files out of a local folder).
 */
export class MirroredObjectStore extends ObjectStore {
  constructor(
    dir: string,
    private readonly shared: SharedObjects,
  ) {
    super(dir);
  }

  override async put(content: Buffer, hash = createHash('sha256').update(content).digest('hex')): Promise<string> {
    // What this folder has was put through here (or brought from the shared store): it is shared already.
    const fresh = !this.has(hash);
    await super.put(content, hash);
    if (fresh) await this.shared.put(content, hash);
    return hash;
  }

  /** Brings the contents among `hashes` this folder lacks from the shared store (written locally only: the shared store has them). */
  async ensure(hashes: Iterable<string>): Promise<void> {
    await this.shared.materialize(hashes, new ObjectStore(this.dir));
  }
}

/** The file contents a restore or a fill of these entries reads. */
export function contentHashes(entries: Iterable<object>): string[] {
  const hashes: string[] = [];
  for (const entry of entries) if ('hash' in entry && typeof entry.hash === 'string') hashes.push(entry.hash);
  return hashes;
}
