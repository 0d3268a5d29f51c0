import type { Command } from 'commander';
import type { ServeOptions } from '../serve-command';
import { type Ctx, runCommand } from '../run-command';

export function registerServe(program: Command, ctx: Ctx): void {
  program
    .command('serve')
    .description('serve the operator console to a browser')
    .option('--host <host>', 'address to bind (anything but loopback needs --allow-remote)', '127.0.0.1')
    .option('--port <port>', 'port (0 picks a free one)', '4477')
    .option('--allow-remote <names>', 'serve beyond this machine, answering these comma-separated host names (the token travels in clear text)')
    .option('--project-root <dir>', 'a folder the projects of plans created in the console must lie inside (repeatable; default: your home and the folder serve starts in)', (value: string, previous: string[] = []) => [
      ...previous,
      value,
    ])
    .option('--open', 'open a browser')
    .option('--no-demo', 'do not create the demo plans on a first start (no plans yet, no demo copy in the data folder)')
    .action(
      runCommand(ctx, async (opts: ServeOptions) => {
        // Loaded on demand: the web host (ws, http, static files) is most of what a start would read.
        const { serveCommand } = await import('../serve-command');
        // In team mode a console brings a fresh or older team database up to date, as workers do,
        // and says when its live feed of the team's events drops and comes back.
        Object.assign(ctx.open, {
          migrate: true,
          onTeamError: (error) => ctx.io.stderr(`agents serve: team database: ${error.message}\n`),
          onFeedStatus: (status) => {
            if (status.state === 'disconnected') {
              ctx.io.stderr(`agents serve: the team's event feed lost its connection (${status.error}); reconnecting in ${status.retryInMs} ms, then catching up\n`);
            } else if (status.attempt > 0) ctx.io.stderr("agents serve: the team's event feed is connected again; consoles catch up on what they missed\n");
          },
        } satisfies Ctx['open']);
        await serveCommand(await ctx.app(), opts, ctx.io);
      }),
    );
}
