import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MAX_KEY_WORDS, SITUATION_WORDS_FILE, SkillSearchIndex, WordMap, readDataFile, searchTerms } from '../src/index.js';

const SITUATION_WORDS = readDataFile(SITUATION_WORDS_FILE);
import type { SearchDocument } from '../src/index.js';

function doc(id: string, description: string, name = id): SearchDocument {
  return { id, name, description, headings: [] };
}

const ids = (hits: Array<{ id: string }>) => hits.map((hit) => hit.id);

describe('the situation-word map shipped with search', () => {
  const map = WordMap.bundled(searchTerms);
  const entries = [...map];

  test('is well-formed: keys of 1-3 terms, each word one term, targets single terms other than the key', () => {
    assert.ok(map.size >= 300 && map.size <= 2000, `${map.size} keys: a general map, a few hundred to ~1,500 entries`);
    for (const { key, targets } of entries) {
      const words = key.split(' ');
      assert.ok(words.length >= 1 && words.length <= MAX_KEY_WORDS, key);
      for (const word of words) assert.match(word, /^[\p{L}\p{M}\p{N}]+$/u, `key word "${word}" of "${key}"`);
      assert.ok(targets.length > 0 && targets.length <= 16, `${key}: ${targets.length} targets`);
      assert.equal(new Set(targets).size, targets.length, `${key}: duplicate targets`);
      for (const target of targets) {
        assert.match(target, /^[\p{L}\p{N}]+$/u, `${key} → ${target}`);
        assert.ok(!words.includes(target), `${key} maps to itself`);
      }
    }
    // Every line parses (this is what the index loads), and the text itself is plain: no tabs, no stray separators.
    assert.doesNotThrow(() => WordMap.parse(SITUATION_WORDS, searchTerms));
    assert.doesNotMatch(SITUATION_WORDS, /\t|,\s*,|,\s*=|=\s*$/m);
  });

  test('maps everyday words to the words skills use', () => {
    assert.ok(map.get('accountant')?.includes('bookkeep'));
    assert.ok(map.get('slid')?.includes('pptx')); // `slides`, stemmed
    assert.ok(map.get('spreadsheet')?.includes('xlsx'));
    assert.ok(map.get('far away')?.includes('cdn'));
  });
});

describe('WordMap', () => {
  const map = WordMap.parse('accountant, bookkeeper = tax bookkeeping\nfar away = cdn latency\nmachine learning = model\nlearning = course\n', searchTerms);

  test('parse: keys and targets are stemmed; a key on several lines gets the union', () => {
    assert.deepEqual(map.get('accountant'), ['tax', 'bookkeep']);
    assert.deepEqual(WordMap.parse('cat = feline\ncats = pet feline\n', searchTerms).get('cat'), ['felin', 'pet']);
  });

  test('parse: malformed lines are refused with their line number', () => {
    const bad: Array<[string, RegExp]> = [
      ['ok = fine\nno separator here', /line 2: expected one "="/],
      ['a = b = c', /line 1: expected one "="/],
      ['sign in = login', /line 1: "in" is a stopword/],
      ['slow = cdn-edge', /line 1: "cdn-edge" is not one word/],
      ['one two three four = x', /longer than 3 words/],
      [' = target', /empty key or target/],
      ['key = ', /empty key or target/],
      ['cdn = cdn', /maps only to itself/],
    ];
    for (const [text, error] of bad) assert.throws(() => WordMap.parse(text, searchTerms), error, text);
  });

  test('expand: per query term, the targets of the longest key covering it; phrases do not overlap', () => {
    assert.deepEqual(map.expand(searchTerms('my accountants')), [['tax', 'bookkeep']]);
    assert.deepEqual(map.expand(searchTerms('slow for people far away')), [[], [], ['cdn', 'latency'], ['cdn', 'latency']]);
    assert.deepEqual(map.expand(searchTerms('far')), [[]]);
    // `learning` inside `machine learning` belongs to the phrase; alone it has its own targets.
    assert.deepEqual(map.expand(searchTerms('machine learning')), [['model'], ['model']]);
    assert.deepEqual(map.expand(searchTerms('learning')), [['cours']]);
  });
});

describe('search with the situation-word map', () => {
  const situations = WordMap.parse('accountant = bookkeeping tax\nfar away = cdn\n', searchTerms);
  const docs = [doc('books', 'Bookkeeping for small firms.'), doc('edge', 'Serve pages from a CDN.'), doc('other', 'Draw diagrams.')];

  test('a query word finds skills through the words it maps to, and the hit says so', () => {
    const index = new SkillSearchIndex(docs, { minConfidence: 0, related: false, situations });
    assert.deepEqual(ids(index.search('my accountant')), ['books']);
    const [hit] = index.search('my accountant');
    assert.deepEqual(hit!.matches, [{ word: 'accountant', term: 'bookkeep', written: 'bookkeeping', kind: 'mapped', fields: ['description'] }]);
    assert.equal(hit!.reason, 'accountant (mapped: bookkeeping) in description');
    assert.deepEqual(ids(index.search('pages load slowly far away')), ['edge']);
    // Without the map, neither word is found; `far` alone is not the phrase.
    const plain = new SkillSearchIndex(docs, { minConfidence: 0, related: false, situations: false });
    assert.deepEqual(plain.search('my accountant'), []);
    assert.deepEqual(index.search('far'), []);
  });

  test('a mapped match counts less than the same match made by the word itself', () => {
    const index = new SkillSearchIndex(docs, { minConfidence: 0, related: false, situations });
    const direct = index.search('bookkeeping')[0]!;
    const mapped = index.search('accountant')[0]!;
    assert.equal(direct.id, mapped.id);
    assert.ok(mapped.score > 0 && mapped.score < 0.8 * direct.score, `${mapped.score} vs ${direct.score}`);
  });

  test('no mapped term outranks an exact match of the query word in the same field, however rare the term', () => {
    // The word's and the target's document frequencies vary (the target rarer, as rare, more common), and so do the
    // fields; the skill holding the word itself always comes first.
    for (const field of ['name', 'description'] as const) {
      for (let wordFiller = 0; wordFiller <= 4; wordFiller++) {
        for (let targetFiller = 0; targetFiller <= 4; targetFiller++) {
          const make = (id: string, word: string): SearchDocument => (field === 'name' ? doc(id, 'A skill.', word) : doc(id, `Help with ${word} work.`, id));
          const catalog = [
            make('exact', 'accountant'),
            make('mapped', 'bookkeeping'),
            ...Array.from({ length: wordFiller }, (_, at) => doc(`w${at}`, `Notes for an accountant, part ${at}, on gardening and cooking.`)),
            ...Array.from({ length: targetFiller }, (_, at) => doc(`t${at}`, `Notes on bookkeeping, part ${at}, on gardening and cooking.`)),
            ...Array.from({ length: 6 }, (_, at) => doc(`x${at}`, `Unrelated skill number ${at} about painting.`)),
          ];
          const index = new SkillSearchIndex(catalog, { minConfidence: 0, related: false, situations });
          const ranked = ids(index.search('accountant'));
          assert.ok(ranked.includes('exact'), `${field} ${wordFiller}/${targetFiller}: ${ranked.join(' ')}`);
          const mappedAt = ranked.indexOf('mapped');
          assert.ok(mappedAt === -1 || ranked.indexOf('exact') < mappedAt, `${field} ${wordFiller}/${targetFiller}: ${ranked.join(' ')}`);
        }
      }
    }
  });

  test('the shipped map is on by default: a situation finds the skill for it', () => {
    const catalog = [
      doc('expense-tracker', 'Turn receipts into expense reports and bookkeeping entries.'),
      doc('cdn-setup', 'Put a CDN and edge caching in front of a website.'),
      doc('pptx-builder', 'Build a PowerPoint deck (pptx) from an outline.'),
      doc('gardening', 'Plan a vegetable garden.'),
    ];
    const index = new SkillSearchIndex(catalog, { minConfidence: 0, related: false });
    assert.equal(index.search('a shoebox of paper slips my accountant will accept')[0]?.id, 'expense-tracker');
    assert.equal(index.search('the page is slow for people far away')[0]?.id, 'cdn-setup');
    assert.equal(index.search('my boss wants slides by friday')[0]?.id, 'pptx-builder');
    assert.equal(
      new SkillSearchIndex(catalog, { minConfidence: 0, related: false, situations: false }).search('my boss wants slides by friday')[0]?.id,
      undefined,
    );
  });
});
