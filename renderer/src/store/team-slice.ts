import type { TeamStatus } from '../../../shared/team';
import type { SliceCreator } from './types';
import type { TeamPoll, TeamSlice } from './state/team';

/** How often a console in team mode asks for the queue's depth and the workers. */
export const TEAM_POLL_MS = 3_000;
/** After a plan changes state: long enough for its worker to have finished or taken the job. */
export const TEAM_SETTLE_MS = 500;

export const createTeamSlice: SliceCreator<TeamSlice> = (set, get, deps) => {
  const poll = (change: Partial<TeamPoll>) => set({ teamPoll: { ...get().teamPoll, ...change } });
  return {
    team: null,
    teamPoll: { stopped: false, timer: false, soon: false },
    async loadTeam() {
      poll({ stopped: false });
      let team: TeamStatus | null;
      try {
        team = await deps.bridge['team.status']({});
      } catch {
        // The connection is down or the database is unreachable: ask again on the next tick.
        team = get().team;
      }
      if (get().teamPoll.stopped) return;
      set({ team });
      // Over the embedded database there is no team to watch.
      if (team === null || get().teamPoll.timer) return;
      poll({ timer: true });
      deps.setTimeout(() => {
        poll({ timer: false });
        if (!get().teamPoll.stopped) void get().loadTeam();
      }, TEAM_POLL_MS);
    },
    teamMayHaveChanged() {
      const { stopped, soon } = get().teamPoll;
      if (get().team === null || soon || stopped) return;
      poll({ soon: true });
      deps.setTimeout(() => {
        poll({ soon: false });
        if (!get().teamPoll.stopped) void get().loadTeam();
      }, TEAM_SETTLE_MS);
    },
    stopTeam() {
      poll({ stopped: true });
    },
  };
};
