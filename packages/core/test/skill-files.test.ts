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
