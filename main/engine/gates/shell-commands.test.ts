import { describe, expect, it } from 'vitest';
import { analyseShellCommand } from './shell-commands';

const texts = async (script: string) => (await analyseShellCommand(script)).commands.map((c) => c.text);
const reasons = async (script: string) => (await analyseShellCommand(script)).unanalysable;

describe('analyseShellCommand: every simple command of a script', () => {
  it.each([
    ['chained with ;', 'true; rm -rf docs', ['true', 'rm -rf docs']],
    ['chained with && and ||', 'test -d docs && rm -rf docs || echo gone', ['test -d docs', 'rm -rf docs', 'echo gone']],
    ['in a pipe', 'ls | grep x | rm -rf docs', ['ls', 'grep x', 'rm -rf docs']],
    ['with extra spaces and tabs', '  rm   -rf \t  docs  ', ['rm -rf docs']],
    ['in a subshell', '( cd . && rm -rf docs )', ['cd .', 'rm -rf docs']],
    ['in $( … )', 'echo $(rm -rf docs)', ['echo $(rm -rf docs)', 'rm -rf docs']],
    ['in backticks', 'echo `rm -rf docs`', ['echo `rm -rf docs`', 'rm -rf docs']],
    ['in sh -c', "sh -c 'rm -rf docs'", ['sh -c rm -rf docs', 'rm -rf docs']],
    ['in bash -c with clustered options', 'bash -ec "cd . ; rm -rf docs"', ['bash -ec cd . ; rm -rf docs', 'cd .', 'rm -rf docs']],
    ['in eval', "eval 'rm -rf' docs", ['eval rm -rf docs', 'rm -rf docs']],
    ['after xargs, with {} for the words it reads', 'echo docs | xargs -n 1 rm -rf', ['echo docs', 'xargs -n 1 rm -rf', 'rm -rf {}']],
    ['after xargs -I', 'echo docs | xargs -I % rm -rf %', ['echo docs', 'xargs -I % rm -rf %', 'rm -rf %']],
    ['after env with an assignment', 'env X=1 rm -rf docs', ['env X=1 rm -rf docs', 'rm -rf docs']],
    ['after nested wrappers', 'timeout -s KILL 5 nice -n 3 nohup rm -rf docs', ['timeout -s KILL 5 nice -n 3 nohup rm -rf docs', 'nice -n 3 nohup rm -rf docs', 'nohup rm -rf docs', 'rm -rf docs']],
    ['after command, exec, sudo', 'command -p rm -rf a; exec rm -rf b; sudo -u root rm -rf c', ['command -p rm -rf a', 'rm -rf a', 'exec rm -rf b', 'rm -rf b', 'sudo -u root rm -rf c', 'rm -rf c']],
    ['after the time keyword', 'time rm -rf docs', ['rm -rf docs']],
    ['in find -exec', 'find . -name x -exec rm -rf {} \\;', ['find . -name x -exec rm -rf {} ;', 'rm -rf {}']],
    ['with quoted words', 'rm "-rf" \'docs\'', ['rm -rf docs']],
    ['with quotes and escapes inside a word', 'r""m -r\\f d"o"cs', ['rm -rf docs']],
    ['with a backslash before the name', '\\rm -rf docs', ['rm -rf docs']],
    ['in a function body', 'f() { rm -rf docs; }; f', ['rm -rf docs', 'f']],
    ['in a trap action', "trap 'rm -rf docs' EXIT", ['trap rm -rf docs EXIT', 'rm -rf docs']],
    ['in an alias', "alias x='rm -rf docs'", ['alias x=rm -rf docs', 'rm -rf docs']],
    ['in a here-document a shell reads', "sh <<'EOF'\nrm -rf docs\nEOF", ['sh', 'rm -rf docs']],
    ['in a here-string a shell reads', 'bash <<< "rm -rf docs"', ['bash', 'rm -rf docs']],
  ])('finds the commands %s', async (_name, script, expected) => {
    expect(await texts(script)).toEqual(expected);
    expect(await reasons(script)).toEqual([]);
  });

  it('takes a here-document that is data for what it is: text, not commands', async () => {
    expect(await texts('cat <<EOF > notes.txt\nrm -rf docs\nEOF\necho done')).toEqual(['cat', 'echo done']);
  });

  it('follows a command substitution inside a here-document', async () => {
    expect(await texts('cat <<EOF\n$(rm -rf docs)\nEOF')).toEqual(['cat', 'rm -rf docs']);
  });

  it('keeps the words of each command: quotes removed, expansions as written', async () => {
    const [command] = (await analyseShellCommand('cp "my file" $HOME/x')).commands;
    expect(command).toEqual({ words: ['cp', 'my file', '$HOME/x'], text: 'cp my file $HOME/x', expanded: '$HOME/x' });
  });

  it('assignments alone and declarations are no commands', async () => {
    expect(await analyseShellCommand('X=1; export Y=2')).toEqual({ commands: [], unanalysable: [] });
  });
});

describe('analyseShellCommand: what it cannot see through', () => {
  it.each([
    ['a script the parser cannot read', 'if then', 'if then', 'the shell parser cannot read it'],
    ['an unclosed quote', 'echo "unclosed', 'echo "unclosed', 'the shell parser cannot read it (1:6: reached EOF without closing quote "'],
    ['a command name from a variable', '$CMD -rf docs', '$CMD -rf docs', 'its command name is built at run time'],
    ['a command name from a substitution', '$(echo rm) -rf docs', '$(echo rm) -rf docs', 'its command name is built at run time'],
    ["a command name in $'…' quoting", "$'\\x72m' -rf docs", "$'\\x72m' -rf docs", 'its command name is built at run time'],
    ['a command name the shell globs', '/bin/r? -rf docs', '/bin/r? -rf docs', 'its command name is a pattern the shell expands at run time'],
    ['eval of a variable', 'eval "$x"', 'eval $x', 'eval runs a string built at run time'],
    ['sh -c of a variable', 'sh -c "$x"', 'sh -c $x', 'sh -c runs a script built at run time'],
    ['a shell reading a pipe', 'echo "rm -rf docs" | sh', 'sh', 'sh reads the script it runs from its input'],
    ['env -S', "env -S 'rm -rf docs'", 'env -S rm -rf docs', 'env -S splits a string into a command at run time'],
    ['a command name built inside sh -c', "sh -c '$x docs'", '$x docs', 'its command name is built at run time'],
    ['an unreadable script inside eval', "eval 'if then'", 'if then', 'the shell parser cannot read it'],
    ['a shell reading a script from -', "echo 'rm -rf docs' | sh -", 'sh -', 'sh runs the script it reads from -'],
    ['a shell reading /dev/stdin', "sh /dev/stdin <<'E'\nrm -rf docs\nE", 'sh /dev/stdin', 'sh runs the script it reads from /dev/stdin'],
    ['a shell reading a descriptor', 'bash /dev/fd/3 3<x', 'bash /dev/fd/3', 'bash runs the script it reads from /dev/fd/3'],
    ['a shell reading a process’s descriptor', 'sh /proc/self/fd/0 < x', 'sh /proc/self/fd/0', 'sh runs the script it reads from /proc/self/fd/0'],
    ['a shell reading a process substitution', 'bash <(echo rm -rf docs)', 'bash <(echo rm -rf docs)', 'bash runs a script whose name is only known at run time (<(echo rm -rf docs))'],
    ['a shell reading a script named by a variable', 'sh "$f"', 'sh $f', 'sh runs a script whose name is only known at run time ($f)'],
    ['. of /dev/stdin', ". /dev/stdin <<< 'rm -rf docs'", '. /dev/stdin', '. runs the script it reads from /dev/stdin'],
    ['source of a process substitution', 'source <(echo rm -rf docs)', 'source <(echo rm -rf docs)', 'source runs a script whose name is only known at run time'],
    ['a shell reading a here-string built at run time', 'sh <<< "$x"', 'sh', 'sh reads the script it runs from its input'],
  ])('reports %s', async (_name, script, command, reason) => {
    const [first, ...more] = await reasons(script);
    expect(more).toEqual([]);
    expect(first.command).toBe(command);
    expect(first.reason).toContain(reason);
  });

  it('still finds the commands around the part it cannot see through', async () => {
    const analysis = await analyseShellCommand('rm -rf docs; $CMD');
    expect(analysis.commands.map((c) => c.text)).toEqual(['rm -rf docs']);
    expect(analysis.unanalysable).toEqual([{ command: '$CMD', reason: 'its command name is built at run time' }]);
  });

  it('gives up on scripts nested past its depth', async () => {
    let script = 'rm -rf docs';
    for (let i = 0; i < 10; i += 1) script = `eval ${JSON.stringify(script)}`;
    expect((await reasons(script))[0].reason).toContain('it nests scripts more than 8 deep');
  });
});

describe('analyseShellCommand: words the shell builds at run time', () => {
  it.each([
    ['a parameter expansion inside an option', 'rm -rf${u} docs', '-rf${u}'],
    ["$'…' quoting", "rm $'-rf' docs", "$'-rf'"],
    ['a command substitution in double quotes', 'rm "$(printf -- -rf)" docs', '$(printf -- -rf)'],
    ['arithmetic', 'rm -r$((1)) docs', '-r$((1))'],
    ['an unquoted glob', 'rm -r[f] docs', '-r[f]'],
    ['an unquoted brace', 'rm -{r,f} docs', '-{r,f}'],
  ])('marks the first word built by %s', async (_name, script, word) => {
    const [command] = (await analyseShellCommand(script)).commands;
    expect(command.expanded).toBe(word);
  });

  it('marks no word of a command written out in full, quoted globs included', async () => {
    const [command] = (await analyseShellCommand(`rm -rf 'd*' \\*.md "{a,b}"`)).commands;
    expect(command).toEqual({ words: ['rm', '-rf', 'd*', '*.md', '{a,b}'], text: 'rm -rf d* *.md {a,b}' });
  });

  it('a shell running a script file of the sandbox is that one command', async () => {
    expect(await analyseShellCommand('sh build.sh; . ./env.sh; source lib.sh')).toEqual({
      commands: [
        { words: ['sh', 'build.sh'], text: 'sh build.sh' },
        { words: ['.', './env.sh'], text: '. ./env.sh' },
        { words: ['source', 'lib.sh'], text: 'source lib.sh' },
      ],
      unanalysable: [],
    });
  });
});
