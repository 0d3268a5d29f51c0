import type { ActionId } from '../../../shared/action-ids';
import { ACTION_IDS, ACTIONS } from '../../../shared/actions';
import { actionState } from './plan-actions';
import { PLAN_TABS, type TabSpec, tabOfKey } from '../lib/plan-tabs';
import type { AppStore } from './types';

export interface KeyContext {
  /** The key went to a list or tree container itself (arrow keys then move too). */
  inRegion: boolean;
}

/** Each action's keys, from the action table. */
const ACTION_KEYS = new Map<string, { action: ActionId; args: Record<string, unknown> }>(
  ACTION_IDS.flatMap((action) => ACTIONS[action].keys.map((binding) => [binding.key, { action, args: binding.args ?? {} }] as const)),
);

/** The console's keyboard map (see the help sheet). Returns whether the key was used. */
export function handleKey(store: AppStore, key: string, context: KeyContext = { inRegion: false }): boolean {
  const state = store.getState();
  // While the apply confirmation is open, only its own buttons act; Escape cancels it.
  if (state.applyStatus === 'confirming') {
    if (key === 'Escape') state.cancelApply();
    return key === 'Escape';
  }
  // While the rewind confirmation is open, likewise.
  if (state.rewindDialog) {
    if (key === 'Escape') state.cancelRewind();
    return key === 'Escape';
  }
  // While the fork confirmation or the compare view is open, likewise.
  if (state.forkDialog) {
    if (key === 'Escape') state.cancelFork();
    return key === 'Escape';
  }
  if (state.compareView) {
    if (key === 'Escape') state.closeCompare();
    return key === 'Escape';
  }
  // While the Create plan form is open, only its own fields and buttons act; Escape closes it.
  if (state.createDraft) {
    if (key === 'Escape' && state.createStatus.state !== 'creating') state.setCreateDraft(null);
    return key === 'Escape';
  }
  if (key === '?') {
    state.setHelpOpen(!state.helpOpen);
    return true;
  }
  if (state.helpOpen) {
    if (key === 'Escape') {
      state.setHelpOpen(false);
      return true;
    }
    return false;
  }
  const region = state.focusRegion;
  const down = key === 'j' || (context.inRegion && key === 'ArrowDown');
  const up = key === 'k' || (context.inRegion && key === 'ArrowUp');
  if (down || up) {
    const delta = down ? 1 : -1;
    if (region === 'plans') state.movePlanCursor(delta);
    else if (region === 'tree') state.moveDecisionSelection(delta);
    else if (region === 'files') state.moveEntrySelection(delta);
    else return false;
    return true;
  }
  if (key === 'Enter') {
    if (region === 'plans' && state.planCursorId) {
      state.openPlan(state.planCursorId);
      return true;
    }
    if (region === 'tree' && state.selectedDecisionId) {
      state.toggleExpanded(state.selectedDecisionId);
      return true;
    }
    return false;
  }
  if (region === 'tree' && context.inRegion && state.selectedDecisionId && (key === 'ArrowRight' || key === 'ArrowLeft')) {
    state.setExpanded(state.selectedDecisionId, key === 'ArrowRight');
    return true;
  }
  if (key === 'n') {
    state.jumpToNextFailure();
    return true;
  }
  const bound = ACTION_KEYS.get(key);
  if (bound) {
    const { plan } = state;
    if (!plan) return false;
    // Approve and reject act only while the open plan waits for an answer, so a stray key never answers anything else.
    if (bound.action === 'approve' || bound.action === 'reject') {
      if (!state.pendingApproval || !actionState(state, bound.action).allowed) return false;
      // A server's question is answered in its form, never by a key with nothing filled in.
      if (bound.action === 'approve' && state.pendingApproval.kind === 'input') return false;
      // A rejection needs a reason: the key takes the operator to its field.
      if (bound.action === 'reject') state.requestRejectFocus();
      else void state.approve(bound.args.all === true);
      return true;
    }
    void state.runAction(bound.action, bound.args);
    return true;
  }
  const tab = state.planId ? tabOfKey(key, state) : undefined;
  if (tab) {
    state.setTab(tab);
    return true;
  }
  return false;
}

export const KEY_HELP: { keys: string; what: string }[] = [
  { keys: 'j / k', what: 'Move down / up in the focused list or tree (plans by default)' },
  { keys: 'Enter', what: 'Open the plan under the cursor; expand or collapse a tree node' },
  { keys: '← / →', what: 'Collapse / expand the selected tree node' },
  { keys: 'n', what: 'Next failure: the next failed step, then the next errored plan' },
  ...ACTION_IDS.flatMap((action) => ACTIONS[action].keys.map((b) => ({ keys: b.key.length === 1 && b.key !== b.key.toLowerCase() ? `Shift+${b.key}` : b.key, what: b.help }))),
  {
    keys: PLAN_TABS.map((t) => t.key).join(' / '),
    what: `Show ${PLAN_TABS.map((t) => t.label.toLowerCase()).join(' / ')}${PLAN_TABS.some((t: TabSpec) => t.shown) ? ' (where the plan has them)' : ''}`,
  },
  { keys: '?', what: 'Show or hide this help' },
  { keys: 'Esc', what: 'Close this help' },
  { keys: 'Ctrl/Cmd+S, Esc', what: 'In the file editor: save into the sandbox, or cancel (other keys there are text)' },
];
