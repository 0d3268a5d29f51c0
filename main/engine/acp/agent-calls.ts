import type { ToolCallUpdate, ToolKind } from '@agentclientprotocol/sdk/unstable';
import type { ToolCallSpec } from '../../../shared/tool-calls';
import type { ToolEffect } from '../tools/definition';
import { sandboxRelative } from './client-side';

/** A coding agent's tool calls in our vocabulary: their names, their output, and the call the approval gate sees. */

/** The kinds of tool call that only read: no change is looked for after them. */
export const READ_ONLY_KINDS: readonly ToolKind[] = ['read', 'search', 'think', 'fetch'];

/** One of the agent's tool calls as its updates describe it so far. */
export interface AgentCall {
  id: string;
  title: string;
  kind: ToolKind | null;
  tool: string;
  rawInput: Record<string, unknown>;
  status: string;
  output: string;
  settled: boolean;
}

/** `claude.Write`, `qwen.write_file`: the name a tool of the agent's is recorded under. */
export function toolNameOf(update: ToolCallUpdate & { name?: unknown }, kind: ToolKind | null): string {
  const meta = (update._meta ?? {}) as Record<string, unknown>;
  const claude = meta.claudeCode as { toolName?: unknown } | undefined;
  const named = [meta.toolName, claude?.toolName, update.name].find((n): n is string => typeof n === 'string' && n !== '');
  return (named ?? kind ?? 'tool').replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 60);
}

/** The text of a tool call's content (its diffs as paths, its text blocks as they are) and raw output. */
export function outputOf(update: ToolCallUpdate): string {
  const parts: string[] = [];
  for (const item of update.content ?? []) {
    if (item.type === 'diff') parts.push(`diff ${item.path}`);
    else if (item.type === 'content' && item.content.type === 'text') parts.push(item.content.text);
    else if (item.type === 'terminal') parts.push(`terminal ${item.terminalId}`);
  }
  if (update.rawOutput !== undefined && update.rawOutput !== null) parts.push(typeof update.rawOutput === 'string' ? update.rawOutput : JSON.stringify(update.rawOutput));
  return parts.join('\n').slice(0, 8_000);
}

/**
 * The agent's call as the gate and the profile know calls: a command as shell.run, a deletion as
 * file.delete, a move as file.rename, an edit as file.write or file.edit (so the approval shows
 * its diff), anything else under the agent's own name. The agent, title, kind and raw input go along.
 */
export function gateCall(agent: string, sandboxRoot: string, call: AgentCall, update: ToolCallUpdate): { spec: ToolCallSpec; effect: ToolEffect | undefined } {
  const about = { agent, title: call.title, kind: call.kind, rawInput: call.rawInput };
  const input = call.rawInput;
  const located = update.locations?.[0]?.path ?? (typeof input.file_path === 'string' ? input.file_path : typeof input.path === 'string' ? input.path : undefined);
  const rel = located ? sandboxRelative(sandboxRoot, located) : undefined;
  const diff = update.content?.find((c) => c.type === 'diff');
  switch (call.kind) {
    case 'execute': {
      const command = [input.command, input.cmd].find((c): c is string => typeof c === 'string') ?? call.title;
      return { spec: { tool: 'shell.run', args: { command, ...about } }, effect: 'exec' };
    }
    case 'delete':
      return { spec: { tool: 'file.delete', args: { path: rel, ...about } }, effect: 'write' };
    case 'move':
      return { spec: { tool: 'file.rename', args: { from: rel, ...about } }, effect: 'write' };
    case 'edit':
      if (diff && diff.type === 'diff' && !diff.oldText) return { spec: { tool: 'file.write', args: { path: rel, content: diff.newText, ...about } }, effect: 'write' };
      if (diff && diff.type === 'diff') return { spec: { tool: 'file.edit', args: { path: rel, find: diff.oldText, replace: diff.newText, ...about } }, effect: 'write' };
      return { spec: { tool: 'file.write', args: { path: rel, ...about } }, effect: 'write' };
    case 'read':
    case 'search':
      return { spec: { tool: `${agent}.${call.tool}`, args: about }, effect: 'read' };
    default:
      return { spec: { tool: `${agent}.${call.tool}`, args: about }, effect: undefined };
  }
}
