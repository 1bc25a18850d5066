#!/usr/bin/env node
import { exitWait } from './kit.js';
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
    if (exitWait.stalledOutputMs !== undefined) exitOnceStalled(exitWait.stalledOutputMs, () => process.exit(code));
  },
  (error: unknown) => {
    process.stderr.write(`skillport: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);

/**
 * Calls `exit` once neither stdout nor stderr has taken a byte for `ms`: progress is a stream's queue or libuv's write
 * queue shrinking (a large write is taken a piece at a time), so a reader that reads on, however slowly, is waited for.
 */
function exitOnceStalled(ms: number, exit: () => void): void {
  const pending = (stream: NodeJS.WriteStream) => stream.writableLength + ((stream as { _handle?: { writeQueueSize?: number } })._handle?.writeQueueSize ?? 0);
  const queued = () => pending(process.stdout) + pending(process.stderr);
  let last = queued();
  let since = Date.now();
  setInterval(() => {
    const now = queued();
    if (now !== last) [last, since] = [now, Date.now()];
    else if (Date.now() - since >= ms) exit();
  }, 100).unref();
}
