import assert from 'node:assert/strict';
import { test } from 'node:test';
import { collisionWarnings, pathCollisions, reservedNameErrors, windowsDeviceName } from '../src/path-collisions.js';

// Windows (Win32 paths) drops trailing dots and spaces from every name, so `a.md.` and `a.md ` are `a.md` there:
// installing such a skill on Windows loses one of the files, like a case collision does.
test('names that differ only by trailing dots or spaces collide, with a message saying why', () => {
  for (const [first, second] of [
    ['a.md', 'a.md.'],
    ['a.md', 'a.md '],
    ['A.md', 'a.md. .'],
  ] as const) {
    const found = pathCollisions(['SKILL.md', first, second]);
    assert.equal(found.length, 1, `${JSON.stringify(first)} / ${JSON.stringify(second)}`);
    const [warning] = collisionWarnings(['SKILL.md', first, second]);
    assert.match(warning!.message, /Windows/);
  }
  const folder = pathCollisions(['SKILL.md', 'ref/a.md', 'ref./b.md']);
  assert.deepEqual(
    folder.map((collision) => collision.kind),
    ['folder'],
  );
});

test('distinct names stay distinct', () => {
  assert.deepEqual(pathCollisions(['SKILL.md', 'a.md', 'a.mdx', 'a..md', 'a.m d', '.a', 'a']), []);
});

// Windows keeps CON, PRN, AUX, NUL, COM0-9, LPT0-9 (and COM¹…, CONIN$, CONOUT$) for devices, with any extension.
test('names of Windows devices, with any extension, case, trailing dots or spaces, are errors naming the device', () => {
  const reserved = ['CON', 'con.md', 'Nul.tar.gz', 'aux.', 'prn .txt', 'COM1', 'com9.md', 'lpt1. ', 'LPT¹.md', 'com0', 'conin$', 'CONOUT$.log', 'nul.'];
  for (const name of reserved) {
    const [error] = reservedNameErrors(['SKILL.md', `references/${name}`]);
    assert.ok(error, name);
    assert.equal(error.path, `references/${name}`);
    assert.match(error.message, /device on Windows .*the file cannot be created there \(rename it\)/, name);
    assert.equal(windowsDeviceName(name), name.replace(/[. ].*$/, '').toUpperCase() || undefined, name);
  }
  // A folder is reported once, at the folder, whatever it holds.
  assert.deepEqual(
    reservedNameErrors(['SKILL.md', 'Aux/a.md', 'Aux/b.md', 'x/lpt3/c.md']).map((error) => error.path),
    ['Aux', 'x/lpt3'],
  );
  assert.match(reservedNameErrors(['Aux/a.md'])[0]!.message, /the folder cannot be created/);
});

test('names that only start like a device are fine', () => {
  const fine = [
    'console.md',
    'con-notes.md',
    'conf',
    'COM10',
    'LPT',
    'auxiliary.md',
    'nul_',
    'x.con',
    'a.nul.md',
    'ＣＯＮ.md',
    ' con.md',
    'com1a.md',
    'SKILL.md',
  ];
  assert.deepEqual(reservedNameErrors(fine.map((name) => `refs/${name}`)), []);
  for (const name of fine) assert.equal(windowsDeviceName(name), undefined, name);
});

test('past 20 device names, one line counts the rest', () => {
  const paths = Array.from({ length: 25 }, (_, i) => `d${i}/nul.md`);
  const errors = reservedNameErrors(paths);
  assert.equal(errors.length, 21);
  assert.match(errors[20]!.message, /^5 more files or folders are named for Windows devices/);
});

test('names Windows cannot create are warned of, naming the character, and refused at publish', async () => {
  const { refusedAtPublish } = await import('../src/publish-rules.js');
  const paths = ['SKILL.md', 'refs/note:v2.md', 'a*b.md', 'q?.md', 'a<b>.md', 'a|b.md', 'a"b.md', 'plain name.md', 'ok-[x]+(y)&#%.md'];
  const warnings = collisionWarnings(paths);
  assert.deepEqual(
    warnings.map((warning) => warning.path),
    ['refs/note:v2.md', 'a*b.md', 'q?.md', 'a<b>.md', 'a|b.md', 'a"b.md'],
  );
  assert.match(warnings[0]!.message, /holds ':'.*alternate data stream/);
  assert.match(warnings[1]!.message, /holds '\*', which Windows does not allow in a name/);
  const problems = warnings.map((warning) => ({ severity: 'warning' as const, ...warning }));
  assert.equal(refusedAtPublish(problems, paths).length, 6, 'each is refused at publish');
});
