#!/usr/bin/env node
// The only place that sets the process exit code. Everything else is in dist/.
import { EXIT } from '../dist/cli/exit-codes.js';
import { run } from '../dist/cli/program.js';

// A reader that stops early (`toolcap list --json | head`) closes the pipe: end as a command killed by SIGPIPE
// does (exit 128 + 13), not with a stack trace for the unhandled EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error) => {
    if (error?.code !== 'EPIPE') throw error;
    process.exit(EXIT.CLOSED_PIPE);
  });
}

process.exitCode = await run(process.argv.slice(2));
