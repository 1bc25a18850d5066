#!/usr/bin/env node --expose-gc
// bench/catalog-memory: what the folder catalog alone holds (issue 13 item 4), without the search index, the HTTP
// layer or the registry: a LiveCatalog opened on a generated catalog (bench/generate-catalog.mjs), cold (empty caches,
// the scan in a worker thread) and then warm (the persisted catalog restored, then checked against the disk), in this
// process. Prints heap after GC per skill, RSS when open, peak RSS (sampled), and the time to open and to persist.
// Usage: node --expose-gc bench/catalog-memory.mjs [--count 10000] [--snapshot DIR] [--json]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import { measuredCommit, options } from './args.mjs';

const repo = resolve(import.meta.dirname, '..');
const flags = options();
const count = Number(flags.value('count', '10000'));
const snapshotDir = flags.value('snapshot', undefined);
if (typeof globalThis.gc !== 'function') throw new Error('run with node --expose-gc');
const { LiveCatalog } = await import(join(repo, 'packages/server/dist/src/catalog/live-catalog.js'));
const { DEFAULT_LIMITS } = await import(join(repo, 'packages/core/dist/src/index.js'));
const log = (line) => process.stderr.write(`${line}\n`);

const dir = execFileSync(process.execPath, [join(repo, 'bench/generate-catalog.mjs'), '--count', String(count)], {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
}).trim();
const cache = mkdtempSync(join(tmpdir(), 'skillport-catalog-memory-'));
const rssMb = () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;
const heapMb = () => {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

async function measure(kind) {
  let peak = rssMb();
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb())), 10);
  const before = heapMb();
  const started = performance.now();
  const catalog = await LiveCatalog.open({
    roots: [{ dir, prefix: [] }],
    limits: DEFAULT_LIMITS,
    persistPath: join(cache, 'catalog.json'),
    digestCachePath: join(cache, 'digests'),
    onProblem: () => {},
  });
  const openMs = performance.now() - started;
  const verifyStarted = performance.now();
  await catalog.verify();
  const verifyMs = performance.now() - verifyStarted;
  clearInterval(sampler);
  peak = Math.max(peak, rssMb());
  const heap = heapMb() - before;
  const rss = rssMb();
  if (snapshotDir) log(`heap snapshot: ${writeHeapSnapshot(join(resolve(snapshotDir), `catalog-${count}-${kind}.heapsnapshot`))}`);
  const persistStarted = performance.now();
  catalog.close(); // writes the persisted catalog
  const persistMs = performance.now() - persistStarted;
  const skills = catalog.snapshot.size;
  const result = { kind, skills, openMs, verifyMs, persistMs, heapMb: heap, heapPerSkillKb: (heap * 1024) / skills, rssMb: rss, peakRssMb: peak };
  log(JSON.stringify(result));
  return { result, catalog };
}

const cold = await measure('cold');
const persisted = statSync(join(cache, 'catalog.json')).size;
cold.catalog = undefined;
const warm = await measure('warm');
rmSync(cache, { recursive: true, force: true });
const rows = [cold.result, warm.result];
if (flags.flag('json')) process.stdout.write(`${JSON.stringify({ count, commit: measuredCommit(), persistedBytes: persisted, rows })}\n`);
else {
  const f = (v, d = 0) => v.toFixed(d);
  process.stdout.write(
    `folder catalog alone at ${count.toLocaleString('en-US')} generated skills (no search index, no server); commit ${measuredCommit()}; persisted catalog ${f(persisted / 2 ** 20, 1)} MB\n\n`,
  );
  process.stdout.write('| start | skills | open, ms | check, ms | persist, ms | heap after GC, MB | heap per skill, KB | RSS, MB | peak RSS, MB |\n');
  process.stdout.write('|---|---:|---:|---:|---:|---:|---:|---:|---:|\n');
  for (const r of rows)
    process.stdout.write(
      `| ${r.kind} | ${r.skills} | ${f(r.openMs)} | ${f(r.verifyMs)} | ${f(r.persistMs)} | ${f(r.heapMb, 1)} | ${f(r.heapPerSkillKb, 2)} | ${f(r.rssMb)} | ${f(r.peakRssMb)} |\n`,
    );
}
