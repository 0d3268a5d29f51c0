import { ValidationError } from '../../../shared/errors';
import { plural } from '../../../shared/vocabulary';
import { parseHunkSpec } from '../format';
import { actionOption, jsonOption, type Register, streamOption } from '../options';
import type { StreamEvent } from '../../../shared/events';
import { eventText } from '../../../shared/event-text';
import { EXIT, runCommand } from '../run-command';
import { planWithCommand } from '../next-steps';
import { operator } from '../run-report';

/** --hunks README.md:1,3 --hunks src/a.ts:2 as hunk numbers by file. */
function hunksByFile(specs: readonly string[] | undefined, field = '--hunks'): Record<string, number[]> | undefined {
  let hunks: Record<string, number[]> | undefined;
  for (const spec of specs ?? []) {
    const parsed = parseHunkSpec(spec);
    if (!parsed) throw new ValidationError(field, `"${spec}" is not FILE:N[,N...], e.g. README.md:1,3`);
    hunks = { ...hunks, [parsed[0]]: [...(hunks?.[parsed[0]] ?? []), ...parsed[1]] };
  }
  return hunks;
}

/** The commands that end a plan: its changeset written into the project, or dropped. */
export const planApplyCommands = {
  apply: (plan, ctx) =>
    plan
      .command('apply <id>')
      .description('write the changeset, or the files and hunks named, into the project; conflicts stop it unless --force. Repeat to apply the rest')
      .option('--path <path...>', 'apply only these files')
      .option('--hunks <file:n,m...>', 'apply only these hunks of a file (numbered as agents plan diff shows them), e.g. README.md:1,3')
      .addOption(actionOption('apply', 'force', "write every selected file as the review shows it, over the project's own changes"))
      .addOption(actionOption('apply', 'acceptFailedChecks', 'apply although a check failed (agents plan checks shows which, and why)'))
      .option('--project <dir>', "write into this folder instead, e.g. a local clone of the plan's git repository (conflicts checked against the plan's base)")
      .option('--branch <name>', "commit the changes to a new branch of the plan's git repository, at its base commit, and push it")
      .addOption(streamOption())
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (id: string, opts: { path?: string[]; hunks?: string[]; force?: boolean; acceptFailedChecks?: boolean; project?: string; branch?: string; stream?: boolean; json?: boolean }) => {
          // Stale checks run again before apply: --stream shows them as they run.
          const printer = opts.stream ? (e: StreamEvent) => ctx.io.stdout(opts.json ? `${JSON.stringify(e)}\n` : `${eventText(e, () => undefined).text}\n`) : undefined;
          const target = { project: opts.project, branch: opts.branch };
          const result = await (await ctx.app()).service.apply(id, { paths: opts.path, hunks: hunksByFile(opts.hunks), force: opts.force, acceptFailedChecks: opts.acceptFailedChecks, ...target, streamCallback: printer });
          const { applied, skipped, remaining, conflicts } = result;
          const print = () => {
            for (const c of conflicts) ctx.io.stderr(`conflict: ${c.path}: ${c.reason ?? 'changed in the project since the plan ran'}\n`);
            if (conflicts.length > 0 && !opts.force) {
              ctx.io.stderr('nothing was written; resolve the conflicts, or use --force to write the files as the review shows them\n');
              return;
            }
            const where = result.branch?.commit ? ` to branch ${result.branch.name} of ${result.branch.url} (commit ${result.branch.commit.slice(0, 12)})` : opts.project ? ` into ${opts.project}` : '';
            ctx.io.stdout(`applied ${plural(applied.length, 'file')}${where}${skipped.length ? `, skipped ${skipped.length}` : ''}\n`);
            if (remaining.length > 0) {
              ctx.io.stdout(`${plural(remaining.length, 'file')} ${remaining.length === 1 ? 'remains' : 'remain'}: agents plan apply ${id} to apply them, agents plan discard ${id} to drop them\n`);
            }
          };
          return { json: result, print, exitCode: conflicts.length > 0 ? EXIT.planFailed : undefined };
        }),
      ),

  rejectHunks: (plan, ctx) =>
    plan
      .command('reject-hunks <id> <file:n,m...>')
      .description("record hunks as declined in the review (numbered as agents plan diff shows them): the model is told of them, and why, when it corrects the plan and in every later step")
      .option('--reason <text>', 'why, for the model: what to do instead')
      .option('--restore', 'take the hunks out of the declined ones again')
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (id: string, specs: string[], opts: { reason?: string; restore?: boolean }) => {
          const hunks = hunksByFile(specs, 'FILE:N') as Record<string, number[]>;
          const { service } = await ctx.app();
          if (opts.restore) for (const [path, numbers] of Object.entries(hunks)) await service.restoreHunks(id, { path, hunks: numbers });
          const p = opts.restore ? await service.get(id) : await service.rejectHunks(id, { hunks, reason: opts.reason, by: operator() });
          const count = Object.values(hunks).reduce((n, h) => n + h.length, 0);
          const declined = p.rejectedHunks?.length ?? 0;
          return { json: planWithCommand(p), text: `${plural(count, 'hunk')} ${opts.restore ? 'restored' : 'declined'}; ${plural(declined, 'hunk')} declined in all` };
        }),
      ),

  discard: (plan, ctx) =>
    plan
      .command('discard <id>')
      .description('remove the sandbox and cancel the plan')
      .addOption(jsonOption())
      .action(
        runCommand(ctx, async (id: string) => {
          const p = await (await ctx.app()).service.discard(id);
          return { json: planWithCommand(p), text: `${p.id} discarded` };
        }),
      ),
} satisfies Record<string, Register>;
