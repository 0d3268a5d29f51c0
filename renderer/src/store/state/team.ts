import type { TeamStatus } from '../../../../shared/team';

/** Team mode: the queue's depth and which worker runs which plan; null over the embedded database. */
export interface TeamSlice {
  team: TeamStatus | null;
  /** Asks once; in team mode asks again every TEAM_POLL_MS until `stopTeam`. A failed ask keeps the last answer. */
  loadTeam(): Promise<void>;
  /** A plan changed state (a run started, paused or ended): in team mode, ask again shortly rather than at the next tick. */
  teamMayHaveChanged(): void;
  stopTeam(): void;
}
