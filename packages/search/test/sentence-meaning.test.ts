import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { SENTENCE_WEIGHT, SentenceEncoder, rerankByMeaning, sentenceCosine, skillSentence, unit } from '../src/index.js';

const v = (...values: number[]) => unit(values)!;

describe('rerankByMeaning', () => {
  const hits = [
    { id: 'a', score: 10 },
    { id: 'b', score: 9 },
    { id: 'c', score: 7 },
  ];
  const query = v(1, 0);
  const vectors = new Map([
    ['a', v(0, 1)],
    ['b', v(1, 1)],
    ['c', v(1, 0)],
  ]);

  test('the closest in meaning gains the weight times the best score; the farthest gains nothing', () => {
    const ranked = rerankByMeaning(hits, query, (id) => vectors.get(id));
    // c (cosine 1) gains 0.4 × 10; b (cosine 0.707, that share of the spread from a's 0) gains 2.83 and leads.
    assert.deepEqual(
      ranked.map((hit) => hit.id),
      ['b', 'c', 'a'],
    );
    assert.ok(Math.abs(ranked[0]!.score - (9 + SENTENCE_WEIGHT * 10 * Math.SQRT1_2)) < 1e-6);
    assert.ok(Math.abs(ranked[1]!.score - (7 + SENTENCE_WEIGHT * 10)) < 1e-6);
    assert.equal(ranked[2]!.score, 10);
  });

  test('a small weight only breaks near-ties', () => {
    assert.deepEqual(
      rerankByMeaning(hits, query, (id) => vectors.get(id), 0.05).map((hit) => hit.id),
      ['a', 'b', 'c'],
    );
  });

  test('a hit without a vector, or no spread in meaning, leaves the lexical order', () => {
    assert.deepEqual(
      rerankByMeaning(hits, query, (id) => (id === 'b' ? undefined : vectors.get(id))),
      hits,
    );
    assert.deepEqual(
      rerankByMeaning(hits, query, () => v(1, 2)),
      hits,
    );
    assert.deepEqual(
      rerankByMeaning(hits.slice(0, 1), query, (id) => vectors.get(id)),
      hits.slice(0, 1),
    );
  });

  test('skill text and unit vectors', () => {
    assert.equal(skillSentence('pdf-forms_fill', 'Fill PDF forms.'), 'pdf forms fill. Fill PDF forms.');
    assert.equal(unit([0, 0]), undefined);
    assert.equal(unit([Number.NaN, 1]), undefined);
    assert.ok(Math.abs(sentenceCosine(v(3, 4), v(3, 4)) - 1) < 1e-6);
    assert.equal(sentenceCosine(v(1, 0), v(1, 0, 0)), 0);
  });
});

describe('SentenceEncoder (the model shipped in npm, in a worker thread)', () => {
  const encoder = new SentenceEncoder();
  after(() => encoder.close());

  test('texts alike in meaning are closer than unrelated ones, with no word in common', async () => {
    const [gpu, rent, bread] = await encoder.embed([
      'train a neural network on cloud GPUs',
      'hire graphics cards by the hour for deep learning',
      'bake sourdough bread with a crispy crust',
    ]);
    assert.equal(gpu!.length, 512);
    assert.ok(Math.abs(sentenceCosine(gpu!, gpu!) - 1) < 1e-5, 'unit vectors');
    assert.ok(sentenceCosine(gpu!, rent!) > sentenceCosine(gpu!, bread!) + 0.1, 'meaning, not words');
    assert.deepEqual(await encoder.embed([]), []);
  });

  test('the same text gives the same vector, alone or in a batch', async () => {
    const [alone] = await encoder.embed(['merge two spreadsheets on a shared column'], true);
    const [, batched] = await encoder.embed(['something else entirely', 'merge two spreadsheets on a shared column']);
    assert.ok(sentenceCosine(alone!, batched!) > 0.9999);
  });

  test('an urgent text (a query) is answered before the texts queued ahead of it', async () => {
    const order: string[] = [];
    const queued = encoder.embed(Array.from({ length: 12 }, (_, at) => `skill ${at} converts documents between formats`)).then(() => order.push('queued'));
    const urgent = encoder.embed(['a query'], true).then(() => order.push('urgent'));
    await Promise.all([queued, urgent]);
    assert.deepEqual(order, ['urgent', 'queued']);
  });

  test('close ends the thread; a later request starts a new one', async () => {
    const closed = new SentenceEncoder();
    await closed.embed(['warm up']);
    await closed.close();
    const [again] = await closed.embed(['still works']);
    assert.equal(again!.length, 512);
    await closed.close();
  });
});
