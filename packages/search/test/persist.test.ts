import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { SkillSearchIndex, decodeIndex, encodeIndex, loadIndex, saveIndex } from '../src/index.js';
import type { SearchDocument } from '../src/index.js';

const WORDS =
  'deploy deployment kubernetes containers docker pdf forms report charts data database test bash script slack gif creator webapp TimeZoneInfo net8 postgres query tuning index search blur fuzzy image review code migrate migration'.split(
    ' ',
  );

function documents(count: number, seed = 7): SearchDocument[] {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(next() * WORDS.length)]!).join(' ');
  return Array.from({ length: count }, (_, at) => ({
    id: `skill://s${at}/SKILL.md`,
    name: `${words(1)}-${words(1)}`.replace(/ /g, '-'),
    description: words(3 + Math.floor(next() * 10)),
    headings: [words(2), words(1)],
    body: words(Math.floor(next() * 80)),
  }));
}

const QUERIES = ['deploy kubernetes', 'pdf forms', 'kuberntes', 'slack gif creator', 'time zone', 'blurry pictures', 'migrating a postgres database', 'report'];
const OPTIONS = { wordVectors: false as const };

/** An index changed after its build (replaced and removed documents, recent postings) is what a server persists. */
function changedIndex(): SkillSearchIndex {
  const docs = documents(300);
  const index = new SkillSearchIndex(docs.slice(0, 250), { ...OPTIONS, minMergeRows: 1_000_000 });
  for (const doc of docs.slice(250)) index.add(doc);
  for (const doc of docs.slice(0, 20)) index.add({ ...doc, description: `${doc.description} replaced` });
  for (const doc of docs.slice(20, 40)) index.remove(doc.id);
  return index;
}

describe('a persisted search index', () => {
  test("searches exactly like the index it was made from (ids, scores, matches, reasons), with each document's version", () => {
    const index = changedIndex();
    const expected = QUERIES.map((query) => index.search(query, 20));
    const bytes = Buffer.concat(encodeIndex(index, (id) => `v:${id}`));
    const restored = decodeIndex(bytes, OPTIONS);
    assert.equal(restored.index.size, index.size);
    assert.equal(restored.versions.size, index.size);
    assert.equal(restored.versions.get('skill://s100/SKILL.md'), 'v:skill://s100/SKILL.md');
    QUERIES.forEach((query, at) => assert.deepEqual(restored.index.search(query, 20), expected[at], query));
    // And it takes changes like any index: a document added to the restored one is found, a removed one is not.
    restored.index.add({ id: 'skill://new/SKILL.md', name: 'zebra-tamer', description: 'Tame zebras.', headings: [] });
    restored.index.remove('skill://s100/SKILL.md');
    assert.equal(restored.index.search('zebra')[0]?.id, 'skill://new/SKILL.md');
    assert.ok(!restored.index.search('report', 500).some((hit) => hit.id === 'skill://s100/SKILL.md'));
  });

  test('a restored index changed like the built one stays equal to it: hits and scores, near matches, before and after a merge', () => {
    // The restore keeps term lists and descriptions where they lie in the file and makes the near-match buckets
    // on demand: each change (a new term, a removal, a merge that copies the restored views) must rank the same.
    // No abstention, so that near matches (prefixes, typos) of words first seen after the restore show as hits.
    const queries = [...QUERIES, 'deplo', 'migrat', 'kubernets', 'datbase', 'observab', 'observabilty', 'dashboardz', 'zebras tamer'];
    for (const minMergeRows of [1_000_000, 64]) {
      const options = { ...OPTIONS, minConfidence: 0, minMergeRows };
      const docs = documents(300);
      const built = new SkillSearchIndex(docs.slice(0, 250), options);
      for (const doc of docs.slice(250)) built.add(doc);
      for (const doc of docs.slice(0, 20)) built.add({ ...doc, description: `${doc.description} replaced` });
      for (const doc of docs.slice(20, 40)) built.remove(doc.id);
      const restored = decodeIndex(Buffer.concat(encodeIndex(built, () => '')), options).index;
      const same = (when: string) => {
        for (const query of queries) assert.deepEqual(restored.search(query, 20), built.search(query, 20), `${query}, ${when} (merge rows ${minMergeRows})`);
      };
      same('as restored');
      restored.prepare();
      const more = documents(60, 23).map((doc, at) => ({
        ...doc,
        id: `skill://new${at}/SKILL.md`,
        description: `${doc.description} observability dashboards tamer${at}`,
      }));
      for (const index of [built, restored]) {
        for (const doc of more) index.add(doc);
        for (const doc of docs.slice(50, 90)) index.remove(doc.id);
      }
      assert.ok(restored.search('observab', 5).length > 0, 'a prefix of a word first seen after the restore finds its skills');
      same('after changes');
      built.compact();
      restored.compact();
      same('after a merge');
      for (const index of [built, restored]) for (const doc of docs.slice(90, 120)) index.add({ ...doc, description: 'replaced again' });
      same('after a merge and changes');
    }
  });

  test("a merge right after a restore that drops terms (renumbering the rest from the file's views) ranks like the built index", () => {
    const options = { ...OPTIONS, minConfidence: 0, minMergeRows: 1_000_000 };
    const rare = (at: number) => at % 10 === 0;
    const docs = documents(200).map((doc, at) => (rare(at) ? { ...doc, description: `${doc.description} rareword${at}` } : doc));
    const built = new SkillSearchIndex(docs, options);
    const restored = decodeIndex(Buffer.concat(encodeIndex(built, () => '')), options).index;
    const queries = [...QUERIES, 'rareword10', 'rareword15', 'deplo', 'migrat'];
    for (const index of [built, restored]) {
      for (const doc of docs.filter((_, at) => rare(at))) index.remove(doc.id);
      assert.equal(index.compact(), true);
    }
    for (const query of queries) assert.deepEqual(restored.search(query, 20), built.search(query, 20), `${query}, after the merge`);
    for (const index of [built, restored]) for (const doc of docs.slice(1, 30)) index.add({ ...doc, description: `${doc.description} again` });
    for (const index of [built, restored]) index.compact();
    for (const query of queries) assert.deepEqual(restored.search(query, 20), built.search(query, 20), `${query}, after changes and a second merge`);
  });

  test('is read where it lies (the payload 8-aligned, no copy), or copied when a buffer is not aligned; its saved pruning bounds rank like scoring from scratch', () => {
    const index = new SkillSearchIndex(documents(2000, 11), OPTIONS);
    const parts = encodeIndex(index, () => '');
    assert.equal(parts[0]!.length % 8, 0, 'the header line ends 8-aligned');
    const bytes = Buffer.concat(parts);
    const reference = decodeIndex(bytes, { ...OPTIONS, pruning: 'reference' }).index;
    const odd = Buffer.alloc(bytes.length + 1);
    bytes.copy(odd, 1);
    const queries = [
      ...QUERIES,
      ...WORDS.flatMap((word, at) => [
        `${word} ${WORDS[(at * 7) % WORDS.length]}`,
        `${word} ${WORDS[(at * 3 + 1) % WORDS.length]} ${WORDS[(at * 5 + 2) % WORDS.length]}`,
      ]),
    ];
    for (const restored of [decodeIndex(bytes, OPTIONS).index, decodeIndex(odd.subarray(1), OPTIONS).index]) {
      for (const query of queries) {
        for (const limit of [1, 3, 20]) assert.deepEqual(restored.search(query, limit), reference.search(query, limit), `${query} (limit ${limit})`);
      }
      assert.ok(restored.prunedSearches > 20, `pruning stopped early in ${restored.prunedSearches} searches`);
    }
  });

  test('a large file is checked on a worker thread while it is decoded: the same index, and a damaged one refused', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'search-worker-'));
    try {
      const index = changedIndex();
      const path = join(dir, 'search.bin');
      await saveIndex(path, index, (id) => `v:${id}`);
      const restored = await loadIndex(path, OPTIONS, 0);
      assert.equal(restored?.versions.get('skill://s100/SKILL.md'), 'v:skill://s100/SKILL.md');
      for (const query of QUERIES) assert.deepEqual(restored!.index.search(query, 20), index.search(query, 20), query);
      const bytes = readFileSync(path);
      bytes[bytes.length - 3]! ^= 0xff; // a flipped byte at the end of the payload (in the last typed array)
      writeFileSync(path, bytes);
      await assert.rejects(loadIndex(path, OPTIONS, 0), /checksum does not match/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a large file's postings and term lists are walked on the worker: arrays that do not fit under a matching checksum are refused", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'search-walk-'));
    try {
      const good = Buffer.concat(encodeIndex(changedIndex(), () => ''));
      const end = good.indexOf(0x0a, good.indexOf(0x0a) + 1);
      const header = JSON.parse(good.subarray(good.indexOf(0x0a) + 1, end).toString('utf8'));
      // A changed word in an array, under a checksum made again over the changed payload.
      const damaged = (array: string, change: (view: Uint32Array | Uint8Array) => void): Buffer => {
        const bytes = Buffer.from(good);
        const [kind, at, length] = header.arrays[array];
        const Kind = kind === 'Uint8Array' ? Uint8Array : Uint32Array;
        change(new Kind(bytes.buffer, bytes.byteOffset + end + 1 + at, length));
        const sha256 = createHash('sha256')
          .update(bytes.subarray(end + 1))
          .digest('hex');
        return Buffer.from(bytes.toString('latin1').replace(header.sha256, sha256), 'latin1');
      };
      const path = join(dir, 'search.bin');
      const cases: Array<[string, Buffer, RegExp]> = [
        ['postings', damaged('postings', (words) => (words[0] = 0xffffffff)), /postings/],
        ['forward', damaged('forward', (bytes) => (bytes[bytes.length - 1] = 0x7f)), /lists an unknown term/],
      ];
      for (const [what, bytes, why] of cases) {
        assert.throws(() => decodeIndex(bytes, OPTIONS), why, `${what}, decoded on the main thread`);
        writeFileSync(path, bytes);
        await assert.rejects(loadIndex(path, OPTIONS, 0), why, `${what}, walked on the worker`);
      }
      writeFileSync(path, good);
      assert.equal((await loadIndex(path, OPTIONS, 0))?.index.size, changedIndex().size);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('with the shipped word vectors and WordNet (the defaults), the restored index ranks the same too', () => {
    const docs = documents(200, 11);
    const index = new SkillSearchIndex(docs);
    const restored = decodeIndex(Buffer.concat(encodeIndex(index, () => ''))).index;
    for (const query of QUERIES) assert.deepEqual(restored.search(query, 10), index.search(query, 10), query);
  });

  test('a view of the restored index ranks like a view of the original', () => {
    const index = changedIndex();
    const ids = documents(300)
      .filter((_, at) => at % 3 === 0)
      .map((doc) => doc.id);
    const restored = decodeIndex(Buffer.concat(encodeIndex(index, () => '')), OPTIONS).index;
    for (const query of QUERIES) assert.deepEqual(restored.search(query, 10, restored.view(ids)), index.search(query, 10, index.view(ids)), query);
  });

  test('a damaged, torn, foreign or other-analysis file is refused with a reason, never half-used', () => {
    const bytes = Buffer.concat(encodeIndex(changedIndex(), () => ''));
    const flipped = Buffer.from(bytes);
    flipped[flipped.length - 100]! ^= 0xff;
    assert.throws(() => decodeIndex(flipped, OPTIONS), /checksum does not match/);
    assert.throws(() => decodeIndex(bytes.subarray(0, bytes.length - 1000), OPTIONS), /checksum does not match/);
    assert.throws(() => decodeIndex(Buffer.from('{"not":"an index"}\n'), OPTIONS), /not this format/);
    const text = bytes.toString('latin1');
    const otherAnalysis = Buffer.from(text.replace(/"analysis":"[0-9a-f]{64}"/, `"analysis":"${'0'.repeat(64)}"`), 'latin1');
    assert.throws(() => decodeIndex(otherAnalysis, OPTIONS), /another analysis/);
    // A file of the format before the compact postings (8 bytes a posting) is another format: discarded, rebuilt.
    assert.match(text, /^skillport-search-index\/4\n/);
    const previous = Buffer.from(text.replace(/^skillport-search-index\/4\n/, 'skillport-search-index/3\n'), 'latin1');
    assert.throws(() => decodeIndex(previous, OPTIONS), /not this format/);
  });

  test('holds its postings in 4 bytes each (the slot and a counts code), or 8 when wide, and restores either alike', () => {
    for (const maxCodeBits of [24, 0]) {
      const index = new SkillSearchIndex(documents(300), { ...OPTIONS, maxCodeBits });
      const expected = QUERIES.map((query) => index.search(query, 20));
      const state = index.exportState();
      const postings = state.postings.length;
      if (maxCodeBits === 0) {
        assert.equal(state.postingShift, 0);
        assert.equal(state.postingCounts.length, postings);
      } else {
        // 300 slots leave 23 code bits; the distinct counts are a small table beside the words.
        assert.equal(state.postingShift, 23);
        assert.ok(state.postingCounts.length < postings / 10, `${state.postingCounts.length} codes for ${postings} postings`);
      }
      const bytes = Buffer.concat(encodeIndex(index, () => ''));
      const restored = decodeIndex(bytes, OPTIONS).index;
      QUERIES.forEach((query, at) => assert.deepEqual(restored.search(query, 20), expected[at], `${query} (code bits ${maxCodeBits})`));
    }
  });

  test('arrays that do not fit together are refused even under a matching checksum (fromState checks them)', () => {
    const state = changedIndex().exportState();
    const docs = Uint32Array.from(state.postings);
    docs[0] = state.ids.length * 2 ** state.postingShift;
    assert.throws(() => SkillSearchIndex.fromState({ ...state, postings: docs }, OPTIONS), /postings are not ascending slots/);
    const codes = Uint32Array.from(state.postings);
    codes[0] = (codes[0]! & ~(2 ** state.postingShift - 1)) + state.postingCounts.length;
    assert.throws(() => SkillSearchIndex.fromState({ ...state, postings: codes }, OPTIONS), /counts the table does not hold/);
    assert.throws(() => SkillSearchIndex.fromState({ ...state, postingShift: 31 }, OPTIONS), /layout does not fit/);
    assert.throws(() => SkillSearchIndex.fromState({ ...state, ids: [...state.ids, 'extra'] }, OPTIONS), /names do not match the ids/);
    assert.throws(() => SkillSearchIndex.fromState({ ...state, ids: [state.ids[1]!, ...state.ids.slice(1)] }, OPTIONS), /an id is listed twice/);
    assert.throws(() => SkillSearchIndex.fromState({ ...state, terms: [state.terms[1]!, ...state.terms.slice(1)] }, OPTIONS), /a term is listed twice/);
    const forward = Uint8Array.from(state.forward);
    forward[forward.length - 1] = 0x7f; // the last slot's last gap now runs past the vocabulary
    assert.throws(() => SkillSearchIndex.fromState({ ...state, forward }, OPTIONS), /lists an unknown term/);
    const cut = Uint8Array.from(state.forward);
    cut[state.forwardOffsets[1]! - 1]! |= 0x80; // the first slot's last varint now runs into the next slot's list
    assert.throws(() => SkillSearchIndex.fromState({ ...state, forward: cut }, OPTIONS), /lists an unknown term/);
    const offsets = Int32Array.from(state.postingOffsets);
    offsets[offsets.length - 1]! += 5;
    assert.throws(() => SkillSearchIndex.fromState({ ...state, postingOffsets: offsets }, OPTIONS), /postings: offsets do not span/);
  });

  test('saveIndex writes through a temporary file; loadIndex reads it back, and says undefined when there is none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'search-persist-'));
    try {
      const path = join(dir, 'index.bin');
      assert.equal(await loadIndex(path, OPTIONS), undefined);
      const index = changedIndex();
      await saveIndex(path, index, () => 'v');
      const loaded = await loadIndex(path, OPTIONS);
      assert.deepEqual(loaded?.index.search('deploy kubernetes'), index.search('deploy kubernetes'));
      writeFileSync(path, readFileSync(path).subarray(0, 200));
      await assert.rejects(() => loadIndex(path, OPTIONS), /search index file/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
