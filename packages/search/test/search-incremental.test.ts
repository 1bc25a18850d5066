import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SkillSearchIndex, WordVectors } from '../src/index.js';
import type { RelatedWord, SearchDocument, SearchHit } from '../src/index.js';
import { random } from './random.js';

/**
 * The incremental index (documents added, replaced and removed one at a time, with merges in between) must rank
 * exactly like an index built at once from the final documents: same ids, same order, same scores (to 1e-9), same
 * matches. Random sequences of changes from fixed seeds, over a small vocabulary with shared prefixes, near-typos,
 * camelCase compounds and repeated names, so that document frequencies, prefix and typo expansions, phrase and name
 * bonuses all move as documents come and go.
 */

const WORDS = (
  'deploy deployment deploying deployer kubernetes kubernets container containers docker pdf pdfs form forms ' +
  'report reports reporting chart charts data database dataset datasets test tests testing tester unit bash ' +
  'script scripts slack gif creator webapp web app TimeZoneInfo net8 postgres query queries tuning index ' +
  'indexes search searching blur blurry fuzzy image images review reviewer code migrate migration migrations'
).split(' ');
const NAMES = ['pdf', 'slack-gif-creator', 'slack gif', 'deploy-helper', 'web-app-testing', 'data', 'report-builder', 'kubernetes'];

function sentence(next: () => number, words: number): string {
  return Array.from({ length: words }, () => WORDS[Math.floor(next() * WORDS.length)]!).join(next() < 0.5 ? ' ' : ', ');
}

function makeDocument(next: () => number, id: string): SearchDocument {
  const document: SearchDocument = {
    id,
    name: next() < 0.4 ? NAMES[Math.floor(next() * NAMES.length)]! : `${sentence(next, 1 + Math.floor(next() * 2)).replace(/[ ,]+/g, '-')}`,
    description: sentence(next, 2 + Math.floor(next() * 12)),
    headings: Array.from({ length: Math.floor(next() * 3) }, () => sentence(next, 1 + Math.floor(next() * 3))),
  };
  if (next() < 0.8) document.body = sentence(next, Math.floor(next() * 60));
  // A word of this document alone (a version, a product name): it must leave the vocabulary with the document.
  if (next() < 0.3) document.body = `${document.body ?? ''} zetaword${Math.floor(next() * 1e6)}`;
  return document;
}

const QUERIES = [
  'deploy',
  'kubernetes containers',
  'kuberntes',
  'pdf forms',
  'slack gif',
  'pdf',
  'data',
  'unit tests for bash scripts',
  'web app',
  'timezone info',
  'deploymnt',
  'blurry images',
  'migrat',
  'report charts data',
  'query tuning postgres',
  'search index',
  'creator',
  'zetaword',
];

function same(actual: SearchHit[], expected: SearchHit[], label: string): void {
  assert.deepEqual(
    actual.map((hit) => hit.id),
    expected.map((hit) => hit.id),
    label,
  );
  actual.forEach((hit, at) => assert.ok(Math.abs(hit.score - expected[at]!.score) <= 1e-9, `${label}: ${hit.id} ${hit.score} vs ${expected[at]!.score}`));
  assert.deepEqual(
    actual.map((hit) => hit.matches),
    expected.map((hit) => hit.matches),
    label,
  );
}

/**
 * Word vectors for the vocabulary above (random, from a fixed seed), so that the meaning channel reorders results
 * here whether or not the build compacted the real ones: a skill's vector must depend on that skill alone.
 */
const vectors = (() => {
  const next = random(99);
  const words = [...new Set(WORDS.map((word) => word.toLowerCase()))];
  const values = Int8Array.from({ length: words.length * 8 }, () => Math.round(next() * 254) - 127);
  return new WordVectors(words, 8, new Float32Array(words.length).fill(1), new Float32Array(words.length).fill(1 / 127), values);
})();

const related = (word: string): RelatedWord[] =>
  word === 'blurry' ? [{ word: 'fuzzy', weight: 1 }] : word === 'deploy' ? [{ word: 'migrate', weight: 0.5 }] : [];

describe('incremental search index', () => {
  // maxCodeBits: the postings' layout (compact, with the codes' bits below 24 as slots grow past 256; 5 and 6: the
  // table outgrows them in the middle, so the layout widens; 0: wide from the start), against a fresh default index.
  for (const [seed, maxCodeBits] of [
    [1, 24],
    [2, 24],
    [3, 6],
    [42, 0],
    [1234, 24],
    [7, 5],
  ] as const) {
    test(`random adds, edits and removes rank like a fresh index (seed ${seed}, code bits ${maxCodeBits})`, () => {
      const next = random(seed);
      // A low merge threshold, so that merges happen in the middle of the sequence too.
      const index = new SkillSearchIndex([], { minConfidence: 0, related, wordVectors: vectors, minMergeRows: 40 + Math.floor(next() * 200), maxCodeBits });
      const current = new Map<string, SearchDocument>();
      for (let step = 0; step < 400; step++) {
        const roll = next();
        const ids = [...current.keys()];
        if (roll < 0.5 || ids.length < 3) {
          const id = `skill-${Math.floor(next() * 1e6)}`;
          const document = makeDocument(next, id);
          current.set(id, document);
          index.add(document);
        } else if (roll < 0.75) {
          const id = ids[Math.floor(next() * ids.length)]!;
          const document = makeDocument(next, id);
          current.set(id, document);
          index.add(document);
        } else {
          const id = ids[Math.floor(next() * ids.length)]!;
          current.delete(id);
          assert.equal(index.remove(id), true);
        }
        if (step % 50 === 49) {
          const fresh = new SkillSearchIndex([...current.values()].reverse(), { minConfidence: 0, related, wordVectors: vectors });
          assert.equal(index.size, fresh.size);
          if (step % 100 === 99) {
            // Compacted, the index holds only the words of its documents, as a fresh one does.
            index.compact();
            assert.equal(index.vocabularySize, fresh.vocabularySize, `seed ${seed}, step ${step}: vocabulary`);
          }
          for (const query of QUERIES) same(index.search(query, 20), fresh.search(query, 20), `seed ${seed}, step ${step}, "${query}"`);
        }
      }
      assert.equal(index.remove('no-such-skill'), false);
    });
  }

  for (const maxCodeBits of [24, 6])
    test(`merges in place never write arrays an export or a restore handed out; an expected batch ranks alike (code bits ${maxCodeBits})`, () => {
      const next = random(99);
      const options = { minConfidence: 0, related, wordVectors: vectors, minMergeRows: 60, maxCodeBits };
      const index = new SkillSearchIndex([], options);
      index.expect(300);
      const current = new Map<string, SearchDocument>();
      const lent: Array<{ arrays: Array<Int32Array | Uint32Array>; copies: Array<Int32Array | Uint32Array> }> = [];
      const lend = (state: ReturnType<SkillSearchIndex['exportState']>): void => {
        const arrays = [state.postingOffsets, state.postings, state.postingCounts];
        lent.push({ arrays, copies: arrays.map((array) => array.slice()) });
      };
      let restored: SkillSearchIndex | undefined;
      for (let step = 0; step < 400; step++) {
        const ids = [...current.keys()];
        if (next() < 0.6 || ids.length < 3) {
          const id = next() < 0.3 && ids.length > 0 ? ids[Math.floor(next() * ids.length)]! : `skill-${step}`;
          const document = makeDocument(next, id);
          current.set(id, document);
          index.add(document);
          restored?.add(document);
        } else {
          const id = ids[Math.floor(next() * ids.length)]!;
          current.delete(id);
          index.remove(id);
          restored?.remove(id);
        }
        if (step % 80 === 79) {
          const state = index.exportState();
          lend(state);
          // A restore takes the arrays as they are: its own merges must not write them either.
          restored = SkillSearchIndex.fromState(state, options);
          if (step === 159) index.expect(200);
        }
      }
      const fresh = new SkillSearchIndex([...current.values()], options);
      for (const index_ of [index, restored!]) {
        for (const query of QUERIES) same(index_.search(query, 20), fresh.search(query, 20), `"${query}"`);
      }
      lent.forEach(({ arrays, copies }, at) => arrays.forEach((array, which) => assert.deepEqual(array, copies[which], `export ${at}, array ${which}`)));
      // The layout asked for: 6 code bits are outgrown (wide, the counts per posting), 24 are not.
      const state = index.exportState();
      assert.equal(state.postingShift === 0, maxCodeBits === 6);
    });

  test('once its exports are written, a merge moves the postings in place; an export still unwritten is never written over', () => {
    const next = random(41);
    const options = { minConfidence: 0, related, wordVectors: vectors, minMergeRows: 60 };
    const index = new SkillSearchIndex([], options);
    const current = new Map<string, SearchDocument>();
    const change = (count: number, step: number): void => {
      for (let at = 0; at < count; at++) {
        const ids = [...current.keys()];
        if (ids.length > 10 && next() < 0.3) {
          const id = ids[Math.floor(next() * ids.length)]!;
          current.delete(id);
          index.remove(id);
        } else {
          const document = makeDocument(next, `skill-${step}-${at}`);
          current.set(document.id, document);
          index.add(document);
        }
      }
    };
    change(200, 0);
    // Two exports of the same arrays: one written, the other still being written.
    const first = index.exportState();
    const second = index.exportState();
    assert.equal(first.postings.buffer, second.postings.buffer);
    const copies = [second.postingOffsets.slice(), second.postings.slice(), second.postingCounts.slice()];
    index.postingsWritten(first);
    change(5, 1);
    const afterOne = index.exportState();
    assert.notEqual(afterOne.postings.buffer, second.postings.buffer, 'an export still being written: new arrays');
    assert.deepEqual([second.postingOffsets, second.postings, second.postingCounts], copies);
    index.postingsWritten(second); // of arrays no longer the index's: nothing to give back
    index.postingsWritten(afterOne);
    // Every export written: the next merges work in the arrays as they are.
    for (let round = 2; round < 6; round++) {
      change(5, round);
      const state = index.exportState();
      assert.equal(state.postings.buffer, afterOne.postings.buffer, `round ${round}: in place`);
      index.postingsWritten(state);
    }
    const fresh = new SkillSearchIndex([...current.values()], options);
    for (const query of QUERIES) same(index.search(query, 20), fresh.search(query, 20), `"${query}"`);
  });

  test('a view ranks like an index of its documents alone, and never returns a document outside it', () => {
    const next = random(7);
    const index = new SkillSearchIndex([], { minConfidence: 0, related, wordVectors: vectors, minMergeRows: 100 });
    const all: SearchDocument[] = [];
    for (let at = 0; at < 150; at++) {
      const document = makeDocument(next, `s${at}`);
      all.push(document);
      index.add(document);
    }
    for (let at = 0; at < 30; at++) index.remove(`s${at * 5}`);
    const live = all.filter((_, at) => at % 5 !== 0 || at >= 150);
    const shown = live.filter(() => next() < 0.4);
    const view = index.view([...shown.map((document) => document.id), 's0', 'not-indexed']);
    const fresh = new SkillSearchIndex(shown, { minConfidence: 0, related, wordVectors: vectors });
    const allowed = new Set(shown.map((document) => document.id));
    for (const query of QUERIES) {
      const hits = index.search(query, 50, view);
      same(hits, fresh.search(query, 50), `view, "${query}"`);
      for (const hit of hits) assert.ok(allowed.has(hit.id), `${hit.id} is outside the view`);
    }
    // The view follows the index: a document of the view edited is found by its new words, a removed one is gone.
    const edited = { ...shown[0]!, description: 'zebra crossing' };
    index.add(edited);
    assert.deepEqual(
      index.search('zebra', 10, view).map((hit) => hit.id),
      [edited.id],
    );
    index.remove(edited.id);
    assert.deepEqual(index.search('zebra', 10, view), []);
    const empty = index.view([]);
    assert.deepEqual(index.search('pdf', 10, empty), []);
  });

  test('ids are keys: the same id twice keeps the last document', () => {
    const index = new SkillSearchIndex(
      [
        { id: 'a', name: 'a', description: 'old words', headings: [] },
        { id: 'a', name: 'a', description: 'new words', headings: [] },
      ],
      { minConfidence: 0, related: false },
    );
    assert.equal(index.size, 1);
    assert.deepEqual(index.search('old'), []);
    assert.deepEqual(
      index.search('new').map((hit) => hit.id),
      ['a'],
    );
  });
});
