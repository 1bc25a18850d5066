import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { eventually, makeTree, removeTrees, skillMd } from '@skillport/test-kit';
import { TreeWatcher } from '../src/catalog/tree-watcher.js';
import { restoredCatalog } from './restored-catalog.js';

after(removeTrees);

/** A tree of `count` skill folders, each with a nested `references/deep` folder: 3 folders per skill. */
function wideTree(count: number): string {
  const spec: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const name = `skill-${String(i).padStart(3, '0')}`;
    spec[`${name}/SKILL.md`] = skillMd(name, `Skill number ${i}.`);
    spec[`${name}/references/deep/notes.md`] = `notes ${i}\n`;
  }
  return makeTree(spec);
}

describe('TreeWatcher: the first walk in slices (issue 13: arming 200,000 folders took half a warm start)', () => {
  test('start returns before a large tree is armed; the rest is armed in slices and its changes are heard', async () => {
    const root = wideTree(40); // 121 folders with the root
    const events: string[] = [];
    const watcher = new TreeWatcher([root], (path) => path !== undefined && events.push(path), { perFolder: true, startBudgetMs: 0, sliceMs: 0 });
    try {
      watcher.start();
      // A budget of 0 lets the first step arm one batch of folders, not the whole tree.
      assert.equal(watcher.walking, true, 'the walk goes on after start');
      assert.ok(watcher.folderCount < 121, `armed at start: ${watcher.folderCount}`);
      await watcher.armed;
      assert.equal(watcher.walking, false);
      assert.equal(watcher.folderCount, 121, 'every folder is watched once the walk is done');
      // The deepest folder of the last skill is armed in the last slice: a file written there is heard.
      const last = join(root, 'skill-039', 'references', 'deep', 'notes.md');
      writeFileSync(last, 'changed\n');
      await eventually(async () => (events.includes(last) ? true : undefined), 5000, 'an event from a folder armed in a later slice');
    } finally {
      watcher.close();
    }
  });

  test('while the server answers requests the walk yields between short slices; idle, it runs on', async () => {
    const root = wideTree(150); // 451 folders with the root
    // How many turns other work (a request's callbacks, here an immediate re-queued each turn) gets while the walk runs.
    const turnsDuringWalk = async (busy: boolean): Promise<{ turns: number; folders: number }> => {
      const watcher = new TreeWatcher([root], () => {}, { perFolder: true, startBudgetMs: 0, sliceMs: 60_000, busySliceMs: 0 });
      watcher.pace({ idleFor: () => (busy ? 0 : Number.POSITIVE_INFINITY) });
      let turns = 0;
      let walking = true;
      const other = () => {
        turns++;
        if (walking) setImmediate(other);
      };
      try {
        watcher.start();
        setImmediate(other);
        await watcher.armed;
        walking = false;
        return { turns, folders: watcher.folderCount };
      } finally {
        watcher.close();
      }
    };
    const idle = await turnsDuringWalk(false);
    const busy = await turnsDuringWalk(true);
    assert.equal(idle.folders, 451);
    assert.equal(busy.folders, 451, 'a paced walk still arms every folder');
    // Idle: the whole walk in one slice (its budget is a minute). Busy: a slice per 16 folders at least, a pause after each.
    assert.ok(idle.turns <= 3, `idle: other work ran ${idle.turns} times during the walk`);
    assert.ok(busy.turns >= 451 / 16, `busy: other work ran ${busy.turns} times during the walk`);
  });

  test('a folder created during the walk is armed when its event comes, and close() stops the walk', async () => {
    const root = wideTree(40);
    const events: string[] = [];
    const watcher = new TreeWatcher([root], (path) => path !== undefined && events.push(path), { perFolder: true, startBudgetMs: 0, sliceMs: 0 });
    watcher.start();
    // The root is watched from the start: a folder made in it is armed at once (its event), walk or not.
    const made = join(root, 'new-folder');
    mkdirSync(join(made, 'inner'), { recursive: true });
    await eventually(async () => (events.includes(made) ? true : undefined), 5000, 'the new folder reported');
    await watcher.armed;
    assert.equal(watcher.folderCount, 123, 'the tree plus the new folder and the one inside it');
    watcher.close();
    assert.equal(watcher.folderCount, 0);

    const second = new TreeWatcher([root], () => {}, { perFolder: true, startBudgetMs: 0, sliceMs: 0 });
    second.start();
    second.close(); // mid-walk
    await second.armed; // resolves: nothing waits for a walk that was stopped
    assert.equal(second.folderCount, 0);
    assert.equal(second.walking, false);
  });

  test('a restored catalog is checked against the disk only once the folders are watched', async () => {
    const root = wideTree(30);
    const restored = await restoredCatalog(root);
    try {
      assert.equal(restored.unverified, true);
      restored.watch();
      const verifying = restored.verify();
      // Written after `watch` and before the walk could arm this folder: either its event or the check must find it.
      writeFileSync(join(root, 'skill-029', 'SKILL.md'), skillMd('skill-029', 'Changed while the watches were being armed.'));
      await verifying;
      assert.equal(restored.watching?.arming, false, 'the check ran after the walk');
      await eventually(
        async () => (restored.snapshot.skills.find((skill) => skill.name === 'skill-029')?.description.startsWith('Changed') ? true : undefined),
        5000,
        'the change served',
      );
    } finally {
      restored.close();
    }
  });

  test('the walk starts only once walkAfter resolves (serve: once it listens), the known folders at once', async () => {
    const root = wideTree(40);
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const watcher = new TreeWatcher([root], () => {}, { perFolder: true, startBudgetMs: 0, sliceMs: 0 });
    try {
      const last = join(root, 'skill-039');
      watcher.start([last], [], gate);
      const atStart = watcher.folderCount;
      await new Promise((resolve) => setTimeout(resolve, 100));
      assert.equal(watcher.folderCount, atStart, 'no slice of the walk ran before the gate opened');
      assert.equal(watcher.walking, true);
      open();
      await watcher.armed;
      assert.equal(watcher.folderCount, 121);
    } finally {
      watcher.close();
    }
  });

  test('known folders are watched before start returns: a change there is heard however far the walk has got', async () => {
    const root = wideTree(40);
    const events: string[] = [];
    const watcher = new TreeWatcher([root], (path) => path !== undefined && events.push(path), { perFolder: true, startBudgetMs: 0, sliceMs: 0 });
    const last = join(root, 'skill-039');
    try {
      watcher.start([last, join(last, 'references'), join(last, 'references', 'deep'), join(root, 'gone-since')]);
      assert.equal(watcher.walking, true, 'the walk has not reached the last skill');
      // Written before any slice of the walk ran: only a watch armed by start itself hears it.
      const deep = join(last, 'references', 'deep', 'notes.md');
      writeFileSync(deep, 'changed while arming\n');
      writeFileSync(join(last, 'SKILL.md'), skillMd('skill-039', 'Changed while arming.'));
      await watcher.armed;
      assert.equal(watcher.folderCount, 121, 'the walk lists the known folders too, once each (a folder gone is skipped)');
      await eventually(async () => (events.includes(deep) && events.includes(join(last, 'SKILL.md')) ? true : undefined), 5000, 'both changes heard');
      // A folder first armed from the list is watched as any other once the walk has listed it.
      mkdirSync(join(last, 'references', 'deep', 'new'));
      await eventually(async () => (events.includes(join(last, 'references', 'deep', 'new')) ? true : undefined), 5000, 'a folder made below it');
    } finally {
      watcher.close();
    }
  });

  test('a restored catalog hears a change to a served file from the first answer, before the walk and without the check', async () => {
    const root = wideTree(30);
    const restored = await restoredCatalog(root);
    try {
      restored.watch();
      assert.equal(restored.watching?.arming, true, 'the walk goes on after watch()');
      const notes = join(root, 'skill-029', 'references', 'deep', 'notes.md');
      writeFileSync(notes, 'changed right after the restart\n');
      // No verify(): the check against the disk never runs, so only a watch armed before this write can serve it.
      const uri = 'skill://skill-029/references/deep/notes.md';
      const before = restored.snapshot.file(uri)?.file.digest;
      assert.ok(before !== undefined);
      await eventually(async () => (restored.snapshot.file(uri)?.file.digest !== before ? true : undefined), 5000, 'the new digest served');
      assert.equal(restored.unverified, true, 'heard, not found by the check');
    } finally {
      restored.close();
    }
  });

  test('a change heard during the check of a restored catalog is served before the check ends, and the check keeps it', async () => {
    const root = wideTree(60);
    // The check runs in a worker (a thread to start, then a scan): it takes far longer than a change's rescan.
    const restored = await restoredCatalog(root, { inlineCheckMax: 0, watchSlices: { startBudgetMs: 50, sliceMs: 10 } });
    try {
      restored.watch();
      const verifying = restored.verify();
      writeFileSync(join(root, 'skill-059', 'SKILL.md'), skillMd('skill-059', 'Changed during the check.'));
      const changed = () => restored.snapshot.skills.find((skill) => skill.name === 'skill-059')?.description.startsWith('Changed') === true;
      let servedUnverified: boolean | undefined;
      await eventually(async () => (changed() ? (servedUnverified = restored.unverified) || true : undefined), 5000, 'the change served');
      assert.equal(servedUnverified, true, 'served while the check was still running (not queued behind it)');
      await verifying;
      assert.equal(restored.unverified, false);
      assert.equal(changed(), true, 'the check did not put back what it read before the change');
    } finally {
      restored.close();
    }
  });
});

describe('TreeWatcher: the known folders of a large restored catalog watched by a worker', () => {
  test('entered as watched at once, open once knownArmed resolves: changes there are heard before any slice of the walk', async () => {
    const root = wideTree(40);
    const events: string[] = [];
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    const watcher = new TreeWatcher([root], (path) => path !== undefined && events.push(path), {
      perFolder: true,
      startBudgetMs: 0,
      sliceMs: 0,
      knownOnWorkerFrom: 0,
    });
    const last = join(root, 'skill-039');
    const first = join(root, 'skill-000');
    try {
      watcher.start([first, last, join(last, 'references'), join(last, 'references', 'deep'), join(root, 'gone-since')], [first, last], gate);
      await watcher.knownArmed;
      assert.equal(watcher.walking, true, 'the walk waits for its gate');
      // Written before any slice of the walk ran: only the worker's watches can hear them.
      const deep = join(last, 'references', 'deep', 'notes.md');
      writeFileSync(deep, 'changed while arming\n');
      writeFileSync(join(last, 'SKILL.md'), skillMd('skill-039', 'Changed while arming.'));
      await eventually(async () => (events.includes(deep) && events.includes(join(last, 'SKILL.md')) ? true : undefined), 5000, 'both changes heard');
      open();
      await watcher.armed;
      assert.equal(watcher.folderCount, 121, 'the walk lists the known folders once each; the one gone is not counted');
      // A folder armed by the worker is watched as any other once the walk has listed it: what is made in it is armed.
      mkdirSync(join(last, 'references', 'deep', 'new'));
      await eventually(async () => (events.includes(join(last, 'references', 'deep', 'new')) ? true : undefined), 5000, 'a folder made below it');
      writeFileSync(join(last, 'references', 'deep', 'new', 'x.md'), 'x\n');
      await eventually(async () => (events.includes(join(last, 'references', 'deep', 'new', 'x.md')) ? true : undefined), 5000, 'a file in it');
      // Removed: its watch (the worker's) is closed with it, and the folder is no longer counted.
      rmSync(join(last, 'references'), { recursive: true });
      await eventually(async () => (watcher.folderCount === 119 ? true : undefined), 5000, 'its watches dropped');
    } finally {
      watcher.close();
    }
  });

  test('close() while the worker arms: knownArmed and armed resolve, nothing is left watching', async () => {
    const root = wideTree(30);
    const watcher = new TreeWatcher([root], () => {}, { perFolder: true, startBudgetMs: 0, sliceMs: 0, knownOnWorkerFrom: 0 });
    watcher.start(
      Array.from({ length: 30 }, (_, i) => join(root, `skill-${String(i).padStart(3, '0')}`)),
      [],
    );
    watcher.close();
    await watcher.knownArmed;
    await watcher.armed;
    assert.equal(watcher.folderCount, 0);
  });

  test('a restored catalog: a served file changed once watchArmed resolves is served new, heard (not found by the check)', async () => {
    const root = wideTree(30);
    const restored = await restoredCatalog(root, { knownWatchesOnWorkerFrom: 0 });
    try {
      restored.watch(new Promise(() => {}));
      await restored.watchArmed();
      const notes = join(root, 'skill-029', 'references', 'deep', 'notes.md');
      const uri = 'skill://skill-029/references/deep/notes.md';
      const before = restored.snapshot.file(uri)?.file.digest;
      assert.ok(before !== undefined);
      writeFileSync(notes, 'changed right after the restart\n');
      await eventually(async () => (restored.snapshot.file(uri)?.file.digest !== before ? true : undefined), 5000, 'the new digest served');
      assert.equal(restored.unverified, true, 'heard, not found by the check');
      assert.equal(restored.watching?.arming, true, 'the walk never ran: its gate stays shut');
    } finally {
      restored.close();
    }
  });
});

describe('LiveCatalog watchEarly: a restored catalog armed while its first snapshot is built', () => {
  test('its served folders are watched before watch() is called; watch() then walks the rest, and the check follows it', async () => {
    for (const onWorkerFrom of [0, Number.POSITIVE_INFINITY]) {
      const root = wideTree(30);
      const restored = await restoredCatalog(root, { knownWatchesOnWorkerFrom: onWorkerFrom, watchEarly: true });
      const label = onWorkerFrom === 0 ? 'on a worker' : 'on this thread';
      try {
        await restored.watchArmed();
        const uri = 'skill://skill-029/references/deep/notes.md';
        const before = restored.snapshot.file(uri)?.file.digest;
        assert.ok(before !== undefined);
        writeFileSync(join(root, 'skill-029', 'references', 'deep', 'notes.md'), 'changed before watch()\n');
        await eventually(async () => (restored.snapshot.file(uri)?.file.digest !== before ? true : undefined), 5000, `${label}: the new digest served`);
        assert.equal(restored.unverified, true, `${label}: heard, not found by the check`);
        restored.watch();
        const verifying = restored.verify();
        // A skill folder no catalog knows, made once watching: the walk or the check finds it.
        mkdirSync(join(root, 'fresh'));
        writeFileSync(join(root, 'fresh', 'SKILL.md'), skillMd('fresh', 'Made after the restart.'));
        await verifying;
        assert.equal(restored.watching?.arming, false, `${label}: the check ran after the walk`);
        assert.equal(restored.watching?.folders, 92, `${label}: the root, 30 skills with 2 folders each, and the new one`);
        await eventually(
          async () => (restored.snapshot.skills.some((skill) => skill.name === 'fresh') ? true : undefined),
          5000,
          `${label}: the new skill served`,
        );
      } finally {
        restored.close();
      }
    }
  });
});
