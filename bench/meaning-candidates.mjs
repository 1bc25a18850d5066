#!/usr/bin/env node
// bench/meaning-candidates: the candidates measured for issue 15, item 2 ("meaning without a run-time download"),
// each against the shipped ranking (SkillSearchIndex) and the plain BM25F baseline, on every query set of bench/
// except bench/blind2/ (never read here: it is scored once, at the end, by the lead). bench/blind/queries-holdout.json
// is included: it was scored once, blind, and is no longer blind (docs/decisions/0150-search-meaning-offline.md).
//
// A candidate is built from the documents the index serves (never anything downloaded) and used in one of two ways:
// - as related words through SearchOptions.related (query expansion inside SkillSearchIndex), or
// - as a second score fused with the index's own: final = lexical + λ · best lexical score · other / best other,
//   over the union of the top 50 of each (λ and the other score are the candidate's).
// Candidates (each in the ADR, with what it costs):
//   lsa        latent semantic analysis: randomized truncated SVD (k = 128, 2 power iterations, CholeskyQR2) of the
//              skill × term matrix (log tf · idf, field-weighted, rows L2-normalised, terms in 2+ skills and at most
//              half of them); query and skills projected on the top k term-space vectors, cosine; fused at λ.
//   cooc       co-occurrence expansion: for a query term t, the name/description terms u of the skills holding t,
//              scored P(u | t) · PMI(t, u) (at least 2 skills, t in at most 20 % of skills), top 5, as related
//              words at a weight w (WordNet's related words kept).
//   sections   best section: the body split at its headings, each section scored by BM25 (with the coverage
//              factor of the index), a skill's best section fused at λ.
//   proximity  query words close together in the body: the best window of 8 terms, Σ idf of the distinct query
//              terms in it (2+ terms), fused at λ over the lexical top 30.
//   wordnet-w  the weight of WordNet's related words (shipped: 0.2 of an exact match).
//   gloss      WordNet definitions: the content words of the first sense's gloss as related words at weight w.
// Usage: npm run build --silent && node --expose-gc bench/meaning-candidates.mjs [--only lsa,cooc,...]
//        [--scale 10000] (cost only: build time and memory of each candidate's structures at that many skills,
//        made of varied corpus copies as in bench/search.mjs; no recall)
import { openSync, readFileSync, readSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SkillSearchIndex, WordNet, searchTerms } from '../packages/search/dist/src/index.js';
import { measuredCommit, options } from './args.mjs';
import { BM25FBaseline } from './bm25f-baseline.mjs';
import { loadCorpusDocs, scaledCatalog } from './corpus-docs.mjs';

const repo = resolve(import.meta.dirname, '..');
const flags = options();
const corpus = resolve(flags.value('corpus', join(repo, '../shared/corpus/skills')));
const only = flags.value('only')?.split(',');
const scale = flags.value('scale') === undefined ? undefined : Number(flags.value('scale'));
const SET_FILES = ['bench/search-queries.json', 'bench/search-queries-heldout.json', 'bench/blind/queries-dev.json', 'bench/blind/queries-holdout.json'];

// --- shared pieces ------------------------------------------------------------------------------------------------
const FIELD_WEIGHTS = [3, 1, 0.3, 0.15]; // as the index weighs name, description, headings, body
const fieldTexts = (doc) => [[doc.name], [doc.description], doc.headings, [doc.body ?? '']];
const distinct = (query) => [...new Set(searchTerms(query))];

/** Fuses a second score with the lexical ranking (see the top of the file). */
function fused(index, docs, other, lambda, depth = 50) {
  const position = new Map(docs.map((doc, at) => [doc.id, at]));
  return (query) => {
    const hits = index.search(query, depth);
    const top = hits[0]?.score ?? 0;
    const scores = other(
      query,
      hits.map((hit) => position.get(hit.id)),
    );
    let best = 0;
    for (const value of scores.values()) best = Math.max(best, value);
    const combined = new Map(hits.map((hit) => [position.get(hit.id), hit.score]));
    for (const [doc] of [...scores].sort((a, b) => b[1] - a[1]).slice(0, depth)) if (!combined.has(doc)) combined.set(doc, 0);
    return [...combined]
      .map(([doc, score]) => [doc, score + (best > 0 ? (lambda * top * Math.max(0, scores.get(doc) ?? 0)) / best : 0)])
      .sort((a, b) => b[1] - a[1] || (docs[a[0]].name < docs[b[0]].name ? -1 : docs[a[0]].name > docs[b[0]].name ? 1 : 0))
      .slice(0, 10)
      .map(([doc]) => docs[doc].id);
  };
}

// --- lsa ----------------------------------------------------------------------------------------------------------
function buildLsa(docs, k = 128, powerIterations = 2) {
  const vocabulary = new Map();
  const df = [];
  const rows = docs.map((doc) => {
    const counts = new Map();
    fieldTexts(doc).forEach((texts, field) => {
      for (const text of texts) for (const term of searchTerms(text)) counts.set(term, (counts.get(term) ?? 0) + FIELD_WEIGHTS[field]);
    });
    for (const term of counts.keys()) {
      let id = vocabulary.get(term);
      if (id === undefined) {
        id = df.length;
        vocabulary.set(term, id);
        df.push(0);
      }
      df[id]++;
    }
    return counts;
  });
  const n = docs.length;
  // Terms in one skill only say nothing about associations; terms in most skills say nothing at all.
  const columns = new Map();
  const idf = [];
  for (const [term, id] of vocabulary) {
    if (df[id] < 2 || df[id] > n / 2) continue;
    columns.set(term, columns.size);
    idf.push(Math.log(n / df[id]));
  }
  const v = columns.size;
  const rowStart = new Int32Array(n + 1);
  const cols = [];
  const vals = [];
  rows.forEach((counts, doc) => {
    const entries = [];
    for (const [term, count] of counts) {
      const column = columns.get(term);
      if (column !== undefined) entries.push([column, Math.log(1 + count) * idf[column]]);
    }
    let norm = 0;
    for (const [, value] of entries) norm += value * value;
    norm = Math.sqrt(norm) || 1;
    for (const [column, value] of entries) {
      cols.push(column);
      vals.push(value / norm);
    }
    rowStart[doc + 1] = cols.length;
  });
  const col = Int32Array.from(cols);
  const val = Float64Array.from(vals);
  const width = Math.min(k + 10, Math.max(1, Math.min(n, v)));
  // A · X (n × width) and Aᵀ · Y (v × width), row-major.
  const times = (x) => {
    const y = new Float64Array(n * width);
    for (let doc = 0; doc < n; doc++)
      for (let p = rowStart[doc]; p < rowStart[doc + 1]; p++)
        for (let j = 0, c = col[p] * width, value = val[p]; j < width; j++) y[doc * width + j] += value * x[c + j];
    return y;
  };
  const transposeTimes = (y) => {
    const x = new Float64Array(v * width);
    for (let doc = 0; doc < n; doc++)
      for (let p = rowStart[doc]; p < rowStart[doc + 1]; p++)
        for (let j = 0, c = col[p] * width, value = val[p]; j < width; j++) x[c + j] += value * y[doc * width + j];
    return x;
  };
  let seed = 15;
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) / 0x7fffffff - 0.5;
  let y = orthonormal(times(Float64Array.from({ length: v * width }, random)), n, width);
  // Orthonormalised on the skill side only (n ≤ v): the term side would cost v · width² per step.
  for (let iteration = 0; iteration < powerIterations; iteration++) y = orthonormal(times(transposeTimes(y)), n, width);
  const bt = transposeTimes(y); // (Qᵀ A)ᵀ: v × width
  const { values, vectors } = symmetricEigen(gram(bt, v, width), width);
  const order = [...values.keys()].sort((a, b) => values[b] - values[a]).slice(0, k);
  const rank = order.length;
  // Top right singular vectors (term space), v × rank: Bᵀ u / σ.
  const termVectors = new Float32Array(v * rank);
  order.forEach((which, r) => {
    const sigma = Math.sqrt(Math.max(values[which], 0));
    if (sigma === 0) return;
    for (let term = 0; term < v; term++) {
      let sum = 0;
      for (let j = 0; j < width; j++) sum += bt[term * width + j] * vectors[j * width + which];
      termVectors[term * rank + r] = sum / sigma;
    }
  });
  // Skills projected on them (fold-in: a new skill is one sparse row times termVectors), unit length.
  const docVectors = new Float32Array(n * rank);
  for (let doc = 0; doc < n; doc++) {
    for (let p = rowStart[doc]; p < rowStart[doc + 1]; p++)
      for (let r = 0; r < rank; r++) docVectors[doc * rank + r] += val[p] * termVectors[col[p] * rank + r];
    normalise(docVectors, doc * rank, rank);
  }
  const cosine = (query) => {
    const q = new Float64Array(rank);
    for (const term of distinct(query)) {
      const column = columns.get(term);
      if (column !== undefined) for (let r = 0; r < rank; r++) q[r] += idf[column] * termVectors[column * rank + r];
    }
    normalise(q, 0, rank);
    const scores = new Map();
    for (let doc = 0; doc < n; doc++) {
      let dot = 0;
      for (let r = 0; r < rank; r++) dot += q[r] * docVectors[doc * rank + r];
      if (dot > 0) scores.set(doc, dot);
    }
    return scores;
  };
  return { cosine, bytes: termVectors.byteLength + docVectors.byteLength, terms: v, nonzeros: col.length };
}

function normalise(vector, start, length) {
  let sum = 0;
  for (let at = start; at < start + length; at++) sum += vector[at] ** 2;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let at = start; at < start + length; at++) vector[at] /= norm;
}

/** Mᵀ M of a row-major rows × width matrix. */
function gram(m, rows, width) {
  const g = new Float64Array(width * width);
  for (let row = 0; row < rows; row++) {
    const base = row * width;
    for (let i = 0; i < width; i++) {
      const a = m[base + i];
      if (a !== 0) for (let j = i; j < width; j++) g[i * width + j] += a * m[base + j];
    }
  }
  for (let i = 0; i < width; i++) for (let j = 0; j < i; j++) g[i * width + j] = g[j * width + i];
  return g;
}

/** Orthonormal columns spanning those of m (rows × width), by CholeskyQR applied twice (stable enough here). */
function orthonormal(m, rows, width) {
  for (let pass = 0; pass < 2; pass++) {
    const g = gram(m, rows, width);
    // Cholesky G = RᵀR (upper R); a tiny ridge keeps it defined when columns are dependent.
    const r = new Float64Array(width * width);
    for (let i = 0; i < width; i++) {
      for (let j = i; j < width; j++) {
        let sum = g[i * width + j] + (i === j ? 1e-12 : 0);
        for (let l = 0; l < i; l++) sum -= r[l * width + i] * r[l * width + j];
        r[i * width + j] = i === j ? Math.sqrt(Math.max(sum, 1e-12)) : sum / r[i * width + i];
      }
    }
    // M ← M R⁻¹, row by row (forward substitution).
    for (let row = 0; row < rows; row++) {
      const base = row * width;
      for (let j = 0; j < width; j++) {
        let sum = m[base + j];
        for (let l = 0; l < j; l++) sum -= m[base + l] * r[l * width + j];
        m[base + j] = sum / r[j * width + j];
      }
    }
  }
  return m;
}

/** Eigenvalues and eigenvectors (columns) of a small symmetric matrix, by cyclic Jacobi rotations. */
function symmetricEigen(input, size) {
  const a = Float64Array.from(input);
  const e = new Float64Array(size * size);
  for (let i = 0; i < size; i++) e[i * size + i] = 1;
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0;
    for (let p = 0; p < size; p++) {
      for (let q = p + 1; q < size; q++) {
        const apq = a[p * size + q];
        off += apq * apq;
        if (Math.abs(apq) < 1e-14) continue;
        const theta = (a[q * size + q] - a[p * size + p]) / (2 * apq);
        const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let l = 0; l < size; l++) {
          const lp = a[l * size + p];
          const lq = a[l * size + q];
          a[l * size + p] = c * lp - s * lq;
          a[l * size + q] = s * lp + c * lq;
        }
        for (let l = 0; l < size; l++) {
          const pl = a[p * size + l];
          const ql = a[q * size + l];
          a[p * size + l] = c * pl - s * ql;
          a[q * size + l] = s * pl + c * ql;
        }
        for (let l = 0; l < size; l++) {
          const lp = e[l * size + p];
          const lq = e[l * size + q];
          e[l * size + p] = c * lp - s * lq;
          e[l * size + q] = s * lp + c * lq;
        }
      }
    }
    if (off < 1e-20) break;
  }
  return { values: Array.from({ length: size }, (_, i) => a[i * size + i]), vectors: e };
}

// --- cooc ---------------------------------------------------------------------------------------------------------
function buildCooc(docs, { minSupport = 2, keep = 5, maxShare = 0.2 } = {}) {
  const n = docs.length;
  const described = docs.map((doc) => new Set(searchTerms(`${doc.name}\n${doc.description}`)));
  const postings = new Map();
  docs.forEach((doc, at) => {
    for (const term of new Set(searchTerms([doc.name, doc.description, ...doc.headings, doc.body ?? ''].join('\n')))) {
      let list = postings.get(term);
      if (list === undefined) postings.set(term, (list = []));
      list.push(at);
    }
  });
  const describedIn = new Map();
  for (const terms of described) for (const term of terms) describedIn.set(term, (describedIn.get(term) ?? 0) + 1);
  let bytes = 0;
  for (const list of postings.values()) bytes += 4 * list.length;
  for (const terms of described) bytes += 4 * terms.size;
  const cache = new Map();
  // Computed per query term from the postings (cached): nothing precomputed but the postings and description sets.
  const associated = (term) => {
    if (cache.has(term)) return cache.get(term);
    const holders = postings.get(term) ?? [];
    let found = [];
    if (holders.length > 0 && holders.length <= maxShare * n) {
      const together = new Map();
      for (const doc of holders) for (const other of described[doc]) if (other !== term) together.set(other, (together.get(other) ?? 0) + 1);
      for (const [other, count] of together) {
        const pmi = Math.log((count * n) / (holders.length * describedIn.get(other)));
        if (count >= minSupport && pmi > 0) found.push({ term: other, score: (count / holders.length) * pmi });
      }
      found = found.sort((a, b) => b.score - a.score || (a.term < b.term ? -1 : 1)).slice(0, keep);
      const top = found[0]?.score ?? 1;
      found = found.map(({ term: other, score }) => ({ term: other, weight: score / top }));
    }
    cache.set(term, found);
    return found;
  };
  return { associated, bytes };
}

// --- sections -----------------------------------------------------------------------------------------------------
function buildSections(docs) {
  const sections = [];
  docs.forEach((doc, at) => {
    for (const part of (doc.body ?? '').split(/\n(?=#{1,6}\s)/)) {
      const terms = searchTerms(part);
      if (terms.length === 0) continue;
      const tf = new Map();
      for (const term of terms) tf.set(term, (tf.get(term) ?? 0) + 1);
      sections.push({ doc: at, tf, length: terms.length });
    }
  });
  const count = sections.length;
  const average = sections.reduce((sum, section) => sum + section.length, 0) / Math.max(1, count);
  const postings = new Map();
  sections.forEach((section, at) => {
    for (const [term, occurrences] of section.tf) {
      let list = postings.get(term);
      if (list === undefined) postings.set(term, (list = []));
      list.push([at, occurrences]);
    }
  });
  let bytes = 0;
  for (const list of postings.values()) bytes += 8 * list.length;
  const best = (query) => {
    const terms = distinct(query);
    const idf = terms.map((term) => {
      const df = postings.get(term)?.length ?? 0;
      return df > 0 ? Math.log(1 + (count - df + 0.5) / (df + 0.5)) : 0;
    });
    const total = idf.reduce((sum, value) => sum + value, 0) || 1;
    const score = new Map();
    const covered = new Map();
    terms.forEach((term, i) => {
      for (const [at, occurrences] of postings.get(term) ?? []) {
        const tf = occurrences / (0.25 + (0.75 * sections[at].length) / average);
        score.set(at, (score.get(at) ?? 0) + (idf[i] * tf) / (1.2 + tf));
        covered.set(at, (covered.get(at) ?? 0) + idf[i]);
      }
    });
    const perDoc = new Map();
    for (const [at, value] of score) {
      const scored = value * Math.sqrt(covered.get(at) / total);
      const doc = sections[at].doc;
      if (scored > (perDoc.get(doc) ?? 0)) perDoc.set(doc, scored);
    }
    return perDoc;
  };
  return { best, bytes, sections: count };
}

// --- proximity ----------------------------------------------------------------------------------------------------
function buildProximity(docs, window = 8) {
  const sequences = docs.map((doc) => searchTerms([doc.description, ...doc.headings, doc.body ?? ''].join('\n')));
  const df = new Map();
  for (const sequence of sequences) for (const term of new Set(sequence)) df.set(term, (df.get(term) ?? 0) + 1);
  const idf = (term) => Math.log(1 + (docs.length - (df.get(term) ?? 0) + 0.5) / ((df.get(term) ?? 0) + 0.5));
  const bytes = sequences.reduce((sum, sequence) => sum + 4 * sequence.length, 0);
  // Only the lexical candidates are scanned (a real index would keep positions: `bytes` is that cost).
  const score = (query, candidates) => {
    const terms = new Set(searchTerms(query));
    const scores = new Map();
    for (const doc of candidates) {
      const last = new Map();
      let best = 0;
      sequences[doc].forEach((term, at) => {
        if (!terms.has(term)) return;
        last.set(term, at);
        let sum = 0;
        let within = 0;
        for (const [other, seen] of last) if (at - seen < window) (sum += idf(other)), within++;
        if (within >= 2 && sum > best) best = sum;
      });
      if (best > 0) scores.set(doc, best);
    }
    return scores;
  };
  return { score, bytes };
}

// --- gloss --------------------------------------------------------------------------------------------------------
function glossReader(wordnet) {
  const files = new Map();
  const GENERIC = new Set(
    'used use make made act having especially something someone person thing one state quality form part kind process etc often usually small large who any that are and the for with'.split(
      ' ',
    ),
  );
  const cache = new Map();
  const gloss = (pos, offset) => {
    let fd = files.get(pos);
    if (fd === undefined) files.set(pos, (fd = openSync(join(wordnet.dict, `data.${pos}`), 'r')));
    const buffer = Buffer.alloc(8192);
    const line = buffer.toString('latin1', 0, readSync(fd, buffer, 0, 8192, offset)).split('\n')[0];
    return (line.split(' | ')[1] ?? '').split(';')[0];
  };
  return (word) => {
    if (cache.has(word)) return cache.get(word);
    const found = new Set();
    for (const pos of ['noun', 'verb', 'adj']) {
      // WordNet's own lookup (a private method in TypeScript, callable from JavaScript): first sense only.
      const offsets = wordnet.lookup(word, pos).length > 0 ? wordnet.lookup(word, pos) : word.endsWith('s') ? wordnet.lookup(word.slice(0, -1), pos) : [];
      for (const offset of offsets.slice(0, 1))
        for (const w of gloss(pos, offset)
          .toLowerCase()
          .split(/[^a-z]+/))
          if (w.length > 2 && !GENERIC.has(w) && w !== word) found.add(w);
    }
    const result = [...found];
    cache.set(word, result);
    return result;
  };
}

// --- measuring ----------------------------------------------------------------------------------------------------
function evaluate(rank, set) {
  let top1 = 0;
  let top5 = 0;
  let reciprocal = 0;
  for (const { query, expected } of set.queries) {
    const at = rank(query).findIndex((id) => set.matches(id, expected));
    if (at === 0) top1++;
    if (at >= 0 && at < 5) top5++;
    if (at >= 0 && at < 10) reciprocal += 1 / (at + 1);
  }
  const n = set.queries.length;
  return { recallAt1: top1 / n, recallAt5: top5 / n, mrr: reciprocal / n };
}

/** Wall time and retained heap of a build (heap figures need --expose-gc; otherwise undefined). */
function measure(build) {
  globalThis.gc?.();
  const heap = process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
  const started = performance.now();
  const built = build();
  const ms = performance.now() - started;
  globalThis.gc?.();
  const retained = globalThis.gc === undefined ? undefined : process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers - heap;
  return { built, ms, retained };
}

const { docs } = loadCorpusDocs(corpus);
const wordnet = WordNet.bundled();
const wanted = (name) => only === undefined || only.includes(name);
const mb = (bytes) => (bytes === undefined ? 'n/a' : `${(bytes / 1048576).toFixed(1)} MB`);
console.log(`commit ${measuredCommit()}; figures measured on a shared machine unless said otherwise`);

if (scale !== undefined) {
  // Cost only, at `scale` skills.
  const large = scaledCatalog(docs, scale);
  console.log(
    `cost at ${large.length} skills (varied corpus copies): build wall time, retained heap${globalThis.gc === undefined ? ' (run with --expose-gc for heap)' : ''}`,
  );
  const rows = [['SkillSearchIndex (for scale)', () => new SkillSearchIndex(large)]];
  if (wanted('lsa')) rows.push(['lsa k=128', () => buildLsa(large)]);
  if (wanted('cooc')) rows.push(['cooc (postings + description sets)', () => buildCooc(large)]);
  if (wanted('sections')) rows.push(['sections (section postings)', () => buildSections(large)]);
  if (wanted('proximity')) rows.push(['proximity (term sequences)', () => buildProximity(large)]);
  for (const [label, build] of rows) {
    const { built, ms, retained } = measure(build);
    // `retained` is the prototype's (plain JS arrays, and what its closures keep of the build); `bytes` is what a
    // compact typed-array form of the structure would hold.
    const extra = [
      typeof built.bytes !== 'number' ? '' : `structure ${mb(built.bytes)}`,
      typeof built.terms !== 'number' ? '' : `${built.terms} terms, ${built.nonzeros} nonzeros`,
      typeof built.sections !== 'number' ? '' : `${built.sections} sections`,
    ];
    console.log(`${label.padEnd(40)} ${`${ms.toFixed(0)} ms`.padStart(10)} ${mb(retained).padStart(10)}  ${extra.filter(Boolean).join(', ')}`);
  }
  process.exit(0);
}

const ids = new Set(docs.map((doc) => doc.id));
const nameOf = new Map(docs.map((doc) => [doc.id, doc.name]));
const sets = SET_FILES.map((file) => {
  const queries = JSON.parse(readFileSync(join(repo, file), 'utf8'));
  const byId = queries.every(({ expected }) => expected.every((id) => ids.has(id)));
  return { file, queries, matches: byId ? (id, expected) => expected.includes(id) : (id, expected) => expected.includes(nameOf.get(id)) };
});

const rows = [];
const row = (label, rank, cost = '') => {
  rows.push({ label, cost, results: sets.map((set) => evaluate(rank, set)) });
  const last = rows.at(-1);
  const cell = ({ recallAt1, recallAt5, mrr }) => `${(recallAt1 * 100).toFixed(1)} / ${(recallAt5 * 100).toFixed(1)} / ${mrr.toFixed(3)}`;
  console.log(`${label.padEnd(34)} ${last.results.map((result) => cell(result).padStart(22)).join('')}  ${cost}`);
};
console.log(`corpus: ${docs.length} skills; per set: recall@1 % / recall@5 % / MRR@10`);
console.log(
  `${''.padEnd(34)} ${sets.map(({ file, queries }) => `${file.replace(/^bench\/|\.json$/g, '')} (${queries.length})`.slice(-22).padStart(22)).join('')}`,
);

const engine = new SkillSearchIndex(docs);
const baseline = new BM25FBaseline(docs);
row('BM25F baseline', (query) => baseline.search(query, 10).map((hit) => hit.id));
row('SkillSearchIndex (shipped)', (query) => engine.search(query, 10).map((hit) => hit.id));

if (wanted('lsa')) {
  const { built: lsa, ms, retained } = measure(() => buildLsa(docs));
  const cost = `build ${ms.toFixed(0)} ms, vectors ${mb(lsa.bytes)}, retained ${mb(retained)}`;
  row(
    'lsa alone',
    (query) =>
      [...lsa.cosine(query)]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 10)
        .map(([doc]) => docs[doc].id),
    cost,
  );
  for (const lambda of [0.3, 0.5, 1])
    row(
      `lsa fused λ=${lambda}`,
      fused(engine, docs, (query) => lsa.cosine(query), lambda),
    );
}
if (wanted('cooc')) {
  const { built: cooc, ms, retained } = measure(() => buildCooc(docs));
  for (const weight of [0.1, 0.2, 0.4]) {
    const related = (word) => [
      ...(wordnet?.related(word) ?? []),
      ...searchTerms(word)
        .slice(0, 1)
        .flatMap((term) => cooc.associated(term).map((found) => ({ word: found.term, weight: (weight * found.weight) / 0.2 }))),
    ];
    const index = new SkillSearchIndex(docs, { related });
    row(
      `cooc w=${weight}`,
      (query) => index.search(query, 10).map((hit) => hit.id),
      weight === 0.1 ? `build ${ms.toFixed(0)} ms, retained ${mb(retained)}` : '',
    );
  }
}
if (wanted('sections')) {
  const { built: sections, ms, retained } = measure(() => buildSections(docs));
  row(
    'sections alone',
    (query) =>
      [...sections.best(query)]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 10)
        .map(([doc]) => docs[doc].id),
    `${sections.sections} sections, build ${ms.toFixed(0)} ms, retained ${mb(retained)}`,
  );
  for (const lambda of [0.2, 0.4, 0.7])
    row(
      `sections fused λ=${lambda}`,
      fused(engine, docs, (query) => sections.best(query), lambda),
    );
}
if (wanted('proximity')) {
  const { built: proximity, ms, retained } = measure(() => buildProximity(docs));
  for (const lambda of [0.2, 0.4])
    row(
      `proximity fused λ=${lambda}`,
      fused(engine, docs, (query, candidates) => proximity.score(query, candidates.slice(0, 30)), lambda, 30),
      lambda === 0.2 ? `positions ${mb(proximity.bytes)}, build ${ms.toFixed(0)} ms, retained ${mb(retained)}` : '',
    );
}
if (wanted('wordnet-w') && wordnet !== undefined) {
  for (const weight of [0.1, 0.3, 0.4]) {
    const index = new SkillSearchIndex(docs, {
      related: (word) => wordnet.related(word).map((found) => ({ word: found.word, weight: (found.weight * weight) / 0.2 })),
    });
    row(`wordnet weight ${weight} (shipped 0.2)`, (query) => index.search(query, 10).map((hit) => hit.id));
  }
  const none = new SkillSearchIndex(docs, { related: false });
  row('no wordnet', (query) => none.search(query, 10).map((hit) => hit.id));
}
if (wanted('gloss') && wordnet !== undefined) {
  const glossWords = glossReader(wordnet);
  for (const weight of [0.03, 0.1]) {
    const index = new SkillSearchIndex(docs, {
      related: (word) => [...wordnet.related(word), ...glossWords(word).map((found) => ({ word: found, weight: weight / 0.2 }))],
    });
    row(`gloss w=${weight}`, (query) => index.search(query, 10).map((hit) => hit.id));
  }
}
if (flags.flag('json')) console.log(JSON.stringify({ commit: measuredCommit(), skills: docs.length, sets: SET_FILES, rows }, null, 2));
