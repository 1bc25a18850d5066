import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ContentReader } from '../src/catalog/content.js';
import { StringPool } from '../src/catalog/intern.js';
import type { SkillOrigin } from '../src/catalog/model.js';
import { catalogFile } from './catalog-files.js';
import type { CatalogSnapshot } from '../src/catalog/snapshot.js';
import { PageCache } from '../src/http/page-cache.js';
import { ACCESS_CACHE_KIB, SqliteAccessStore } from '../src/access/sqlite-access-store.js';
import { IdlePolicy } from '../src/memory.js';

/**
 * What a long-running server keeps (issue 17, docs/reliability.md "Memory"): memory held for a busy spell is given
 * back once idle, and caches hold what they count, no more, and not for ever.
 */
const temps: string[] = [];
after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

const MiB = 1024 * 1024;
const heap = (total: number, used: number) => ({ total: total * MiB, used: used * MiB });

describe('IdlePolicy: one collection when a busy spell is followed by idle windows', () => {
  /** Feeds windows of these utilisations, 2 s apart; the answers. */
  const feed = (policy: IdlePolicy, clock: { now: number }, utilisations: number[], h: { total: number; used: number; external?: number } = heap(64, 30)) =>
    utilisations.map((u) => policy.windowEnded(u, h, (clock.now += 2000)));

  test('busy, then three idle windows: collects once, and not again while idle', () => {
    const policy = new IdlePolicy();
    const clock = { now: 0 };
    assert.deepEqual(feed(policy, clock, [0, 0, 0, 0]), [false, false, false, false], 'idle from the start: nothing to give back');
    assert.deepEqual(feed(policy, clock, [0.5, 0.3]), [false, false], 'never during the load');
    assert.deepEqual(feed(policy, clock, [0.001, 0, 0.001]), [false, false, true], 'the third idle window in a row');
    policy.collected(clock.now, 20, 34 * MiB);
    assert.deepEqual(feed(policy, clock, [0, 0, 0, 0], heap(34, 28)), [false, false, false, false], 'collected already');
    assert.deepEqual(feed(policy, clock, [0.4, 0, 0, 0]), [false, false, false, true], 'the next spell is given back as well');
  });

  test('light traffic is not idle; a heap with nothing to give back is left alone', () => {
    const policy = new IdlePolicy();
    const clock = { now: 0 };
    assert.deepEqual(feed(policy, clock, [0.5, 0, 0, 0.01, 0, 0]), [false, false, false, false, false, false], 'the idle run was broken');
    assert.deepEqual(feed(policy, clock, [0]), [true]);

    const small = new IdlePolicy();
    small.collected(0, 5, 30 * MiB);
    assert.deepEqual(feed(small, clock, [0.5, 0, 0, 0], heap(31, 29)), [false, false, false, false], 'under an eighth of the heap unused, no growth');
    assert.deepEqual(feed(small, clock, [0, 0, 0]), [false, false, false], 'that spell is over: it takes another busy window');
  });

  test('a collection that leaves the young generation big is followed by young-generation collections at the next idle windows, a few at most', () => {
    const policy = new IdlePolicy();
    const clock = { now: 0 };
    assert.deepEqual(feed(policy, clock, [0.5, 0, 0, 0]), [false, false, false, true]);
    policy.collected(clock.now, 10, 64 * MiB, 32 * MiB); // V8 kept 32 MiB of empty young generation
    for (let retry = 0; retry < policy.retries; retry++) {
      assert.deepEqual(feed(policy, clock, [0]), ['young'], `retry ${retry + 1}`);
      policy.youngCollected(64 * MiB, 32 * MiB);
    }
    assert.deepEqual(feed(policy, clock, [0, 0, 0, 0]), [false, false, false, false], 'given up until the next busy spell');
    assert.deepEqual(feed(policy, clock, [0.5, 0, 0, 0]), [false, false, false, true]);
    policy.collected(clock.now, 10, 32 * MiB, 1 * MiB);
    assert.deepEqual(feed(policy, clock, [0, 0, 0, 0]), [false, false, false, false], 'given back: done');
  });

  test("young-generation retries are not spaced by a big heap's full collections, and a new spell cancels them", () => {
    // Under load a 600 ms full collection would hold the next one back 30 s: in the soak's phase e (a 64 MiB heap,
    // 2 shared cores) the young generation stayed 32 MiB through the 20 s settle, twice in six runs. A scavenge of
    // an empty young generation takes milliseconds whatever the old generation's size.
    const policy = new IdlePolicy();
    const clock = { now: 0 };
    const big = heap(900, 700);
    assert.deepEqual(feed(policy, clock, [0.5, 0, 0, 0], big), [false, false, false, true]);
    policy.collected(clock.now, 600, 900 * MiB, 32 * MiB);
    assert.deepEqual(feed(policy, clock, [0], big), ['young'], '2 s after a 600 ms full collection');
    policy.youngCollected(869 * MiB, 1 * MiB);
    assert.deepEqual(feed(policy, clock, [0, 0, 0, 0], heap(869, 700)), [false, false, false, false], 'given back: done');

    const small = new IdlePolicy();
    assert.deepEqual(feed(small, clock, [0.5, 0, 0, 0]), [false, false, false, true]);
    small.collected(clock.now, 10, 64 * MiB, 32 * MiB);
    assert.deepEqual(feed(small, clock, [0.5, 0, 0]), [false, false, false], 'busy again: no retry, and 2 idle windows are not enough');
    assert.deepEqual(feed(small, clock, [0]), [true], "the new spell's own full collection");
  });

  test('garbage outside the heap (buffers of dropped request bodies) is given back too', () => {
    // The soak's hostile cases: refused uploads drained in 64 KiB socket reads leave tens of MiB of dead buffers
    // behind a heap that looks empty (31 MiB, 29 used, no growth). The old policy never collected them.
    const policy = new IdlePolicy();
    const clock = { now: 0 };
    policy.collected(0, 5, 31 * MiB, 1 * MiB, 4 * MiB);
    const withDroppedBodies = { ...heap(31, 29), external: 4 * MiB + 24 * MiB };
    assert.deepEqual(
      feed(policy, clock, [0.5, 0, 0, 0], withDroppedBodies),
      [false, false, false, true],
      '24 MiB of external memory since the last collection',
    );
    policy.collected(clock.now, 5, 31 * MiB, 1 * MiB, 4.5 * MiB);
    assert.deepEqual(feed(policy, clock, [0, 0, 0, 0], { ...heap(31, 29), external: 4.5 * MiB }), [false, false, false, false], 'given back: done');
    // Live external memory that stays (a cache of file bytes filled) is collected once, then it is the new baseline.
    assert.deepEqual(
      feed(policy, clock, [0.5, 0, 0, 0], { ...heap(31, 29), external: 6 * MiB }),
      [false, false, false, false],
      '2 MiB of heap pages and 1.5 MiB of buffers: under an eighth of the heap',
    );
    assert.deepEqual(feed(policy, clock, [0.5, 0, 0, 0], { ...heap(31, 29), external: 20.5 * MiB }), [false, false, false, true]);
    policy.collected(clock.now, 5, 31 * MiB, 1 * MiB, 20 * MiB);
    assert.deepEqual(feed(policy, clock, [0.5, 0, 0, 0], { ...heap(31, 29), external: 20 * MiB }), [false, false, false, false], 'the cache is not garbage');
    // Heap pages and dead buffers add up: 6 MiB of each, neither over 8 MiB alone.
    assert.deepEqual(feed(policy, clock, [0.5, 0, 0, 0], { ...heap(37, 31), external: 26 * MiB }), [false, false, false, true], '6 + 6 MiB');
  });

  test('a small heap needs less to give back: an eighth of it, between 2 and 8 MiB', () => {
    // After the soak's hostile phase a 31 MiB heap held 2-6 MiB a collection would give back, under the old fixed
    // 8 MiB: a third of the 10 % the phase may keep. A big heap keeps the 8 MiB (its collections cost more).
    const policy = new IdlePolicy();
    assert.equal(policy.slackNeeded(30 * MiB), 3.75 * MiB);
    assert.equal(policy.slackNeeded(8 * MiB), 2 * MiB, 'never under 2 MiB');
    assert.equal(policy.slackNeeded(1024 * MiB), 8 * MiB, 'never over 8 MiB');
    const clock = { now: 0 };
    policy.collected(0, 10, 30 * MiB);
    assert.deepEqual(feed(policy, clock, [0.5, 0, 0, 0], heap(31, 26.5)), [false, false, false, true], '4.5 MiB unused in a 31 MiB heap');
    const big = new IdlePolicy();
    big.collected(0, 300, 900 * MiB);
    clock.now += 60_000;
    assert.deepEqual(feed(big, clock, [0.5, 0, 0, 0], heap(900, 895)), [false, false, false, false], '5 MiB unused in a 900 MiB heap');
  });

  test('collections are spaced by their cost (at most 2 % of the time)', () => {
    const policy = new IdlePolicy();
    const clock = { now: 0 };
    const big = heap(900, 700);
    assert.deepEqual(feed(policy, clock, [0.5, 0, 0, 0], big), [false, false, false, true]);
    policy.collected(clock.now, 600, 720 * MiB); // a big heap: 600 ms
    assert.deepEqual(feed(policy, clock, [0.5, 0, 0, 0], big), [false, false, false, false], '6 s after a 600 ms collection: too soon');
    clock.now += 30_000;
    assert.deepEqual(feed(policy, clock, [0], big), [true], 'once 50 times its cost has passed');
  });
});

describe('StringPool: shares repeated strings without keeping every string it ever saw', () => {
  test('strings not seen for a generation are let go; recurring ones stay shared', () => {
    const pool = new StringPool(1000);
    const common = pool.intern(['SKILL', 'md'].join('.'));
    for (let i = 0; i < 100_000; i++) {
      pool.intern(`c-${i}`); // a churned tree: new folder names, never seen again
      if (i % 500 === 0) assert.equal(pool.intern(['SKILL', 'md'].join('.')), common, 'a recurring string stays the same string');
    }
    assert.ok(pool.size <= 2000, `the pool holds ${pool.size} strings after 100,000 distinct ones`);
    const a = pool.intern(`x-${'y'.repeat(3)}`);
    assert.equal(pool.intern(`x-${'y'.repeat(3)}`), a);
  });
});

describe('caches hold what they count', () => {
  const file = catalogFile;

  test('ContentReader: a small file cut from a large buffer does not keep the large buffer', async () => {
    const archive = Buffer.alloc(4 * MiB, 0x61);
    const bytes = archive.subarray(1000, 1300);
    const origin: SkillOrigin = { kind: 'stored', source: 'archive:test', blobs: { read: async () => bytes } };
    const reader = new ContentReader();
    const entry = file(bytes);
    assert.deepEqual(await reader.read(entry, origin), bytes);
    const cached = await reader.read(entry, origin);
    assert.deepEqual(cached, bytes);
    assert.ok(cached.buffer.byteLength < 4096, `the cached copy keeps a ${cached.buffer.byteLength}-byte buffer for 300 bytes`);
  });

  test("ContentReader: a small file read from disk does not keep Node's shared 8 KiB pool", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillport-memory-'));
    temps.push(dir);
    const text = Buffer.from('a small file\n');
    writeFileSync(join(dir, 'notes.md'), text);
    const origin: SkillOrigin = { kind: 'folder', root: dir, dir, realDir: dir };
    const reader = new ContentReader();
    const entry = file(text);
    await reader.read(entry, origin);
    const cached = await reader.read(entry, origin);
    assert.deepEqual(cached, text);
    assert.ok(cached.buffer.byteLength <= 2 * text.byteLength, `${text.byteLength} bytes cached in a ${cached.buffer.byteLength}-byte buffer`);
  });

  test('PageCache: a small page is an allocation of its own, not a slice of the shared pool', () => {
    const cache = new PageCache();
    const snapshot = {} as CatalogSnapshot;
    const page = cache.get(snapshot, 'k', () => '{"result":{"skills":[]},"jsonrpc":"2.0","id":');
    assert.ok(page !== undefined);
    assert.equal(page.toString(), '{"result":{"skills":[]},"jsonrpc":"2.0","id":');
    assert.equal(page.buffer.byteLength, page.byteLength);
    assert.equal(
      cache.get(snapshot, 'k', () => 'other'),
      page,
      'served from the cache',
    );
    assert.equal(cache.bytes, page.byteLength);
  });

  test("the access store's SQLite page cache is SQLite's default 2 MiB, not better-sqlite3's 16 MB", async () => {
    // Every read appends an audit row and three index entries: with better-sqlite3's 16 MB cap the connection's
    // page cache filled with audit pages, and a served process kept 15-20 MiB more after a few thousand reads (the
    // soak's phase e: most of what stayed outside V8's heap). SQLite keeps a connection's cache up to its cap.
    const dir = mkdtempSync(join(tmpdir(), 'skillport-memory-access-'));
    temps.push(dir);
    const store = SqliteAccessStore.open(dir);
    try {
      const time = new Date().toISOString();
      await store.appendAudit(
        Array.from({ length: 2000 }, (_, i) => ({
          time,
          principal: 'anonymous',
          action: 'read' as const,
          surface: 'resources/read',
          skill: `s-${i % 50}`,
          uri: `skill://s-${i % 50}/SKILL.md`,
          outcome: 'ok',
        })),
      );
      assert.equal(ACCESS_CACHE_KIB, 2048);
      assert.equal(store.db.pragma('cache_size', { simple: true }), -ACCESS_CACHE_KIB, 'a negative cache_size is a cap in KiB');
      assert.deepEqual(store.db.prepare('SELECT COUNT(*) AS n FROM audit').get(), { n: 2000 }, 'the log is all there');
    } finally {
      await store.close();
    }
  });

  test('PageCache: the budget holds (oldest out)', () => {
    const cache = new PageCache(250);
    const snapshot = {} as CatalogSnapshot;
    for (let i = 0; i < 10; i++) cache.get(snapshot, `page ${i}`, () => 'x'.repeat(100));
    assert.equal(cache.bytes, 200, 'two pages of 100 bytes fit in 250');
    let made = 0;
    cache.get(snapshot, 'page 9', () => String(++made));
    cache.get(snapshot, 'page 0', () => 'y'.repeat(100));
    assert.equal(made, 0, 'the newest page is still held');
    assert.equal(cache.bytes, 200);
  });
});
