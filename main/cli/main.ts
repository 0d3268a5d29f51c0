import { runCli } from './program';
import { EXIT_INTERRUPTED } from './interrupt';

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

runCli(process.argv.slice(2)).then(
  (code) => {
    if (pipeClosed) process.exit(0);
    process.exitCode = code;
    // A run stopped inside a tool call still has the call's process: the command ends now all the same.
    if (code === EXIT_INTERRUPTED) process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`internal error: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  },
);
