import assert from 'node:assert/strict';
import { lstatSync, readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { makeTree, removeTrees, skillMd } from '@skillport/test-kit';
import { DEFAULT_LIMITS, DigestCache, fileSource } from '@skillport/core';
import { normaliseRoot, scanRoot } from '../src/catalog/folder-scan.js';
import type { ScannedFolder } from '../src/catalog/folder-scan.js';
import { scanInWorkers } from '../src/catalog/parallel-scan.js';

after(removeTrees);

/** `count` skills in folders of 100 (a tree, as a catalog of repositories), one nested skill and one broken one. */
function catalog(count: number): string {
  const spec: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const name = `skill-${i}`;
    spec[`group-${Math.floor(i / 100)}/${name}/SKILL.md`] = skillMd(name, `Skill number ${i}.`);
    spec[`group-${Math.floor(i / 100)}/${name}/references/notes.md`] = `notes ${i}\n`;
  }
  spec['group-0/skill-0/inner/SKILL.md'] = skillMd('inner', 'A nested skill.');
  spec['group-1/broken/SKILL.md'] = '---\nname: [not closed\n---\n';
  const dir = makeTree(spec);
  // Written a minute ago, as far as the digest cache can tell (it trusts no file modified within the last second).
  const past = new Date(Date.now() - 60_000);
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) utimesSync(join(entry.parentPath, entry.name), past, past);
  return dir;
}

const summary = (folders: readonly ScannedFolder[]) =>
  folders
    .map(
      (folder) => `${folder.dir} ${folder.segments.join('/')} ${folder.inspection.skill?.packageDigest ?? 'unservable'} ${folder.inspection.problems.length}`,
    )
    .sort();

test('a scan in two workers walks the tree once and finds exactly what one thread finds; its digest cache holds every file', async () => {
  const root = normaliseRoot(catalog(1200), undefined);
  const alone = scanRoot(root, { limits: DEFAULT_LIMITS });
  const cachePath = join(makeTree({}), 'digests');
  const two = await scanInWorkers([root], DEFAULT_LIMITS, cachePath, 2);
  assert.equal(two.shards, 2, 'a helper was started for 1,200 skills');
  assert.equal(two.folders.length, 1202);
  assert.deepEqual(summary(two.folders), summary(alone.folders));
  assert.deepEqual(two.problems, alone.problems);
  // Shard 0 wrote the file; the helper's half came to it over its port: every file of every skill is a hit.
  const cache = new DigestCache(cachePath);
  let files = 0;
  for (const folder of two.folders) {
    const skill = folder.inspection.skill;
    if (skill === undefined) continue;
    for (const file of skill.files) {
      const source = fileSource(skill, file);
      assert.equal(cache.digestFor(source, lstatSync(source)), file.digest, source);
      files++;
    }
  }
  assert.equal(files, 2 * 1200 + 2, 'two files per skill, and the nested SKILL.md both in its outer skill and its own');
  // A small catalog is not worth a second worker.
  assert.equal((await scanInWorkers([normaliseRoot(catalog(20), undefined)], DEFAULT_LIMITS, undefined, 2)).shards, 1);
});
