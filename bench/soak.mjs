#!/usr/bin/env node
// bench/soak: the whole system held under load while things change and fail, with figures (issue 17,
// docs/reliability.md). Real `skillport serve` processes on 127.0.0.1, real MCP clients on both protocol eras.
//   a. churn: N readers verify every byte against the listing it came from while skill folders are edited in place,
//      by `sed -i`, by safe-save, added, moved and deleted, and registry versions are published, tagged, yanked and
//      revoked; then the listing must equal a fresh --no-cache scan (time to converge).
//   b. crash: SIGKILL under load at random moments, cache folder kept, the tree changed while down; each restart
//      must serve what a --no-cache start serves; then the cache files are torn and corrupted and must be ignored.
//   c. registry faults: 4 publishers, SIGKILLs mid-publish, a full disk (a size-limited tmpfs when mount works,
//      i.e. as root), PostgreSQL stopped and started: store check passes, every acknowledged publish is readable
//      and verifies, nothing partial is visible.
//   d. replicas on PostgreSQL: one of 3 killed under load (the others keep answering); one cut from the database
//      (a TCP proxy) catches up when it returns.
//   e. hostile HTTP: huge and streamed bodies, deep JSON, 1 MB URIs, huge batches, bad UTF-8, wrong content types,
//      HTTP/1.0, bad Host/Origin: each a 4xx with one line, never a 5xx or a crash; slowloris against other
//      clients' p99.
//   memory, in each phase but c: the server's RSS before and after the phase, each after --settle seconds without
//      load, with what holds it (live heap after a forced collection, V8's heap pages, memory outside V8's heap),
//      from a probe preloaded into the server (soak/memprobe.cjs; docs/reliability.md "Memory").
// Usage: node bench/soak.mjs [--short] [--clients 64] [--duration 30] [--kills 10] [--phases abcde] [--seed 1]
//        [--settle 20] [--json]
// --short: the npm test version (packages/cli/test/soak.test.ts runs it and asserts its counters, never timings).
import { phaseChurn } from './soak/phase-churn.mjs';
import { phaseCrash } from './soak/phase-crash.mjs';
import { phaseHostile } from './soak/phase-hostile.mjs';
import { phaseRegistry } from './soak/phase-registry.mjs';
import { phaseReplicas } from './soak/phase-replicas.mjs';
import { options, measuredCommit } from './args.mjs';
import { closeAgents, log, seeded } from './soak/lib.mjs';
import { printReport, totals } from './soak/report.mjs';

const flags = options();
const short = flags.flag('short');
const config = {
  short,
  clients: Number(flags.value('clients', short ? '12' : '64')),
  duration: Number(flags.value('duration', short ? '6' : '45')) * 1000,
  skills: Number(flags.value('skills', short ? '16' : '40')),
  kills: Number(flags.value('kills', short ? '2' : '10')),
  publishKills: Number(flags.value('publish-kills', short ? '2' : '5')),
  intervalMs: Number(flags.value('interval', '200')),
  seed: Number(flags.value('seed', String(Date.now() % 100000))),
  phases: flags.value('phases', short ? 'abce' : 'abcde'),
  // Seconds without load before each memory figure: the servers' idle collector gives the heap back 6-16 s after
  // the load stops (docs/reliability.md "Memory").
  settleMs: Number(flags.value('settle', short ? '3' : '20')) * 1000,
};
const rng = seeded(config.seed);
const started = performance.now();
const results = { commit: measuredCommit(), config, phases: {} };
const phases = {
  a: ['churn', phaseChurn],
  b: ['crash', phaseCrash],
  c: ['registry', phaseRegistry],
  d: ['replicas', phaseReplicas],
  e: ['hostile', phaseHostile],
};
try {
  for (const key of config.phases) {
    const [name, run] = phases[key] ?? [];
    if (!run) continue;
    log(`--- phase ${key}: ${name}`);
    const phaseStarted = performance.now();
    try {
      results.phases[name] = await run(config, rng);
    } catch (error) {
      results.phases[name] = { failed: String(error?.stack ?? error) };
      log(`phase ${name} failed: ${error?.stack ?? error}`);
    }
    results.phases[name].seconds = Number(((performance.now() - phaseStarted) / 1000).toFixed(1));
  }
} finally {
  closeAgents();
}
results.seconds = Number(((performance.now() - started) / 1000).toFixed(1));
results.totals = totals(results);
if (flags.flag('json')) process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
else printReport(results);
