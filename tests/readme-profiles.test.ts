import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ANY_TOOL, BUILTIN_PROFILES, type BuiltinProfileName } from '../shared/profiles';

/** The README's profile table, row by row: what an operator reads before choosing a profile. */
function readmeProfiles(): Map<string, string[]> {
  const readme = readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
  const start = readme.indexOf('| profile | calls that wait for approval |');
  expect(start).toBeGreaterThan(-1);
  const rows = readme.slice(start).split('\n').slice(2);
  const table = new Map<string, string[]>();
  for (const row of rows) {
    if (!row.startsWith('|')) break;
    const cells = row.split('|').slice(1, -1).map((c) => c.trim());
    table.set(cells[0], cells.slice(1));
  }
  return table;
}

describe("the README's profile table", () => {
  it('lists every built-in profile as the code defines it', () => {
    const table = readmeProfiles();
    expect([...table.keys()].sort()).toEqual(Object.keys(BUILTIN_PROFILES).sort());
    for (const [name, [approvals, shell, pauses, retries]] of table) {
      const profile = BUILTIN_PROFILES[name as BuiltinProfileName];
      const approve: readonly string[] = profile.approvalRequired;
      const expected = approve.includes(ANY_TOOL) ? 'every tool call' : approve.length === 0 ? 'none' : approve.join(', ');
      expect({ name, approvals, shell, pauses, retries }).toEqual({
        name,
        approvals: expected,
        shell: profile.allowShell ? 'allowed' : 'refused',
        pauses: profile.pauseBeforeEachDecision ? 'yes' : 'no',
        retries: String(profile.autoRetryTransient),
      });
    }
  });
});
