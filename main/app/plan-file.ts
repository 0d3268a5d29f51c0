import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { ToolRegistry } from '../engine/run/tool-runner';
import { type AutomationProfile, ProfileNameSchema, ProfileRefSchema, resolveProfile } from '../../shared/profiles';
import { type PlanFile, PlanFileSchema, type PlanStep, PlanStepSchema, type ProjectInvariants, ProjectInvariantsSchema } from '../../shared/domain';
import type { ToolCallSpec } from '../../shared/tool-calls';
import { parseOrThrow, ValidationError } from '../../shared/errors';
import type { GitSource } from '../../shared/git-source';
import { normalizeCheck, type PlanVerify, ProjectVerifySchema } from '../../shared/checks';
import { checkProjectDir, type ProjectPolicy, resolveProjectDir } from './project-policy';

/** Bad input with several problems: its message is one `field: problem` line per problem. */
export class PlanProblems extends ValidationError {
  constructor(readonly problems: readonly ValidationError[]) {
    super(problems[0].field, problems[0].problem);
    this.message = problems.map((p) => p.message).join('\n');
  }
}

function throwProblems(problems: readonly ValidationError[]): void {
  if (problems.length === 1) throw problems[0];
  if (problems.length > 1) throw new PlanProblems(problems);
}

export interface LoadedPlanFile {
  plan: PlanFile;
  /** Absolute project directory, when the plan names one. */
  projectPath: string | null;
  /** The git repository a worker clones, when the plan names one (`project: { git, ref }`) instead of a folder. */
  projectSource: GitSource | null;
}

/** Reads and checks a plan file (YAML or JSON) as execute would run it; see validatePlanFile. */
export function loadPlanFile(file: string, tools: ToolRegistry, overrides: { project?: string; profile?: string } = {}): LoadedPlanFile {
  return validatePlanFile(readYamlFile(file, 'plan-file'), dirname(resolve(file)), tools, overrides);
}

function readYamlFile(file: string, field: string): unknown {
  const path = resolve(file);
  if (!existsSync(path)) throw new ValidationError(field, `no such file: ${file}`);
  if (statSync(path).isDirectory()) throw new ValidationError(field, `${file} is a folder; name a plan file (YAML or JSON) in it`);
  return parsePlanText(readFileSync(path, 'utf8'), field);
}

/** One step in the plan-file format (`step:` and `tools:`), as `agents plan edit-step --file` takes it, for step `number`. */
export function loadStepFile(file: string, tools: ToolRegistry, number: number): PlanStep {
  const step = parseOrThrow(PlanStepSchema, readYamlFile(file, '--file'), '--file');
  throwProblems(callProblems(step.tools, number, tools));
  return step;
}

/**
 * Each call of step `number` checked as the ToolRunner will check it at execute: a known tool, and
 * arguments its schema takes. One problem per call, naming the unknown and the missing fields.
 */
export function callProblems(calls: readonly ToolCallSpec[], number: number, tools: ToolRegistry): ValidationError[] {
  return calls.flatMap((call, i) => {
    const label = `step ${number}, call ${i + 1}`;
    const tool = tools.get(call.tool);
    if (!tool) return [new ValidationError(label, `unknown tool "${call.tool}"; the tools are ${tools.discover().map((t) => t.name).join(', ')}`)];
    const parsed = tool.schema.safeParse(call.args);
    if (parsed.success) return [];
    const issues = parsed.error.issues.flatMap((issue) => argIssues(issue, call.args));
    return [new ValidationError(`${label} (${call.tool})`, [...new Set(issues)].sort(byKind).join('; '))];
  });
}

const KINDS = ['unknown field', 'missing field'];
const byKind = (a: string, b: string) => rank(a) - rank(b);
const rank = (line: string) => {
  const kind = KINDS.findIndex((k) => line.startsWith(k));
  return kind === -1 ? KINDS.length : kind;
};

function argIssues(issue: z.core.$ZodIssue, args: Record<string, unknown>): string[] {
  if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => `unknown field "${key}"`);
  const field = issue.path.map(String).join('.');
  if (issue.path.length === 1 && !Object.hasOwn(args, field)) return [`missing field "${field}"`];
  return [field ? `field "${field}": ${issue.message}` : issue.message];
}

/** A built-in profile's name, or a file holding a profile as a plan file writes it (`{ base, approve, ... }`). */
export function loadProfile(nameOrFile: string): AutomationProfile {
  if (ProfileNameSchema.safeParse(nameOrFile).success) return resolveProfile(ProfileNameSchema.parse(nameOrFile));
  if (!existsSync(resolve(nameOrFile))) {
    throw new ValidationError('profile', `"${nameOrFile}" is neither a profile (${ProfileNameSchema.options.join(', ')}) nor a file`);
  }
  return resolveProfile(parseOrThrow(ProfileRefSchema, readYamlFile(nameOrFile, 'profile'), 'profile'));
}

export const INVARIANTS_FILE = '.agents/invariants.yaml';
export const VERIFY_FILE = '.agents/verify.yaml';

/**
 * The checks a plan runs (README.md, "Verify"): the project's `.agents/verify.yaml` first, then
 * the plan file's `verify:`; undefined when there are none and `verifyEach` is not set.
 */
export function planVerify(plan: Pick<PlanFile, 'verify' | 'verifyEach'>, projectPath: string | null): PlanVerify | undefined {
  const file = projectPath ? join(projectPath, VERIFY_FILE) : null;
  const project = file && existsSync(file) ? parseOrThrow(ProjectVerifySchema, readYamlFile(file, VERIFY_FILE) ?? {}, VERIFY_FILE).verify : [];
  const checks = [...project.map((c) => normalizeCheck(c, 'project')), ...(plan.verify ?? []).map((c) => normalizeCheck(c, 'plan'))];
  return checks.length > 0 || plan.verifyEach ? { checks, verifyEach: plan.verifyEach ?? false } : undefined;
}

/** The project's `.agents/invariants.yaml`, or null where there is none. */
export function loadProjectInvariants(projectPath: string): ProjectInvariants | null {
  const file = join(projectPath, INVARIANTS_FILE);
  if (!existsSync(file)) return null;
  return parseOrThrow(ProjectInvariantsSchema, readYamlFile(file, INVARIANTS_FILE) ?? {}, INVARIANTS_FILE);
}

/** YAML (or JSON, which YAML reads too) with alias expansion bounded; warnings are not printed. */
export function parsePlanText(text: string, field: string, label?: string): unknown {
  try {
    return parseYaml(text, { maxAliasCount: 100, logLevel: 'error' });
  } catch (error) {
    // The parser's first line ends with a colon before the excerpt it quotes on the next lines.
    const message = error instanceof Error ? error.message.split('\n')[0].replace(/:\s*$/, '') : String(error);
    throw new ValidationError(field, `${label ? `${label} is ` : ''}not valid YAML or JSON: ${message}`);
  }
}

/** One line for a zod issue of the plan file, as ValidationError.fromZod words it. */
function planIssue(issue: z.core.$ZodIssue, raw: Record<string, unknown>): ValidationError {
  if (issue.path[0] === 'automationProfile' && typeof raw.automationProfile === 'string') return profileProblem(raw.automationProfile, 'automationProfile');
  return ValidationError.fromZod(new z.ZodError([issue]));
}

function profileProblem(name: string, field: string): ValidationError {
  return new ValidationError(field, `"${name}" is not a profile; the profiles are ${ProfileNameSchema.options.join(', ')}`);
}

/**
 * Where a plan's project folder is, as plans.create would take it, or the one-line problem with
 * the path it tried. `project` is as the operator typed it, or as a plan file names it.
 */
export function checkProject(project: string, baseDir: string, policy?: ProjectPolicy): { path: string; problem: ValidationError | null } {
  const { path, tried } = resolveProjectDir(project, baseDir, policy);
  try {
    checkProjectDir(path, 'project', policy);
  } catch (error) {
    if (error instanceof ValidationError) return { path, problem: error };
    throw error;
  }
  if (!(existsSync(path) && statSync(path).isDirectory())) {
    return { path, problem: new ValidationError('project', `not a directory: ${tried.length > 1 ? `tried ${tried.join(', ')}` : path}`) };
  }
  return { path, problem: null };
}

/**
 * The console's check of its Project folder field: `project` as typed, else the project the plan
 * text `content` names (none for text that is not a plan file: plans.create says what is wrong).
 */
export function checkProjectField(
  input: { project?: string; content?: string },
  baseDir: string,
  policy: ProjectPolicy,
): { project: string | null; path: string | null; problem: string | null } {
  let project = input.project ?? null;
  if (project === null && input.content !== undefined) {
    let raw: unknown = null;
    try {
      raw = parsePlanText(input.content, 'content');
    } catch {
      // Not YAML: no project to fill in.
    }
    const named = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>).project : undefined;
    project = typeof named === 'string' && named !== '' ? named : null;
  }
  if (project === null) return { project: null, path: null, problem: null };
  const { path, problem } = checkProject(project, baseDir, policy);
  return { project, path, problem: problem?.problem ?? null };
}

/**
 * Checks a plan file as execute would run it, and says every problem at once (one line each):
 * the file's fields, each call's tool and arguments, the profile and the project. With `policy`,
 * the project must also lie inside its roots (plans from the console's clients).
 */
export function validatePlanFile(
  raw: unknown,
  baseDir: string,
  tools: ToolRegistry,
  overrides: { project?: string; profile?: string } = {},
  policy?: ProjectPolicy,
): LoadedPlanFile {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ValidationError('plan-file', 'must be a mapping with at least name and definitionOfDone');
  }
  const fields = raw as Record<string, unknown>;
  const problems: ValidationError[] = [];
  const parsed = PlanFileSchema.safeParse(raw);
  if (!parsed.success) problems.push(...parsed.error.issues.map((issue) => planIssue(issue, fields)));
  const steps = Array.isArray(fields.definitionOfDone) ? fields.definitionOfDone : [];
  // Only a model calls MCP tools: a scripted plan's calls are checked against the sandbox tools.
  if (fields.mcp !== undefined && fields.agent === undefined) problems.push(new ValidationError('mcp', 'only an agent plan (agent: true) calls MCP tools'));
  if (fields.agent !== undefined) {
    const scripted = steps.findIndex((step) => PlanStepSchema.safeParse(step).data?.tools.length);
    if (scripted !== -1) {
      problems.push(new ValidationError(`definitionOfDone.${scripted}.tools`, 'an agent plan says what is done in plain words; the model chooses the tool calls'));
    }
  } else {
    steps.forEach((step, i) => {
      const parsedStep = PlanStepSchema.safeParse(step);
      if (parsedStep.success) problems.push(...callProblems(parsedStep.data.tools, i + 1, tools));
    });
  }
  let profile = parsed.data?.automationProfile;
  if (overrides.profile !== undefined) {
    const override = ProfileRefSchema.safeParse(overrides.profile);
    if (override.success) profile = override.data;
    else problems.push(profileProblem(overrides.profile, 'profile'));
  }
  // The operator's own --project is relative to where they are; the file's, to the file. A client
  // of the console has neither: both look under baseDir and the roots.
  const given = overrides.project ?? (typeof fields.project === 'string' ? fields.project : undefined);
  const from = overrides.project !== undefined && !policy ? process.cwd() : baseDir;
  const project = given === undefined ? null : checkProject(given, from, policy);
  if (project?.problem) problems.push(project.problem);
  throwProblems(problems);
  const plan = parsed.data as PlanFile;
  if (profile !== undefined) plan.automationProfile = profile;
  // --project names a folder, and a folder wins over the file's git source.
  const projectSource = overrides.project === undefined && typeof plan.project === 'object' ? plan.project : null;
  return { plan, projectPath: project?.path ?? null, projectSource };
}
