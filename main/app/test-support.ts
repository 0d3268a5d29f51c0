import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type App, openApp } from './open-app';

export interface TempApp {
  app: App;
  /** A scratch folder: the data directory and a project live inside it. */
  root: string;
  /** A small project for plans to work on. */
  project: string;
  dispose(): Promise<void>;
}

/** A real app on real SQLite in a fresh temporary folder. */
export async function tempApp(options: { maxProjectBytes?: number } = {}): Promise<TempApp> {
  const root = mkdtempSync(path.join(tmpdir(), 'agents-host-'));
  const project = path.join(root, 'project');
  mkdirSync(project);
  writeFileSync(path.join(project, 'README.md'), '# Demo\n');
  const app = await openApp({ dataDir: path.join(root, 'data'), sleep: () => Promise.resolve(), ...options });
  return {
    app,
    root,
    project,
    async dispose() {
      const running = async () => {
        try {
          return (await app.service.list()).filter((p) => app.service.isRunning(p.id));
        } catch {
          return []; // closed already, by the code under test
        }
      };
      // A run left paused would never end: let every run go on to its end.
      for (let i = 0; i < 500 && (await running()).length > 0; i++) {
        for (const p of await running()) app.service.controller(p.id).continue();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await app.service.idle();
      app.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** A plan file's text: `steps` plain-text steps, each writing one file, or failing at `failAt`. */
export function planYaml(project: string, options: { name?: string; steps?: number; failAt?: number } = {}): string {
  const steps = Array.from({ length: options.steps ?? 2 }, (_, i) =>
    i + 1 === options.failAt
      ? `  - step: Step ${i + 1} edits a heading that is not there\n    tools:\n      - tool: file.edit\n        args: { path: README.md, find: "## Missing", replace: "x" }`
      : `  - step: Step ${i + 1}\n    tools:\n      - tool: file.write\n        args: { path: "out/${i + 1}.txt", content: "${i + 1}" }`,
  );
  return [`name: ${options.name ?? 'host-test'}`, `project: ${JSON.stringify(project)}`, 'automationProfile: trusted', 'definitionOfDone:', ...steps, ''].join('\n');
}

/** Polls until `check` holds; for state that changes in a background run. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
