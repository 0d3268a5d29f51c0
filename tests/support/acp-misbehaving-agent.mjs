// An agent that speaks ACP badly, one way per run (argv[2]), for the tests of what the console does then:
// exit (exits at initialize, saying why on stderr), silent (never answers), protocol-error (answers a
// prompt with a JSON-RPC error), odd-permission (asks permission with options no client knows).
import { createInterface } from 'node:readline';

const mode = process.argv[2];
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
let nextId = 1000;

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (mode === 'silent') return;
  if (message.method === 'initialize') {
    if (mode === 'exit') {
      process.stderr.write('misbehaving agent: no configuration found\n');
      process.exit(3);
    }
    send({ id: message.id, result: { protocolVersion: 1, agentInfo: { name: 'misbehaving-agent', version: '0.0.1' }, agentCapabilities: {} } });
  } else if (message.method === 'session/new') {
    send({ id: message.id, result: { sessionId: 'S1' } });
  } else if (message.method === 'session/prompt') {
    if (mode === 'protocol-error') send({ id: message.id, error: { code: -32603, message: 'internal failure of the agent' } });
    if (mode === 'odd-permission') {
      globalThis.prompt = message.id;
      send({ id: nextId++, method: 'session/request_permission', params: { sessionId: 'S1', toolCall: { toolCallId: 't1', title: 'Do something', kind: 'other', status: 'pending' }, options: [{ optionId: 'maybe', name: 'Maybe', kind: 'allow_once' }] } });
    }
  } else if (message.method === 'session/cancel') {
    if (globalThis.prompt !== undefined) send({ id: globalThis.prompt, result: { stopReason: 'cancelled' } });
  }
});
