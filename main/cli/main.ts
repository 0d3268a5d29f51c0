import { z } from 'zod';

// zod compiles a fast path for an object schema at its first parse. A command parses a few documents:
// compiling cost more than it saved (`plan list`, 3 plans: 5-30 ms against 4 ms), and many parses are
// no slower without it. Set before the program is loaded, since a schema reads it when it is built.
z.config({ jitless: true });

// A reader that stops early (`agents plan diff ID | head -1`) closes the pipe: that ends the command, quietly and
// successfully. A run in the foreground is first stopped as a double Ctrl-C stops it, so the plan is Interrupted
// (and resumable), not left running for the next process to recover.
let pipeClosed = false;
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (pipeClosed) return;
    if (error.code !== 'EPIPE') throw error;
    pipeClosed = true;
    if (process.listenerCount('SIGINT') === 0) process.exit(0);
    process.emit('SIGINT');
    process.emit('SIGINT');
  });
}

import('./program')
  .then(async ({ runCli, EXIT }) => [await runCli(process.argv.slice(2)), EXIT.interrupted] as const)
  .then(
    ([code, interrupted]) => {
      if (pipeClosed) process.exit(0);
      process.exitCode = code;
      // A run stopped inside a tool call still has the call's process: the command ends now all the same.
      if (code === interrupted) process.exit(code);
    },
    (error: unknown) => {
      process.stderr.write(`internal error: ${error instanceof Error ? error.stack : String(error)}\n`);
      process.exitCode = 1;
    },
  );
