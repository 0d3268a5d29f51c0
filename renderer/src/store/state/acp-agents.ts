import type { AcpAgentAdd, AcpAgentsView } from '../../../../shared/acp';

/** The coding agents of the settings (`agents acp`), each checked by starting it; never an environment value. */
export interface AcpAgentsSlice {
  /** null until the first check answers. */
  acpAgents: AcpAgentsView['agents'] | null;
  /** A check is under way: the host starts each agent, which takes seconds. */
  acpAgentsBusy: boolean;
  acpAgentsError: string | null;
  loadAcpAgents(): Promise<void>;
  /** Resolves true when the host added it. */
  addAcpAgent(agent: AcpAgentAdd): Promise<boolean>;
  removeAcpAgent(name: string): Promise<void>;
}
