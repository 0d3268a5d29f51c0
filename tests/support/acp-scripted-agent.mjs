// A small ACP agent whose turns are scripted (JSON in the SCRIPTED_AGENT variable), for what the real
// agents do not show on demand: which option a permission request was answered with, a session
// loaded after a restart, plan entries, a cost reported in usage_update. It keeps its sessions and a
// log (agent-log.jsonl, one line per thing it was told) in its HOME, as a real agent keeps its own.
//
// SCRIPTED_AGENT: { loadSession?: boolean, steps: { WORD: Action[] } }; a prompt naming "Your step
// (N of M): ...WORD..." runs WORD's actions. An action is one of
//   { tool: { title, kind, name?, rawInput?, ask?: true, write?: { path, content } } }  a tool call (asking first)
//   { plan: [{ content, status, priority }] }  { usage: { used, size, cost? } }  { say: TEXT }
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const script = JSON.parse(process.env.SCRIPTED_AGENT ?? '{"steps":{}}');
const home = process.env.HOME ?? '.';
const sessionsDir = join(home, 'sessions');
mkdirSync(sessionsDir, { recursive: true });
const log = (entry) => appendFileSync(join(home, 'agent-log.jsonl'), `${JSON.stringify(entry)}\n`);

const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
let nextId = 1;
const waiting = new Map();
const request = (method, params) =>
  new Promise((resolve) => {
    const id = `agent-${nextId++}`;
    waiting.set(id, resolve);
    send({ id, method, params });
  });
const update = (sessionId, body) => send({ method: 'session/update', params: { sessionId, update: body } });

/** Sessions by id: their folder, what was said, and the kinds the client allowed always. */
const sessions = new Map();
const saved = (id) => join(sessionsDir, `${id.replace(/[^A-Za-z0-9_-]/g, '_')}.json`);
const save = (id) => writeFileSync(saved(id), JSON.stringify({ cwd: sessions.get(id).cwd, history: sessions.get(id).history }));

async function runTool(sessionId, session, tool, index) {
  // Told to go on where the step stood, it does not write again what the sandbox already has.
  if (tool.write && existsSync(join(session.cwd, tool.write.path)) && readFileSync(join(session.cwd, tool.write.path), 'utf8') === tool.write.content) return 'completed';
  const toolCallId = `call-${sessionId}-${session.history.length}-${index}`;
  const meta = tool.name ? { _meta: { toolName: tool.name } } : {};
  update(sessionId, { sessionUpdate: 'tool_call', toolCallId, title: tool.title, kind: tool.kind, status: 'pending', rawInput: tool.rawInput ?? {}, ...meta });
  if (tool.ask && !session.always.has(tool.kind)) {
    const response = await request('session/request_permission', {
      sessionId,
      toolCall: { toolCallId, title: tool.title, kind: tool.kind, status: 'pending', rawInput: tool.rawInput ?? {}, ...meta },
      options: [
        { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
        { optionId: 'always', name: 'Always allow', kind: 'allow_always' },
        { optionId: 'reject', name: 'Reject', kind: 'reject_once' },
      ],
    });
    const outcome = response.result?.outcome ?? { outcome: 'cancelled' };
    log({ permission: tool.title, kind: tool.kind, answer: outcome.outcome === 'selected' ? outcome.optionId : 'cancelled' });
    if (outcome.outcome !== 'selected' || outcome.optionId === 'reject') {
      update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: 'failed' });
      return outcome.outcome === 'selected' ? 'rejected' : 'cancelled';
    }
    if (outcome.optionId === 'always') session.always.add(tool.kind);
  } else if (tool.ask) {
    log({ permission: tool.title, kind: tool.kind, answer: 'not asked: allowed always' });
  }
  if (tool.write) writeFileSync(join(session.cwd, tool.write.path), tool.write.content);
  update(sessionId, { sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', content: [{ type: 'content', content: { type: 'text', text: `${tool.title}: done` } }] });
  return 'completed';
}

async function prompt(message) {
  const { sessionId } = message.params;
  const session = sessions.get(sessionId);
  if (!session) return send({ id: message.id, error: { code: -32002, message: `no session ${sessionId}` } });
  const text = message.params.prompt.map((block) => block.text ?? '').join('\n');
  log({ prompt: sessionId, text });
  session.history.push({ role: 'user', text });
  session.cancelled = false;
  const step = /Your step \(\d+ of \d+\): ([^\n]*)/.exec(text);
  const word = step ? Object.keys(script.steps).find((w) => step[1].includes(w)) : undefined;
  let stopReason = 'end_turn';
  for (const [index, action] of (word ? script.steps[word] : []).entries()) {
    if (session.cancelled) break;
    if (action.tool) {
      const outcome = await runTool(sessionId, session, action.tool, index);
      if (outcome === 'cancelled') {
        stopReason = 'cancelled';
        break;
      }
    } else if (action.plan) update(sessionId, { sessionUpdate: 'plan', entries: action.plan });
    else if (action.usage) update(sessionId, { sessionUpdate: 'usage_update', ...action.usage });
    else if (action.say) update(sessionId, { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: action.say } });
  }
  if (session.cancelled) stopReason = 'cancelled';
  const answer = stopReason === 'end_turn' ? 'The step is done.' : 'Stopped.';
  session.history.push({ role: 'agent', text: answer });
  save(sessionId);
  send({ id: message.id, result: { stopReason } });
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.id !== undefined && !message.method) {
    waiting.get(message.id)?.(message);
    waiting.delete(message.id);
    return;
  }
  switch (message.method) {
    case 'initialize':
      send({ id: message.id, result: { protocolVersion: 1, agentInfo: { name: 'scripted-agent', version: '1.0.0' }, agentCapabilities: { loadSession: script.loadSession === true } } });
      return;
    case 'session/new': {
      const sessionId = `S-${process.pid}-${sessions.size + 1}`;
      sessions.set(sessionId, { cwd: message.params.cwd, history: [], always: new Set(), cancelled: false });
      save(sessionId);
      log({ newSession: sessionId });
      send({ id: message.id, result: { sessionId } });
      return;
    }
    case 'session/load': {
      const { sessionId, cwd } = message.params;
      if (!script.loadSession || !existsSync(saved(sessionId))) {
        log({ loadRefused: sessionId });
        send({ id: message.id, error: { code: -32002, message: `Resource not found: session ${sessionId}` } });
        return;
      }
      const kept = JSON.parse(readFileSync(saved(sessionId), 'utf8'));
      sessions.set(sessionId, { cwd, history: kept.history, always: new Set(), cancelled: false });
      log({ loadSession: sessionId, turns: kept.history.length });
      // The protocol replays the conversation before answering.
      for (const turn of kept.history) {
        update(sessionId, { sessionUpdate: turn.role === 'user' ? 'user_message_chunk' : 'agent_message_chunk', content: { type: 'text', text: turn.text } });
      }
      send({ id: message.id, result: {} });
      return;
    }
    case 'session/prompt':
      void prompt(message);
      return;
    case 'session/cancel': {
      const session = sessions.get(message.params.sessionId);
      if (session) session.cancelled = true;
      return;
    }
    default:
      if (message.id !== undefined) send({ id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
  }
});
