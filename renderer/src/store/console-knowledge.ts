import type { ConsoleKnowledge } from '../lib/plan-facts';
import { reviewSummary } from '../lib/review-fold';
import type { AppState } from './types';

/** What the store knows that the action rules read beyond the plan: the tree, the waiting call, the checkpoints and what is applied. */
export function consoleKnowledge(state: AppState): Required<Pick<ConsoleKnowledge, 'decisions' | 'pendingApproval' | 'partlyApplied' | 'team'>> & Pick<ConsoleKnowledge, 'checkpoints'> {
  return {
    team: state.team !== null,
    decisions: state.decisions,
    pendingApproval: state.pendingApproval !== null,
    checkpoints: state.checkpointsStatus === 'loaded' ? state.checkpoints.length : undefined,
    partlyApplied: reviewSummary(state.reviewFiles).touched > 0,
  };
}
