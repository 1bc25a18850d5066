#!/usr/bin/env node
// bench/private-views: what private skills (versions pending review, ADR 0235) cost a principal's view lookup, in
// memory: a catalog of N synthetic skills and an open policy; ViewCache.view() per call for a reader without a
// private source (the baseline), for a reader once a source exists that gives it nothing, and for a publisher it gives
// two pending versions (its view then is its own, built once per snapshot: that build is timed too).
// Usage: node bench/private-views.mjs [--size 10000] [--calls 1000000] [--holders 20] [--json]
import { join, resolve } from 'node:path';
import { measuredCommit, options } from './args.mjs';

const repo = resolve(import.meta.dirname, '..');
const flags = options();
const size = Number(flags.value('size', '10000'));
const calls = Number(flags.value('calls', '1000000'));
const { buildCatalogSkill } = await import(join(repo, 'packages/server/dist/src/index.js'));
const { CatalogSnapshot } = await import(join(repo, 'packages/server/dist/src/catalog/snapshot.js'));
const { ViewCache } = await import(join(repo, 'packages/server/dist/src/access/views.js'));
const origin = { kind: 'stored', source: 'bench', blobs: { read: async () => new Uint8Array() } };
const hex = (n) => n.toString(16).padStart(64, '0');

function skill(i, path) {
  const name = `skill-${i}`;
  const files = [{ path: 'SKILL.md', size: 100, digest: `sha256:${hex(i)}`, mimeType: 'text/markdown' }];
  const manifest = {
    name,
    description: `Does ${name}.`,
    frontmatter: { name, description: `Does ${name}.` },
    headings: [],
    files,
    totalBytes: 100,
    packageDigest: `sha256:${hex(i + 1e9)}`,
  };
  return buildCatalogSkill(manifest, path ?? [name], origin, path ? { 'dev.skillport/version': path[0], 'dev.skillport/pending': 'pending review' } : {});
}

const snapshot = new CatalogSnapshot(
  Array.from({ length: size }, (_, i) => skill(i)),
  1,
);
const principal = (user) => ({ via: 'token', user, orgs: ['acme'], projects: [], scopes: new Set(['read']) });
const reader = principal('alice');
const publisher = principal('acme-ci');
const pending = [skill(size + 1, ['2.0.0', 'skill-1']), skill(size + 2, ['1.0.0', 'skill-new'])];

const perCall = (views, who) => {
  for (let i = 0; i < 10_000; i++) views.view(snapshot, who);
  const started = process.hrtime.bigint();
  let sink = 0;
  for (let i = 0; i < calls; i++) sink += views.view(snapshot, who).size;
  if (sink === 0) throw new Error('no views');
  return Number(process.hrtime.bigint() - started) / calls;
};

const plain = new ViewCache();
const baseline = perCall(plain, reader);
const withSource = new ViewCache();
withSource.addPrivate({ generation: () => 1, for: (who) => (who.user === 'acme-ci' ? pending : []) });
const readerNs = perCall(withSource, reader);
const built = process.hrtime.bigint();
const own = withSource.view(snapshot, publisher);
const buildMs = Number(process.hrtime.bigint() - built) / 1e6;
if (own.size !== size + 2 || own === snapshot) throw new Error('the publisher view does not hold its pending versions');
const publisherNs = perCall(withSource, publisher);
// Memory: what each further private view holds, against the catalog snapshot itself. Views of `holders`
// publishers, each given its own two pending versions, are built and kept; the heap grows by their sum.
(await import('node:v8')).setFlagsFromString('--expose-gc');
const gc = (await import('node:vm')).runInNewContext('gc');
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const holders = Number(flags.value('holders', '20'));
// The snapshot's own structure (its array and maps), apart from the skills, which views share with it.
const skills = Array.from({ length: size }, (_, i) => skill(i));
const beforeCatalog = heap();
const second = new CatalogSnapshot(skills, 2);
const catalogBytes = heap() - beforeCatalog;
const many = new ViewCache();
const given = new Map(
  Array.from({ length: holders }, (_, k) => [`pub-${k}`, [skill(size + 10 + 2 * k, ['2.0.0', `skill-${k}`]), skill(size + 11 + 2 * k, ['1.0.0', `new-${k}`])]]),
);
many.addPrivate({ generation: () => 1, for: (who) => given.get(who.user) ?? [] });
many.view(second, reader);
const beforeViews = heap();
const kept = [];
for (let k = 0; k < holders; k++) kept.push(many.view(second, principal(`pub-${k}`)));
const viewBytes = (heap() - beforeViews) / holders;
if (kept.some((view) => view.size !== size + 2)) throw new Error('a private view does not hold its pending versions');
const row = { size, calls, baselineNs: baseline, readerNs, publisherNs, publisherBuildMs: buildMs, holders, catalogBytes, viewBytes };
if (flags.flag('json')) process.stdout.write(`${JSON.stringify({ commit: measuredCommit(), ...row }, null, 2)}\n`);
else
  process.stdout.write(
    `\n### Private skills in views (bench/private-views.mjs, ${size.toLocaleString('en-US')} skills, open policy; commit ${measuredCommit()})\n\n| caller | ns per view() | ÷ baseline |\n|---|---:|---:|\n| reader, no private source (baseline) | ${baseline.toFixed(1)} | 1.00 |\n| reader, a source giving it nothing | ${readerNs.toFixed(1)} | ${(readerNs / baseline).toFixed(2)} |\n| publisher with 2 pending versions (cached view) | ${publisherNs.toFixed(1)} | ${(publisherNs / baseline).toFixed(2)} |\n\nThe publisher's own view, built once per snapshot: ${buildMs.toFixed(1)} ms.\n\nMemory: the catalog snapshot's own structure ${(catalogBytes / 1048576).toFixed(2)} MiB (its skills apart, shared with the views); each private view (${holders} held at once, 2 pending versions each) ${(viewBytes / 1048576).toFixed(2)} MiB, ${((100 * viewBytes) / catalogBytes).toFixed(1)} % of it.\n`,
  );
