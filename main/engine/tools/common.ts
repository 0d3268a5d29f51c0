import type { z } from 'zod';
import { once } from '../../../shared/once';
import { EngineError } from '../errors';
import { showPath } from '../sandbox/paths';
import { readFileOrNull } from '../sandbox/files';
import { resolveInSandbox } from '../sandbox/paths';
import type { CapturedChange, ToolContext, ToolDefinition, ToolEffect } from './definition';

/**
 * Builds a ToolDefinition whose `run` receives the schema's parsed output. The schema is built at
 * its first use: a command that runs no tool (`plan list`) builds none of the tools' schemas.
 */
export function defineTool<S extends z.ZodType>(definition: {
  name: string;
  effect: ToolEffect;
  description: string;
  schema: () => S;
  run(args: z.infer<S>, context: ToolContext): Promise<unknown>;
  preview?(args: z.infer<S>, sandbox: { root: string }): Promise<CapturedChange | null>;
}): ToolDefinition<z.infer<S>> {
  const { schema, ...tool } = definition;
  const built = once(schema);
  return Object.defineProperty(tool, 'schema', { get: built, enumerable: true }) as ToolDefinition<z.infer<S>>;
}

/** The sandbox a tool works in; running a file tool without one is an engine bug, not bad input. */
export function sandboxRootOf(tool: string, context: ToolContext): string {
  if (!context.sandboxRoot) throw new EngineError(`${tool}: this plan has no sandbox to work in`, 'internal', { tool });
  return context.sandboxRoot;
}

export function toolError(tool: string, message: string, details: Record<string, unknown> = {}): EngineError {
  return new EngineError(`${tool}: ${message}`, 'tool', { tool, ...details });
}

/** A file-system failure as an EngineError that names the tool and the path; running out of resources may pass, the rest won't. */
export function fsFailure(tool: string, relPath: string, error: unknown): EngineError {
  if (error instanceof EngineError) return error;
  const code = (error as NodeJS.ErrnoException).code ?? '';
  const reasons: Record<string, string> = {
    ENOENT: 'does not exist',
    ENOTDIR: 'has a parent that is not a directory',
    EISDIR: 'is a directory',
    EEXIST: 'already exists',
    EACCES: 'is not accessible (permission denied)',
    EPERM: 'is not accessible (operation not permitted)',
    ELOOP: 'was replaced by a symlink while in use',
    ENOTEMPTY: 'is a directory that is not empty',
    ENAMETOOLONG: 'is too long for the file system',
    EINVAL: 'is not a regular file',
  };
  const transient = new Set(['EMFILE', 'ENFILE', 'EAGAIN', 'EBUSY', 'ENOSPC', 'EIO']);
  const reason = reasons[code] ?? (error instanceof Error ? error.message : String(error));
  return new EngineError(`${tool}: ${showPath(relPath)} ${reason}`, transient.has(code) ? 'transient' : 'tool', { tool, path: relPath, code });
}

/** file.read and file.search do not load anything bigger into memory. */
export const MAX_READ_BYTES = 8 * 1024 * 1024;

/**
 * A writing tool's preview: the change that putting `after(before)` at `relPath` (null: deleting
 * it) would make now; null when `after` gives undefined, or nothing would be there either way.
 */
export async function previewWrite(root: string, relPath: string, after: (before: Buffer | null) => Buffer | null | undefined): Promise<CapturedChange | null> {
  const target = await resolveInSandbox(root, relPath, { forWrite: true });
  const before = await readFileOrNull(target.absolute);
  const next = after(before);
  if (next === undefined || (before === null && next === null)) return null;
  return { operation: before === null ? 'create' : next === null ? 'delete' : 'modify', path: target.relative, before, after: next };
}
