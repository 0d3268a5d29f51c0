import type { SettingsPatch, SettingsView } from '../../../../shared/agent';
import type { McpServersView } from '../../../../shared/mcp';
import type { LoadStatus } from './load-status';

/** The model settings (never the API key, only whether one is set) and asking the agent to fix a step. */
export interface AgentSlice {
  settings: SettingsView | null;
  settingsStatus: LoadStatus;
  settingsError: string | null;
  settingsOpen: boolean;
  setSettingsOpen(open: boolean): void;
  loadSettings(): Promise<void>;
  /** Resolves true when the host saved the change. */
  saveSettings(patch: SettingsPatch): Promise<boolean>;
  /** The MCP servers in the settings, each in one line; null until loaded. */
  mcpServers: McpServersView['servers'] | null;
  mcpError: string | null;
  loadMcpServers(): Promise<void>;
  /** A command line or a URL; resolves true when the host added it. */
  addMcpServer(server: { name: string; commandLine?: string; url?: string }): Promise<boolean>;
  removeMcpServer(name: string): Promise<void>;
  correctError: string | null;
  /** `correct`: the model runs the failed step again with the failure and the note. */
  correctStep(note: string): Promise<void>;
}
