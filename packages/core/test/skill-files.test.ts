import assert from 'node:assert/strict';
import { test } from 'node:test';
import { inspectSkillFiles, packageDigest, unsafePathReason } from '../src/index.js';

const md = (name: string) => Buffer.from(`---\nname: ${name}\ndescription: Does ${name} things.\n---\n\n# ${name}\n\n## Usage\n`);

test('an in-memory skill gets the same manifest as a folder would', () => {
  const result = inspectSkillFiles(
    [
      { path: 'scripts/run.sh', bytes: Buffer.from('echo hi\n') },
      { path: 'SKILL.md', bytes: md('demo') },
    ],
    { folderName: 'demo' },
  );
  assert.ok(result.skill);
  assert.equal(result.skill.name, 'demo');
  assert.deepEqual(
    result.skill.files.map((file) => file.path),
    ['SKILL.md', 'scripts/run.sh'],
  );
  assert.deepEqual(result.skill.headings, ['demo', 'Usage']);
  assert.equal(result.skill.packageDigest, packageDigest(result.skill.files));
  assert.equal(result.skill.totalBytes, md('demo').byteLength + 8);
});

test('unsafe paths are refused with the reason', () => {
  for (const [path, reason] of [
    ['../x', "'..' segment"],
    ['a/../../x', "'..' segment"],
    ['/etc/passwd', 'absolute'],
    ['C:evil', 'drive-letter'],
    ['a\\..\\b', 'backslash'],
    ['a//b', 'empty path segment'],
    ['./a', "'.' segment"],
    ['a\u0000b', 'control character'],
    ['a\uD800b', 'not valid Unicode'],
    ['', 'empty path'],
  ] as const) {
    assert.match(unsafePathReason(path) ?? 'accepted', new RegExp(reason.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), path);
    const result = inspectSkillFiles([
      { path: 'SKILL.md', bytes: md('demo') },
      { path, bytes: Buffer.from('x') },
    ]);
    assert.equal(result.skill, undefined, path);
    assert.match(result.problems[0]!.message, /unsafe file path/);
  }
  assert.equal(unsafePathReason('references/a b%20#?.md'), undefined);
});

test('limits, duplicates, file/folder clashes, missing or malformed SKILL.md', () => {
  const skill = { path: 'SKILL.md', bytes: md('demo') };
  assert.match(
    inspectSkillFiles([skill, { path: 'big', bytes: Buffer.alloc(2048) }], { limits: { maxFiles: 10, maxBytes: 1024, maxFrontmatterBytes: 1024, maxDepth: 4 } })
      .problems[0]!.message,
    /larger than 1 KiB/,
  );
  assert.match(
    inspectSkillFiles([skill, { path: 'a', bytes: Buffer.from('1') }, { path: 'b', bytes: Buffer.from('2') }], {
      limits: { maxFiles: 2, maxBytes: 1024, maxFrontmatterBytes: 1024, maxDepth: 4 },
    }).problems[0]!.message,
    /more than 2 files/,
  );
  assert.match(inspectSkillFiles([skill, skill]).problems[0]!.message, /listed twice/);
  assert.match(
    inspectSkillFiles([skill, { path: 'a', bytes: Buffer.from('1') }, { path: 'a/b', bytes: Buffer.from('2') }]).problems[0]!.message,
    /both a file and a folder/,
  );
  assert.match(inspectSkillFiles([{ path: 'README.md', bytes: Buffer.from('x') }]).problems[0]!.message, /Missing required file: SKILL.md/);
  assert.equal(inspectSkillFiles([{ path: 'SKILL.md', bytes: Buffer.from('no frontmatter') }]).skill, undefined);
  assert.equal(inspectSkillFiles([{ path: 'SKILL.md', bytes: Buffer.from([0xff, 0xfe, 0x00]) }]).skill, undefined);
  const lower = inspectSkillFiles([{ path: 'skill.md', bytes: md('demo') }]);
  assert.deepEqual(
    lower.skill?.files.map((file) => file.path),
    ['SKILL.md'],
  );
  assert.match(lower.problems[0]!.message, /named skill.md/);
  assert.match(
    inspectSkillFiles([skill], { folderName: 'other' })
      .problems.map((p) => p.message)
      .join('\n'),
    /other/,
  );
});

test('file names that differ only by case or Unicode normalisation are named, both of them, as a warning', () => {
  const nfc = 'caf\u00e9.md';
  const nfd = 'cafe\u0301.md';
  const result = inspectSkillFiles(
    [
      { path: 'SKILL.md', bytes: md('demo') },
      { path: 'skill.md', bytes: md('demo') },
      { path: 'A.md', bytes: Buffer.from('a') },
      { path: 'a.md', bytes: Buffer.from('b') },
      { path: `docs/${nfc}`, bytes: Buffer.from('c') },
      { path: `docs/${nfd}`, bytes: Buffer.from('d') },
      { path: 'Refs/one.md', bytes: Buffer.from('e') },
      { path: 'refs/two.md', bytes: Buffer.from('f') },
      { path: 'refs/Two.md', bytes: Buffer.from('g') },
      { path: 'fine/B.md', bytes: Buffer.from('h') },
      { path: 'fine/c.md', bytes: Buffer.from('i') },
    ],
    { folderName: 'demo' },
  );
  const collisions = result.problems.filter((problem) => /differ only|normalisations/.test(problem.message));
  assert.deepEqual(
    collisions.map((problem) => [problem.severity, problem.path, problem.message]).sort((a, b) => (a[1]! < b[1]! ? -1 : 1)),
    [
      ['warning', 'a.md', "'A.md' and 'a.md' differ only in case: one file on macOS and Windows (rename one)"],
      ['warning', 'refs', "'Refs' and 'refs' differ only in case: one folder on macOS and Windows (rename one)"],
      ['warning', 'refs/two.md', "'refs/Two.md' and 'refs/two.md' differ only in case: one file on macOS and Windows (rename one)"],
      ['warning', 'skill.md', "'SKILL.md' and 'skill.md' differ only in case: one file on macOS and Windows (rename one)"],
      ['warning', `docs/${nfc}`, `'docs/${nfd}' (NFD) and 'docs/${nfc}' (NFC) are one name in two Unicode normalisations: one file on macOS (rename one)`],
    ].sort((a, b) => (a[1]! < b[1]! ? -1 : 1)),
  );
  // A warning: the skill is still readable (served leniently); publishing, which is strict, refuses it.
  assert.ok(result.skill);
});

test('a skill full of colliding names reports a bounded number of them', () => {
  const entries = [{ path: 'SKILL.md', bytes: md('demo') }];
  for (let i = 0; i < 200; i++) entries.push({ path: `f${i}.md`, bytes: Buffer.from('x') }, { path: `F${i}.md`, bytes: Buffer.from('y') });
  const result = inspectSkillFiles(entries, { folderName: 'demo' });
  const collisions = result.problems.filter((problem) => /differ only|more names/.test(problem.message));
  assert.equal(collisions.length, 21);
  assert.match(collisions.at(-1)!.message, /^180 more names collide by case or Unicode normalisation/);
});

test('an archive holding a Windows device name is refused, naming the file', () => {
  const result = inspectSkillFiles(
    [
      { path: 'SKILL.md', bytes: md('demo') },
      { path: 'references/nul.txt', bytes: Buffer.from('x') },
      { path: 'references/console.md', bytes: Buffer.from('y') },
    ],
    { folderName: 'demo' },
  );
  assert.equal(result.skill, undefined);
  assert.deepEqual(
    result.problems.map((problem) => [problem.severity, problem.path]),
    [['error', 'references/nul.txt']],
  );
  assert.match(result.problems[0]!.message, /named for the NUL device on Windows/);
});
