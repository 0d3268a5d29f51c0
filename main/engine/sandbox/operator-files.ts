import { ValidationError } from '../../../shared/errors';
import { isBinary } from '../run/change-capture';
import { EngineError } from '../errors';
import { readFileOrNull, writeFileAtomic } from './files';
import { resolveInSandbox, type SandboxPath, showPath } from './paths';

/** The largest text the console saves into a sandbox. */
export const MAX_SAVED_FILE_BYTES = 10 * 1024 * 1024;

/** The file tools' path rules (no escape, no .git when writing), refused as bad input naming `path`. */
async function resolvePath(sandboxRoot: string, relPath: string, forWrite: boolean): Promise<SandboxPath> {
  try {
    return await resolveInSandbox(sandboxRoot, relPath, { forWrite });
  } catch (error) {
    if (error instanceof EngineError && (error.category === 'validation' || error.category === 'policy')) throw new ValidationError('path', error.message);
    throw error;
  }
}

/** A sandbox file as the console's editor opens it: its text, or `binary` without one. */
export async function readSandboxFile(sandboxRoot: string, relPath: string): Promise<{ path: string; content: string | null; binary: boolean }> {
  const target = await resolvePath(sandboxRoot, relPath, false);
  const content = await readFileOrNull(target.absolute).catch(() => {
    throw new ValidationError('path', `${showPath(relPath)} is not a regular file in the sandbox`);
  });
  if (content === null) throw new ValidationError('path', `there is no file ${showPath(relPath)} in the sandbox`);
  const binary = isBinary(content);
  return { path: target.relative, content: binary ? null : content.toString('utf8'), binary };
}

/** Writes a text into the sandbox with the file tools' path rules; returns its path relative to the sandbox. */
export async function writeSandboxFile(sandboxRoot: string, relPath: string, content: string): Promise<string> {
  if (Buffer.byteLength(content, 'utf8') > MAX_SAVED_FILE_BYTES) {
    throw new ValidationError('content', `is larger than ${MAX_SAVED_FILE_BYTES / 1024 / 1024} MiB`);
  }
  const target = await resolvePath(sandboxRoot, relPath, true);
  try {
    await writeFileAtomic(target.absolute, content);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EISDIR' || code === 'ENOTDIR') throw new ValidationError('path', `${showPath(relPath)} is a directory in the sandbox, not a file`);
    throw error;
  }
  return target.relative;
}
