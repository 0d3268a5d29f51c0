#!/usr/bin/env node
// `npm run test:mcp-conformance`: the MCP conformance suite's client scenarios for the 2025-06-18
// and 2025-11-25 revisions, with the product as the client (scripts/mcp-conformance-client.cjs).
// One at a time, not the suite's all-at-once: `sse-retry` times the client's reconnection to within
// 200 ms, which a loaded 2-core machine misses. A scenario named in the baseline must fail, any
// other must pass; the summary is the suite's own per-scenario lines.
const { spawnSync } = require('node:child_process');
const { mkdtempSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');

const root = path.join(__dirname, '..');
const cli = path.join(root, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js');
const baseline = path.join(root, 'tests', 'mcp-conformance-baseline.yml');
const client = `${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(__dirname, 'mcp-conformance-client.cjs'))}`;
const out = mkdtempSync(path.join(tmpdir(), 'agents-mcp-conformance-'));

const listed = spawnSync(process.execPath, [cli, 'list'], { encoding: 'utf8' }).stdout;
const clientPart = listed.slice(listed.indexOf('Client scenarios'));
const scenarios = [...clientPart.matchAll(/^\s+- (\S+) \[([^\]]*)\]$/gm)].filter(([, , versions]) => /2025-06-18|2025-11-25/.test(versions)).map(([, name]) => name);
if (scenarios.length === 0) {
  console.error('the conformance suite listed no client scenarios');
  process.exit(1);
}

let passed = 0;
let failed = 0;
const wrong = [];
for (const scenario of scenarios) {
  const run = spawnSync(process.execPath, [cli, 'client', '--command', client, '--scenario', scenario, '--timeout', '60000', '--expected-failures', baseline, '-o', out], { encoding: 'utf8', cwd: root });
  const text = `${run.stdout}${run.stderr}`;
  const counts = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(text);
  const expected = /Expected failures \(in baseline\)/.test(text);
  const ok = run.status === 0;
  if (counts) [passed, failed] = [passed + Number(counts[1]), failed + Number(counts[3])];
  console.log(`${ok ? '✓' : '✗'} ${scenario}: ${counts ? `${counts[1]} passed, ${counts[3]} failed, ${counts[4]} warnings` : 'no result'}${expected ? ' (an expected failure: see the baseline)' : ''}`);
  if (!ok) {
    wrong.push(scenario);
    console.log(text.split('\n').filter((line) => /FAILURE|WARNING|Stale|Unexpected|Error/.test(line)).map((line) => `    ${line}`).join('\n'));
  }
}
console.log(`\n${scenarios.length} scenarios; checks: ${passed} passed, ${failed} failed; results in ${out}`);
if (wrong.length > 0) {
  console.log(`not as the baseline says: ${wrong.join(', ')}`);
  process.exit(1);
}
