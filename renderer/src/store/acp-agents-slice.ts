import type { AcpAgentsView } from '../../../shared/acp';
import { errorText } from '../lib/format';
import type { AcpAgentsSlice } from './state/acp-agents';
import type { SliceCreator } from './types';

export const createAcpAgentsSlice: SliceCreator<AcpAgentsSlice> = (set, get, deps) => {
  /** One ask of the host; what it answers replaces the list, an error keeps the last one. */
  const ask = async (request: () => Promise<AcpAgentsView>, done?: string): Promise<boolean> => {
    set({ acpAgentsBusy: true, acpAgentsError: null });
    try {
      set({ acpAgents: (await request()).agents, acpAgentsBusy: false });
      if (done) get().announce(done);
      return true;
    } catch (error) {
      set({ acpAgentsBusy: false, acpAgentsError: errorText(error) });
      return false;
    }
  };
  return {
    acpAgents: null,
    acpAgentsBusy: false,
    acpAgentsError: null,
    async loadAcpAgents() {
      await ask(() => deps.bridge['settings.acp']({}));
    },
    addAcpAgent: (agent) => ask(() => deps.bridge['settings.acpAdd'](agent), `Agent ${agent.name} added`),
    async removeAcpAgent(name) {
      await ask(() => deps.bridge['settings.acpRemove']({ name }), `Agent ${name} removed`);
    },
  };
};
