import assert from 'node:assert/strict';
import { once } from 'node:events';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { DEFAULT_LIMITS } from '@skillport/core';
import { CORPUS, eventually, makeTree, removeTrees, skillMd } from '@skillport/test-kit';
import { ContentReader } from '../src/catalog/content.js';
import { normaliseRoot } from '../src/catalog/folder-scan.js';
import { LiveCatalog } from '../src/catalog/live-catalog.js';
import type { CatalogSnapshot } from '../src/catalog/snapshot.js';
import { CatalogSearch } from '../src/search/catalog-search.js';
import type { Pace } from '../src/search/catalog-search.js';

/**
 * A large batch (a first build) is read and analysed in worker threads, the main thread only inserting (ADR 0261):
 * the index must hold exactly what the main thread alone builds, rank alike, and survive a worker that dies or a
 * search that closes mid-build. Real folders, a real catalog scan, real worker threads.
 */

after(removeTrees);

const QUERIES = [
  'pdf',
  'release notes',
  'kubernetes deploy rollback',
  'TimeZoneInfo conversion',
  'über große daten',
  'net8 migration',
  'fix a flaky test',
  'quokka',
  'spreadsheet formulas',
  'write a poem about cats',
];

/** Skills with the analysis's corners: compounds, digits, diacritics, headings, references, stopword-only fields. */
function catalogTree(count: number): string {
  const spec: Record<string, string> = {};
  const topics = ['ledger', 'kubernetes', 'TimeZoneInfo', 'über-große Daten', 'net8', 'PDF forms', 'release notes', 'flaky tests'];
  for (let at = 0; at < count; at++) {
    const topic = topics[at % topics.length]!;
    spec[`s${at}/SKILL.md`] = skillMd(
      `skill-${at}`,
      at % 17 === 0 ? 'The and of it.' : `Handles ${topic} work, case ${at}. Use for ${topic}.`,
      '',
      `# skill-${at}\n\n## ${topic} basics\n\nSteps for ${topic} (v${at % 5}) with XMLHttpRequest and Deploying/Deployment notes.\n${'More words. '.repeat(at % 7)}\n`,
    );
    if (at % 3 === 0) spec[`s${at}/references/guide.md`] = `# Guide\n\nRoll back a ${topic} deploy; the quokka${at % 4} sign.\n`;
    if (at % 5 === 0) spec[`s${at}/examples/more.md`] = `Example ${at}: ${'spreadsheet formulas '.repeat(3)}`;
  }
  return makeTree(spec);
}

async function snapshotOf(dir: string): Promise<{ snapshot: CatalogSnapshot; close: () => void }> {
  const catalog = await LiveCatalog.open({ roots: [normaliseRoot(dir, undefined)], limits: DEFAULT_LIMITS, scanThreads: 0 });
  return { snapshot: catalog.snapshot, close: () => catalog.close() };
}

/** A search that builds `snapshot` with `workers` threads (0: on the main thread) and waits for the whole index. */
async function built(snapshot: CatalogSnapshot, workers: number, pace?: Pace, log?: (line: string) => void): Promise<CatalogSearch> {
  const search = new CatalogSearch(new ContentReader());
  search.configure({ workers, ...(log !== undefined ? { log } : {}) });
  if (pace !== undefined) search.pace(pace, 1);
  search.follow(snapshot);
  await eventually(async () => (search.ready ? true : undefined), 600_000, 'the index to be built');
  return search;
}

/** Both indexes hold the same arrays (terms, written forms, postings, lengths…) and answer every query alike. */
function assertSameIndex(inThread: CatalogSearch, pooled: CatalogSearch): void {
  const a = inThread.index.exportState();
  const b = pooled.index.exportState();
  for (const key of Object.keys(a) as Array<keyof typeof a>) assert.deepEqual(b[key], a[key], `index state ${key}`);
  for (const query of QUERIES) assert.deepEqual(pooled.index.search(query, 10), inThread.index.search(query, 10), `hits of ${JSON.stringify(query)}`);
}

describe('the search index built in worker threads', () => {
  test('holds exactly what the main thread builds, a file changed since the scan left out both ways', async () => {
    const dir = catalogTree(200);
    const { snapshot, close } = await snapshotOf(dir);
    // Changed after the scan: their digests no longer match, so each is indexed without that file.
    writeFileSync(join(dir, 's4/SKILL.md'), skillMd('skill-4', 'Handles zebra work.', '', '# zebra\n\nThe zebra body.\n'));
    writeFileSync(join(dir, 's9/references/guide.md'), '# Guide\n\nA zebra reference.\n');
    try {
      const inThread = await built(snapshot, 0);
      const pooled = await built(snapshot, 1);
      try {
        assert.equal(inThread.state().analysedInWorkers, 0);
        assert.equal(pooled.state().analysedInWorkers, snapshot.size, 'every skill was analysed in a worker');
        assert.equal(pooled.index.size, snapshot.size);
        assertSameIndex(inThread, pooled);
        assert.deepEqual(pooled.index.search('zebra', 10), [], 'the changed files were not indexed');
        assert.ok(pooled.index.search('quokka1', 10).length > 0, 'reference files are indexed');
      } finally {
        await Promise.all([inThread.close(), pooled.close()]);
      }
    } finally {
      close();
    }
  });

  test('the corpus: the same index and the same hits both ways', { skip: existsSync(CORPUS) ? false : `no corpus at ${CORPUS}` }, async () => {
    const { snapshot, close } = await snapshotOf(CORPUS);
    try {
      const inThread = await built(snapshot, 0);
      const pooled = await built(snapshot, 2);
      try {
        assert.equal(pooled.state().analysedInWorkers, snapshot.size);
        assertSameIndex(inThread, pooled);
      } finally {
        await Promise.all([inThread.close(), pooled.close()]);
      }
    } finally {
      close();
    }
  });

  test('a worker that dies mid-build: the build goes on on the main thread, says so, and loses nothing', async () => {
    const dir = catalogTree(300);
    const { snapshot, close } = await snapshotOf(dir);
    const lines: string[] = [];
    try {
      const inThread = await built(snapshot, 0);
      const search = new CatalogSearch(new ContentReader());
      search.configure({ workers: 1, log: (line) => lines.push(line) });
      // Quiet for three slices, then busy (the build waits), then quiet again once the worker is gone.
      let allowed = 3;
      search.pace({ idleFor: () => (allowed-- > 0 ? Number.POSITIVE_INFINITY : 0) }, 1);
      search.follow(snapshot);
      try {
        const partial = await eventually(
          async () => (search.index.size > 0 && search.state().deferred > 0 ? search.state() : undefined),
          60_000,
          'a few slices to be indexed, then the build to wait',
        );
        assert.ok(partial.indexed < snapshot.size, 'the build stopped part way');
        const [worker] = search.workerThreads;
        assert.ok(worker !== undefined, 'a worker thread analyses the batch');
        const exited = once(worker, 'exit');
        await worker.terminate();
        await exited;
        allowed = Number.POSITIVE_INFINITY;
        await eventually(async () => (search.ready ? true : undefined), 600_000, 'the index to be built without the worker');
        assert.equal(search.index.size, snapshot.size);
        assert.ok(search.state().analysedInWorkers > 0 && search.state().analysedInWorkers < snapshot.size);
        assert.equal(lines.length, 1, lines.join('\n'));
        assert.match(lines[0]!, /worker threads failed .*; indexing on the main thread/);
        assertSameIndex(inThread, search);
      } finally {
        await Promise.all([inThread.close(), search.close()]);
      }
    } finally {
      close();
    }
  });

  test('closed mid-build: the workers end, nothing hangs, nothing is rejected unhandled', async () => {
    const dir = catalogTree(300);
    const { snapshot, close } = await snapshotOf(dir);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const search = new CatalogSearch(new ContentReader());
      search.configure({ workers: 2 });
      search.follow(snapshot);
      const workers = await eventually(
        async () => (search.index.size > 0 && search.workerThreads.length > 0 ? [...search.workerThreads] : undefined),
        60_000,
        'the build to begin',
      );
      const exits = workers.map((worker) => once(worker, 'exit'));
      await search.close();
      await Promise.all(exits);
      assert.ok(search.index.size < snapshot.size || search.ready);
      // A turn of the event loop for any rejection left behind to surface.
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.deepEqual(unhandled, []);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      close();
    }
  });
});
