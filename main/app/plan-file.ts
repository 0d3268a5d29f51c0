import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { join } from 'node:path';
import {
  type AutomationProfile,
  type PlanFile,
  PlanFileSchema,
  type PlanStep,
  PlanStepSchema,
  type ProjectInvariants,
  ProjectInvariantsSchema,
  ProfileNameSchema,
  ProfileRefSchema,
  resolveProfile,
} from '../../shared/domain';
import { parseOrThrow, ValidationError } from '../../shared/errors';
import { checkProjectDir, type ProjectPolicy } from './project-policy';

export interface LoadedPlanFile {
  plan: PlanFile;
  /** Absolute project directory, when the plan names one. */
  projectPath: string | null;
}

/** Reads and validates a plan file (YAML or JSON); every failure is one ValidationError line. */
export function loadPlanFile(file: string, overrides: { project?: string; profile?: string } = {}): LoadedPlanFile {
  return validatePlanFile(readYamlFile(file, 'plan-file'), dirname(resolve(file)), overrides);
}

function readYamlFile(file: string, field: string): unknown {
  const path = resolve(file);
  if (!existsSync(path)) throw new ValidationError(field, `no such file: ${file}`);
  return parsePlanText(readFileSync(path, 'utf8'), field);
}

/** One step in the plan-file format (`step:` and `tools:`), as `agents plan edit-step --file` takes it. */
export function loadStepFile(file: string): PlanStep {
  return parseOrThrow(PlanStepSchema.strict(), readYamlFile(file, '--file'), '--file');
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
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new ValidationError(field, `${label ? `${label} is ` : ''}not valid YAML or JSON: ${message}`);
  }
}

/** With `policy`, the project must also lie inside its roots (plans from the console's clients). */
export function validatePlanFile(raw: unknown, baseDir: string, overrides: { project?: string; profile?: string } = {}, policy?: ProjectPolicy): LoadedPlanFile {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ValidationError('plan-file', 'must be a mapping with at least name and definitionOfDone');
  }
  const plan = parseOrThrow(PlanFileSchema, raw);
  if (plan.agent !== undefined && Array.isArray(plan.definitionOfDone)) {
    const scripted = plan.definitionOfDone.findIndex((step) => typeof step !== 'string' && step.tools.length > 0);
    if (scripted !== -1) {
      throw new ValidationError(`definitionOfDone.${scripted}.tools`, 'an agent plan says what is done in plain words; the model chooses the tool calls');
    }
  }
  if (overrides.profile !== undefined) {
    plan.automationProfile = parseOrThrow(ProfileRefSchema, overrides.profile, 'profile');
  }
  const project = overrides.project !== undefined ? resolve(overrides.project) : plan.project !== undefined ? resolve(baseDir, plan.project) : null;
  const field = 'project';
  if (project !== null) checkProjectDir(project, field, policy);
  if (project !== null && !(existsSync(project) && statSync(project).isDirectory())) {
    throw new ValidationError(field, `not a directory: ${project}`);
  }
  return { plan, projectPath: project };
}
