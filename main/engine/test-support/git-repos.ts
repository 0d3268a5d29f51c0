import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** git in `cwd`, with an author and a default branch whatever the machine's settings; its output trimmed. */
export const gitIn = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd, encoding: 'utf8' }).trim();

/** A bare repository in a temp folder: main has two commits, tag v1 the first. */
export function makeBareRepo(base: string): { bare: string; url: string; first: string; head: string } {
  const work = path.join(base, 'work');
  gitIn(base, 'init', '-q', work);
  writeFileSync(path.join(work, 'README.md'), '# Demo\n\nversion one\n');
  gitIn(work, 'add', '-A');
  gitIn(work, 'commit', '-qm', 'first');
  gitIn(work, 'tag', 'v1');
  const first = gitIn(work, 'rev-parse', 'HEAD');
  writeFileSync(path.join(work, 'README.md'), '# Demo\n\nversion two\n');
  writeFileSync(path.join(work, 'notes.txt'), 'notes\n');
  gitIn(work, 'commit', '-qam', 'second');
  gitIn(work, 'add', '-A');
  gitIn(work, 'commit', '-qm', 'notes');
  const bare = path.join(base, 'origin.git');
  gitIn(base, 'clone', '-q', '--bare', work, bare);
  return { bare, url: pathToFileURL(bare).href, first, head: gitIn(bare, 'rev-parse', 'main') };
}

