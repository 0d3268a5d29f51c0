import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Given, Then, When } from '@cucumber/cucumber';
import { agents, type CliResult } from '../../tests/cli/cli-harness';
import type { EngineWorld } from '../support/world';

/** What the verify scenarios keep between steps. */
interface Verified {
  home: string;
  project: string;
  planFile: string;
  checks: string[];
  planId: string;
  run: CliResult;
}

const v = (world: EngineWorld): Verified => (world as unknown as { verified: Verified }).verified;

Given('a project with a plan that writes a licence and checks it with {string}', function (this: EngineWorld, check: string) {
  const dir = mkdtempSync(join(tmpdir(), 'agents-verify-feature-'));
  const project = join(dir, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'README.md'), '# Demo\n');
  (this as unknown as { verified: Verified }).verified = { home: join(dir, 'home'), project, planFile: join(dir, 'plan.yaml'), checks: [check], planId: '', run: { code: -1, stdout: '', stderr: '' } };
});

Given('the plan also checks {string}', function (this: EngineWorld, check: string) {
  v(this).checks.push(check);
});

When('the operator runs the verified plan', async function (this: EngineWorld) {
  const o = v(this);
  writeFileSync(
    o.planFile,
    [
      'name: verified',
      'project: ./project',
      'verify:',
      ...o.checks.map((c) => `  - ${JSON.stringify(c)}`),
      'definitionOfDone:',
      '  - step: Write the licence',
      '    check: test -s LICENSE',
      '    tools: [{ tool: file.write, args: { path: LICENSE, content: MIT } }]',
      '  - Review the result',
      '',
    ].join('\n'),
  );
  const created = await agents(['plan', 'create', o.planFile], o.home);
  assert.equal(created.code, 0, created.stderr);
  o.planId = created.stdout.trim();
  o.run = await agents(['plan', 'run', o.planId], o.home);
});

Then('the verified plan is {string} with {string}', async function (this: EngineWorld, status: string, summary: string) {
  const o = v(this);
  const shown = JSON.parse((await agents(['plan', 'show', o.planId, '--json'], o.home)).stdout) as { status: string };
  assert.equal(shown.status, status);
  const checks = await agents(['plan', 'checks', o.planId], o.home);
  assert.equal(checks.stdout.split('\n')[0], summary);
});

Then('applying the verified plan writes LICENSE into the project', async function (this: EngineWorld) {
  const o = v(this);
  const applied = await agents(['plan', 'apply', o.planId], o.home);
  assert.equal(applied.code, 0, applied.stderr);
  assert.equal(readFileSync(join(o.project, 'LICENSE'), 'utf8'), 'MIT');
});

Then('applying the verified plan is refused, naming the check {string}', async function (this: EngineWorld, check: string) {
  const o = v(this);
  const refused = await agents(['plan', 'apply', o.planId], o.home);
  assert.equal(refused.code, 2);
  assert.equal(refused.stderr, `error: plan ${o.planId}: check ${JSON.stringify(check)} failed; apply with --accept-failed-checks to apply anyway\n`);
});

Then('applying the verified plan with --accept-failed-checks writes LICENSE into the project', async function (this: EngineWorld) {
  const o = v(this);
  const applied = await agents(['plan', 'apply', o.planId, '--accept-failed-checks'], o.home);
  assert.equal(applied.code, 0, applied.stderr);
  assert.equal(readFileSync(join(o.project, 'LICENSE'), 'utf8'), 'MIT');
});

When('the operator writes {string} into LICENSE in the sandbox by hand', async function (this: EngineWorld, text: string) {
  const o = v(this);
  const shown = JSON.parse((await agents(['plan', 'show', o.planId, '--json'], o.home)).stdout) as { sandboxPath: string };
  writeFileSync(join(shown.sandboxPath, 'LICENSE'), text);
});

Then('applying the verified plan runs the checks again and writes LICENSE into the project', async function (this: EngineWorld) {
  const o = v(this);
  const applied = await agents(['plan', 'apply', o.planId, '--stream'], o.home);
  assert.equal(applied.code, 0, applied.stderr);
  assert.match(applied.stdout, /^check grep -q Apache LICENSE passed in /m);
  assert.equal(readFileSync(join(o.project, 'LICENSE'), 'utf8'), 'Apache');
});
