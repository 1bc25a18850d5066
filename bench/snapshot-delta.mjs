#!/usr/bin/env node
// bench/snapshot-delta: what one changed skill costs the catalog snapshot (ADR 0130), in memory, without the disk:
// N synthetic skills (5 files each, some folders nested), then 200 one-skill changes (replace, add, remove) applied
// with CatalogSnapshot.withChanges, against a full build of the same catalog (the cost of every change before).
// Prints per size: full build ms, delta p50/p99 ms (fresh bases included, amortised), and the ratio.
// Usage: node bench/snapshot-delta.mjs [--sizes 10000,100000] [--changes 200] [--json]
import { join, resolve } from 'node:path';
import { measuredCommit, options } from './args.mjs';

const repo = resolve(import.meta.dirname, '..');
const flags = options();
const sizes = flags.value('sizes', '10000,100000').split(',').map(Number);
const changes = Number(flags.value('changes', '200'));
const { CatalogSnapshot, buildCatalogSkill } = await import(join(repo, 'packages/server/dist/src/index.js')).then(async (server) => ({
  buildCatalogSkill: server.buildCatalogSkill,
  CatalogSnapshot: (await import(join(repo, 'packages/server/dist/src/catalog/snapshot.js'))).CatalogSnapshot,
}));
const origin = { kind: 'stored', source: 'bench', blobs: { read: async () => new Uint8Array() } };
const hex = (n) => n.toString(16).padStart(64, '0');

function skill(i, version) {
  const path = [`team-${i % 97}`, `group-${i % 13}`, `skill-${i}`];
  const files = ['SKILL.md', 'references/guide.md', 'references/api.md', 'scripts/run.py', 'assets/logo.png'].map((file, k) => ({
    path: file,
    size: 100 + k,
    digest: `sha256:${hex(i * 8 + k + version * 1e9)}`,
    mimeType: 'text/plain',
  }));
  const name = path.at(-1);
  return buildCatalogSkill(
    {
      name,
      description: `Does ${name}.`,
      frontmatter: { name, description: `Does ${name}.` },
      headings: [],
      files,
      totalBytes: 600,
      packageDigest: `sha256:${hex(i + version * 1e9)}`,
    },
    path,
    origin,
  );
}

const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(p * values.length))];
const rows = [];
for (const size of sizes) {
  const skills = Array.from({ length: size }, (_, i) => skill(i, 0));
  const started = performance.now();
  let snapshot = new CatalogSnapshot(skills, 1);
  const fullMs = performance.now() - started;
  const times = [];
  for (let c = 0; c < changes; c++) {
    const kind = c % 3;
    const i = (c * 7919) % size;
    const delta =
      kind === 0
        ? { upsert: [skill(i, c + 1)], remove: [] }
        : kind === 1
          ? { upsert: [skill(size + c, 0)], remove: [] }
          : { upsert: [], remove: [skills[(i + 1) % size].uri] };
    const t = performance.now();
    snapshot = snapshot.withChanges(delta, c + 2);
    times.push(performance.now() - t);
  }
  const row = { size, fullMs, deltaP50: percentile(times, 0.5), deltaP99: percentile(times, 0.99), deltaMean: times.reduce((a, b) => a + b, 0) / times.length };
  rows.push(row);
  process.stderr.write(`${JSON.stringify(row)}\n`);
}
if (flags.flag('json')) process.stdout.write(`${JSON.stringify({ commit: measuredCommit(), rows }, null, 2)}\n`);
else {
  process.stdout.write(
    `\n### One changed skill, catalog snapshot only (bench/snapshot-delta.mjs, ${changes} changes; commit ${measuredCommit()})\n\n| skills | full build, ms | delta p50, ms | delta p99, ms | delta mean, ms | full ÷ delta mean |\n|---:|---:|---:|---:|---:|---:|\n`,
  );
  for (const r of rows)
    process.stdout.write(
      `| ${r.size.toLocaleString('en-US')} | ${r.fullMs.toFixed(0)} | ${r.deltaP50.toFixed(3)} | ${r.deltaP99.toFixed(2)} | ${r.deltaMean.toFixed(3)} | ${(r.fullMs / r.deltaMean).toFixed(0)} |\n`,
    );
}
