// Timing a change until it shows: polls `check` every `everyMs` until it returns true, and answers the time it took
// (NaN when `timeoutMs` passed). A check that throws counts as "not yet".
import { performance } from 'node:perf_hooks';

export async function until(check, timeoutMs = 30_000, everyMs = 2) {
  const started = performance.now();
  for (;;) {
    try {
      if (await check()) return performance.now() - started;
    } catch {
      // not yet
    }
    if (performance.now() - started > timeoutMs) return NaN;
    await new Promise((done) => setTimeout(done, everyMs));
  }
}
