import { lstat, open, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { StrategyDecision } from '../../../shared/domain';

/** The project's instructions for coding agents, by the AGENTS.md convention (agents.md). */
export const INSTRUCTIONS_FILE = 'AGENTS.md';
/** Characters of AGENTS.md the model is given; past that it is cut, saying how much was left out. */
export const INSTRUCTIONS_BUDGET = 8_000;

/** The instructions one phase was given: which file (relative to the project), and its text within the budget. */
export interface ProjectInstructions {
  file: string;
  text: string;
  /** Characters left out for the budget; 0 when it was given whole. */
  cut: number;
}

/** Argument names whose value is a path in the project, as the sandbox tools take them. */
const PATH_ARGS = ['path', 'from', 'to', 'cwd'];

/**
 * The folder a step works in, relative to the project: the deepest folder that all the paths of its
 * proposed calls share (a file's folder, for a file); '' (the root) when it proposes none.
 */
export function stepFolder(decision: Pick<StrategyDecision, 'toolCalls'>): string {
  const folders: string[][] = [];
  for (const call of decision.toolCalls) {
    for (const key of PATH_ARGS) {
      const value = call.args[key];
      if (typeof value !== 'string' || value === '') continue;
      const normal = path.posix.normalize(value.replace(/\\/g, '/'));
      if (normal.startsWith('..') || path.posix.isAbsolute(normal)) continue;
      // A path with an extension names a file (`src/a.ts`); its folder is where the step works.
      const parts = normal.split('/').filter((p) => p && p !== '.');
      folders.push(key !== 'cwd' && /\.[^/]+$/.test(normal) ? parts.slice(0, -1) : parts);
    }
  }
  if (folders.length === 0) return '';
  const shared: string[] = [];
  for (let i = 0; folders.every((f) => i < f.length && f[i] === folders[0][i]); i++) shared.push(folders[0][i]);
  return shared.join('/');
}

/** The file's text when it is a regular file inside the root (never a link out of it); null otherwise. */
async function readRegular(root: string, file: string, limit: number): Promise<{ text: string; size: number } | null> {
  const stat = await lstat(file).catch(() => null);
  if (!stat?.isFile()) return null;
  // A folder on the way may be a link: the file must still be inside the root.
  const [realRoot, realFile] = await Promise.all([realpath(root), realpath(file)]);
  if (path.relative(realRoot, realFile).startsWith('..')) return null;
  const handle = await open(file, 'r');
  try {
    // Read a little past the budget: enough to cut it, never a huge file whole.
    const buffer = Buffer.alloc(Math.min(stat.size, limit * 4 + 4));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return { text: buffer.subarray(0, bytesRead).toString('utf8'), size: stat.size };
  } finally {
    await handle.close();
  }
}

/**
 * The project's AGENTS.md that applies to `folder`: the closest one from that folder up to the
 * project's root (the closest wins, as the convention says), within `budget` characters; null when
 * there is none.
 */
export async function projectInstructions(root: string, folder = '', budget = INSTRUCTIONS_BUDGET): Promise<ProjectInstructions | null> {
  const parts = folder.split('/').filter(Boolean);
  for (let depth = parts.length; depth >= 0; depth--) {
    const relative = [...parts.slice(0, depth), INSTRUCTIONS_FILE].join('/');
    const found = await readRegular(root, path.join(root, relative), budget);
    if (!found) continue;
    const text = found.text.trim();
    const shown = text.length > budget ? text.slice(0, budget) : text;
    // Counted in characters of what was read; a file larger than that is counted by its bytes.
    const cut = text.length > budget ? Math.max(text.length, found.size) - budget : 0;
    return { file: relative, text: shown, cut };
  }
  return null;
}

/** The instructions as a section of the model's first message, naming where they came from. */
export function instructionsSection(instructions: ProjectInstructions | null): string {
  if (!instructions) return '';
  const note = instructions.cut > 0 ? `\n… (${instructions.cut} more characters of ${instructions.file} not shown)` : '';
  return `The project's instructions for coding agents, from ${instructions.file} (follow them where they apply):\n<instructions file="${instructions.file}">\n${instructions.text}${note}\n</instructions>`;
}
