import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { DigestCache, fileSource, inspectSkillFolder, readCheckedFile, resolveLimits } from '../src/index.js';
import type { Inspection, InspectedSkill } from '../src/index.js';
import { OLD_TIME, makeOld, makeTree, removeTrees, skillMd, sleepSync } from './helpers.js';

after(removeTrees);

const sha = (bytes: Uint8Array | string) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe]);

function servable(inspection: Inspection): InspectedSkill {
  assert.ok(inspection.skill, `not servable: ${JSON.stringify(inspection.problems)}`);
  return inspection.skill;
}

/** A `pdf` skill folder with a few files; returns the folder. */
function pdfSkill(extra: Record<string, string | Uint8Array | { symlink: string }> = {}): string {
  const base = makeTree({
    'pdf/SKILL.md': skillMd('pdf'),
    'pdf/references/guide.md': '# Guide\n',
    'pdf/scripts/run.py': 'print("hi")\n',
    'pdf/assets/logo.png': PNG,
    ...extra,
  });
  return join(base, 'pdf');
}

describe('inspectSkillFolder: the manifest', () => {
  test('every file with its size, the sha256 of its bytes, its media type, sorted by path', () => {
    const dir = pdfSkill({ 'pdf/references/Zeta.md': 'z', 'pdf/a b/é.txt': 'accent' });
    const inspection = inspectSkillFolder(dir);
    assert.deepEqual(inspection.problems, []);
    const skill = servable(inspection);
    assert.equal(skill.name, 'pdf');
    assert.equal(skill.folderName, 'pdf');
    assert.equal(skill.dir, dir);
    assert.equal(skill.description, 'Does pdf things. Use when the user asks for pdf.');
    assert.deepEqual(skill.frontmatter, { name: 'pdf', description: 'Does pdf things. Use when the user asks for pdf.' });
    const paths = ['SKILL.md', 'a b/é.txt', 'assets/logo.png', 'references/Zeta.md', 'references/guide.md', 'scripts/run.py'];
    assert.deepEqual(
      skill.files.map((file) => file.path),
      paths,
    );
    const real = realpathSync(dir);
    for (const file of skill.files) {
      const bytes = readFileSync(join(dir, file.path));
      assert.equal(file.digest, sha(bytes), file.path);
      assert.equal(file.size, bytes.byteLength, file.path);
      assert.equal(fileSource(skill, file), join(real, file.path));
    }
    assert.deepEqual(
      skill.files.map((file) => file.mimeType),
      ['text/markdown', 'text/plain', 'image/png', 'text/markdown', 'text/markdown', 'text/x-python'],
    );
    assert.equal(
      skill.totalBytes,
      skill.files.reduce((sum, file) => sum + file.size, 0),
    );
  });

  test('the package digest follows the documented canonical form', () => {
    const skill = servable(inspectSkillFolder(pdfSkill()));
    const lines = [...skill.files]
      .sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)))
      .map((file) => `${file.digest} ${file.size} ${file.path}\n`)
      .join('');
    assert.equal(skill.packageDigest, sha(lines));
  });

  test('the same content in another folder gives the same package digest; one changed byte changes it', () => {
    const first = servable(inspectSkillFolder(pdfSkill()));
    const second = servable(inspectSkillFolder(pdfSkill()));
    assert.equal(first.packageDigest, second.packageDigest);
    const third = servable(inspectSkillFolder(pdfSkill({ 'pdf/scripts/run.py': 'print("ho")\n' })));
    assert.notEqual(third.packageDigest, first.packageDigest);
  });

  test('names that differ only by case or Unicode normalisation are a warning naming both (a portability problem)', () => {
    const dir = pdfSkill({ 'pdf/A.md': 'a', 'pdf/a.md': 'b', 'pdf/references/Guide.md': 'c', 'pdf/caf\u00e9.md': 'd', 'pdf/cafe\u0301.md': 'e' });
    const inspection = inspectSkillFolder(dir);
    const collisions = inspection.problems.filter((problem) => /differ only|normalisations/.test(problem.message));
    assert.deepEqual(
      collisions.map((problem) => [problem.severity, problem.message]),
      [
        ['warning', "'A.md' and 'a.md' differ only in case: one file on macOS and Windows (rename one)"],
        ['warning', "'cafe\u0301.md' (NFD) and 'caf\u00e9.md' (NFC) are one name in two Unicode normalisations: one file on macOS (rename one)"],
        ['warning', "'references/Guide.md' and 'references/guide.md' differ only in case: one file on macOS and Windows (rename one)"],
      ],
    );
    assert.equal(collisions[0]!.path, join(realpathSync(dir), 'a.md'));
    assert.equal(collisions[1]!.path, join(realpathSync(dir), 'caf\u00e9.md'));
    // Served as it is (a warning), every file kept.
    assert.equal(servable(inspection).files.length, 9);
  });

  test('.git is skipped silently; dot files elsewhere are served', () => {
    const skill = servable(inspectSkillFolder(pdfSkill({ 'pdf/.git/config': '[core]\n', 'pdf/.hidden': 'h', 'pdf/sub/.git/HEAD': 'x' })));
    const paths = skill.files.map((file) => file.path);
    assert.ok(!paths.some((path) => path.includes('.git')), paths.join(', '));
    assert.ok(paths.includes('.hidden'));
  });

  test('missing SKILL.md, a missing folder and a file are errors (skills-ref wording)', () => {
    const base = makeTree({ 'empty/readme.md': 'x', 'file.txt': 'x' });
    assert.deepEqual(inspectSkillFolder(join(base, 'empty')), {
      problems: [{ severity: 'error', message: 'Missing required file: SKILL.md', path: join(base, 'empty') }],
    });
    assert.deepEqual(inspectSkillFolder(join(base, 'nope')), {
      problems: [{ severity: 'error', message: `Path does not exist: ${join(base, 'nope')}`, path: join(base, 'nope'), code: 'path-missing' }],
    });
    assert.deepEqual(inspectSkillFolder(join(base, 'file.txt')), {
      problems: [{ severity: 'error', message: `Not a directory: ${join(base, 'file.txt')}`, path: join(base, 'file.txt'), code: 'not-a-directory' }],
    });
  });

  test('frontmatter problems carry the SKILL.md path; parse errors stop the skill', () => {
    const base = makeTree({
      'pdf/SKILL.md': '---\nname: pdf\n',
      'other/SKILL.md': skillMd('pdf'),
      'upper/SKILL.md': skillMd('Upper'),
      'bin/SKILL.md': new Uint8Array([0x2d, 0x2d, 0x2d, 0x0a, 0xff, 0x0a]),
    });
    const unclosed = inspectSkillFolder(join(base, 'pdf'));
    assert.deepEqual(unclosed, {
      problems: [{ severity: 'error', message: 'SKILL.md frontmatter not properly closed with ---', path: join(base, 'pdf', 'SKILL.md') }],
    });
    const renamed = inspectSkillFolder(join(base, 'other'));
    assert.equal(servable(renamed).name, 'pdf');
    assert.deepEqual(renamed.problems, [
      { severity: 'warning', message: "Directory name 'other' must match skill name 'pdf'", path: join(base, 'other', 'SKILL.md') },
    ]);
    const upper = inspectSkillFolder(join(base, 'upper'));
    assert.equal(upper.skill, undefined);
    assert.deepEqual(upper.problems, [
      { severity: 'error', message: "Skill name 'Upper' must be lowercase", path: join(base, 'upper', 'SKILL.md') },
      { severity: 'warning', message: "Directory name 'upper' must match skill name 'Upper'", path: join(base, 'upper', 'SKILL.md') },
    ]);
    assert.deepEqual(inspectSkillFolder(join(base, 'bin')).problems, [
      { severity: 'error', message: 'SKILL.md is not valid UTF-8 text', path: join(base, 'bin', 'SKILL.md') },
    ]);
  });
});

describe('inspectSkillFolder: limits', () => {
  test('maxFiles counts SKILL.md; one file past it is an error, raised before anything is hashed', () => {
    const dir = pdfSkill(); // 4 files
    servable(inspectSkillFolder(dir, { limits: resolveLimits({ maxFiles: 4 }) }));
    const cache = new DigestCache();
    const inspection = inspectSkillFolder(dir, { limits: resolveLimits({ maxFiles: 3 }), cache });
    assert.deepEqual(inspection, { problems: [{ severity: 'error', message: 'skill has more than 3 files (the limit); not served', path: dir }] });
    assert.equal(cache.hits + cache.misses, 0, 'no file was looked up for hashing');
  });

  test('maxBytes is the total of file sizes; past it is an error, raised before anything is hashed', () => {
    const dir = pdfSkill({ 'pdf/big.bin': new Uint8Array(2000) });
    const total = servable(inspectSkillFolder(dir)).totalBytes;
    servable(inspectSkillFolder(dir, { limits: resolveLimits({ maxBytes: total }) }));
    const cache = new DigestCache();
    const inspection = inspectSkillFolder(dir, { limits: resolveLimits({ maxBytes: 1024 }), cache });
    assert.deepEqual(inspection, { problems: [{ severity: 'error', message: 'skill is larger than 1 KiB (the limit); not served', path: dir }] });
    assert.equal(cache.hits + cache.misses, 0, 'no file was looked up for hashing');
    assert.match(
      inspectSkillFolder(dir, { limits: resolveLimits({ maxBytes: total - 1 }) }).problems[0]!.message,
      /^skill is larger than .* \(the limit\); not served$/,
    );
  });

  test('folders nested past maxDepth are an error', () => {
    const dir = pdfSkill({ 'pdf/a/b/c/deep.md': 'x' });
    servable(inspectSkillFolder(dir, { limits: resolveLimits({ maxDepth: 3 }) }));
    const inspection = inspectSkillFolder(dir, { limits: resolveLimits({ maxDepth: 2 }) });
    assert.equal(inspection.skill, undefined);
    assert.deepEqual(inspection.problems, [
      { severity: 'error', message: 'folders nested deeper than 2 levels', path: join(realpathSync(dir), 'a', 'b', 'c') },
    ]);
  });

  test('resolveLimits refuses non-positive or fractional limits', () => {
    assert.throws(() => resolveLimits({ maxFiles: 0 }), RangeError);
    assert.throws(() => resolveLimits({ maxBytes: 1.5 }), RangeError);
  });
});

describe('inspectSkillFolder: symbolic links and special files', () => {
  test('in-folder file links are served at the link path with the target bytes; others are left out with a warning', () => {
    const base = makeTree({
      'outside.txt': 'secret outside',
      'pdf-evil/secret.md': 'sibling with a shared prefix',
      'pdf/SKILL.md': skillMd('pdf'),
      'pdf/real.md': 'real content\n',
      'pdf/sub/deep.md': 'deep\n',
      'pdf/link.md': { symlink: 'real.md' },
      'pdf/sub/up.md': { symlink: '../real.md' },
      'pdf/dirlink': { symlink: 'sub' },
      'pdf/outside.md': { symlink: '../outside.txt' },
      'pdf/prefix.md': { symlink: '../pdf-evil/secret.md' },
      'pdf/broken.md': { symlink: 'nowhere.md' },
      'pdf/loop.md': { symlink: 'loop.md' },
    });
    const dir = join(base, 'pdf');
    makeTree({ 'pdf/absolute.md': { symlink: join(realpathSync(dir), 'real.md') }, 'pdf/root-link': { symlink: realpathSync(base) } }, base);
    const real = realpathSync(dir);
    const inspection = inspectSkillFolder(dir);
    const skill = servable(inspection);
    assert.deepEqual(
      skill.files.map((file) => file.path),
      ['SKILL.md', 'absolute.md', 'link.md', 'real.md', 'sub/deep.md', 'sub/up.md'],
    );
    const realFile = skill.files.find((file) => file.path === 'real.md')!;
    for (const path of ['absolute.md', 'link.md', 'sub/up.md']) {
      const linked = skill.files.find((file) => file.path === path)!;
      assert.equal(linked.digest, sha('real content\n'), path);
      assert.equal(linked.size, realFile.size, path);
      assert.equal(linked.target, join(real, 'real.md'), path);
    }
    const warnings = inspection.problems.map((problem) => [problem.severity, problem.message, problem.path]).sort((a, b) => (a[2]! < b[2]! ? -1 : 1));
    assert.deepEqual(warnings, [
      ['warning', 'broken symbolic link; not served', join(real, 'broken.md')],
      ['warning', 'symbolic link to a folder is not followed; its files are not served', join(real, 'dirlink')],
      ['warning', 'broken symbolic link; not served', join(real, 'loop.md')],
      ['warning', 'symbolic link leads outside the skill folder; not served', join(real, 'outside.md')],
      ['warning', 'symbolic link leads outside the skill folder; not served', join(real, 'prefix.md')],
      ['warning', 'symbolic link leads outside the skill folder; not served', join(real, 'root-link')],
    ]);
  });

  test('a link back to the folder itself or a folder around it is named a loop; a link out of the served folder is not', () => {
    const base = makeTree({
      'tree/group/pdf/SKILL.md': skillMd('pdf'),
      'tree/group/pdf/sub/deep.md': 'deep\n',
      'tree/group/pdf/self': { symlink: '.' },
      'tree/group/pdf/sub/up': { symlink: '..' },
      'tree/group/pdf/sub/here': { symlink: '.' },
      'tree/group/pdf/group': { symlink: '..' },
      'tree/group/pdf/tree': { symlink: '../..' },
      'tree/group/pdf/above': { symlink: '../../..' },
    });
    const served = join(base, 'tree');
    const real = realpathSync(join(served, 'group/pdf'));
    const loop = 'symbolic link leads back to a folder that contains it (a loop); not followed';
    const outside = 'symbolic link leads outside the skill folder; not served';
    const warnings = (options: { servedRoot?: string }) =>
      inspectSkillFolder(join(served, 'group/pdf'), options)
        .problems.map((problem) => [problem.message, problem.path])
        .sort((a, b) => (a[1]! < b[1]! ? -1 : 1));
    // Served from above: every folder up to the served one is a loop; the folder above it is a way out.
    assert.deepEqual(warnings({ servedRoot: served }), [
      [outside, join(real, 'above')],
      [loop, join(real, 'group')],
      [loop, join(real, 'self')],
      [loop, join(real, 'sub/here')],
      [loop, join(real, 'sub/up')],
      [loop, join(real, 'tree')],
    ]);
    // The skill folder alone: only its own folders are inside.
    assert.deepEqual(warnings({}), [
      [outside, join(real, 'above')],
      [outside, join(real, 'group')],
      [loop, join(real, 'self')],
      [loop, join(real, 'sub/here')],
      [loop, join(real, 'sub/up')],
      [outside, join(real, 'tree')],
    ]);
  });

  test('a SKILL.md that links outside the folder is not a SKILL.md', () => {
    const base = makeTree({ 'elsewhere.md': skillMd('pdf'), 'pdf/SKILL.md': { symlink: '../elsewhere.md' } });
    const inspection = inspectSkillFolder(join(base, 'pdf'));
    assert.equal(inspection.skill, undefined);
    assert.deepEqual(
      inspection.problems.map((problem) => problem.message),
      ['symbolic link leads outside the skill folder; not served', 'Missing required file: SKILL.md'],
    );
  });

  test('the skill folder itself may be reached through a link', () => {
    const base = makeTree({ 'store/pdf/SKILL.md': skillMd('pdf'), 'store/pdf/a.md': 'a' });
    makeTree({ pdf: { symlink: join(base, 'store', 'pdf') } }, base);
    const skill = servable(inspectSkillFolder(join(base, 'pdf')));
    assert.deepEqual(
      skill.files.map((file) => file.path),
      ['SKILL.md', 'a.md'],
    );
  });

  test('FIFOs are left out with a warning (and never opened)', { skip: process.platform === 'win32' }, (t) => {
    const dir = pdfSkill();
    const made = spawnSync('mkfifo', [join(dir, 'pipe')]);
    if (made.status !== 0) return t.skip(`mkfifo failed (${made.error?.message ?? made.stderr.toString().trim()}): FIFO handling not tested here`);
    const inspection = inspectSkillFolder(dir);
    assert.ok(!servable(inspection).files.some((file) => file.path === 'pipe'));
    assert.deepEqual(inspection.problems, [
      { severity: 'warning', message: 'not a regular file (FIFO, socket or device); not served', path: join(realpathSync(dir), 'pipe') },
    ]);
  });

  test('file names with a backslash or non-UTF-8 bytes are left out with a warning', { skip: process.platform !== 'linux' }, () => {
    const dir = pdfSkill({ 'pdf/back\\slash.md': 'x' });
    writeFileSync(Buffer.concat([Buffer.from(`${dir}/bad-`), Buffer.from([0xff]), Buffer.from('.md')]), 'x');
    const inspection = inspectSkillFolder(dir);
    const skill = servable(inspection);
    assert.deepEqual(
      skill.files.map((file) => file.path),
      ['SKILL.md', 'assets/logo.png', 'references/guide.md', 'scripts/run.py'],
    );
    assert.equal(inspection.problems.length, 2);
    for (const problem of inspection.problems) {
      assert.equal(problem.severity, 'warning');
      assert.equal(problem.message, 'file name holds a backslash or bytes that are not UTF-8; not served');
    }
  });
});

describe('DigestCache', () => {
  /** A skill whose files all have an mtime an hour ago, and a cache path next to it. */
  function oldSkill(): { dir: string; cachePath: string; files: string[] } {
    const dir = pdfSkill();
    const files = ['SKILL.md', 'assets/logo.png', 'references/guide.md', 'scripts/run.py'].map((path) => join(dir, path));
    makeOld(...files);
    return { dir, cachePath: join(dir, '..', 'cache', 'digests.json'), files };
  }

  function warmUp(dir: string, cachePath: string): InspectedSkill {
    const cold = new DigestCache(cachePath);
    const skill = servable(inspectSkillFolder(dir, { cache: cold }));
    assert.equal(cold.hits, 0);
    assert.equal(cold.misses, skill.files.length);
    cold.save();
    assert.ok(existsSync(cachePath));
    assert.equal(JSON.parse(readCheckedFile(cachePath)!.split('\n')[0]!).format, 'skillport-digest-cache/2');
    return skill;
  }

  test('a second inspection with the saved cache hits every file and misses none, with identical results', () => {
    const { dir, cachePath } = oldSkill();
    const first = warmUp(dir, cachePath);
    const warm = new DigestCache(cachePath);
    const second = servable(inspectSkillFolder(dir, { cache: warm }));
    assert.equal(warm.misses, 0);
    assert.equal(warm.hits, first.files.length);
    assert.deepEqual(second, first);
  });

  test('a frontmatter cached before control characters were refused is parsed again, and refused', () => {
    const text = '---\nname: pdf\ndescription: "Reads PDFs.\\0 Use when asked."\n---\n\n# PDF\n';
    const dir = pdfSkill({ 'pdf/SKILL.md': text });
    const cache = new DigestCache();
    // What an older version remembered for these bytes: the value, NUL and all.
    cache.rememberFrontmatter(sha(text), { frontmatter: { name: 'pdf', description: 'Reads PDFs.\u0000 Use when asked.' }, bodyLine: 5, headings: ['PDF'] });
    const inspection = inspectSkillFolder(dir, { cache });
    assert.equal(inspection.skill, undefined);
    assert.deepEqual(
      inspection.problems.map((problem) => problem.message),
      ["frontmatter 'description' at line 3 contains a control character (U+0000, written as an escape): remove it"],
    );
  });

  test('a rewritten file of the same size (new mtime) is re-hashed', () => {
    const { dir, cachePath } = oldSkill();
    const first = warmUp(dir, cachePath);
    writeFileSync(join(dir, 'scripts/run.py'), 'print("ho")\n'); // same length as 'print("hi")\n'
    const cache = new DigestCache(cachePath);
    const second = servable(inspectSkillFolder(dir, { cache }));
    assert.equal(cache.misses, 1);
    assert.equal(cache.hits, first.files.length - 1);
    const run = second.files.find((file) => file.path === 'scripts/run.py')!;
    assert.equal(run.digest, sha('print("ho")\n'));
    assert.notEqual(second.packageDigest, first.packageDigest);
  });

  test('a touched file (only the mtime changed) is re-hashed', () => {
    const { dir, cachePath } = oldSkill();
    const first = warmUp(dir, cachePath);
    const touched = new Date(OLD_TIME.getTime() + 5000);
    utimesSync(join(dir, 'references/guide.md'), touched, touched);
    const cache = new DigestCache(cachePath);
    const second = servable(inspectSkillFolder(dir, { cache }));
    assert.equal(cache.misses, 1);
    assert.equal(cache.hits, first.files.length - 1);
    assert.deepEqual(second.files, first.files);
  });

  test('a same-size rewrite with the old mtime restored is still re-hashed (ctime moved)', () => {
    const { dir, cachePath } = oldSkill();
    warmUp(dir, cachePath);
    const path = join(dir, 'scripts/run.py');
    const before = statSync(path);
    // Wait out a coarse timestamp tick if needed, so that ctime really differs from the cached one.
    let after = before;
    for (let attempt = 0; attempt < 400 && after.ctimeMs === before.ctimeMs; attempt++) {
      if (attempt > 0) sleepSync(5);
      writeFileSync(path, 'print("ho")\n');
      utimesSync(path, OLD_TIME, OLD_TIME);
      after = statSync(path);
    }
    assert.notEqual(after.ctimeMs, before.ctimeMs);
    assert.equal(after.mtimeMs, before.mtimeMs);
    assert.equal(after.size, before.size);
    const cache = new DigestCache(cachePath);
    const second = servable(inspectSkillFolder(dir, { cache }));
    assert.equal(cache.misses, 1);
    assert.equal(second.files.find((file) => file.path === 'scripts/run.py')!.digest, sha('print("ho")\n'));
  });

  test('files modified less than a second ago are not remembered', () => {
    const dir = pdfSkill(); // fresh mtimes
    const cachePath = join(dir, '..', 'fresh-cache.json');
    const cold = new DigestCache(cachePath);
    const skill = servable(inspectSkillFolder(dir, { cache: cold }));
    cold.save();
    const again = new DigestCache(cachePath);
    servable(inspectSkillFolder(dir, { cache: again }));
    assert.equal(again.hits, 0);
    assert.equal(again.misses, skill.files.length);
  });

  test('a corrupt or foreign cache file is a cold start, not an error', () => {
    const { dir, cachePath } = oldSkill();
    makeTree({ 'cache/digests.json': '{not json' }, join(dir, '..'));
    const corrupt = new DigestCache(cachePath);
    const skill = servable(inspectSkillFolder(dir, { cache: corrupt }));
    assert.equal(corrupt.hits, 0);
    writeFileSync(cachePath, JSON.stringify({ format: 'other/1', files: {}, frontmatter: {} }));
    const foreign = new DigestCache(cachePath);
    assert.deepEqual(servable(inspectSkillFolder(dir, { cache: foreign })), skill);
    assert.equal(foreign.hits, 0);
  });

  test('a torn or damaged cache file is ignored: one digest changed inside well-formed JSON is not believed', () => {
    const { dir, cachePath } = oldSkill();
    const first = warmUp(dir, cachePath);
    const text = readFileSync(cachePath, 'utf8');
    const skillMdDigest = first.files.find((file) => file.path === 'SKILL.md')!.digest;
    const wrong = `sha256:${skillMdDigest.slice(7, 8) === '0' ? '1' : '0'}${skillMdDigest.slice(8)}`;
    for (const damaged of [text.replace(skillMdDigest, wrong), text.slice(0, text.length / 2), text.replace(/\n[^\n]*\n$/, '\n')]) {
      writeFileSync(cachePath, damaged);
      const cache = new DigestCache(cachePath);
      const again = servable(inspectSkillFolder(dir, { cache }));
      assert.equal(cache.hits, 0, 'nothing from the damaged file is used');
      assert.deepEqual(again.files, first.files);
    }
  });

  test('a streamed save (a scan worker: entries written as they are used, not kept) makes the same cache', () => {
    const { dir, cachePath } = oldSkill();
    const plain = warmUp(dir, cachePath);
    const normal = readFileSync(cachePath, 'utf8');
    // Cold, streamed: every file hashed, written as it goes, and the frontmatter parsed once.
    rmSync(cachePath);
    const cold = new DigestCache(cachePath);
    cold.streamSave();
    assert.deepEqual(servable(inspectSkillFolder(dir, { cache: cold })), plain);
    cold.save();
    const sorted = (text: string) => text.split('\n').slice(0, -2).sort();
    assert.deepEqual(sorted(readFileSync(cachePath, 'utf8')), sorted(normal), 'the same entries as a kept-then-saved cache');
    // Warm, streamed: every file a hit, and the saved cache again holds every entry used.
    const warm = new DigestCache(cachePath);
    warm.streamSave();
    assert.deepEqual(servable(inspectSkillFolder(dir, { cache: warm })), plain);
    assert.equal(warm.misses, 0);
    warm.save();
    assert.deepEqual(sorted(readFileSync(cachePath, 'utf8')), sorted(normal));
    const again = new DigestCache(cachePath);
    servable(inspectSkillFolder(dir, { cache: again }));
    assert.equal(again.misses, 0);
  });

  test('save keeps only the entries used since loading', () => {
    const { dir, cachePath } = oldSkill();
    warmUp(dir, cachePath);
    const other = oldSkill();
    const cache = new DigestCache(cachePath);
    servable(inspectSkillFolder(other.dir, { cache }));
    cache.save();
    const entries = readCheckedFile(cachePath)!
      .split('\n')
      .slice(1)
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as [string, string, unknown]);
    const real = realpathSync(other.dir);
    assert.deepEqual(
      entries
        .filter((entry) => entry[0] === 'f')
        .map((entry) => entry[1])
        .sort(),
      other.files.map((file) => join(real, file.slice(other.dir.length + 1))).sort(),
    );
  });
});
