import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ValidationError } from '../../shared/errors';
import type { App } from '../app/open-app';
import { copyDemo } from './demo-command';

/**
 * What a first start says about one demo plan: its id, or why it was not created. An agent plan is
 * refused while no model is configured, as on every first start; that is a setting to make, not an
 * error to read.
 */
export function demoPlanLine(file: string, outcome: { id: string } | { error: unknown }): string {
  if ('id' in outcome) return `demo plan ${file}: ${outcome.id}`;
  const { error } = outcome;
  if (error instanceof ValidationError && /^agent\.model\b/m.test(error.message)) {
    return `demo plan ${file}: needs a model: open Settings in the console (or set AGENTS_MODEL), then create it`;
  }
  return `demo plan ${file} not created: ${error instanceof Error ? error.message : String(error)}`;
}

/**
 * On a first start (no plans, no demo copy yet) copies examples/ into `demo` (in the data folder,
 * so that applying a demo plan never touches the repository) and creates its plans, one line each.
 */
export async function seedDemoPlans(app: App, demo: string, say: (line: string) => void): Promise<void> {
  if (existsSync(demo) || (await app.service.listItems()).length > 0) return;
  try {
    copyDemo(demo);
  } catch (error) {
    say(`no demo plans: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  for (const file of readdirSync(demo).filter((name) => /\.ya?ml$/.test(name)).sort()) {
    try {
      say(demoPlanLine(file, { id: (await app.service.createFromFile(join(demo, file))).id }));
    } catch (error) {
      say(demoPlanLine(file, { error }));
    }
  }
}
