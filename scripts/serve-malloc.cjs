'use strict';
// `agents serve` gives the memory of large messages back to the system once they are freed. glibc's
// malloc keeps freed blocks in its arenas (one per thread that allocated), and its threshold for
// serving a block from mmap instead grows to 32 MB as large blocks come and go: 2,000 malformed
// frames of up to 4 MB left serve 88-105 MB larger, for good (main/web/serve-memory.test.ts). With
// the threshold fixed at 64 KB, a block that large is mmap'd and unmapped when freed. glibc reads the setting once, at
// start, from the environment: so serve starts itself again (same pid, Linux's execve) with it set.
// Only serve, a long-lived process: a short command ends before it matters.

const THRESHOLD = 'MALLOC_MMAP_THRESHOLD_';
/** Marks the threshold as ours, so it is taken out of the environment the console's children inherit. */
const OURS = 'AGENTS_SERVE_MALLOC';

/** The command `agents` was asked for: the first word after the program's own options. */
function commandOf(args) {
  for (let i = 0; i < args.length; i += 1) {
    if (args[i] === '--database') i += 1;
    else if (!args[i].startsWith('-')) return args[i];
  }
  return undefined;
}

/** Re-executes `agents serve` with malloc's mmap threshold set, on Linux, when the operator has not set it; returns otherwise. */
function serveMalloc() {
  if (process.env[OURS] === '1') {
    // Read by malloc already; plans' commands and agents get the operator's environment as it was.
    delete process.env[OURS];
    delete process.env[THRESHOLD];
    return;
  }
  if (process.platform !== 'linux' || typeof process.execve !== 'function' || process.env[THRESHOLD] !== undefined) return;
  if (commandOf(process.argv.slice(2)) !== 'serve') return;
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], { ...process.env, [THRESHOLD]: '65536', [OURS]: '1' });
}

module.exports = { serveMalloc, commandOf };
