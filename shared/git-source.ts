import { z } from 'zod';
import { redactUrl } from './redact';

/**
 * A project a worker can reach from anywhere: a git repository URL and a ref (a branch, a tag or a
 * commit id). The URL is `file://`, `https://`, `ssh://`, or scp-like `user@host:path`; plain
 * paths and `git://`/`http://` are refused, as a worker must fetch it the same way on any machine.
 */

const SCP_LIKE = /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:(?!\/\/)\S+$/;
const SCHEMES = new Set(['file:', 'https:', 'ssh:']);

/** One line saying why `url` is not a git URL we fetch, or null when it is. */
export function gitUrlProblem(url: string): string | null {
  if (SCP_LIKE.test(url)) return null;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'is not a URL: use file://, https://, ssh:// or user@host:path';
  }
  if (!SCHEMES.has(parsed.protocol)) return `scheme ${parsed.protocol.slice(0, -1)} is not one of file, https, ssh (or user@host:path)`;
  if (parsed.protocol === 'file:' ? parsed.pathname.length <= 1 : parsed.hostname === '') return 'names no repository';
  if (/\s/.test(url)) return 'must not contain spaces';
  // Stored with the plan and shown to every console: a secret belongs in a credential helper.
  if (parsed.password !== '') return 'must not contain a password or token; use an SSH key or a git credential helper';
  return null;
}

/**
 * `git check-ref-format --allow-onelevel` rules (git-check-ref-format(1)), so `main`, `v1.2` and a
 * commit id pass: no component starting with `.` or ending `.lock`, no `..`, no control characters,
 * space, `~ ^ : ? * [ \`, no `@{`, not `@`, no leading, trailing or doubled `/`, no trailing `.`.
 * A leading `-` is refused too, so a ref can never be read as an option by git.
 */
export function refNameProblem(ref: string): string | null {
  if (ref === '' || ref === '@') return 'is not a ref name';
  if (ref.startsWith('-')) return 'must not start with "-"';
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(ref)) return 'must not contain spaces, control characters or any of ~ ^ : ? * [ \\';
  if (ref.includes('..') || ref.includes('@{')) return 'must not contain ".." or "@{"';
  if (ref.startsWith('/') || ref.endsWith('/') || ref.includes('//')) return 'must not start or end with "/" or contain "//"';
  if (ref.endsWith('.')) return 'must not end with "."';
  if (ref.split('/').some((part) => part.startsWith('.') || part.endsWith('.lock'))) return 'no part may start with "." or end with ".lock"';
  return null;
}

const refine =
  (problem: (value: string) => string | null) =>
  (value: string, ctx: z.RefinementCtx): void => {
    const message = problem(value);
    if (message) ctx.addIssue({ code: 'custom', message });
  };

export const GitUrlSchema = z.string().min(1, 'must not be empty').superRefine(refine(gitUrlProblem));
export const GitRefSchema = z.string().superRefine(refine(refNameProblem));

/** `project: { git: URL, ref: main }` in a plan file; `ref` defaults to the remote's HEAD when left out. */
export const GitSourceSchema = z.lazy(() =>
  z
    .object({
      git: GitUrlSchema,
      ref: GitRefSchema.optional(),
    })
    .strict(),
);
export type GitSource = z.infer<typeof GitSourceSchema>;

/** A plan's git project, with the commit its sandbox was cloned at once a worker has cloned it. */
export const PlanGitSourceSchema = z.lazy(() =>
  z.object({
    git: GitUrlSchema,
    ref: GitRefSchema.nullable(),
    /** The commit the sandbox started from: apply's conflict check and `--branch` start here. */
    baseCommit: z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/, 'must be a full commit id').nullable(),
  }),
);
export type PlanGitSource = z.infer<typeof PlanGitSourceSchema>;

/** How a plan's project reads in a list or a summary: its folder, or its repository, ref and base commit. */
export function projectLabel(plan: { projectPath: string | null; projectSource?: PlanGitSource | null }): string | null {
  if (plan.projectPath !== null || !plan.projectSource) return plan.projectPath;
  const { git, ref, baseCommit } = plan.projectSource;
  return `${redactUrl(git)} at ${ref ?? 'its default branch'}${baseCommit ? ` (${baseCommit.slice(0, 12)})` : ''}`;
}
