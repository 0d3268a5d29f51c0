import { parse as parseYaml } from 'yaml';
import type { Plan } from '../../shared/domain';
import { resolveProfile } from '../../shared/domain';
import { ValidationError } from '../../shared/errors';
import { validatePlanFile } from '../app/plan-file';
import type { PlanService } from '../app/plan-service';

export interface PlanContent {
  /** The plan file's text, YAML or JSON. */
  content: string;
  /** Only for messages: the name the operator picked. */
  fileName?: string;
  project?: string;
  profile?: string;
}

/**
 * Creates a plan from a plan file's text, as the browser's file picker sends it; nothing is written
 * to disk. Same validation as `PlanService.createFromFile`, whose sibling this belongs beside.
 * A relative `project` resolves against `baseDir`, since an uploaded file has no folder of its own.
 */
export function createPlanFromContent(service: PlanService, input: PlanContent, baseDir: string): Plan {
  let raw: unknown;
  try {
    // Warnings (unknown tags and the like) would go to the host's stderr; the text is the client's.
    raw = parseYaml(input.content, { maxAliasCount: 100, logLevel: 'error' });
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new ValidationError('content', `${input.fileName ? `${input.fileName} is ` : ''}not valid YAML or JSON: ${message}`);
  }
  const { plan, projectPath } = validatePlanFile(raw, baseDir, { project: input.project, profile: input.profile });
  return service.lifecycle.createPlan({
    name: plan.name,
    description: plan.description,
    definitionOfDone: plan.definitionOfDone,
    invariants: plan.invariants,
    automationProfile: resolveProfile(plan.automationProfile),
    projectPath,
  });
}
