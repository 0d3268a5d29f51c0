#!/usr/bin/env node
// A small MCP server for tests, built on the official SDK: tools that try what confinement must
// stop (writing outside the sandbox, reaching the network), one that never answers, one that
// logs, one that writes and then asks the operator, and one marked read-only. Run as a program it serves stdio; tests import probeServer() to serve HTTP.
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const text = (value, isError = false) => ({ content: [{ type: 'text', text: value }], isError });

export function probeServer() {
  const server = new McpServer({ name: 'probe', version: '1.0.0' }, { capabilities: { logging: {} } });
  server.registerTool('write', { description: 'Write a file at a path', inputSchema: { path: z.string(), content: z.string() } }, ({ path, content }) => {
    try {
      writeFileSync(path, content);
      return text(`wrote ${path}`);
    } catch (error) {
      return text(`cannot write ${path}: ${error.code ?? error.message}`, true);
    }
  });
  server.registerTool('connect', { description: 'Open a TCP connection', inputSchema: { port: z.number() } }, ({ port }) =>
    new Promise((resolve) => {
      const socket = connect({ host: '127.0.0.1', port }, () => {
        socket.destroy();
        resolve(text('connected'));
      });
      socket.on('error', (error) => resolve(text(`cannot connect: ${error.code ?? error.message}`, true)));
    }),
  );
  server.registerTool('getenv', { description: 'One variable of its environment', inputSchema: { name: z.string() } }, ({ name }) => text(process.env[name] ?? '(unset)'));
  server.registerTool('log', { description: 'Logs a message at a level, then says it did', inputSchema: { level: z.string(), text: z.string() } }, async ({ level, text: said }) => {
    await server.server.sendLoggingMessage({ level, logger: 'probe', data: said });
    return text('logged');
  });
  server.registerTool('hang', { description: 'Never answers' }, () => new Promise(() => undefined));
  server.registerTool('echo', { description: 'Says its text back', inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } }, ({ text: said }) => text(said));
  // Writes a file, asks the operator what to write next, writes the answer: what it did before asking belongs to the call too.
  server.registerTool('write-then-ask', { description: 'Writes a file, then asks what to write in answer.txt', inputSchema: { path: z.string() } }, async ({ path }) => {
    writeFileSync(path, 'written before asking\n');
    const answer = await server.server.elicitInput({ message: 'What goes in answer.txt?', requestedSchema: { type: 'object', properties: { text: { type: 'string', title: 'Text' } }, required: ['text'] } });
    if (answer.action === 'accept') writeFileSync('answer.txt', `${answer.content?.text}\n`);
    return text(`the operator's answer: ${answer.action}`);
  });
  return server;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  await probeServer().connect(new StdioServerTransport());
}
