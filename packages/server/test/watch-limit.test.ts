import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { canLimitWatches, connectHttp, eventually, makeTree, removeTrees, skillMd, startHttp } from '@skillport/test-kit';
import { DEFAULT_LIMITS } from '@skillport/core';
import { LiveCatalog } from '../src/catalog/live-catalog.js';
import type { LiveCatalogOptions } from '../src/catalog/live-catalog.js';
import { normaliseRoot } from '../src/catalog/folder-scan.js';
import { fingerprint } from '../src/catalog/folder-fingerprint.js';
import { TreeWatcher } from '../src/catalog/tree-watcher.js';
import { restoredCatalog } from './restored-catalog.js';

after(removeTrees);

const sleep = (ms: number) => new Promise((done) => setTimeout(done, ms));

/** `count` skills, each with `references/guide.md` and a nested `references/deep/notes.md`: 3 folders per skill. */
function skillsTree(count: number): string {
  const spec: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const name = `skill-${i}`;
    spec[`${name}/SKILL.md`] = skillMd(name, `Skill number ${i}.`);
    spec[`${name}/references/guide.md`] = `guide ${i}\n`;
    spec[`${name}/references/deep/notes.md`] = `notes ${i}\n`;
  }
  return makeTree(spec);
}

const FAST_SWEEP = { sweepSliceMs: 5, sweepIntervalMs: 5 };

async function openWatching(root: string, extra: Partial<LiveCatalogOptions>): Promise<LiveCatalog> {
  const catalog = await LiveCatalog.open({
    roots: [normaliseRoot(root, undefined)],
    limits: DEFAULT_LIMITS,
    scanThreads: 0,
    perFolderWatch: true,
    sweep: FAST_SWEEP,
    ...extra,
  });
  catalog.watch();
  await eventually(async () => (catalog.watching?.arming === false ? true : undefined), 5000, 'the first walk done');
  return catalog;
}

const digestOf = (catalog: LiveCatalog, uri: string) => catalog.snapshot.file(uri)?.file.digest;

async function changes(catalog: LiveCatalog, uri: string, before: string | undefined, what: string): Promise<void> {
  await eventually(async () => (digestOf(catalog, uri) !== before ? true : undefined), 10_000, what);
}

describe('fewer watches: folders that hold skills are watched, folders inside skills are swept past the limit', () => {
  test('the fingerprint of a folder moves with every kind of change to its entries, and only then', async () => {
    const dir = makeTree({ 'a.md': 'one\n', 'b.md': 'two\n', 'sub/c.md': 'three\n' });
    const print = () => fingerprint(dir, readdirSync(dir, { withFileTypes: true }));
    await sleep(1100); // older than a timestamp tick can hide
    const first = print();
    assert.ok(Number.isFinite(first));
    assert.equal(print(), first, 'nothing changed: the same fingerprint');
    // Each step, and whether it writes a file (whose times cannot be trusted for a moment).
    const steps: Array<[string, boolean, () => void]> = [
      ['an edit in place of the same size', true, () => writeFileSync(join(dir, 'a.md'), 'ONE\n')],
      ['a file replaced by a rename (a safe-save)', true, () => (writeFileSync(join(dir, '.tmp'), 'two\n'), renameSync(join(dir, '.tmp'), join(dir, 'b.md')))],
      ['a new file', true, () => writeFileSync(join(dir, 'd.md'), 'four\n')],
      ['a deleted file', false, () => rmSync(join(dir, 'd.md'))],
      ['a folder replaced by another of the same name', false, () => (rmSync(join(dir, 'sub'), { recursive: true }), mkdirSync(join(dir, 'sub')))],
    ];
    let last = first;
    for (const [what, writes, change] of steps) {
      change();
      if (writes) assert.ok(Number.isNaN(print()), `${what}: a file written this moment is never trusted (NaN matches nothing)`);
      else assert.notEqual(print(), last, `${what}: the fingerprint moved at once`);
      await sleep(1100);
      const now = print();
      assert.ok(Number.isFinite(now) && now !== last, `${what}: the fingerprint moved`);
      assert.equal(print(), now, `${what}: and stays put once settled`);
      last = now;
    }
  });

  // Swept by this thread (a few folders), and by the sweep worker (from one folder on, as a large tree is).
  for (const [where, sweepOnWorkerFrom] of [
    ['swept on the main thread', Number.POSITIVE_INFINITY],
    ['swept by the worker', 1],
  ] as const)
    test(`with no room, only the root and the skill folders are watched; every change inside a skill is still found (${where})`, async () => {
      const root = skillsTree(4);
      const warnings: string[] = [];
      const catalog = await openWatching(root, {
        watchLimit: 0,
        onProblem: (problem) => warnings.push(problem.message),
        sweep: { ...FAST_SWEEP, sweepOnWorkerFrom },
      });
      try {
        assert.deepEqual(
          { folders: catalog.watching?.folders, swept: catalog.watching?.swept },
          { folders: 5, swept: 8 },
          'the root and 4 skill folders watched; references/ and references/deep/ swept',
        );
        assert.match(catalog.watching?.degraded ?? '', /watch limit \(0\)/);
        assert.equal(catalog.watching?.sweptOn, sweepOnWorkerFrom === 1 ? 'worker' : 'main');
        assert.ok(
          warnings.some((message) => message.includes('SKILLPORT_WATCH_LIMIT')),
          'said once, with the setting to change',
        );
        await sleep(1100); // the tree's own writes are older than a timestamp tick: the sweep's fingerprints are settled

        const guide = 'skill://skill-0/references/guide.md';
        let before = digestOf(catalog, guide);
        writeFileSync(join(root, 'skill-0/references/guide.md'), 'GUIDE 0\n'); // same size, in place
        await changes(catalog, guide, before, 'an edit in place in references/');

        const notes = 'skill://skill-1/references/deep/notes.md';
        before = digestOf(catalog, notes);
        writeFileSync(join(root, 'skill-1/references/deep/notes.md'), 'notes 1, edited in a nested folder\n');
        await changes(catalog, notes, before, 'an edit in place in references/deep/');

        const replaced = 'skill://skill-2/references/deep/notes.md';
        before = digestOf(catalog, replaced);
        writeFileSync(join(root, 'skill-2/references/deep/.notes.tmp'), 'replaced by a rename\n');
        renameSync(join(root, 'skill-2/references/deep/.notes.tmp'), join(root, 'skill-2/references/deep/notes.md'));
        await changes(catalog, replaced, before, 'a safe-save in references/deep/');

        const added = 'skill://skill-3/references/deep/more/new.md';
        mkdirSync(join(root, 'skill-3/references/deep/more'));
        writeFileSync(join(root, 'skill-3/references/deep/more/new.md'), 'a new folder with a file\n');
        await changes(catalog, added, undefined, 'a file in a folder made inside a swept folder');
        // The new folder is covered from then on: an edit in it is found too.
        await sleep(1100);
        before = digestOf(catalog, added);
        writeFileSync(join(root, 'skill-3/references/deep/more/new.md'), 'edited later\n');
        await changes(catalog, added, before, 'an edit in the new folder');

        rmSync(join(root, 'skill-0/references/deep/notes.md'));
        await changes(catalog, 'skill://skill-0/references/deep/notes.md', digestOf(catalog, 'skill://skill-0/references/deep/notes.md'), 'a deleted file');

        writeFileSync(join(root, 'skill-1/references/deep/nested.md'), 'x\n');
        mkdirSync(join(root, 'skill-1/references/inner'));
        writeFileSync(join(root, 'skill-1/references/inner/SKILL.md'), skillMd('inner', 'A skill nested in a swept folder.'));
        await eventually(
          async () => (catalog.snapshot.skills.some((skill) => skill.name === 'inner') ? true : undefined),
          10_000,
          'a nested skill made inside',
        );

        rmSync(join(root, 'skill-2/references'), { recursive: true });
        await changes(catalog, 'skill://skill-2/references/guide.md', digestOf(catalog, 'skill://skill-2/references/guide.md'), 'a swept folder deleted');
        assert.equal(digestOf(catalog, replaced), undefined);
        assert.equal(catalog.watching?.folders, 5, 'still only the folders that hold skills (the nested skill is inside one)');
      } finally {
        catalog.close();
      }
    });

  test('a restored catalog with no room watches its skill folders before answering, and none inside them', async () => {
    const root = skillsTree(30);
    const restored = await restoredCatalog(root, { watchLimit: 0, sweep: FAST_SWEEP });
    let open: () => void = () => {};
    restored.watch(new Promise<void>((resolve) => (open = resolve)));
    try {
      // Before the walk's slices (its first step lists 16 of the skill folders): the root and the 30 skill folders.
      assert.deepEqual({ folders: restored.watching?.folders, swept: restored.watching?.swept }, { folders: 31, swept: 0 });
      const uri = 'skill://skill-29/SKILL.md';
      const before = digestOf(restored, uri);
      writeFileSync(join(root, 'skill-29/SKILL.md'), skillMd('skill-29', 'Changed right after the restart.'));
      await changes(restored, uri, before, 'a SKILL.md change heard before the walk');
      open();
      await eventually(async () => (restored.watching?.arming === false ? true : undefined), 5000, 'the walk done');
      assert.deepEqual({ folders: restored.watching?.folders, swept: restored.watching?.swept }, { folders: 31, swept: 60 });
    } finally {
      restored.close();
    }
  });

  test('folders outside skills take the place of watches inside skills when the limit is met', async () => {
    const root = skillsTree(5); // 16 folders: the root, 5 skills, 10 inside them
    const events: string[] = [];
    const watcher = new TreeWatcher([root], (path) => path !== undefined && events.push(path), { perFolder: true, watchLimit: 8, ...FAST_SWEEP });
    try {
      watcher.start();
      await watcher.armed;
      // The walk meets skill-0's folders first and watches them; later skill folders take their watches.
      assert.deepEqual({ folders: watcher.folderCount, swept: watcher.sweptCount }, { folders: 8, swept: 8 }, 'the 6 outside plus 2 inside');
      await sleep(1100);
      const guide = join(root, 'skill-0/references/guide.md');
      writeFileSync(guide, 'given up, then swept\n');
      await eventually(
        async () => (events.includes(join(root, 'skill-0/references')) ? true : undefined),
        5000,
        'a change in a folder whose watch was given up',
      );
      // A new skill folder is watched whatever the limit (a skill's SKILL.md is what changes most).
      mkdirSync(join(root, 'skill-9'));
      await eventually(async () => (events.includes(join(root, 'skill-9')) ? true : undefined), 5000, 'the new folder heard');
      assert.deepEqual({ folders: watcher.folderCount, swept: watcher.sweptCount }, { folders: 8, swept: 9 }, 'it took the place of one more inside');
      writeFileSync(join(root, 'skill-9', 'SKILL.md'), skillMd('skill-9', 'New.'));
      await eventually(async () => (events.includes(join(root, 'skill-9', 'SKILL.md')) ? true : undefined), 5000, 'heard by its own watch');
    } finally {
      watcher.close();
    }
  });

  test('a server refused watches by the kernel (ENOSPC) serves on, says so on /healthz, and still serves every change', {
    skip: canLimitWatches() ? false : 'no user namespaces here (unshare -U -r)',
  }, async () => {
    const root = skillsTree(6); // 19 folders; the namespace allows 6 watches
    // The limit set (none inside skills) and the kernel's (6: fewer than the 7 folders outside skills) both met.
    const server = await startHttp([root], { SKILLPORT_WATCH_LIMIT: '3' }, { inotifyWatches: 6 });
    const client = await connectHttp(server.url, 'modern');
    try {
      const skills = new SkillsClient(client);
      assert.equal((await skills.list()).skills.length, 6, 'every skill served');
      const health = async () =>
        (
          (await (await fetch(server.url.replace(/\/mcp$/, '/healthz'))).json()) as {
            watching?: { folders: number; swept: number; limit: number; degraded?: string };
          }
        ).watching;
      const watching = await eventually(
        async () => {
          const state = await health();
          return state !== undefined && state.swept > 0 ? state : undefined;
        },
        10_000,
        'the sweep shown',
      );
      assert.match(watching.degraded ?? '', /ENOSPC/);
      assert.equal(watching.limit, 3, 'SKILLPORT_WATCH_LIMIT reaches the watcher');
      assert.ok(watching.folders <= 6, `no more watches than the kernel gives (${watching.folders})`);
      assert.match(server.stderr(), /cannot watch folders for changes \(ENOSPC/);
      await sleep(1100);
      // The last skill's folders come last in the walk: refused, swept, and their changes served all the same.
      writeFileSync(join(root, 'skill-5/SKILL.md'), skillMd('skill-5', 'Changed with no watch left.'));
      writeFileSync(join(root, 'skill-5/references/deep/notes.md'), 'changed with no watch left\n');
      await eventually(
        async () => {
          const listed = (await skills.list()).skills.find((skill) => skill.frontmatter.name === 'skill-5');
          if (listed?.frontmatter.description !== 'Changed with no watch left.') return undefined;
          const file = await skills.read(listed, 'references/deep/notes.md').catch(() => undefined);
          return file?.verified && Buffer.from(file.bytes).toString() === 'changed with no watch left\n' ? true : undefined;
        },
        10_000,
        'both changes served',
      );
    } finally {
      await client.close();
      await server.stop();
    }
  });
});
