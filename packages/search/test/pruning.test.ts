import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { SkillSearchIndex } from '../src/index.js';
import type { SearchDocument, SearchOptions } from '../src/index.js';
import { random } from './random.js';

/**
 * Max-score pruning (ADRs 0203, 0207) must give exactly what scoring every posting and every document from scratch gives: same ids, order, scores, matches,
 * reasons and confidence, for random queries on a catalog with Zipf-distributed words (a few very common, most rare),
 * repeated names, near-typos and compounds, in the whole index and in views, with and without the abstention.
 */

const VOCABULARY = Array.from({ length: 400 }, (_, at) => {
  const base = ['deploy', 'report', 'chart', 'query', 'index', 'slack', 'image', 'review', 'migrate', 'kubernetes', 'pdf', 'form', 'test', 'script', 'data'];
  return at < base.length ? base[at]! : `w${at.toString(36)}${at % 7 === 0 ? 'ing' : at % 5 === 0 ? 's' : ''}`;
});

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../..');
const CORPUS = resolve(REPO, '../shared/corpus/skills');

function catalog(count: number, next: () => number): SearchDocument[] {
  // Zipf: word r drawn with probability ∝ 1 / (r + 1).
  const weights = VOCABULARY.map((_, rank) => 1 / (rank + 1));
  const total = weights.reduce((sum, weight) => sum + weight, 0);
  const word = () => {
    let pick = next() * total;
    for (let at = 0; at < weights.length; at++) if ((pick -= weights[at]!) <= 0) return VOCABULARY[at]!;
    return VOCABULARY[0]!;
  };
  const words = (n: number) => Array.from({ length: n }, word).join(' ');
  return Array.from({ length: count }, (_, at) => ({
    id: `skill://s${at}/SKILL.md`,
    name: next() < 0.1 ? 'slack-gif-creator' : `${word()}-${word()}`,
    description: words(4 + Math.floor(next() * 12)),
    headings: [words(2), words(1 + Math.floor(next() * 3))],
    body: words(Math.floor(next() * 120)),
  }));
}

function queries(count: number, next: () => number): string[] {
  const out: string[] = ['slack gif creator', 'deploy', 'kubernets', 'pdf forms', 'the of and'];
  while (out.length < count) {
    const n = 1 + Math.floor(next() * 6);
    const parts = Array.from({ length: n }, () => {
      const w = VOCABULARY[Math.floor(Math.pow(next(), 2) * VOCABULARY.length)]!;
      return next() < 0.1 ? `${w.slice(0, -1)}x` : w; // a typo now and then
    });
    out.push(parts.join(' '));
  }
  return out;
}

describe('max-score pruning', () => {
  for (const [label, options] of [
    ['no abstention', { minConfidence: 0, wordVectors: false, related: false }],
    ['the defaults (WordNet, vectors, abstention)', {}],
  ] as Array<[string, SearchOptions]>) {
    test(`gives the same results as scoring every posting: ${label}`, () => {
      const next = random(31);
      const docs = catalog(3000, next);
      const pruned = new SkillSearchIndex(docs, options);
      const exhaustive = new SkillSearchIndex(docs, { ...options, pruning: false });
      const reference = new SkillSearchIndex(docs, { ...options, pruning: 'reference' });
      const view = docs.filter((_, at) => at % 3 !== 0).map((doc) => doc.id);
      for (const query of queries(150, next)) {
        for (const limit of [1, 5, 10, 60]) {
          const expected = reference.search(query, limit);
          assert.deepEqual(pruned.search(query, limit), expected, `${query} (limit ${limit})`);
          assert.deepEqual(exhaustive.search(query, limit), expected, `${query} (limit ${limit}, every posting)`);
        }
        assert.deepEqual(pruned.search(query, 10, pruned.view(view)), reference.search(query, 10, reference.view(view)), `${query} (view)`);
      }
      assert.ok(pruned.prunedSearches > 50, `pruning stopped early in ${pruned.prunedSearches} searches`);
      assert.equal(exhaustive.prunedSearches, 0);
    });
  }

  test('after changes (recent postings, removals, merges) too', () => {
    const next = random(7);
    const docs = catalog(1500, next);
    const options = { minConfidence: 0, wordVectors: false as const, related: false as const, minMergeRows: 1_000_000 };
    const pruned = new SkillSearchIndex(docs.slice(0, 1000), options);
    const exhaustive = new SkillSearchIndex(docs.slice(0, 1000), { ...options, pruning: 'reference' });
    for (const index of [pruned, exhaustive]) {
      for (const doc of docs.slice(1000)) index.add(doc);
      for (const doc of docs.slice(0, 200)) index.remove(doc.id);
    }
    for (const query of queries(80, next)) assert.deepEqual(pruned.search(query, 10), exhaustive.search(query, 10), query);
    assert.ok(pruned.prunedSearches > 0);
  });

  const corpus = existsSync(CORPUS) ? CORPUS : undefined;
  test('on copies of the corpus: the seen queries and no-fit tasks get what scoring every posting gets, abstentions included', {
    skip: corpus ? false : `no corpus at ${CORPUS}`,
  }, async () => {
    const { loadCorpusDocs } = (await import(join(REPO, 'bench/corpus-docs.mjs'))) as { loadCorpusDocs: (root: string) => { docs: SearchDocument[] } };
    const { docs } = loadCorpusDocs(corpus!);
    // Three copies, each after the first with a word of its own (as bench/search-scale.mjs makes them): long lists and
    // near ties, where a bound that undercuts shows.
    const copies = [0, 1, 2].flatMap((copy) =>
      copy === 0
        ? docs
        : docs.map((doc) => ({ ...doc, id: `copy${copy}/${doc.id}`, description: `${doc.description} copy${copy}`, body: `${doc.body ?? ''} copy${copy}` })),
    );
    const pruned = new SkillSearchIndex(copies);
    const reference = new SkillSearchIndex(copies, { pruning: 'reference' });
    // Lexical only, no decision, small limits: the fewest candidates a search keeps, so the most pruning.
    const lexical = { wordVectors: false, minConfidence: 0 } as const;
    const prunedLexical = new SkillSearchIndex(copies, lexical);
    const referenceLexical = new SkillSearchIndex(copies, { ...lexical, pruning: 'reference' });
    const read = (file: string): string[] => {
      const parsed = JSON.parse(readFileSync(join(REPO, file), 'utf8')) as Array<{ query: string }> | { queries: Array<{ query: string }> };
      return (Array.isArray(parsed) ? parsed : parsed.queries).map((entry) => entry.query);
    };
    const queries = [...read('bench/search-queries.json'), ...read('bench/search-queries-heldout.json').slice(0, 60), ...read('bench/no-fit/seen.json')];
    let abstained = 0;
    for (const query of queries) {
      const expected = reference.search(query, 10);
      if (expected.length === 0) abstained++;
      assert.deepEqual(pruned.search(query, 10), expected, query);
      for (const limit of [1, 3])
        assert.deepEqual(prunedLexical.search(query, limit), referenceLexical.search(query, limit), `${query} (lexical, limit ${limit})`);
    }
    assert.ok(abstained >= 20, `${abstained} searches abstained`);
    assert.ok(pruned.prunedSearches > queries.length / 2, `pruning stopped early in ${pruned.prunedSearches} of ${queries.length} searches`);
    assert.ok(
      prunedLexical.prunedSearches > queries.length,
      `lexical: pruning stopped early in ${prunedLexical.prunedSearches} of ${2 * queries.length} searches`,
    );
  });
});
