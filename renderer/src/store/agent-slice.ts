import type { SettingsPatch, SettingsView } from '../../../shared/agent';
import type { McpServersView } from '../../../shared/mcp';
import { errorText } from '../lib/format';
import { track } from './track';
import type { LoadStatus, SliceCreator } from './types';
import { sendAction } from '../lib/action-dispatch';

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

/** The open plan's part: the last failure to ask for a correction. */
export const initialAgentState = { correctError: null as string | null };

export const createAgentSlice: SliceCreator<AgentSlice> = (set, get, deps) => ({
  settings: null,
  settingsStatus: 'idle',
  settingsError: null,
  settingsOpen: false,
  setSettingsOpen(open) {
    set({ settingsOpen: open, settingsError: null, mcpError: null });
    if (open) {
      void get().loadSettings();
      void get().loadMcpServers();
    }
  },
  mcpServers: null,
  mcpError: null,
  async loadMcpServers() {
    try {
      set({ mcpServers: (await deps.bridge['settings.mcp']({})).servers, mcpError: null });
    } catch (error) {
      set({ mcpError: errorText(error) });
    }
  },
  async addMcpServer(server) {
    try {
      set({ mcpServers: (await deps.bridge['settings.mcpAdd'](server)).servers, mcpError: null });
      get().announce(`MCP server ${server.name} added`);
      return true;
    } catch (error) {
      set({ mcpError: errorText(error) });
      return false;
    }
  },
  async removeMcpServer(name) {
    try {
      set({ mcpServers: (await deps.bridge['settings.mcpRemove']({ name })).servers, mcpError: null });
      get().announce(`MCP server ${name} removed`);
    } catch (error) {
      set({ mcpError: errorText(error) });
    }
  },
  async loadSettings() {
    set({ settingsStatus: 'loading', settingsError: null });
    try {
      set({ settings: await deps.bridge['settings.get']({}), settingsStatus: 'loaded' });
    } catch (error) {
      set({ settingsStatus: 'error', settingsError: errorText(error) });
    }
  },
  async saveSettings(patch) {
    try {
      set({ settings: await deps.bridge['settings.set'](patch), settingsError: null });
      // A new key or base URL may make the open plan's model usable (or not).
      get().refreshPlan();
      return true;
    } catch (error) {
      set({ settingsError: errorText(error) });
      return false;
    }
  },
  ...initialAgentState,
  correctStep: (note) =>
    track({ getState: get, setState: set }, { error: 'correctError' }, 'correct', async ({ bridge, planId }) => {
      await sendAction(bridge, planId, 'correct', { note });
    }),
});
