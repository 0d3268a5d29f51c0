#!/usr/bin/env node
// The product as the client of the MCP conformance suite (`npm run test:mcp-conformance`): the suite
// runs this with its test server's URL last and the scenario in MCP_CONFORMANCE_SCENARIO. The
// server is added to a throwaway data directory as an operator adds one, then `agents mcp` talks
// to it as an operator would.
const { spawnSync } = require('node:child_process');
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const path = require('node:path');

const url = process.argv.at(-1);
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? '';
const home = mkdtempSync(path.join(tmpdir(), 'agents-conformance-'));
const bin = path.join(__dirname, '..', 'bin', 'agents.cjs');

/** Runs `agents ARGS` with its output passed through; exits with its status when it fails. */
function agents(...args) {
  const run = spawnSync(process.execPath, [bin, ...args], { env: { ...process.env, AGENTS_HOME: home }, stdio: 'inherit' });
  if (run.status !== 0) {
    rmSync(home, { recursive: true, force: true });
    process.exit(run.status ?? 1);
  }
}

/** What each scenario asks of the client: the tool its server offers, called as an operator would. */
const CALLS = {
  tools_call: ['add_numbers', '--args', '{"a": 5, "b": 3}'],
  // Accepting with no fields of its own: the question's defaults fill them (SEP-1034).
  'elicitation-sep1034-client-defaults': ['test_client_elicitation_defaults', '--input', '{}'],
  // The server drops the call's stream; the answer comes on the resumed one (SEP-1699).
  'sse-retry': ['test_reconnection'],
};

agents('mcp', 'add', 'conformance', '--url', url);
if (scenario === 'initialize') agents('mcp', 'list');
else if (CALLS[scenario]) agents('mcp', 'call', 'conformance', ...CALLS[scenario]);
else if (scenario.startsWith('auth/')) {
  // The sign-in page of these servers redirects at once: a "browser" that fetches the address and
  // follows the redirect to our loopback address is enough. A pre-registered client comes in the context.
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}');
  const client = context.client_id ? ['--client-id', context.client_id, ...(context.client_secret ? ['--client-secret', context.client_secret] : [])] : [];
  process.env.AGENTS_BROWSER = `${JSON.stringify(process.execPath)} -e "fetch(process.argv[1]).catch(() => process.exit(1))"`;
  agents('mcp', 'login', 'conformance', ...client);
  agents('mcp', 'list');
  // A call after the sign-in: where it needs more scope (403 insufficient_scope), `mcp call` signs in again for all of it and calls again.
  agents('mcp', 'call', 'conformance', 'test-tool');
}
else {
  console.error(`no client behaviour for the scenario "${scenario}"`);
  process.exitCode = 1;
}
rmSync(home, { recursive: true, force: true });
