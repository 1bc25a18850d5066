import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { QueryDomain, SkillSearchIndex, WordVectors } from '../src/index.js';
import type { SearchDocument } from '../src/index.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../..');
const CORPUS = resolve(REPO, '../shared/corpus/skills');

describe('the query domain (ADR 0271)', () => {
  test('parses its data file and weighs a query vector into the confidence', () => {
    const domain = QueryDomain.parse('# a comment\nlexical 2\nbias -1  # trailing comment\nweights 1 0 -1\n');
    assert.equal(domain.lexical, 2);
    assert.deepEqual([...domain.weights], [1, 0, -1]);
    // z = 2 · logit(0.5) − 1 + (1 · 0.5 − 1 · 0.25) = −0.75
    const expected = 1 / (1 + Math.exp(0.75));
    assert.ok(Math.abs(domain.adjust(0.5, Float32Array.from([0.5, 9, 0.25])) - expected) < 1e-6);
    // A vector of another size (other word vectors) leaves the confidence as it is.
    assert.equal(domain.adjust(0.3, new Float32Array(4)), 0.3);
    // Extreme confidences stay finite.
    assert.ok(Number.isFinite(domain.adjust(1, Float32Array.from([0, 0, 0]))));
    assert.ok(Number.isFinite(domain.adjust(0, Float32Array.from([0, 0, 0]))));
  });

  test('a damaged data file is refused with the line at fault', () => {
    assert.throws(() => QueryDomain.parse('lexical 1\nbias x\nweights 1'), /line 2/);
    assert.throws(() => QueryDomain.parse('lexical 1\nscale 2\nweights 1'), /line 2: unknown key scale/);
    assert.throws(() => QueryDomain.parse('lexical 1\nweights 1 2'), /all needed/);
  });

  test('the shipped weights match the shipped word vectors', () => {
    const vectors = WordVectors.bundled();
    const domain = QueryDomain.bundled();
    assert.ok(domain !== undefined, 'query-domain.txt is missing or damaged (npm run build copies it)');
    if (vectors !== undefined) assert.equal(domain.weights.length, vectors.dimensions);
  });

  test('without word vectors the lexical confidence decides, as before', () => {
    const docs: SearchDocument[] = [
      { id: 'pdf', name: 'pdf', description: 'Merge and split PDF files, fill PDF forms.', headings: [] },
      { id: 'xlsx', name: 'xlsx', description: 'Edit spreadsheets.', headings: [] },
    ];
    const plain = new SkillSearchIndex(docs, { wordVectors: false, minConfidence: 0 }).search('fill a form in a file');
    const off = new SkillSearchIndex(docs, { wordVectors: false, minConfidence: 0, queryDomain: false }).search('fill a form in a file');
    assert.deepEqual(
      plain.map((hit) => hit.confidence),
      off.map((hit) => hit.confidence),
    );
  });

  const corpus = existsSync(CORPUS);
  test('on the corpus: everyday tasks the words alone answered get nothing; model-phrased tasks stay answered', {
    skip: corpus ? false : `no corpus at ${CORPUS}`,
  }, async () => {
    const { loadCorpusDocs } = (await import(join(REPO, 'bench/corpus-docs.mjs'))) as { loadCorpusDocs: (root: string) => { docs: SearchDocument[] } };
    const { docs } = loadCorpusDocs(CORPUS);
    const index = new SkillSearchIndex(docs);
    const lexical = new SkillSearchIndex(docs, { queryDomain: false });
    // Spent no-fit tasks (bench/no-fit/seen.json) that the lexical decision answers.
    for (const task of ['get red wine out of a carpet', 'jump start a car battery', 'prune tomato plants in the greenhouse', 'learn to juggle three balls']) {
      assert.ok(lexical.search(task).length > 0, `the words alone answer "${task}" (else this case tests nothing)`);
      assert.deepEqual(
        index.search(task).map((hit) => hit.id),
        [],
        task,
      );
    }
    const queries = JSON.parse(readFileSync(join(REPO, 'bench/search-queries.json'), 'utf8')) as Array<{ query: string }>;
    const answered = queries.filter(({ query }) => index.search(query).length > 0).length;
    assert.ok(answered >= 0.98 * queries.length, `${answered} of ${queries.length} model-phrased queries answered`);
  });
});
