import { runCli } from './program';
import { EXIT_INTERRUPTED } from './interrupt';

// A reader that stops early (`agents plan diff ID | head -1`) closes the pipe: that ends the command, quietly and successfully.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
}

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
    // A run stopped inside a tool call still has the call's process: the command ends now all the same.
    if (code === EXIT_INTERRUPTED) process.exit(code);
  },
  (error: unknown) => {
    process.stderr.write(`internal error: ${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  },
);
