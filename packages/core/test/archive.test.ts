import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { after, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import {
  archiveFormatOf,
  discoverSkills,
  inspectSkillArchive,
  inspectSkillFolder,
  isSkillArchiveName,
  readSkillArchive,
  unsafePathReason,
} from '../src/index.js';
import { makeOverlappingZipBomb, makeTar, makeTarGz, makeZip, paxPath } from '@skillport/test-kit';
import { CORPUS, removeTrees, skillMd } from './helpers.js';

after(removeTrees);

const MiB = 1024 * 1024;

/** The one error a refused archive reports (and that it kept no files). */
async function refusal(source: Uint8Array | string, limits?: Parameters<typeof readSkillArchive>[1]): Promise<string> {
  const result = await readSkillArchive(source, limits);
  const errors = result.problems.filter((problem) => problem.severity === 'error');
  assert.equal(errors.length, 1, `expected one error, got ${JSON.stringify(result.problems)}`);
  assert.deepEqual(result.files, []);
  assert.ok(!errors[0]!.message.includes('\n'), 'one line');
  return errors[0]!.message;
}

const paths = (files: { path: string }[]) => files.map((file) => file.path).sort();

test("a tar.gz with a single top folder is that folder's skill", async () => {
  const archive = makeTarGz([
    { path: 'my-skill/', type: '5' },
    { path: 'my-skill/SKILL.md', content: skillMd('my-skill') },
    { path: 'my-skill/scripts/', type: '5' },
    { path: 'my-skill/scripts/run.sh', content: 'echo hi\n' },
  ]);
  const result = await readSkillArchive(archive);
  assert.equal(result.format, 'tar.gz');
  assert.equal(result.folderName, 'my-skill');
  assert.deepEqual(paths(result.files), ['SKILL.md', 'scripts/run.sh']);
  assert.deepEqual(result.problems, []);
  const inspected = await inspectSkillArchive(archive);
  assert.equal(inspected.skill?.name, 'my-skill');
  assert.equal(inspected.skill?.folderName, 'my-skill');
  assert.deepEqual(inspected.problems, []);
});

test('a tar made with `tar czf x.tgz .` (./ prefixes) has its files at the root', async () => {
  const result = await readSkillArchive(
    makeTarGz([
      { path: './', type: '5' },
      { path: './SKILL.md', content: skillMd('dot') },
      { path: './a/b.txt', content: 'b' },
    ]),
  );
  assert.equal(result.folderName, undefined);
  assert.deepEqual(paths(result.files), ['SKILL.md', 'a/b.txt']);
});

test('a zip with folder entries and files at the root reads as is; an uncompressed tar too', async () => {
  const zip = makeZip([
    { path: 'SKILL.md', content: skillMd('zipped') },
    { path: 'references/', unixMode: 0o40755 },
    { path: 'references/a.md', content: '# A\n', unixMode: 0o100644 },
    { path: 'logo.bin', content: Buffer.from([0, 1, 2, 255]), method: 'store' },
  ]);
  const result = await readSkillArchive(zip);
  assert.equal(result.format, 'zip');
  assert.equal(result.folderName, undefined);
  assert.deepEqual(paths(result.files), ['SKILL.md', 'logo.bin', 'references/a.md']);
  assert.deepEqual([...result.files.find((file) => file.path === 'logo.bin')!.bytes], [0, 1, 2, 255]);
  const tar = await readSkillArchive(makeTar([{ path: 'SKILL.md', content: skillMd('plain') }]));
  assert.equal(tar.format, 'tar');
  assert.deepEqual(paths(tar.files), ['SKILL.md']);
});

test('the format comes from the bytes, not the name: a .skill may be a zip or a tar.gz', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'skillport-archive-'));
  writeFileSync(join(dir, 'a.skill'), makeZip([{ path: 'alpha/SKILL.md', content: skillMd('alpha') }]));
  writeFileSync(join(dir, 'b.skill'), makeTarGz([{ path: 'beta/SKILL.md', content: skillMd('beta') }]));
  writeFileSync(join(dir, 'c.zip'), 'this is not a zip');
  assert.equal((await inspectSkillArchive(join(dir, 'a.skill'))).skill?.name, 'alpha');
  assert.equal((await inspectSkillArchive(join(dir, 'b.skill'))).skill?.name, 'beta');
  assert.match(await refusal(join(dir, 'c.zip')), /^not a skill archive/);
  assert.match(await refusal(join(dir, 'missing.zip')), /^cannot read archive: ENOENT/);
  assert.match(await refusal(dir), /^not a regular file/);
  assert.equal(archiveFormatOf(Buffer.from('PK\u0003\u0004')), 'zip');
  assert.equal(archiveFormatOf(Buffer.alloc(600)), undefined);
  assert.ok(isSkillArchiveName('x.skill') && isSkillArchiveName('X.TAR.GZ') && isSkillArchiveName('y.tgz') && isSkillArchiveName('z.zip'));
  assert.ok(!isSkillArchiveName('SKILL.md') && !isSkillArchiveName('x.gz'));
});

test('a real tar.gz made by the system tar from a corpus skill gives the same package digest as the folder', async (t) => {
  const corpus = CORPUS;
  let tarOk = true;
  try {
    execFileSync('tar', ['--version'], { stdio: 'ignore' });
  } catch {
    tarOk = false;
  }
  const dirs = existsSync(corpus) ? discoverSkills(corpus).skills.map((skill) => skill.dir) : [];
  if (!tarOk || dirs.length === 0) return t.skip('system tar or the corpus is not available');
  let compared = 0;
  // Every 25th skill: a spread over the corpus's repositories without packing all of it.
  for (const dir of dirs.filter((_, i) => i % 25 === 0)) {
    const folder = inspectSkillFolder(dir);
    if (!folder.skill) continue;
    const archive = execFileSync('tar', ['czf', '-', '-C', dirname(dir), basename(dir)], { maxBuffer: 64 * MiB });
    const name = dir;
    const inspected = await inspectSkillArchive(archive, { limits: { maxArchiveBytes: 64 * MiB, maxUncompressedBytes: 64 * MiB } });
    if (folder.skill.files.some((file) => file.path.startsWith('.git/'))) continue;
    assert.equal(inspected.skill?.packageDigest, folder.skill.packageDigest, name);
    compared++;
  }
  assert.ok(compared > 0, 'at least one corpus skill compared');
});

test('tar: path tricks are refused with the reason', async () => {
  const good = { path: 'SKILL.md', content: skillMd('x') };
  assert.match(await refusal(makeTarGz([good, { path: '../evil.sh', content: 'rm -rf /' }])), /unsafe entry path "\.\.\/evil\.sh": '\.\.' segment/);
  assert.match(await refusal(makeTarGz([good, { path: 'a/../../evil', content: '' }])), /'\.\.' segment/);
  assert.match(await refusal(makeTarGz([{ path: '/etc/cron.d/x', content: 'x' }, good])), /absolute path/);
  assert.match(await refusal(makeTarGz([good, { path: 'a\\..\\b', content: '' }])), /backslash/);
  // A long path in a pax header goes through the same check.
  assert.match(
    await refusal(
      makeTarGz([
        good,
        paxPath(
          `${'a/'.repeat(60)}../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../../evil`,
        ),
        { path: 'placeholder', content: 'x' },
      ]),
    ),
    /'\.\.' segment/,
  );
  const longOk = `deep/${'d/'.repeat(20)}${'n'.repeat(150)}.md`;
  const result = await readSkillArchive(makeTarGz([good, paxPath(longOk), { path: 'placeholder', content: 'x' }]));
  assert.deepEqual(paths(result.files), [longOk, 'SKILL.md'].sort());
});

test('tar: links, devices and FIFOs are refused', async () => {
  const good = { path: 'SKILL.md', content: skillMd('x') };
  assert.match(await refusal(makeTarGz([good, { path: 'passwd', type: '2', linkpath: '/etc/passwd' }])), /^symbolic link entry "passwd" refused/);
  assert.match(await refusal(makeTarGz([good, { path: 'up', type: '2', linkpath: '../../..' }])), /^symbolic link entry/);
  assert.match(await refusal(makeTarGz([good, { path: 'hard', type: '1', linkpath: 'SKILL.md' }])), /^hard link entry "hard" refused/);
  assert.match(await refusal(makeTarGz([good, { path: 'tty', type: '3' }])), /^character device entry/);
  assert.match(await refusal(makeTarGz([good, { path: 'pipe', type: '6' }])), /^FIFO entry/);
});

test('duplicate entries are refused in both formats', async () => {
  assert.match(
    await refusal(
      makeTarGz([
        { path: 'SKILL.md', content: skillMd('x') },
        { path: './SKILL.md', content: 'second' },
      ]),
    ),
    /^duplicate entry in archive: "SKILL.md"/,
  );
  assert.match(
    await refusal(
      makeZip([
        { path: 'SKILL.md', content: skillMd('x') },
        { path: 'SKILL.md', content: 'second' },
      ]),
    ),
    /^duplicate entry in archive/,
  );
});

test('zip: path tricks, symlinks and encrypted entries are refused', async () => {
  const good = { path: 'SKILL.md', content: skillMd('x') };
  assert.match(await refusal(makeZip([good, { path: '../../.bashrc', content: 'evil' }])), /unsafe entry path "\.\.\/\.\.\/\.bashrc": '\.\.' segment/);
  assert.match(await refusal(makeZip([good, { path: '/tmp/x', content: 'evil' }])), /absolute path/);
  assert.match(await refusal(makeZip([good, { path: 'C:/x', content: 'evil' }])), /drive-letter/);
  // Made on Windows (host 0): a backslash is a separator (old .NET wrote them), so `..\..\x` is a '..' path.
  assert.match(await refusal(makeZip([good, { path: 'a\\..\\..\\x', content: 'evil' }])), /'\.\.' segment/);
  // Made on Unix: a backslash is part of a name, which a skill path may not hold.
  assert.match(await refusal(makeZip([good, { path: 'a\\b', content: 'x', unixMode: 0o100644 }])), /backslash/);
  assert.match(
    await refusal(makeZip([good, { path: 'link', content: '/etc/passwd', unixMode: 0o120777, method: 'store' }])),
    /^symbolic link entry "link" refused/,
  );
  assert.match(await refusal(makeZip([good, { path: 'dev', content: '', unixMode: 0o20644 }])), /^special file/);
  assert.match(await refusal(makeZip([good, { path: 'secret.txt', content: 'x', flags: 0x1 }])), /^encrypted entry "secret.txt" refused/);
});

test('gzip bomb: inflating stops at the cap, the archive is refused', async () => {
  // 64 MiB of zeros in one tar entry: about 64 KiB compressed.
  const bomb = makeTarGz([
    { path: 'SKILL.md', content: skillMd('x') },
    { path: 'zeros.bin', content: Buffer.alloc(64 * MiB) },
  ]);
  assert.ok(bomb.length < 200 * 1024);
  assert.match(await refusal(bomb, { limits: { maxRatio: 1_000_000 } }), /inflates past 16 MiB \(the limit; refused as a possible zip bomb\)/);
  // With the default ratio cap, it is refused as soon as it expands 200 times its size.
  assert.match(await refusal(bomb), /expands more than 200 times its size/);
  // 3 MiB of zeros is under the total cap but far over the ratio.
  assert.match(
    await refusal(
      makeTarGz([
        { path: 'SKILL.md', content: skillMd('x') },
        { path: 'zeros.bin', content: Buffer.alloc(3 * MiB) },
      ]),
    ),
    /expands more than 200 times/,
  );
});

test('zip bomb: a big honest entry is refused before inflating, a lying header is cut off', async () => {
  const honest = makeZip([
    { path: 'SKILL.md', content: skillMd('x') },
    { path: 'zeros.bin', content: Buffer.alloc(64 * MiB) },
  ]);
  assert.match(await refusal(honest, { limits: { maxRatio: 1_000_000 } }), /inflates past 16 MiB/);
  // Declares 1000 bytes, inflates to 8 MiB: yauzl stops at the declared size.
  const lying = makeZip([
    { path: 'SKILL.md', content: skillMd('x') },
    { path: 'zeros.bin', content: Buffer.alloc(8 * MiB), declaredSize: 1000 },
  ]);
  assert.match(await refusal(lying), /inflates past its declared size/);
});

test('zip bomb: overlapping entries sharing one compressed kernel are refused', async () => {
  // 5000 entries x 1 MiB each = 5000 MiB claimed from a zip of a few hundred KiB.
  const bomb = makeOverlappingZipBomb(5000, MiB);
  assert.ok(bomb.length < 400 * 1024);
  assert.match(await refusal(bomb), /archive has more than 1024 entries/);
  const fewer = makeOverlappingZipBomb(1000, MiB);
  assert.match(await refusal(fewer, { limits: { maxRatio: 1_000_000 } }), /inflates past 16 MiB/);
  assert.match(await refusal(fewer), /expands more than 200 times|inflates past/);
});

test('too many entries are refused', async () => {
  const entries = [{ path: 'SKILL.md', content: skillMd('x') }, ...Array.from({ length: 30 }, (_, i) => ({ path: `f${i}.txt`, content: `${i}` }))];
  assert.match(await refusal(makeTarGz(entries), { limits: { maxEntries: 20 } }), /^archive has more than 20 entries \(the limit\)/);
  assert.match(await refusal(makeZip(entries), { limits: { maxEntries: 20 } }), /^archive has more than 20 entries \(the limit\)/);
});

test('truncated and corrupt archives get one clear line', async () => {
  const tgz = makeTarGz([
    { path: 'SKILL.md', content: skillMd('x') },
    { path: 'data.bin', content: Buffer.from(Array.from({ length: 20000 }, (_, i) => (i * 7919) % 251)) },
  ]);
  assert.match(await refusal(tgz.subarray(0, Math.floor(tgz.length / 2))), /^truncated or corrupt archive: /);
  const tar = makeTar([
    { path: 'SKILL.md', content: skillMd('x') },
    { path: 'data.bin', content: Buffer.alloc(5000, 1) },
  ]);
  assert.match(await refusal(tar.subarray(0, 2560)), /^truncated or corrupt archive: .*[Tt]runcated/);
  assert.match(await refusal(tar.subarray(0, 1500)), /^truncated or corrupt archive: the tar ends inside a 512-byte block/);
  const badChecksum = Buffer.from(
    makeTar([
      { path: 'SKILL.md', content: skillMd('x') },
      { path: 'b.txt', content: 'b' },
    ]),
  );
  badChecksum[1024 + 5]! ^= 0xff; // second header's name
  assert.match(await refusal(gzipSync(badChecksum)), /^truncated or corrupt archive: .*checksum/);
  const zip = makeZip([
    { path: 'SKILL.md', content: skillMd('x') },
    { path: 'b.txt', content: 'b'.repeat(5000) },
  ]);
  assert.match(await refusal(zip.subarray(0, zip.length - 30)), /^truncated or corrupt archive: /);
  const flipped = Buffer.from(zip);
  flipped[60]! ^= 0xff; // inside the first entry's deflated data
  assert.match(await refusal(flipped), /^truncated or corrupt archive: /);
  assert.match(await refusal(new Uint8Array()), /^not a skill archive/);
});

test('a gzip inside the gzip is refused rather than inflated again without a cap', async () => {
  assert.match(await refusal(gzipSync(makeTarGz([{ path: 'SKILL.md', content: skillMd('x') }]))), /^not a skill archive: the gzip stream does not hold a tar/);
});

test('an archive larger than the archive limit is refused before it is read', async () => {
  const archive = makeZip([
    { path: 'SKILL.md', content: skillMd('x') },
    { path: 'noise.bin', content: Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 31) % 256)), method: 'store' },
  ]);
  assert.match(await refusal(archive, { limits: { maxArchiveBytes: 1024 } }), /^archive is larger than 1 KiB \(the limit\)/);
  const dir = mkdtempSync(join(tmpdir(), 'skillport-archive-'));
  writeFileSync(join(dir, 'big.zip'), archive);
  assert.match(await refusal(join(dir, 'big.zip'), { limits: { maxArchiveBytes: 1024 } }), /^archive is larger than 1 KiB/);
  await assert.rejects(readSkillArchive(archive, { limits: { maxEntries: 0 } }), /archive limit maxEntries must be a positive integer/);
});

test('macOS metadata (__MACOSX/, ._ files) is skipped with a warning and does not hide the top folder', async () => {
  const result = await readSkillArchive(
    makeZip([
      { path: 'pdf/SKILL.md', content: skillMd('pdf') },
      { path: '__MACOSX/pdf/._SKILL.md', content: 'junk' },
    ]),
  );
  assert.equal(result.folderName, 'pdf');
  assert.deepEqual(paths(result.files), ['SKILL.md']);
  assert.deepEqual(
    result.problems.map((problem) => problem.severity),
    ['warning'],
  );
  const tar = await readSkillArchive(
    makeTarGz([
      { path: './._SKILL.md', content: 'junk' },
      { path: './SKILL.md', content: skillMd('x') },
      { path: './a/._b.md', content: 'junk' },
      { path: './a/b.md', content: 'b' },
    ]),
  );
  assert.deepEqual(paths(tar.files), ['SKILL.md', 'a/b.md']);
});

test('a zip made on Windows with backslash separators reads as folders', async () => {
  const result = await readSkillArchive(
    makeZip([
      { path: 'win-skill\\SKILL.md', content: skillMd('win-skill') },
      { path: 'win-skill\\references\\a.md', content: '# A\n' },
    ]),
  );
  assert.equal(result.folderName, 'win-skill');
  assert.deepEqual(paths(result.files), ['SKILL.md', 'references/a.md']);
});

test('several top folders or files at the root are kept as they are; the skill rules then apply', async () => {
  const two = await readSkillArchive(
    makeTarGz([
      { path: 'a/SKILL.md', content: skillMd('a') },
      { path: 'b/SKILL.md', content: skillMd('b') },
    ]),
  );
  assert.equal(two.folderName, undefined);
  assert.deepEqual(paths(two.files), ['a/SKILL.md', 'b/SKILL.md']);
  const inspected = await inspectSkillArchive(
    makeTarGz([
      { path: 'a/SKILL.md', content: skillMd('a') },
      { path: 'b/SKILL.md', content: skillMd('b') },
    ]),
  );
  assert.equal(inspected.skill, undefined);
  assert.match(inspected.problems[0]!.message, /Missing required file: SKILL.md/);
  // A skill whose name differs from its top folder: served, with the spec's warning.
  const renamed = await inspectSkillArchive(makeZip([{ path: 'pdf-v2/SKILL.md', content: skillMd('pdf') }]));
  assert.equal(renamed.skill?.name, 'pdf');
  assert.match(renamed.problems.map((problem) => problem.message).join('\n'), /Directory name 'pdf-v2' must match skill name 'pdf'/);
});

test('an empty top folder or an archive of folders only is not a skill', async () => {
  const inspected = await inspectSkillArchive(
    makeTarGz([
      { path: 'a/', type: '5' },
      { path: 'a/b/', type: '5' },
    ]),
  );
  assert.equal(inspected.skill, undefined);
  assert.match(inspected.problems[0]!.message, /Missing required file: SKILL.md/);
});

test('mutated archives never throw: each is read or refused with one line', async () => {
  // A small deterministic generator (xorshift), so a failure can be replayed.
  let state = 0x9e3779b9;
  const random = (below: number) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % below;
  };
  const files = [
    { path: 'fuzz/SKILL.md', content: skillMd('fuzz') },
    { path: 'fuzz/references/a.md', content: '# A\n'.repeat(50) },
    { path: 'fuzz/b.bin', content: Buffer.from(Array.from({ length: 700 }, (_, i) => i % 256)) },
  ];
  const seeds = [makeTarGz(files), makeTar(files), makeZip(files), makeZip(files.map((file) => ({ ...file, method: 'store' as const })))];
  let read = 0;
  let refused = 0;
  for (let round = 0; round < 400; round++) {
    const bytes = Buffer.from(seeds[round % seeds.length]!);
    const kind = random(3);
    let mutated: Buffer;
    if (kind === 0) {
      for (let flips = 1 + random(8); flips > 0; flips--) bytes[random(bytes.length)] = random(256);
      mutated = bytes;
    } else if (kind === 1) {
      mutated = bytes.subarray(0, random(bytes.length));
    } else {
      const at = random(bytes.length);
      mutated = Buffer.concat([bytes.subarray(0, at), Buffer.from(Array.from({ length: 1 + random(64) }, () => random(256))), bytes.subarray(at)]);
    }
    const result = await readSkillArchive(mutated);
    const errors = result.problems.filter((problem) => problem.severity === 'error');
    if (errors.length > 0) {
      refused++;
      assert.equal(errors.length, 1);
      assert.deepEqual(result.files, []);
      assert.ok(!errors[0]!.message.includes('\n'));
    } else {
      read++;
      for (const file of result.files) assert.equal(unsafePathReason(file.path), undefined, file.path);
    }
  }
  assert.ok(refused > 100, `refused ${refused}, read ${read}`);
});
