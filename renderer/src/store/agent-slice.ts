import { errorText } from '../lib/format';
import { track } from './track';
import type { SliceCreator } from './types';
import { sendAction } from '../lib/action-dispatch';
import type { AgentSlice } from './state/agent';

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
      // An empty note is no note.
      await sendAction(bridge, planId, 'correct', { note: note?.trim() || undefined });
    }),
});
