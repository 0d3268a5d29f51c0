import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { type PlanFile, PlanFileSchema, ProfileRefSchema } from '../../shared/domain';
import { parseOrThrow, ValidationError } from '../../shared/errors';
import { checkProjectDir, type ProjectPolicy } from './project-policy';

export interface LoadedPlanFile {
  plan: PlanFile;
  /** Absolute project directory, when the plan names one. */
  projectPath: string | null;
}

/** Reads and validates a plan file (YAML or JSON); every failure is one ValidationError line. */
export function loadPlanFile(file: string, overrides: { project?: string; profile?: string } = {}): LoadedPlanFile {
  const path = resolve(file);
  if (!existsSync(path)) throw new ValidationError('plan-file', `no such file: ${file}`);
  return validatePlanFile(parsePlanText(readFileSync(path, 'utf8'), 'plan-file'), dirname(path), overrides);
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
  if (overrides.profile !== undefined) {
    plan.automationProfile = parseOrThrow(ProfileRefSchema, overrides.profile, '--profile');
  }
  const project = overrides.project !== undefined ? resolve(overrides.project) : plan.project !== undefined ? resolve(baseDir, plan.project) : null;
  const field = overrides.project !== undefined ? '--project' : 'project';
  if (project !== null) checkProjectDir(project, field, policy);
  if (project !== null && !(existsSync(project) && statSync(project).isDirectory())) {
    throw new ValidationError(field, `not a directory: ${project}`);
  }
  return { plan, projectPath: project };
}
