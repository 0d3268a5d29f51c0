import path from 'node:path';
import type { Command } from 'commander';
import { ValidationError } from '../../../shared/errors';
import { describeMcpServer, shownServer } from '../../../shared/mcp';
import { loginMcpServer, mcpAuthFile, openBrowser } from '../../app/mcp-auth';
import { addMcpServer, callMcpTool, checkMcpServers, mcpServersOf, parsePairs, removeMcpServer } from '../../app/mcp-settings';
import type { Plan } from '../../../shared/domain';
import { answerElicitation, formatToolResult, progressLine } from '../mcp-call';
import { commandGroup, jsonObject, jsonOption } from '../options';
import { type Ctx, EXIT, runCommand } from '../run-command';
import { operator, runAndReport } from '../run-report';

const collect = (value: string, previous: string[] = []) => [...previous, value];

const describeServer = describeMcpServer;

/** `agents mcp`: the MCP servers whose tools every agent plan may call, in settings.json. */
export function registerMcp(program: Command, ctx: Ctx): void {
  const mcp = commandGroup(program, ctx, 'mcp', "MCP servers whose tools agent plans may call (settings.json's mcp.servers)").addHelpText(
    'after',
    '\nExamples:\n  agents mcp add files -- npx mcp-server-filesystem .\n  agents mcp add tracker --url https://mcp.example.com/mcp --header Authorization=Bearer-xyz\n  agents mcp list',
  );
  // This machine's settings: a team database named there (even an unreachable one) is not opened, so it can be changed.
  mcp.hook('preAction', () => {
    ctx.open.database = false;
  });

  mcp
    .command('add <name> [command...]')
    .description('add a server: a local command after --, run confined over the sandbox, or a remote one with --url')
    .option('--env <K=V>', 'an environment variable of a local server (repeatable)', collect, [])
    .option('--url <url>', 'a remote server, over streamable HTTP')
    .option('--header <K=V>', 'an HTTP header of a remote server (repeatable)', collect, [])
    .action(
      runCommand(ctx, async (name: string, command: string[], options: { env: string[]; url?: string; header: string[] }) => {
        if (options.url !== undefined && command.length > 0) throw new ValidationError('command', 'give either a command after -- or --url, not both');
        if (options.url === undefined && command.length === 0) throw new ValidationError('command', 'give the command after -- (agents mcp add NAME -- COMMAND [ARGS...]) or --url URL');
        let input: unknown;
        if (options.url !== undefined) {
          if (options.env.length > 0) throw new ValidationError('--env', 'is for a local server; a remote one takes --header');
          input = { url: options.url, headers: parsePairs(options.header, '--header') };
        } else {
          if (options.header.length > 0) throw new ValidationError('--header', 'is for a remote server (--url); a local one takes --env');
          const [program, ...args] = command;
          // A path is kept absolute, so every process (the CLI, agents serve) starts the same program.
          input = { command: program.includes('/') ? path.resolve(program) : program, args, env: parsePairs(options.env, '--env') };
        }
        const server = addMcpServer((await ctx.app()).settings, name, input);
        return { json: { name, server: shownServer(server) }, text: `MCP server ${name} added: ${describeServer(server)}` };
      }),
    );

  mcp
    .command('remove <name>')
    .description('remove a server')
    .action(
      runCommand(ctx, async (name: string) => {
        removeMcpServer((await ctx.app()).settings, name);
        return { json: { name, removed: true }, text: `MCP server ${name} removed` };
      }),
    );

  mcp
    .command('list')
    .description('each server, whether it starts (confined, in an empty folder), and its tools')
    .action(
      runCommand(ctx, async () => {
        const servers = (await ctx.app()).settings.read().mcp?.servers ?? {};
        const checks = await checkMcpServers(servers, undefined, mcpAuthFile((await ctx.app()).dataDir).providerFor(servers));
        const text = () => {
          if (checks.length === 0) return 'No MCP servers. Add one with: agents mcp add NAME -- COMMAND [ARGS...]';
          return checks
            .map((check) => {
              const head = `${check.name}: ${describeServer(check.server)}\n  ${check.ok ? `starts; ${check.tools.length} tool${check.tools.length === 1 ? '' : 's'}${check.protocolVersion ? `; protocol ${check.protocolVersion}` : ''}` : `does not start: ${check.error}`}`;
              const tools = check.tools.map((tool) => `  ${check.name}.${tool.name}${tool.readOnly ? ' (read-only)' : ''}${tool.description ? `: ${tool.description.split('\n')[0].slice(0, 100)}` : ''}`);
              return [head, ...tools].join('\n');
            })
            .join('\n');
        };
        // A server that does not start is worth a non-zero status, so scripts can check.
        return { json: checks.map(({ name, server, ok, error, tools, protocolVersion }) => ({ name, server: shownServer(server), ok, error, protocolVersion, tools })), text, exitCode: checks.every((c) => c.ok) ? EXIT.ok : EXIT.planFailed };
      }),
    );

  mcp
    .command('call <name> <tool>')
    .description('call one tool of a server and print its result, with its progress while it runs (the server starts as `mcp list` starts it)')
    .option('--args <json>', "the tool's arguments, a JSON object", '{}')
    .option('--input <json>', "the answer to a question the server asks (elicitation): these fields, its defaults for the rest; without it a terminal asks, and anything else declines")
    .action(
      runCommand(ctx, async (name: string, tool: string, options: { args: string; input?: string; json?: boolean }) => {
        const args = jsonObject(options.args, '--args');
        const input = options.input === undefined ? undefined : jsonObject(options.input, '--input');
        const servers = (await ctx.app()).settings.read().mcp?.servers ?? {};
        const auth = mcpAuthFile((await ctx.app()).dataDir);
        let badInput: string | null = null;
        const call = () =>
          callMcpTool(servers, name, tool, {
            args,
            onProgress: (p) => ctx.io.stderr(`${progressLine(p)}\n`),
            onLog: (entry) => ctx.io.stderr(`${entry.server} ${entry.level}${entry.logger ? ` (${entry.logger})` : ''}: ${typeof entry.data === 'string' ? entry.data : JSON.stringify(entry.data)}\n`),
            elicit: (request) =>
              answerElicitation(ctx, request, input, (problem) => {
                badInput ??= problem;
              }),
            auth: auth.providerFor(servers),
          });
        let outcome = await call();
        // Step-up: the server refused the call for want of scope; signing in again for every scope it asked, then the call once more.
        if (!outcome.ok && badInput === null && auth.storage(name).read().stepUp) {
          ctx.io.stderr(`${name} asks for more access (${auth.storage(name).read().scope ?? 'a wider scope'}): signing in again\n`);
          await loginMcpServer(auth, servers, name, { open: (url) => openBrowser(url, ctx.io.env), say: (line) => ctx.io.stderr(`${line}\n`) });
          outcome = await call();
        }
        // An answer that does not fit the question is bad input, whatever the server then did.
        if (badInput !== null) throw new ValidationError('--input', `${badInput}; the server was told the question was cancelled`);
        if (!outcome.ok) {
          // A server that does not start or a call that fails is the server's failure, with the hint that names it.
          if (!options.json) ctx.io.stderr(`error: ${outcome.error}\n${outcome.hint ? `hint: ${outcome.hint}\n` : ''}`);
          return { json: { name, tool, ok: false, error: outcome.error }, exitCode: EXIT.planFailed };
        }
        const failed = outcome.result.isError === true;
        return { json: { name, tool, ok: !failed, protocolVersion: outcome.protocolVersion, result: outcome.result }, text: () => formatToolResult(outcome.result), exitCode: failed ? EXIT.planFailed : EXIT.ok };
      }),
    );

  mcp
    .command('login <name>')
    .description('sign in to a remote server that needs OAuth: the browser opens (AGENTS_BROWSER names a command for it), the tokens are kept in the data directory')
    .option('--client-id <id>', 'a client registered with the server beforehand (else the server registers one)')
    .option('--client-secret <secret>', "that client's secret, if it has one")
    .action(
      runCommand(ctx, async (name: string, options: { clientId?: string; clientSecret?: string }) => {
        const app = await ctx.app();
        // The plans that wait for this sign-in: a server named in a plan file (not in settings) signs in as the plan has it.
        const waiting: Plan[] = [];
        for (const plan of await app.service.list()) {
          const pending = plan.waitingFor === 'approval' ? (await app.service.approvals(plan.id)).pending : null;
          if (pending?.kind === 'signin' && pending.tool === name) waiting.push(plan);
        }
        const servers = waiting.length > 0 ? mcpServersOf(waiting[0], app.settings) : (app.settings.read().mcp?.servers ?? {});
        const client = options.clientId ? { id: options.clientId, secret: options.clientSecret } : undefined;
        const signed = await loginMcpServer(mcpAuthFile(app.dataDir), servers, name, { open: (url) => openBrowser(url, ctx.io.env), say: (line) => ctx.io.stderr(`${line}\n`), client });
        // They go on now, in the foreground, as `plan approve` goes on with one.
        for (const plan of waiting) {
          ctx.io.stderr(`${plan.name} (${plan.id}) waited for this sign-in and goes on\n`);
          await runAndReport(ctx, plan.id, {}, (onEvent) => app.service.approve(plan.id, { by: operator() }, { streamCallback: onEvent, step: false }));
        }
        const tools = `${signed.tools} tool${signed.tools === 1 ? '' : 's'}`;
        return { json: { name, signedIn: true, already: signed.already, tools: signed.tools }, text: signed.already ? `${name}: signed in already; ${tools}` : `Signed in to ${name}; ${tools}` };
      }),
    );

  mcp
    .command('logout <name>')
    .description("forget a server's sign-in (its tokens)")
    .action(
      runCommand(ctx, async (name: string) => {
        const forgotten = mcpAuthFile((await ctx.app()).dataDir).forget(name);
        return { json: { name, signedOut: forgotten }, text: forgotten ? `Signed out of ${name}` : `${name} has no sign-in` };
      }),
    );

  // Every subcommand prints one JSON document with --json, as `agents mcp --json` promises.
  for (const command of mcp.commands) command.addOption(jsonOption());
}
