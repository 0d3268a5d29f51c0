import type { ToolDefinition } from './definition';
import type { ToolRegistry } from '../run/tool-runner';
import { fileDeleteTool } from './file-delete';
import { fileEditTool } from './file-edit';
import { fileListTool } from './file-list';
import { fileReadTool } from './file-read';
import { fileRenameTool } from './file-rename';
import { fileSearchTool } from './file-search';
import { fileWriteTool } from './file-write';
import { createShellRunTool, type ShellRunOptions } from './shell-run';

export { fileDeleteTool, fileEditTool, fileListTool, fileReadTool, fileRenameTool, fileSearchTool, fileWriteTool };
export { confinedLaunch, createShellRunTool, DEFAULT_SHELL_TIMEOUT_MS, EX_TEMPFAIL, runCommand, type ShellRunOptions } from './shell-run';

export type BuiltinToolsOptions = ShellRunOptions;

/** The built-in tools of docs/ARCHITECTURE.md "Stable interfaces". Each call makes a fresh shell.run with its own snapshot cache. */
export function builtinTools(options: BuiltinToolsOptions = {}): ToolDefinition<never>[] {
  return [fileReadTool, fileWriteTool, fileEditTool, fileDeleteTool, fileRenameTool, fileListTool, fileSearchTool, createShellRunTool(options)] as ToolDefinition<never>[];
}

export function registerBuiltinTools(registry: ToolRegistry, options: BuiltinToolsOptions = {}): ToolRegistry {
  for (const tool of builtinTools(options)) registry.register(tool);
  return registry;
}
