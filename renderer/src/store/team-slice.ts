import type { TeamStatus } from '../../../shared/team';
import type { SliceCreator } from './types';
import type { TeamSlice } from './state/team';

/** How often a console in team mode asks for the queue's depth and the workers. */
export const TEAM_POLL_MS = 3_000;
/** After a plan changes state: long enough for its worker to have finished or taken the job. */
export const TEAM_SETTLE_MS = 500;

export const createTeamSlice: SliceCreator<TeamSlice> = (set, get, deps) => {
  let stopped = false;
  let timer = false;
  let soon = false;
  return {
    team: null,
    async loadTeam() {
      stopped = false;
      let team: TeamStatus | null;
      try {
        team = await deps.bridge['team.status']({});
      } catch {
        // The connection is down or the database is unreachable: ask again on the next tick.
        team = get().team;
      }
      if (stopped) return;
      set({ team });
      // Over the embedded database there is no team to watch.
      if (team === null || timer) return;
      timer = true;
      deps.setTimeout(() => {
        timer = false;
        if (!stopped) void get().loadTeam();
      }, TEAM_POLL_MS);
    },
    teamMayHaveChanged() {
      if (get().team === null || soon || stopped) return;
      soon = true;
      deps.setTimeout(() => {
        soon = false;
        if (!stopped) void get().loadTeam();
      }, TEAM_SETTLE_MS);
    },
    stopTeam() {
      stopped = true;
    },
  };
};
