import assert from 'node:assert/strict';
import { join } from 'node:path';
import { setImmediate as turn } from 'node:timers/promises';
import { after, describe, test } from 'node:test';
import { DEFAULT_LIMITS } from '@skillport/core';
import { loadIndex } from '@skillport/search';
import { makeTree, removeTrees, skillMd } from '@skillport/test-kit';
import { ContentReader } from '../src/catalog/content.js';
import { normaliseRoot } from '../src/catalog/folder-scan.js';
import { LiveCatalog } from '../src/catalog/live-catalog.js';
import { CatalogSearch } from '../src/search/catalog-search.js';

after(removeTrees);

/**
 * A save hands the file writer views of the index's own arrays and writes them asynchronously: whatever changes the
 * index meanwhile (the background build adding skills, a compaction) tears the file, which the next start discards
 * (checksum, or a term's document frequency that is not its posting count). Here the save is the one `close` makes
 * while the first build is half way (a server stopped mid-build), and the file it wrote must be the index it holds.
 */

/** `count` skills with bodies long enough that a build takes many slices (and many reads that yield). */
function catalogOf(count: number): string {
  const spec: Record<string, string> = {};
  const topics = ['ledger', 'invoice', 'budget', 'forecast', 'payroll', 'audit', 'receipt', 'expense'];
  for (let at = 0; at < count; at++) {
    const topic = topics[at % topics.length]!;
    const body = Array.from({ length: 30 }, (_, line) => `Step ${line} of the ${topic} case ${at}: file term${at % 97}x${line} with the ${topic} clerk.`);
    spec[`skill-${at}/SKILL.md`] = skillMd(`skill-${at}`, `Handles ${topic} task number ${at}.`, '', `# skill-${at}\n\n## ${topic}\n\n${body.join('\n')}\n`);
    spec[`skill-${at}/references/guide.md`] = `# Guide ${at}\n\nThe ${topic} guide, word${at} and word${at + 1}.\n`;
  }
  return makeTree(spec);
}

describe('a save never writes an index that changes under it', () => {
  for (const stopAt of [1, 40, 160]) {
    test(`closed after ${stopAt} of 400 skills were indexed: the saved file restores exactly the index held`, async () => {
      const dir = catalogOf(400);
      const catalog = await LiveCatalog.open({ roots: [normaliseRoot(dir, undefined)], limits: DEFAULT_LIMITS, scanThreads: 0 });
      const path = join(makeTree({}), 'search.bin');
      const search = new CatalogSearch(new ContentReader());
      search.configure({ wordVectors: false });
      search.persistTo(path);
      search.follow(catalog.snapshot);
      while (search.state().indexed < stopAt) await turn();
      const before = search.state();
      assert.ok(before.indexed < before.total, 'the build is still under way when the save begins');
      await search.close();
      const held = search.index.exportState();
      // The build may have gone on after the save (the old failure): then the file does not hold what the index holds.
      const loaded = await loadIndex(path, { wordVectors: false });
      assert.ok(loaded !== undefined, 'the index was saved');
      assert.deepEqual(loaded.index.exportState(), held);
      assert.equal(loaded.versions.size, held.ids.length);
      catalog.close();
    });
  }
});

describe('a warm start: restored() waits for the persisted index', () => {
  test("it resolves once the last run's index is read and diffed against the catalog, with the search data read", async () => {
    const dir = catalogOf(120);
    const catalog = await LiveCatalog.open({ roots: [normaliseRoot(dir, undefined)], limits: DEFAULT_LIMITS, scanThreads: 0 });
    const path = join(makeTree({}), 'search.bin');
    const first = new CatalogSearch(new ContentReader());
    first.configure({ wordVectors: false });
    first.persistTo(path);
    first.follow(catalog.snapshot);
    await first.search(catalog.snapshot, 'ledger clerk', 5);
    assert.equal(first.state().prepared, false, 'a cold start reads the data at its first search, not before');
    await first.close();

    const again = new CatalogSearch(new ContentReader());
    again.configure({ wordVectors: false });
    again.persistTo(path);
    assert.equal(again.state().prepared, true);
    again.follow(catalog.snapshot);
    // Nothing read yet: the file is read asynchronously.
    assert.equal(again.state().restored, 'none');
    await again.restored();
    const state = again.state();
    assert.deepEqual(state.restored, { skills: 120 });
    // Diffed against the whole snapshot once, nothing changed: caught up before anyone asks.
    assert.equal(state.diffs.full, 1);
    assert.equal(state.ready, true);
    assert.equal(state.indexed, 120);
    await again.close();
    catalog.close();
  });
});
