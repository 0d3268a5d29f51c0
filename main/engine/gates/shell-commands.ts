import path from 'node:path';
import type { syntax as Syntax } from 'mvdan-sh';

/** One command the shell would run: its words with literal quoting removed, and them joined with whitespace collapsed. */
export interface SimpleCommand {
  words: string[];
  text: string;
  /**
   * The first word (as written) the shell turns into other text at run time: an expansion,
   * a substitution, `$'…'`, an unquoted glob or brace. Rules held to `text` cannot see through it.
   */
  expanded?: string;
}

/** A part of a command the analysis cannot see through, and why. */
export interface Unanalysable {
  command: string;
  reason: string;
}

export interface ShellAnalysis {
  /** Every simple command, wrappers (`env`, `sh -c`, `xargs` ...) and the commands they run alike. */
  commands: SimpleCommand[];
  unanalysable: Unanalysable[];
}

type Sh = typeof Syntax;

let parser: Promise<Sh> | undefined;

/** The parser is 1.5 MB of compiled Go: loaded on the first shell command, so other CLI commands start without it. */
function loadParser(): Promise<Sh> {
  parser ??= import('mvdan-sh').then((m) => m.default.syntax);
  return parser;
}

/**
 * Every simple command of a `/bin/sh -c` script, across `;`, `&&`, `||`, pipes, subshells,
 * `$(…)`, backticks, functions and here-documents, and into what wrappers run: the script of
 * `sh -c` / `bash -c`, `eval`'s words, `xargs`' command, `find -exec`, `trap` and `alias`
 * strings, and the command after `env`, `nohup`, `timeout`, `nice`, `command`, `exec`, `time`,
 * `sudo` and the like. A script the parser cannot read, a command whose name (or whose
 * `eval` / `sh -c` script) is only known at run time, and a shell (`.` and `source` too) that
 * reads its script from a stream or a name built at run time, are reported as unanalysable.
 * A shell running a script file is that one command: the file's text is not read.
 */
export async function analyseShellCommand(script: string): Promise<ShellAnalysis> {
  const sh = await loadParser();
  const analysis: ShellAnalysis = { commands: [], unanalysable: [] };
  analyseScript(sh, script, 0, analysis);
  return analysis;
}

/** How deep `sh -c 'eval …'` may nest before the analysis gives up on it. */
const MAX_DEPTH = 8;

function analyseScript(sh: Sh, script: string, depth: number, out: ShellAnalysis): void {
  if (depth > MAX_DEPTH) {
    out.unanalysable.push({ command: collapse(script), reason: `it nests scripts more than ${MAX_DEPTH} deep` });
    return;
  }
  let file: Syntax.File;
  try {
    file = sh.NewParser().Parse(script, '');
  } catch (error) {
    const message = typeof (error as Syntax.ParseError).Error === 'function' ? (error as Syntax.ParseError).Error() : String(error);
    out.unanalysable.push({ command: collapse(script), reason: `the shell parser cannot read it (${message})` });
    return;
  }
  const source = Buffer.from(script, 'utf8');
  const ctx: Context = { sh, source, depth, out };
  // Each statement whose command is a call: the call, with the statement's redirections (a
  // here-document may be the script a shell reads). Walk reaches every nested statement.
  sh.Walk(file, (node) => {
    if (node && sh.NodeType(node) === 'Stmt') {
      const stmt = node as Syntax.Stmt;
      if (stmt.Cmd && sh.NodeType(stmt.Cmd) === 'CallExpr') {
        callCommand(ctx, (stmt.Cmd as Syntax.CallExpr).Args.map((w) => wordValue(ctx, w)), stmt.Redirs);
      }
    }
    return true;
  });
}

interface Context {
  sh: Sh;
  /** Node offsets are byte offsets into the UTF-8 source. */
  source: Buffer;
  depth: number;
  out: ShellAnalysis;
}

/** A word as the command line would hold it: `literal` when no expansion is left in it. */
interface WordValue {
  text: string;
  literal: boolean;
  /** Unquoted `*`, `?`, `[…]` or `{…,…}`: the shell may turn it into other words. */
  pattern: boolean;
}

const literalWord = (text: string): WordValue => ({ text, literal: true, pattern: false });

function sourceOf(ctx: Context, node: Syntax.Node): string {
  return ctx.source.subarray(node.Pos().Offset(), node.End().Offset()).toString('utf8');
}

/** `\x` -> `x` and a backslash-newline joins lines, as outside quotes. */
const unescapeBare = (text: string): string => text.replace(/\\(\n|.)/gs, (_m, c: string) => (c === '\n' ? '' : c));
/** Inside double quotes a backslash escapes only `$`, `` ` ``, `"`, `\` and a newline. */
const unescapeQuoted = (text: string): string => text.replace(/\\([$`"\\\n])/g, (_m, c: string) => (c === '\n' ? '' : c));
const PATTERN = /[*?]|\[.*\]|\{.*(,|\.\.).*\}/s;

function wordValue(ctx: Context, word: Syntax.Word): WordValue {
  let text = '';
  let literal = true;
  let pattern = false;
  for (const part of word.Parts) {
    const type = ctx.sh.NodeType(part);
    if (type === 'Lit') {
      const raw = part.Value ?? '';
      text += unescapeBare(raw);
      if (PATTERN.test(raw.replace(/\\./gs, ''))) pattern = true;
    } else if (type === 'SglQuoted' && !part.Dollar) {
      text += part.Value ?? '';
    } else if (type === 'DblQuoted') {
      for (const inner of part.Parts ?? []) {
        if (ctx.sh.NodeType(inner) === 'Lit') text += unescapeQuoted(inner.Value ?? '');
        else {
          text += sourceOf(ctx, inner);
          literal = false;
        }
      }
    } else {
      // $x, $(…), `…`, $((…)), <(…), $'…' (its escapes can spell anything): as written.
      text += sourceOf(ctx, part);
      literal = false;
    }
  }
  return { text, literal, pattern };
}

const collapse = (text: string): string => text.trim().replace(/\s+/g, ' ');
const joined = (words: readonly WordValue[]): string => collapse(words.map((w) => w.text).join(' '));

/** A simple command: reported, then followed into what it runs when it is a wrapper. */
function callCommand(ctx: Context, words: WordValue[], redirs: readonly Syntax.Redirect[]): void {
  const name = words[0];
  if (!name) return; // assignments only
  const text = joined(words);
  if (!name.literal) {
    ctx.out.unanalysable.push({ command: text, reason: 'its command name is built at run time' });
    return;
  }
  if (name.pattern) {
    ctx.out.unanalysable.push({ command: text, reason: 'its command name is a pattern the shell expands at run time' });
    return;
  }
  const expanded = words.find((w) => !w.literal || w.pattern);
  ctx.out.commands.push({ words: words.map((w) => w.text), text, ...(expanded ? { expanded: expanded.text } : {}) });
  const program = path.posix.basename(name.text);
  const args = words.slice(1);
  if (SHELLS.has(program)) shellScript(ctx, program, args, redirs, text);
  else if (program === '.' || program === 'source') sourcedScript(ctx, program, args, text);
  else if (program === 'eval') evalScript(ctx, args, text);
  else if (program === 'xargs') xargsCommand(ctx, args, redirs);
  else if (program === 'find') findCommands(ctx, args, redirs);
  else if (program === 'trap') trapScript(ctx, args, text);
  else if (program === 'alias') aliasScripts(ctx, args, text);
  else if (program === 'env' && args.some((w) => /^(-[a-zA-Z0-9]*S|--split-string)/.test(w.text))) {
    ctx.out.unanalysable.push({ command: text, reason: 'env -S splits a string into a command at run time' });
  } else if (program in WRAPPERS) {
    const inner = afterOptions(args, WRAPPERS[program]).rest;
    if (inner.length > 0) callCommand(ctx, inner, redirs);
  }
}

/** A script given as text: parsed and analysed as the shell would run it. */
function nested(ctx: Context, script: string): void {
  analyseScript(ctx.sh, script, ctx.depth + 1, ctx.out);
}

interface OptionSpec {
  /** Short options that take a value (`-u NAME`, or `-uNAME`). */
  short?: string;
  /** Long options that take a value as the next word when not written `--opt=value`. */
  long?: string[];
  /** NAME=VALUE words before the command (env, sudo). */
  assignments?: boolean;
  /** Operands before the command (timeout's duration). */
  operands?: number;
  /** Options may start with `+` too (sh's `+o`). */
  plus?: boolean;
}

/** Commands that run the command named by their first operand, with the options each takes a value for. */
const WRAPPERS: Record<string, OptionSpec> = {
  env: { short: 'uC', long: ['--unset', '--chdir'], assignments: true },
  nohup: {},
  timeout: { short: 'sk', long: ['--signal', '--kill-after'], operands: 1 },
  nice: { short: 'n', long: ['--adjustment'] },
  ionice: { short: 'cnpP', long: ['--class', '--classdata', '--pid', '--pgid', '--uid'] },
  command: {},
  builtin: {},
  exec: { short: 'a' },
  time: { short: 'fo', long: ['--format', '--output'] },
  sudo: { short: 'ugChpDrtTUR', long: ['--user', '--group', '--close-from', '--host', '--prompt', '--chdir', '--role', '--type', '--command-timeout', '--other-user', '--chroot'], assignments: true },
  doas: { short: 'uC' },
  stdbuf: { short: 'ioe', long: ['--input', '--output', '--error'] },
  setsid: {},
  chrt: { operands: 1 },
  busybox: {},
};

const SHELLS = new Set(['sh', 'bash', 'dash', 'ash', 'ksh', 'mksh', 'zsh']);

/** Skips a wrapper's options (and its assignments and operands); returns the words left and the options seen. */
function afterOptions(args: WordValue[], spec: OptionSpec): { rest: WordValue[]; flags: Set<string> } {
  const flags = new Set<string>();
  let i = 0;
  while (i < args.length) {
    const word = args[i].text;
    if (word === '--') {
      i += 1;
      break;
    }
    if (spec.assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) {
      i += 1;
      continue;
    }
    const isOption = word.length > 1 && (word.startsWith('-') || (spec.plus === true && word.startsWith('+')));
    if (!isOption) break;
    i += 1;
    if (word.startsWith('--')) {
      const [long] = word.split('=', 1);
      flags.add(long);
      if (!word.includes('=') && spec.long?.includes(long)) i += 1;
      continue;
    }
    const cluster = word.slice(1);
    for (const [index, c] of [...cluster].entries()) {
      flags.add(`${word[0]}${c}`);
      if (spec.short?.includes(c)) {
        if (index === cluster.length - 1) i += 1; // the value is the next word
        break; // the rest of the cluster is the value
      }
    }
  }
  return { rest: args.slice(i + (spec.operands ?? 0)), flags };
}

/** `sh -c SCRIPT`: the script; `sh` reading its input: a here-document's text, or nothing anyone can read. */
function shellScript(ctx: Context, program: string, args: WordValue[], redirs: readonly Syntax.Redirect[], text: string): void {
  const { rest, flags } = afterOptions(args, { short: 'oO', long: ['--rcfile', '--init-file'], plus: true });
  const runsString = [...flags].some((f) => f.startsWith('-') && !f.startsWith('--') && f.endsWith('c'));
  if (runsString) {
    const script = rest[0];
    if (!script) return;
    if (!script.literal) ctx.out.unanalysable.push({ command: text, reason: `${program} -c runs a script built at run time` });
    else nested(ctx, script.text);
    return;
  }
  if (rest.length > 0 && !flags.has('-s')) {
    scriptOperand(ctx, program, rest[0], text);
    return;
  }
  const input = hereText(ctx, redirs);
  if (input === null) ctx.out.unanalysable.push({ command: text, reason: `${program} reads the script it runs from its input` });
  else nested(ctx, input);
}

/** `. FILE` / `source FILE`: the shell runs the file's commands, as `sh FILE` does. */
function sourcedScript(ctx: Context, program: string, args: WordValue[], text: string): void {
  const operand = args[0]?.text === '--' ? args[1] : args[0];
  if (operand) scriptOperand(ctx, program, operand, text);
}

/** Where a shell reads its script when it is not a file in the sandbox: standard input, a descriptor, a pipe. */
const STREAM_SCRIPT = /^(-|\/dev\/stdin|\/dev\/fd\/.*|\/proc\/[^/]+\/fd\/.*)$/;

/**
 * A script file a shell runs: one in the sandbox is checked as the command that names it (its
 * text is the agent's to write, and not read here); a stream or a name known only at run time
 * is unanalysable.
 */
function scriptOperand(ctx: Context, program: string, operand: WordValue, text: string): void {
  if (!operand.literal || operand.pattern) {
    ctx.out.unanalysable.push({ command: text, reason: `${program} runs a script whose name is only known at run time (${operand.text})` });
  } else if (STREAM_SCRIPT.test(operand.text)) {
    ctx.out.unanalysable.push({ command: text, reason: `${program} runs the script it reads from ${operand.text}` });
  }
}

/** The text a here-document or here-string feeds the command; null where there is none, or it holds an expansion. */
function hereText(ctx: Context, redirs: readonly Syntax.Redirect[]): string | null {
  for (const redir of [...redirs].reverse()) {
    if (redir.Hdoc) {
      const quoted = (redir.Word?.Parts ?? []).some((p) => ctx.sh.NodeType(p) !== 'Lit') || sourceOf(ctx, redir.Word as Syntax.Word).includes('\\');
      const parts = redir.Hdoc.Parts;
      if (parts.some((p) => ctx.sh.NodeType(p) !== 'Lit')) return null;
      return parts.map((p) => (quoted ? (p.Value ?? '') : unescapeQuoted(p.Value ?? ''))).join('');
    }
    if (ctx.source.subarray(redir.OpPos.Offset(), redir.OpPos.Offset() + 3).toString() === '<<<' && redir.Word) {
      const value = wordValue(ctx, redir.Word);
      return value.literal ? value.text : null;
    }
  }
  return null;
}

function evalScript(ctx: Context, args: WordValue[], text: string): void {
  if (args.length === 0) return;
  if (args.some((w) => !w.literal)) ctx.out.unanalysable.push({ command: text, reason: 'eval runs a string built at run time' });
  else nested(ctx, args.map((w) => w.text).join(' '));
}

/** xargs' command, with `{}` for the arguments it reads (unless -I names where they go); `echo` by default. */
function xargsCommand(ctx: Context, args: WordValue[], redirs: readonly Syntax.Redirect[]): void {
  const { rest, flags } = afterOptions(args, {
    short: 'adEILnPs',
    long: ['--arg-file', '--delimiter', '--max-lines', '--max-args', '--max-procs', '--max-chars', '--process-slot-var'],
  });
  const replaces = [...flags].some((f) => f === '-I' || f === '-i' || f === '--replace');
  const command = rest.length > 0 ? rest : [literalWord('echo')];
  callCommand(ctx, replaces ? command : [...command, literalWord('{}')], redirs);
}

/** find's -exec / -execdir / -ok / -okdir commands. */
function findCommands(ctx: Context, args: WordValue[], redirs: readonly Syntax.Redirect[]): void {
  for (let i = 0; i < args.length; i += 1) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(args[i].text)) continue;
    const end = args.findIndex((w, j) => j > i && (w.text === ';' || w.text === '+'));
    const command = args.slice(i + 1, end === -1 ? undefined : end);
    if (command.length > 0) callCommand(ctx, command, redirs);
    if (end === -1) break;
    i = end;
  }
}

/** `trap ACTION SIGNAL…`: the action is a script the shell runs later. */
function trapScript(ctx: Context, args: WordValue[], text: string): void {
  const operands = args[0]?.text === '--' ? args.slice(1) : args;
  const action = operands[0];
  if (!action || operands.length < 2 || action.text === '-' || action.text.startsWith('-')) return;
  if (!action.literal) ctx.out.unanalysable.push({ command: text, reason: 'trap runs a string built at run time' });
  else nested(ctx, action.text);
}

/** `alias NAME=VALUE`: the value runs wherever the name is used later. */
function aliasScripts(ctx: Context, args: WordValue[], text: string): void {
  for (const arg of args) {
    const at = arg.text.indexOf('=');
    if (at <= 0) continue;
    if (!arg.literal) ctx.out.unanalysable.push({ command: text, reason: 'alias defines a command built at run time' });
    else nested(ctx, arg.text.slice(at + 1));
  }
}
