import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

export function probeServer(): McpServer;
