import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import type { Client } from '@modelcontextprotocol/client';
import { connectStdio, eventually, makeTree, skillMd } from '@skillport/test-kit';

/**
 * Live reload must survive how files are really edited (issue 10, item 3): after a file is replaced rather than
 * written in place, later in-place edits must still be seen, and the new bytes served. Each pattern below is
 * followed by in-place edits, checked through a real MCP client.
 */

type Listing = Array<{ uri: string; name: string; entry: string }>;

/** Every listed skill, with its whole entry as the client gets it (the package digest in `_meta` covers every file). */
async function listing(skills: SkillsClient): Promise<Listing> {
  const entries: Listing = [];
  let cursor: string | undefined;
  do {
    const page = await skills.list(cursor !== undefined ? { cursor } : undefined);
    for (const skill of page.skills) entries.push({ uri: skill.uri, name: String(skill.frontmatter.name), entry: JSON.stringify(skill) });
    cursor = page.nextCursor;
  } while (cursor !== undefined);
  return entries.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
}

/** The text the server serves for a skill's file (verified against its listed digest by the SDK client). */
async function served(skills: SkillsClient, name: string, path: string): Promise<string | undefined> {
  const skill = (await skills.list()).skills.find((entry) => entry.frontmatter.name === name);
  if (skill === undefined) return undefined;
  try {
    const file = await skills.read(skill, path);
    return file.verified ? Buffer.from(file.bytes).toString() : undefined;
  } catch {
    return undefined; // not listed (yet) or refused as changed: try again
  }
}

async function expectServed(skills: SkillsClient, name: string, path: string, text: string, what: string): Promise<void> {
  await eventually(async () => ((await served(skills, name, path)) === text ? true : undefined), 10_000, what);
}

/** Two in-place edits (same file, same inode), each of which must be served. */
async function editInPlace(skills: SkillsClient, dir: string, name: string, path: string, what: string): Promise<void> {
  for (const round of [1, 2]) {
    const text = `${what}: in-place edit ${round}\n`;
    writeFileSync(join(dir, path), text);
    await expectServed(skills, name, path.split('/').slice(1).join('/'), text, `${what}, then in-place edit ${round}`);
  }
}

function git(dir: string, ...args: string[]): void {
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir, stdio: 'ignore' });
}

describe('live reload, whatever way files are edited', () => {
  test('replaced files, new, renamed and deleted folders, each followed by in-place edits (stdio, modern)', async () => {
    const dir = makeTree({
      'alpha/SKILL.md': skillMd('alpha'),
      'alpha/notes.md': 'v1\n',
      'beta/SKILL.md': skillMd('beta'),
      'beta/notes.md': 'beta v1\n',
    });
    // --ttl 0: the SDK client would otherwise keep answers for ttlMs; this test wants every answer fresh.
    const { client } = await connectStdio([dir, '--ttl', '0'], 'modern');
    const skills = new SkillsClient(client as Client);
    try {
      await expectServed(skills, 'alpha', 'notes.md', 'v1\n', 'the first bytes');

      // sed -i: writes a temporary file beside it and renames it over the original.
      execFileSync('sed', ['-i', 's/v1/v2 by sed/', join(dir, 'alpha/notes.md')]);
      await expectServed(skills, 'alpha', 'notes.md', 'v2 by sed\n', 'sed -i');
      await editInPlace(skills, dir, 'alpha', 'alpha/notes.md', 'after sed -i');

      // An editor's safe-save: write a temporary file, rename it over the original.
      writeFileSync(join(dir, 'alpha/.notes.md.tmp'), 'safe-saved\n');
      renameSync(join(dir, 'alpha/.notes.md.tmp'), join(dir, 'alpha/notes.md'));
      await expectServed(skills, 'alpha', 'notes.md', 'safe-saved\n', 'safe-save');
      await editInPlace(skills, dir, 'alpha', 'alpha/notes.md', 'after safe-save');

      // rm + recreate.
      rmSync(join(dir, 'alpha/notes.md'));
      writeFileSync(join(dir, 'alpha/notes.md'), 'recreated\n');
      await expectServed(skills, 'alpha', 'notes.md', 'recreated\n', 'rm + recreate');
      await editInPlace(skills, dir, 'alpha', 'alpha/notes.md', 'after rm + recreate');

      // git checkout of a file.
      git(dir, 'init', '-q');
      git(dir, 'add', '-A');
      git(dir, 'commit', '-q', '-m', 'base');
      writeFileSync(join(dir, 'alpha/notes.md'), 'edited, to be checked out\n');
      await expectServed(skills, 'alpha', 'notes.md', 'edited, to be checked out\n', 'an edit before git checkout');
      git(dir, 'checkout', '--', 'alpha/notes.md');
      await expectServed(skills, 'alpha', 'notes.md', 'after rm + recreate: in-place edit 2\n', 'git checkout of the file');
      await editInPlace(skills, dir, 'alpha', 'alpha/notes.md', 'after git checkout');

      // A renamed skill folder (served under the skill's name; its files are in the new folder).
      renameSync(join(dir, 'alpha'), join(dir, 'alpha-renamed'));
      await editInPlace(skills, dir, 'alpha', 'alpha-renamed/notes.md', 'after renaming the folder');

      // A new skill folder, made in place (mkdir, then files written into it).
      mkdirSync(join(dir, 'gamma/references'), { recursive: true });
      writeFileSync(join(dir, 'gamma/SKILL.md'), skillMd('gamma'));
      writeFileSync(join(dir, 'gamma/references/guide.md'), 'guide v1\n');
      await expectServed(skills, 'gamma', 'references/guide.md', 'guide v1\n', 'a new skill folder');
      await editInPlace(skills, dir, 'gamma', 'gamma/references/guide.md', 'in a new skill folder');

      // A deleted folder goes; made again, it comes back and its edits are seen.
      rmSync(join(dir, 'beta'), { recursive: true });
      await eventually(async () => ((await listing(skills)).some((entry) => entry.name === 'beta') ? undefined : true), 10_000, 'beta to go');
      mkdirSync(join(dir, 'beta'));
      writeFileSync(join(dir, 'beta/SKILL.md'), skillMd('beta'));
      writeFileSync(join(dir, 'beta/notes.md'), 'beta again\n');
      await expectServed(skills, 'beta', 'notes.md', 'beta again\n', 'the deleted folder made again');
      await editInPlace(skills, dir, 'beta', 'beta/notes.md', 'in a folder deleted and made again');

      // A folder replaced by another under the same name (a checkout of another branch, a re-unpacked download).
      const staging = makeTree({ 'beta/SKILL.md': skillMd('beta'), 'beta/notes.md': 'beta swapped in\n' });
      rmSync(join(dir, 'beta'), { recursive: true });
      renameSync(join(staging, 'beta'), join(dir, 'beta'));
      await expectServed(skills, 'beta', 'notes.md', 'beta swapped in\n', 'a folder swapped in under the same name');
      await editInPlace(skills, dir, 'beta', 'beta/notes.md', 'in a swapped-in folder');
    } finally {
      await client.close();
    }
  });

  test('after a burst of churn and no reader, the listing converges on a fresh scan by itself (issue 17)', async (t) => {
    const spec: Record<string, string> = {};
    for (let i = 0; i < 4; i++) {
      spec[`s${i}/SKILL.md`] = skillMd(`s${i}`);
      spec[`s${i}/notes.md`] = `s${i} v0\n`;
    }
    const dir = makeTree(spec);
    const { client } = await connectStdio([dir, '--ttl', '0'], 'modern');
    const skills = new SkillsClient(client as Client);
    try {
      assert.equal((await listing(skills)).length, 4);
      // A fixed sequence (a small linear congruential generator): the same churn on every run.
      let seed = 17;
      const random = (n: number) => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed % n;
      };
      let made = 4;
      const present = () => Array.from({ length: made }, (_, i) => `s${i}`).filter((name) => existsSync(join(dir, name)));
      // About five seconds of changes every 200 ms, only listings read meanwhile (no file is read: nothing trips on a stale one).
      // Edits in place and replacements (sed -i, safe-save) weigh most: an edit after a replacement is what gets lost.
      const ops = [0, 0, 1, 1, 1, 1, 2, 3, 4, 5];
      for (let step = 0; step < 25; step++) {
        const names = present();
        const name = names[random(names.length)]!;
        const folder = join(dir, name);
        const op = ops[random(ops.length)];
        switch (op) {
          case 0: // in place
            writeFileSync(join(folder, 'notes.md'), `${name} step ${step}\n`.repeat(1 + random(5)));
            break;
          case 1: // sed -i, then soon after an edit in place (a script, then an editor)
            execFileSync('sed', ['-i', `s/$/ sed ${step}/`, join(folder, 'notes.md')]);
            await new Promise((r) => setTimeout(r, 300));
            writeFileSync(join(folder, 'notes.md'), `${name} after sed at step ${step}\n`);
            break;
          case 2: // safe-save of SKILL.md with a new description
            writeFileSync(join(folder, '.SKILL.md.swp'), skillMd(name, `Changed at step ${step}. Use when testing churn.`));
            renameSync(join(folder, '.SKILL.md.swp'), join(folder, 'SKILL.md'));
            break;
          case 3: // rename the folder (phantoms of the old name must go)
            renameSync(folder, join(dir, `s${made}`));
            made++;
            break;
          case 4: // delete a folder, if more than two are left
            if (names.length > 2) rmSync(folder, { recursive: true });
            break;
          default: // a new folder
            mkdirSync(join(dir, `s${made}`));
            writeFileSync(join(dir, `s${made}`, 'SKILL.md'), skillMd(`s${made}`));
            writeFileSync(join(dir, `s${made}`, 'notes.md'), `new at step ${step}\n`);
            made++;
        }
        await listing(skills);
        await new Promise((r) => setTimeout(r, 200));
      }
      // Quiet now: a fresh server (no cache) scans the disk; the long-running one must come to list the same.
      const fresh = await connectStdio([dir, '--ttl', '0'], 'modern');
      const expected = await listing(new SkillsClient(fresh.client as Client));
      await fresh.client.close();
      assert.ok(expected.length >= 2);
      let last: Listing = [];
      const quiet = Date.now();
      try {
        await eventually(
          async () => {
            last = await listing(skills);
            return JSON.stringify(last) === JSON.stringify(expected) ? true : undefined;
          },
          10_000,
          'the listing to equal a fresh scan',
        );
        t.diagnostic(`converged ${Date.now() - quiet} ms after the fresh scan's listing`);
      } catch (error) {
        assert.deepEqual(last, expected, String(error));
      }
    } finally {
      await client.close();
    }
  });
});
