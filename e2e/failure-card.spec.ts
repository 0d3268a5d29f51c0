import { join } from 'node:path';
import { expect, test } from './fixtures';
import { createPlan, openConsole, planOption, shot } from './helpers';

/** Whether the whole of `box` lies inside `outer`. */
const inside = (box: { x: number; y: number; width: number; height: number }, outer: { x: number; y: number; width: number; height: number }) =>
  box.x >= outer.x && box.y >= outer.y && box.x + box.width <= outer.x + outer.width && box.y + box.height <= outer.y + outer.height;

test('the failure card keeps its actions in view and shows the sandbox to fix the cause in', async ({ page, agentsConsole }) => {
  const { cli, examples, url } = agentsConsole;
  const planId = await createPlan(cli, join(examples, 'broken-docs.yaml'));
  expect((await cli(['plan', 'run', planId])).code).toBe(1);
  const plan = JSON.parse((await cli(['plan', 'show', planId, '--json'])).stdout) as { sandboxRefs: string[] };

  // A short window: the card's details no longer fit, and they scroll; the actions must not.
  await page.setViewportSize({ width: 1280, height: 640 });
  await openConsole(page, url);
  await planOption(page, 'broken-docs').click();
  const card = page.getByRole('region', { name: /failed/ });
  await expect(card.getByText(plan.sandboxRefs[0], { exact: true })).toBeVisible();
  await expect(card.getByRole('button', { name: 'Copy', description: /sandbox path/ })).toBeVisible();

  const retry = card.getByRole('button', { name: 'Retry from the failed step' });
  const [cardBox, retryBox] = [await card.boundingBox(), await retry.boundingBox()];
  expect(cardBox && retryBox && inside(retryBox, cardBox)).toBe(true);
  expect(retryBox && inside(retryBox, { x: 0, y: 0, width: 1280, height: 640 })).toBe(true);
  // Nothing covers it: the point at its centre is the button itself.
  const hit = await retry.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return el.contains(document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2));
  });
  expect(hit).toBe(true);
  await shot(card, 'failure-card-short-window');
});
