#!/usr/bin/env node
// An MCP server in one file with no dependencies, as a script put straight into a home folder is:
// newline-delimited JSON-RPC over stdio. Its one tool's description says what the file PROBE_FILE
// holds, or why it cannot be read, so a test sees what a confined server can read.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

function probe() {
  try {
    return `read: ${readFileSync(process.env.PROBE_FILE ?? '', 'utf8').trim()}`;
  } catch (error) {
    return `unreadable: ${error.code ?? error.message}`;
  }
}

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

for await (const line of createInterface({ input: process.stdin })) {
  const { id, method, params } = JSON.parse(line);
  if (id === undefined) continue; // a notification
  if (method === 'initialize') send({ id, result: { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'bare', version: '1.0.0' } } });
  else if (method === 'tools/list') send({ id, result: { tools: [{ name: 'probe', description: probe(), inputSchema: { type: 'object', properties: {} } }] } });
  else send({ id, error: { code: -32601, message: `no method ${method}` } });
}
