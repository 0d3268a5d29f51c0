import { join } from 'node:path';
import { traceIdOf } from '../main/app/telemetry/run-spans';
import { expect, test } from './fixtures';
import { createPlan, openConsole, planHeader, planOption, seriousViolations } from './helpers';

/** README.md, "Traces": the plan header names the run's trace, and opens it in the viewer `traceUrl` names. */
test('the plan header shows the trace id of the run with Copy, and Open trace once a trace viewer is set', async ({ page, agentsConsole }) => {
  const { cli, examples, url } = agentsConsole;
  const planId = await createPlan(cli, join(examples, 'add-license.yaml'));
  const ran = await cli(['plan', 'run', planId]);
  expect(ran.code, ran.stderr).toBe(0);
  const traceId = traceIdOf(planId, 1);

  await openConsole(page, url);
  await planOption(page, 'add-license').click();
  const header = planHeader(page, 'add-license');
  await expect(header.getByText('Ready to apply')).toBeVisible();
  await expect(header.getByText(traceId)).toBeVisible();
  await expect(header.getByRole('button', { name: 'Copy', description: 'Copy the trace id' })).toBeVisible();
  await expect(header.getByRole('link', { name: 'Open trace' })).toHaveCount(0);

  // Set from the CLI while the console is open: the next read of the plan has the viewer's address.
  expect((await cli(['config', 'set', 'traceUrl', 'http://localhost:16686/trace/{traceId}'])).code).toBe(0);
  await page.reload();
  await planOption(page, 'add-license').click();
  const link = planHeader(page, 'add-license').getByRole('link', { name: 'Open trace' });
  await expect(link).toHaveAttribute('href', `http://localhost:16686/trace/${traceId}`);
  await expect(link).toHaveAttribute('target', '_blank');
  expect(await seriousViolations(page), 'header with its trace').toEqual([]);
});
