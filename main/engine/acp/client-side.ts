import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { PermissionOption, ReadTextFileRequest, ReadTextFileResponse } from '@agentclientprotocol/sdk/unstable';
import { RequestError } from '@agentclientprotocol/sdk/unstable';

/** What the client side of the protocol does the same in a step and in a read-only planning turn. */

/** The first of the agent's options of these kinds, in the order given. */
export function pickOption(options: readonly PermissionOption[], kinds: readonly PermissionOption['kind'][]): PermissionOption | undefined {
  for (const kind of kinds) {
    const found = options.find((o) => o.kind === kind);
    if (found) return found;
  }
  return undefined;
}

/** A path the agent named, relative to the sandbox with `/`; undefined outside it. */
export function sandboxRelative(root: string, file: string): string | undefined {
  const rel = path.relative(root, path.resolve(root, file));
  return rel.startsWith('..') || path.isAbsolute(rel) ? undefined : rel.split(path.sep).join('/');
}

/** As sandboxRelative, but a path outside the sandbox is a protocol error the agent sees. */
export function sandboxRelativeOrRefuse(root: string, file: string): string {
  const rel = sandboxRelative(root, file);
  if (rel === undefined) throw RequestError.invalidParams(undefined, `${file} is outside the project folder`);
  return rel;
}

/**
 * `fs/read_text_file` in the sandbox, with its line and limit. A missing file is the protocol's
 * not-found error, except for an agent that never matches it (Gemini CLI), which could then not
 * create a file: it is told the file is empty.
 */
export async function readSandboxText(root: string, params: ReadTextFileRequest, agentName: string | undefined): Promise<ReadTextFileResponse> {
  const rel = sandboxRelativeOrRefuse(root, params.path);
  try {
    const text = await readFile(path.join(root, rel), 'utf8');
    if (params.line == null && params.limit == null) return { content: text };
    const lines = text.split('\n');
    const from = Math.max(0, (params.line ?? 1) - 1);
    return { content: lines.slice(from, params.limit == null ? undefined : from + params.limit).join('\n') };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw RequestError.internalError(undefined, (error as Error).message);
    if (/gemini/i.test(agentName ?? '')) return { content: '' };
    throw RequestError.resourceNotFound(params.path);
  }
}
