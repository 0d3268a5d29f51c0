import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { BUDGET_LIMITS, BudgetAskSchema, usd } from '../../../shared/agent';
import type { Approval } from '../../../shared/approvals';
import type { DiffHunk } from '../../../shared/changes';
import type { Plan } from '../../../shared/domain';
import { describeArgs, pathOfCall } from '../lib/approvals';
import { formatTime } from '../lib/format';
import { languageFor } from '../lib/highlight';
import { rowsFromHunks } from '../lib/unified-diff';
import { waitsForApproval } from '../store/approvals-slice';
import { useAppStore } from '../store/react';
import { UnifiedRow } from './DiffLines';
import { ElicitationForm } from './ElicitationForm';

/** The preview is not virtualized: past this many rows the card says how many more there are. */
const PREVIEW_ROWS = 200;

function CallArguments({ approval }: { approval: Approval }) {
  const { command, rest } = describeArgs(approval.tool, approval.args);
  return (
    <>
      {command !== null && (
        <figure className="approval-command">
          <figcaption className="approval-label">Command</figcaption>
          <pre>
            <code>{command}</code>
          </pre>
        </figure>
      )}
      {rest.length > 0 && (
        <dl className="approval-args" aria-label="Arguments">
          {rest.map(([key, value]) => (
            <div key={key}>
              <dt>{key}</dt>
              <dd>
                <code>{value.length > 400 ? `${value.slice(0, 399)}…` : value}</code>
              </dd>
            </div>
          ))}
        </dl>
      )}
    </>
  );
}

function DiffPreview({ hunks, path }: { hunks: readonly DiffHunk[]; path: string }) {
  const rows = useMemo(() => rowsFromHunks(hunks), [hunks]);
  const language = useMemo(() => languageFor(path), [path]);
  if (rows.length === 0) return null;
  return (
    <div className="approval-diff-block">
      <span className="approval-label">What the call would change{path ? ` in ${path}` : ''}</span>
      <div className="approval-diff" role="group" aria-label={`Diff preview${path ? ` of ${path}` : ''}`}>
        {rows.slice(0, PREVIEW_ROWS).map((row, i) => (
          <UnifiedRow key={i} row={row} language={language} />
        ))}
        {rows.length > PREVIEW_ROWS && <p className="muted approval-more">{rows.length - PREVIEW_ROWS} more lines not shown</p>}
      </div>
    </div>
  );
}

interface ProposedStep {
  description: string;
  rationale: string;
}

/** A model's proposed tree: the steps it would execute, each with its rationale and acceptance check. */
function ProposedSteps({ approval }: { approval: Approval }) {
  const steps = Array.isArray(approval.args.steps) ? (approval.args.steps as ProposedStep[]) : [];
  return (
    <ol className="proposed-steps" aria-label="Proposed steps">
      {steps.map((step, i) => (
        <li key={i}>
          <strong>{String(step.description)}</strong>
          <p className="muted">{String(step.rationale)}</p>
        </li>
      ))}
    </ol>
  );
}

/** The call a plan waits for, with Approve, Approve all and Reject; the run goes on with the answer. */
export function ApprovalCard({ plan }: { plan: Plan }) {
  const pending = useAppStore((s) => s.pendingApproval);
  const status = useAppStore((s) => s.approvalsStatus);
  const answering = useAppStore((s) => s.answering);
  const error = useAppStore((s) => s.approvalError);
  const focusRequest = useAppStore((s) => s.rejectFocusRequest);
  const approve = useAppStore((s) => s.approve);
  const reject = useAppStore((s) => s.reject);
  const cancelQuestion = useAppStore((s) => s.cancelQuestion);
  // The run goes on in this console's host: it must be able to use the plan's own model.
  const model = useAppStore((s) => s.planModel);
  const [reason, setReason] = useState('');
  const [more, setMore] = useState('');
  const reasonField = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (focusRequest > 0) reasonField.current?.focus();
  }, [focusRequest]);
  // A reason belongs to one call; the next call starts with an empty field.
  useEffect(() => {
    setReason('');
    setMore('');
  }, [pending?.id]);

  if (!waitsForApproval(plan)) return null;

  if (!pending) {
    return (
      <section className="approval-card" data-testid="approval-card" data-state={status} aria-labelledby="approval-title">
        <h3 id="approval-title">{status === 'error' ? `Approval needed — couldn't load the call: ${error ?? 'unknown error'}` : 'Approval needed — loading the call…'}</h3>
      </section>
    );
  }

  const tool = pending.tool ?? 'the plan';
  const isPlan = pending.kind === 'plan';
  // A plan's MCP server that needs a sign-in: one button signs in (the browser opens), as `agents mcp login` does.
  const signIn = pending.kind === 'signin';
  // An MCP server's question: answered with its form, declined with a reason.
  const question = pending.kind === 'input' ? (pending.elicitation ?? null) : null;
  const budget = pending.kind === 'budget' ? BudgetAskSchema.parse(pending.args) : null;
  const cost = budget?.limit === 'costUsd';
  const unit = budget ? BUDGET_LIMITS[budget.limit].unit : '';
  const amount = more.trim() === '' ? (budget?.more ?? 0) : Number(more);
  // Only a budget's amount can be wrong: another call has none. A cost is dollars and cents, the others whole numbers.
  const amountValid = !budget || (Number.isFinite(amount) && amount > 0 && (cost || Number.isInteger(amount)));
  const busy = answering !== null;
  const unusable = plan.agent && model?.usable === false ? model : null;
  const onReject = (event: FormEvent) => {
    event.preventDefault();
    if (reason.trim() && !busy) void reject(reason);
  };

  return (
    <section className="approval-card" data-testid="approval-card" data-state="loaded" data-tool={pending.tool ?? ''} aria-labelledby="approval-title" aria-describedby="approval-step">
      <h3 id="approval-title">{signIn ? `Sign in to ${tool}` : question ? `Input needed: ${question.server} asks` : isPlan ? 'Approval needed: the proposed plan' : budget ? `Approval needed: more ${unit} for the ${cost ? 'plan' : 'step'}` : `Approval needed: ${tool}`}</h3>
      <p className="approval-step" id="approval-step">
        <span className="approval-label">Step</span> {pending.description}
        <span className="muted"> · asked at <time dateTime={pending.createdAt}>{formatTime(pending.createdAt)}</time></span>
        {question && pending.expiresAt && (
          <span className="muted">
            {' '}
            · cancelled at <time dateTime={pending.expiresAt}>{formatTime(pending.expiresAt)}</time> unless answered
          </span>
        )}
      </p>
      {isPlan ? <ProposedSteps approval={pending} /> : pending.rationale && !question && <p className="approval-rationale">{pending.rationale}</p>}
      {pending.mcp && (
        <p className="approval-mcp" data-testid="approval-mcp">
          <span className="approval-label">MCP server</span> <code>{pending.mcp.server}</code> · <span className="approval-label">tool</span> <code>{pending.mcp.tool}</code>
          {pending.mcp.readOnly && <span className="muted"> (marked read-only by its server)</span>}
          {pending.mcp.description && <span className="approval-mcp-description">{pending.mcp.description}</span>}
        </p>
      )}
      {typeof pending.args.agent === 'string' && (
        <p className="approval-mcp" data-testid="approval-agent">
          <span className="approval-label">Agent</span> <code>{pending.args.agent}</code> asks: {String(pending.args.title ?? '')}
          {typeof pending.args.kind === 'string' && <span className="muted"> ({pending.args.kind})</span>}
        </p>
      )}
      {!isPlan && !budget && !question && !signIn && <CallArguments approval={pending} />}
      {question && <ElicitationForm key={pending.id} question={question} busy={busy} disabled={unusable !== null} onAccept={(input) => void approve(false, undefined, input)} />}
      {budget && (
        <p className="approval-budget">
          <label htmlFor="approval-more">More {unit}</label>{' '}
          <input
            id="approval-more"
            className="input"
            type="number"
            min={cost ? 0.01 : 1}
            step={cost ? 0.01 : 1}
            inputMode={cost ? 'decimal' : 'numeric'}
            value={more}
            placeholder={cost ? budget.more.toFixed(2) : String(budget.more)}
            aria-invalid={!amountValid || undefined}
            disabled={busy}
            onChange={(e) => setMore(e.currentTarget.value)}
          />
          <span className="muted"> {cost ? 'for the plan; ' : ''}the step goes on in the same conversation</span>
        </p>
      )}
      {pending.commandRule && (
        <p className="approval-because">
          <span className="approval-label">Asks because</span> <code>{pending.commandRule.command}</code> ({pending.commandRule.rule})
        </p>
      )}
      {pending.hunks && <DiffPreview hunks={pending.hunks} path={pathOfCall(pending.args)} />}
      {unusable && (
        <p className="inline-error" id="approval-model-problem" data-testid="approval-model-problem">
          Approve is off: this console cannot use the plan's model {unusable.model ?? ''}. {unusable.problem}
        </p>
      )}
      <form className="approval-actions" onSubmit={onReject}>
        {!question && (
          <button
            type="button"
            className="button primary"
            disabled={busy || unusable !== null || !amountValid}
            aria-describedby={unusable ? 'approval-model-problem' : undefined}
            aria-busy={answering === 'approve' || undefined}
            aria-keyshortcuts="a"
            title={signIn ? `Open the browser at ${tool}'s sign-in page; the step goes on once signed in (a)` : budget ? `Give the ${cost ? `plan ${usd(amount)} more` : `step ${amount} more ${unit}`} and go on (a)` : 'Run this call and go on (a)'}
            onClick={() => void approve(false, budget ? amount : undefined)}
          >
            {signIn ? `Sign in to ${tool}` : budget ? (cost ? `Allow ${amountValid ? usd(amount) : ''} more` : `Allow ${amountValid ? amount : ''} more ${unit}`) : 'Approve'}
          </button>
        )}
        {!isPlan && !budget && !question && !signIn && (
          <button
            type="button"
            className="button"
            disabled={busy || unusable !== null}
            aria-busy={answering === 'approve_all' || undefined}
            aria-keyshortcuts="Shift+A"
            title={`Run this and every later ${tool} call of the plan without asking (Shift+A)`}
            onClick={() => void approve(true)}
          >
            Approve all {tool}
          </button>
        )}
        <span className="approval-reject">
          <label htmlFor="approval-reason">{question ? 'Reason for declining' : 'Reason for rejecting'}</label>
          <input
            ref={reasonField}
            id="approval-reason"
            className="input"
            type="text"
            value={reason}
            maxLength={2000}
            placeholder={question ? 'Why the server gets no answer' : isPlan ? 'What the model should change in its plan' : budget ? 'Why the step should stop here' : 'Why this call should not run'}
            aria-keyshortcuts="x"
            disabled={busy}
            onChange={(e) => setReason(e.currentTarget.value)}
          />
          <button type="submit" className="button danger" disabled={busy || !reason.trim()} aria-busy={answering === 'reject' || undefined} title={question ? 'Decline the question: the server is told so and the call goes on (x, then Enter)' : 'Fail the step with this reason (x, then Enter)'}>
            {question ? 'Decline' : 'Reject'}
          </button>
        </span>
        {question && (
          <button type="button" className="button" disabled={busy} aria-busy={answering === 'cancel' || undefined} title="Cancel the question: the server is told it was cancelled (not declined) and the call goes on" onClick={() => void cancelQuestion(reason)}>
            Cancel
          </button>
        )}
      </form>
      {error && (
        <p className="inline-error" role="alert">
          {error}
        </p>
      )}
    </section>
  );
}
