#!/usr/bin/env node
// bench/audit-cache: what the access store's small SQLite page cache (2 MiB, ADR 0165's second revision) costs the
// audit log's writes, against better-sqlite3's 16 MB default. Each configuration in turn (alternating, `--rounds`
// times) on a fresh store of its own: `--events` audit events in batches of 50 (as the server's audit queue writes
// them) to fill it, then the same number timed; 20 users, 2,000 skills. Prints µs per event and the ratio.
// Usage: node bench/audit-cache.mjs [--events 50000] [--rounds 2] [--json]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measuredCommit, options } from './args.mjs';

const { SqliteAccessStore, ACCESS_CACHE_KIB } = await import('../packages/server/dist/src/access/sqlite-access-store.js');
const flags = options();
const events = Number(flags.value('events', '50000'));
const rounds = Number(flags.value('rounds', '2'));
const batches = Math.ceil(events / 50);

async function run(cacheKib) {
  const dir = mkdtempSync(join(tmpdir(), 'skillport-audit-cache-'));
  const store = SqliteAccessStore.open(dir);
  store.db.pragma(`cache_size = -${cacheKib}`);
  let n = 0;
  const batch = () =>
    Array.from({ length: 50 }, () => {
      const i = n++;
      const skill = `skill-${(i * 7919) % 2000}`;
      return {
        time: new Date().toISOString(),
        principal: `user:u${i % 20}`,
        user: `u${i % 20}`,
        action: 'read',
        surface: 'resources/read',
        skill,
        uri: `skill://${skill}/SKILL.md`,
        file: 'SKILL.md',
        outcome: 'ok',
      };
    });
  try {
    for (let i = 0; i < batches; i++) await store.appendAudit(batch());
    const started = performance.now();
    for (let i = 0; i < batches; i++) await store.appendAudit(batch());
    return ((performance.now() - started) * 1000) / (batches * 50);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const results = { small: [], large: [] };
for (let round = 0; round < rounds; round++) {
  results.large.push(await run(16000));
  results.small.push(await run(ACCESS_CACHE_KIB));
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const report = {
  commit: measuredCommit(),
  events,
  rounds,
  usPerEvent: { cache2MiB: results.small.map((v) => Number(v.toFixed(1))), cache16MB: results.large.map((v) => Number(v.toFixed(1))) },
  ratio: Number((median(results.small) / median(results.large)).toFixed(2)),
};
if (flags.flag('json')) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else
  process.stdout.write(
    `audit writes, commit ${report.commit}, ${events} events after ${events}: ${ACCESS_CACHE_KIB / 1024} MiB cache ${report.usPerEvent.cache2MiB.join(', ')} µs/event; 16 MB cache ${report.usPerEvent.cache16MB.join(', ')} µs/event; ratio ${report.ratio}x\n`,
  );
