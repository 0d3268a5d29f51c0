import { createInterface } from 'node:readline';
import { type CheckpointSummary, REWIND_VERBS, type RewindPreview } from '../../../shared/checkpoints';
import type { Plan } from '../../../shared/domain';
import { plural, statusLabel } from '../../../shared/vocabulary';
import { readKey } from '../keypress';
import { planWithCommand } from '../next-steps';
import { actionOption, jsonOption, type Register } from '../options';
import { type Ctx, runCommand } from '../run-command';
import { operator } from '../run-report';

export function formatCheckpoints(plan: Pick<Plan, 'id' | 'processingState'>, checkpoints: readonly CheckpointSummary[]): string {
  if (checkpoints.length === 0) {
    // A plan applied or discarded cannot be rewound: its checkpoints went with it.
    if (plan.processingState === 'cancelled') return `plan ${plan.id} was discarded; its checkpoints were dropped with it\n`;
    if (plan.processingState === 'complete') return `plan ${plan.id} is applied; its checkpoints were dropped with it\n`;
    return `plan ${plan.id} has no checkpoint yet; one is recorded as each step starts\n`;
  }
  const rows = checkpoints.map((c) => [String(c.step), c.createdAt.replace('T', ' ').replace(/\.\d+Z$/, 'Z'), String(c.filesChanged), String(c.inputTokens + c.outputTokens), c.description]);
  const header = ['step', 'taken', 'files changed', 'tokens', 'description'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => `${cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ')}\n`;
  return line(header) + rows.map(line).join('');
}

/** The files a rewind changes, the operator's own edits marked: what the confirmation lists. */
export function formatRewindFiles(preview: RewindPreview): string {
  return preview.files.map((f) => `  ${REWIND_VERBS[f.operation].padEnd(12)} ${f.path}${f.editedByOperator ? '  (your edit)' : ''}\n`).join('');
}

/** Asks on a terminal whether to go on; y goes on, anything else does not. */
async function confirm(ctx: Ctx, question: string): Promise<boolean> {
  ctx.io.stderr(question);
  if (process.stdin.isTTY) {
    const key = await readKey();
    ctx.io.stderr(`${key ?? ''}\n`);
    return key === 'y';
  }
  const rl = createInterface({ input: process.stdin, terminal: false });
  try {
    const next = await rl[Symbol.asyncIterator]().next();
    return !next.done && /^y(es)?$/i.test(String(next.value).trim());
  } finally {
    rl.close();
  }
}

/** Checkpoints and rewind. */
export const planCheckpointCommands = {
  checkpoints: (plan, ctx) =>
    plan
      .command('checkpoints <id>')
      .description('list the checkpoints: one as each step started, with the files changed since the one before and the tokens used by then')
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (id: string) => {
          const { service } = await ctx.app();
          const checkpoints = await service.checkpoints(id);
          const found = await service.get(id);
          return { json: { planId: id, checkpoints }, text: () => formatCheckpoints(found, checkpoints) };
        }),
      ),

  rewind: (plan, ctx) =>
    plan
      .command('rewind <id>')
      .description('put the sandbox, the changeset and the steps back to how they were before step N started; on a terminal it asks first, listing the files')
      .addOption(actionOption('rewind', 'toStep', 'the step to go back to before (numbered as agents plan tree shows them)'))
      .option('--yes', 'rewind without asking')
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (id: string, opts: { toStep: number; yes?: boolean; json?: boolean }) => {
          const service = (await ctx.app()).service;
          // On a terminal the operator confirms, seeing the files; a script (no terminal) or --yes goes ahead.
          if (!opts.yes && ctx.io.isTTY && process.stdin.isTTY) {
            const preview = await service.rewindPreview(id, opts.toStep);
            const own = preview.operatorEdits.length;
            ctx.io.stderr(
              `rewind plan ${id} to before step ${opts.toStep}: ${plural(preview.files.length, 'file')} change, ${plural(preview.entriesRewound, 'recorded change')} rewound, ${plural(preview.steps, 'step')} pending again\n` +
                formatRewindFiles(preview) +
                (own > 0 ? `this also undoes your own edits to ${plural(own, 'file')}: ${preview.operatorEdits.join(', ')}\n` : ''),
            );
            if (!(await confirm(ctx, 'rewind? [y]es, [n]o: '))) return { text: 'nothing changed', json: { planId: id, rewound: false } };
          }
          const { plan: p, rewind } = await service.rewind(id, { by: operator(), toStep: opts.toStep });
          const own = rewind.operatorEdits.length;
          const text =
            `${p.id} rewound to before step ${rewind.toStep}: ${plural(rewind.files.length, 'file')} put back, ${plural(rewind.entriesRewound, 'change')} rewound${own > 0 ? `, your edits to ${plural(own, 'file')} undone` : ''}; ` +
            `${statusLabel(p)}: agents plan run ${p.id}`;
          return { json: { ...planWithCommand(p), rewind }, text };
        }),
      ),
} satisfies Record<string, Register>;
