import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DEFAULT_LIMITS } from '@skillport/core';
import { makeTree, removeTrees, skillMd } from '@skillport/test-kit';
import type { TreeSpec } from '@skillport/test-kit';
import { SkillportServer } from '../src/app.js';
import { normaliseRoot } from '../src/catalog/folder-scan.js';
import { LiveCatalog } from '../src/catalog/live-catalog.js';
import { EarlyScan } from '../src/catalog/parallel-scan.js';

/**
 * The cold scan with an early first page (ADR 0276) starts before the access store and the plugins open. When the
 * start fails, when the catalog sets that scan aside, or when it is closed before the scan is in, its workers are
 * terminated: a library caller is not left with threads that scan on (and hold its process) after the failure.
 */

after(removeTrees);

function tree(count: number): string {
  const spec: TreeSpec = {};
  for (let i = 0; i < count; i++) {
    const name = `skill-${String(i).padStart(5, '0')}`;
    spec[`group-${Math.floor(i / 100)}/${name}/SKILL.md`] = skillMd(name, `Skill number ${i}.`);
  }
  return makeTree(spec);
}

let dir: string;
before(() => {
  dir = tree(1100);
});

const APP = new URL('../src/app.js', import.meta.url).href;

/**
 * Runs a start that fails (in its own process, `failure` being the options that make it fail) and returns how far the
 * scan got by the time that process exited by itself: it exits only once no worker is left.
 */
function failedStart(failure: string): { scanned: number; error: string } {
  const script = `
    const { SkillportServer } = await import(${JSON.stringify(APP)});
    let scanned = 0;
    let error = '';
    process.on('exit', () => process.stdout.write(JSON.stringify({ scanned, error })));
    try {
      await SkillportServer.open({ dirs: [${JSON.stringify(dir)}], firstPageEarly: true, cacheDir: false, onScanProgress: (progress) => (scanned = progress.scanned), ${failure} });
    } catch (failed) {
      error = failed.message;
    }`;
  // A file, not `-e`: workers are started with the parent's execArgv.
  const file = join(makeTree({ 'start.mjs': script }), 'start.mjs');
  return JSON.parse(execFileSync(process.execPath, [file], { encoding: 'utf8' }));
}

test('a plugin that fails to set up: the early scan is cancelled and the process can exit', () => {
  const outcome = failedStart(`plugins: [{ name: 'failing', setup: async () => { throw new Error('the plugin could not start'); } }]`);
  assert.match(outcome.error, /the plugin could not start/);
  assert.ok(outcome.scanned < 1100, `the scan stopped with the start (${outcome.scanned} of 1100 folders inspected)`);
});

test('an access store that fails to open: the early scan is cancelled and the process can exit', () => {
  const outcome = failedStart(`access: { auth: 'tokens', openStore: async () => { throw new Error('the database is down'); } }`);
  assert.match(outcome.error, /the database is down/);
  assert.ok(outcome.scanned < 1100, `the scan stopped with the start (${outcome.scanned} of 1100 folders inspected)`);
});

test('an early scan the catalog does not take (other roots) is cancelled; its own scan serves', async () => {
  const roots = [normaliseRoot(dir, undefined)];
  const early = new EarlyScan(roots, undefined, { limits: DEFAULT_LIMITS, shards: 1, pageSize: 20, maxInspected: 100 });
  const live = await LiveCatalog.open({ roots: [normaliseRoot(dir, undefined)], limits: DEFAULT_LIMITS, firstPage: 20, earlyScan: early });
  try {
    await live.complete;
    assert.equal(live.snapshot.size, 1100);
    await assert.rejects(early.scan, /cancelled/, 'the set-aside scan stopped (its workers terminated)');
  } finally {
    live.close();
  }
});

test('a server closed while only its first page is in: the rest of the scan is cancelled', async () => {
  const server = await SkillportServer.open({ dirs: [dir], firstPageEarly: true, pageSize: 20, cacheDir: false });
  assert.equal(server.catalog.live.partial, true, 'the scan is still running');
  await server.close();
  await assert.rejects(server.verified, /cancelled/, 'the scan stopped (its workers terminated), not run to its end');
});
