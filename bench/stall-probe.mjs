// Loaded into the server by bench/stall.mjs (`node --import`): the server's own event-loop delay
// (perf_hooks.monitorEventLoopDelay, sampled every 5 ms), reset and read over the IPC channel, so that the longest
// stall is the server's, measured inside it, not the client's view of it.
import { monitorEventLoopDelay } from 'node:perf_hooks';

const delay = monitorEventLoopDelay({ resolution: 5 });
delay.enable();
process.on('message', (message) => {
  if (message === 'reset') {
    delay.reset();
    process.send({ reset: true });
  } else if (message === 'read') {
    process.send({ maxMs: delay.max / 1e6, p99Ms: delay.percentile(99) / 1e6, meanMs: delay.mean / 1e6 });
  }
});
process.channel?.unref();
