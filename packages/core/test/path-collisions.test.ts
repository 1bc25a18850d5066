import assert from 'node:assert/strict';
import { test } from 'node:test';
import { collisionWarnings, pathCollisions } from '../src/path-collisions.js';

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
