#!/usr/bin/env node
// The search index's build, in process (packages/search/src/index/skill-index.ts; no server, no disk reads after the corpus is
// loaded): COUNT documents made of corpus copies added one at a time, as the server's background build adds them,
// then the compaction that follows it. Prints the time of each tenth of the build and the heap after it, so that a
// build whose cost per document grows with the index (issue 13: 100,000 skills) shows as a rising column.
// Documents are copies of the corpus (../shared/corpus/skills), each with one word of its own (as
// bench/generate-catalog.mjs makes them), or with `--vary`, with 3 in 10 words suffixed per copy (a vocabulary that
// grows with the catalog, as bench/corpus-docs.mjs's scaledCatalog).
// With `--queries`, then times the queries of bench/search-queries.json on the built index (p50/p99, in process).
// Usage: node --expose-gc bench/search-build.mjs [--count 100000] [--vary] [--queries] [--json]
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SkillSearchIndex } from '../packages/search/dist/src/index.js';
import { measuredCommit, options } from './args.mjs';
import { loadCorpusDocs } from './corpus-docs.mjs';

const flags = options();
const count = Number(flags.value('count', '100000'));
const vary = flags.flag('vary');
const repo = resolve(import.meta.dirname, '..');
const { docs } = loadCorpusDocs(resolve(flags.value('corpus', join(repo, '../shared/corpus/skills'))));
let counter = 0;
const copyOf = (text, copy) =>
  copy === 0
    ? text
    : vary
      ? text.replace(/[A-Za-z]{4,}/g, (word) =>
          ((counter++ * 2654435761) >>> 0) % 10 < 3 ? `${word}${String.fromCharCode(97 + (copy % 26), 97 + Math.floor(copy / 26))}` : word,
        )
      : `${text} copy${copy}`;
/** JS heap plus array buffers (typed arrays live outside the heap), after a collection: the index's memory. */
const heapMb = () => {
  globalThis.gc?.();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return (heapUsed + arrayBuffers) / 1048576;
};

const index = new SkillSearchIndex();
const step = Math.max(1, Math.round(count / 10));
const rows = [];
const cpuStart = process.cpuUsage();
let mark = performance.now();
const began = mark;
let measured = 0; // time outside the heap measurements
for (let at = 0; at < count; at++) {
  const copy = Math.floor(at / docs.length);
  const doc = docs[at % docs.length];
  index.add({
    id: `copy${copy}/${doc.id}`,
    name: doc.name,
    description: copyOf(doc.description, copy),
    headings: doc.headings.map((heading) => copyOf(heading, copy)),
    body: copyOf(doc.body, copy),
  });
  if ((at + 1) % step === 0 || at + 1 === count) {
    const ms = performance.now() - mark;
    measured += ms;
    rows.push({ documents: at + 1, ms, heapMb: heapMb() });
    mark = performance.now();
  }
}
const compactStart = performance.now();
index.compact();
const compactMs = performance.now() - compactStart;
const cpu = process.cpuUsage(cpuStart);
let queries;
if (flags.flag('queries')) {
  const texts = JSON.parse(readFileSync(join(repo, 'bench/search-queries.json'), 'utf8')).map((q) => q.query);
  for (const text of texts.slice(0, 20)) index.search(text, 10); // warm-up (word analyses, related words)
  const times = [];
  for (let round = 0; round < 2; round++) {
    for (const text of texts) {
      const at = performance.now();
      index.search(text, 10);
      times.push(performance.now() - at);
    }
  }
  times.sort((a, b) => a - b);
  queries = { count: times.length, p50: times[Math.floor(times.length / 2)], p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))] };
}
const result = {
  commit: measuredCommit(),
  count,
  vary,
  buildMs: measured,
  compactMs,
  wallMs: performance.now() - began,
  cpuMs: (cpu.user + cpu.system) / 1000,
  heapAfterMb: heapMb(),
  vocabulary: index.vocabularySize,
  rows,
  queries,
};
if (flags.flag('json')) console.log(JSON.stringify(result, null, 2));
else {
  const first = rows[0].ms / rows[0].documents;
  console.log(
    `### Search index build in process (bench/search-build.mjs): ${count.toLocaleString('en')} documents${vary ? ', --vary' : ''}; commit ${result.commit}`,
  );
  console.log('');
  console.log('| documents | ms for this tenth | ms per 1,000 docs | ÷ first tenth | heap + array buffers after (MB, after GC) |');
  console.log('|---:|---:|---:|---:|---:|');
  let previous = 0;
  for (const row of rows) {
    const per = row.ms / (row.documents - previous);
    console.log(
      `| ${row.documents.toLocaleString('en')} | ${row.ms.toFixed(0)} | ${(per * 1000).toFixed(0)} | ${(per / first).toFixed(2)} | ${row.heapMb.toFixed(0)} |`,
    );
    previous = row.documents;
  }
  console.log('');
  console.log(
    `build ${(result.buildMs / 1000).toFixed(1)} s, compaction ${(compactMs / 1000).toFixed(1)} s, CPU ${(result.cpuMs / 1000).toFixed(1)} s; heap + array buffers after ${result.heapAfterMb.toFixed(0)} MB; ${result.vocabulary.toLocaleString('en')} terms`,
  );
  if (queries)
    console.log(`queries (bench/search-queries.json, ${queries.count} in 2 rounds): p50 ${queries.p50.toFixed(2)} ms, p99 ${queries.p99.toFixed(2)} ms`);
}
