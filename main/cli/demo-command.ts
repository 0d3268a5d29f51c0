import { cpSync, existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { ValidationError } from '../../shared/errors';

/** The repository's examples/ folder, beside package.json: up from main/cli, and from out/cli/chunks in a build. */
export function examplesDir(): string {
  for (let dir = __dirname; dirname(dir) !== dir; dir = dirname(dir)) if (existsSync(join(dir, 'package.json'))) return join(dir, 'examples');
  return resolve(__dirname, '../../examples');
}

/**
 * Copies examples/ (the demo project and its plans) into `dir`, or a fresh temporary folder, and
 * returns the copy's path: plans created from the copy apply into the copy, never into the repository.
 */
export function copyDemo(dir?: string): string {
  const source = examplesDir();
  if (!existsSync(source)) throw new ValidationError('examples', `are not at ${source}; agents demo needs a clone of the repository`);
  const target = dir ? resolve(dir) : mkdtempSync(join(tmpdir(), 'agents-demo-'));
  if (existsSync(target) && readdirSync(target).length > 0) throw new ValidationError('dir', `${target} is not empty; name a new or empty folder`);
  cpSync(source, target, { recursive: true });
  return target;
}
