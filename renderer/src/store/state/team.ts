import type { TeamStatus } from '../../../../shared/team';

/** The team poll's own state: stopped (the console closed), a tick pending, an early ask pending. */
export interface TeamPoll {
  stopped: boolean;
  timer: boolean;
  soon: boolean;
}

/** Team mode: the queue's depth and which worker runs which plan; null over the embedded database. */
export interface TeamSlice {
  team: TeamStatus | null;
  teamPoll: TeamPoll;
  /** Asks once; in team mode asks again every TEAM_POLL_MS until `stopTeam`. A failed ask keeps the last answer. */
  loadTeam(): Promise<void>;
  /** A plan changed state (a run started, paused or ended): in team mode, ask again shortly rather than at the next tick. */
  teamMayHaveChanged(): void;
  stopTeam(): void;
}
