#!/usr/bin/env node
import { main } from './main.js';

// `skillport --help | head` closes stdout early: that is not an error worth a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
    // The command is done (serving commands resolve only when they stop): idle keep-alive sockets of an HTTP client
    // would hold the process for seconds, so it ends here, once stdout has taken everything written to it.
    process.stdout.write('', () => process.exit(code));
  },
  (error: unknown) => {
    process.stderr.write(`skillport: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
