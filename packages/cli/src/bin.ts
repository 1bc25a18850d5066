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
    // would hold the process for seconds, so it ends here, once stdout and stderr have taken everything written to
    // them (a pipe whose reader lags queues writes: exiting before they drain cut the summary line off).
    let pending = 2;
    const done = () => {
      if (--pending === 0) process.exit(code);
    };
    process.stdout.write('', done);
    process.stderr.write('', done);
  },
  (error: unknown) => {
    process.stderr.write(`skillport: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
