import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { Header } from 'tar';
import { resolveLimits } from '@skillport/core';
import { ArchiveError, manifestFor, packSkillArchive, readSkillPackage } from '../src/package-format.js';
import { files, skillMd } from './fixtures.js';

/** A tar built entry by entry, so hostile archives can be made exactly as an attacker would. */
function tarOf(entries: Array<{ path: string; type?: string; body?: string | Buffer; linkpath?: string; size?: number }>): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const body = typeof entry.body === 'string' ? Buffer.from(entry.body) : (entry.body ?? Buffer.alloc(0));
    const header = new Header({
      path: entry.path,
      mode: 0o644,
      size: entry.size ?? body.byteLength,
      type: (entry.type ?? 'File') as never,
      mtime: new Date(0),
      ...(entry.linkpath ? { linkpath: entry.linkpath } : {}),
    });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    blocks.push(block, body, Buffer.alloc((512 - (body.byteLength % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

const refuses = (bytes: Buffer, pattern: RegExp, limits = resolveLimits()) =>
  assert.rejects(readSkillPackage(bytes, limits), (error: unknown) => error instanceof ArchiveError && pattern.test(error.message));

describe('.skill archives', () => {
  test('pack and read round-trip; the same files pack to the same bytes', async () => {
    const content = files('round', { 'references/guide.md': '# Guide\n', 'assets/bin.dat': Buffer.from([0, 1, 2, 255]) });
    const manifest = manifestFor('round', content, { version: '1.0.0', provenance: { repository: 'https://example.test/r', commit: 'abc' } });
    const bytes = packSkillArchive(manifest, content);
    assert.deepEqual(packSkillArchive(manifest, [...content].reverse()), bytes);
    const read = await readSkillPackage(bytes);
    assert.equal(read.folderName, 'round');
    assert.equal(read.manifest?.packageDigest, manifest.packageDigest);
    assert.equal(read.manifest?.version, '1.0.0');
    assert.deepEqual(read.files.map((f) => f.path).sort(), ['SKILL.md', 'assets/bin.dat', 'references/guide.md']);
    assert.deepEqual([...read.files.find((f) => f.path === 'assets/bin.dat')!.bytes], [0, 1, 2, 255]);
  });

  test('long paths (pax headers) survive', async () => {
    const long = `references/${'deep/'.repeat(30)}${'n'.repeat(120)}.md`;
    const content = files('longpath', { [long]: 'x' });
    const read = await readSkillPackage(packSkillArchive(manifestFor('longpath', content), content));
    assert.ok(read.files.some((f) => f.path === long));
  });

  test('a plain tar.gz of a skill folder (no manifest) is read too', async () => {
    const read = await readSkillPackage(
      gzipSync(
        tarOf([
          { path: 'plain/SKILL.md', body: skillMd('plain') },
          { path: 'plain/', type: 'Directory' },
        ]),
      ),
    );
    assert.equal(read.manifest, undefined);
    assert.equal(read.folderName, 'plain');
    assert.deepEqual(
      read.files.map((f) => f.path),
      ['SKILL.md'],
    );
  });

  test('zip-slip and other path tricks are refused', async () => {
    await refuses(
      gzipSync(
        tarOf([
          { path: 'x/SKILL.md', body: 'a' },
          { path: 'x/../../etc/evil', body: 'b' },
        ]),
      ),
      /unsafe entry path.*'\.\.' segment/,
    );
    await refuses(gzipSync(tarOf([{ path: '/etc/passwd', body: 'b' }])), /unsafe path|absolute/);
    await refuses(gzipSync(tarOf([{ path: 'x/a\\b.md', body: 'b' }])), /backslash/);
    await refuses(
      gzipSync(
        tarOf([
          { path: 'x/C:evil', body: 'b' },
          { path: 'x/SKILL.md', body: 'a' },
        ]),
      ),
      /unsafe path|drive/,
    );
  });

  test('links, devices and FIFOs are refused', async () => {
    await refuses(
      gzipSync(
        tarOf([
          { path: 'x/SKILL.md', body: 'a' },
          { path: 'x/link', type: 'SymbolicLink', linkpath: '/etc/passwd' },
        ]),
      ),
      /symbolic link entry .* refused/,
    );
    await refuses(
      gzipSync(
        tarOf([
          { path: 'x/SKILL.md', body: 'a' },
          { path: 'x/hard', type: 'Link', linkpath: 'x/SKILL.md' },
        ]),
      ),
      /hard link entry .* refused/,
    );
    await refuses(gzipSync(tarOf([{ path: 'x/dev', type: 'CharacterDevice' }])), /character device entry .* refused/);
    await refuses(gzipSync(tarOf([{ path: 'x/fifo', type: 'FIFO' }])), /FIFO entry .* refused/);
  });

  test('bombs, too many files, too many bytes, garbage and truncation are refused', async () => {
    await refuses(gzipSync(Buffer.alloc(64 * 1024 * 1024)), /expand|bomb|limit/i);
    const small = resolveLimits({ maxFiles: 3, maxBytes: 1000 });
    await refuses(gzipSync(tarOf(Array.from({ length: 6 }, (_, i) => ({ path: `x/f${i}.md`, body: 'a' })))), /more than 3 files/, small);
    await refuses(gzipSync(tarOf([{ path: 'x/big.md', body: Buffer.alloc(900 * 1024) }])), /expand|bomb|limit|more than/i, small);
    await refuses(Buffer.from('not an archive at all'), /not a skill archive/);
    const good = packSkillArchive(manifestFor('t', files('t')), files('t'));
    await refuses(good.subarray(0, good.byteLength - 40), /truncated or corrupt/i);
    await refuses(gzipSync(Buffer.from('x'.repeat(2000))), /not a skill archive|corrupt|no files/);
  });

  test('a manifest that disagrees with the files, or a second copy of a file, is refused', async () => {
    const content = files('liar', { 'a.md': 'real' });
    const manifest = manifestFor('liar', content);
    const tampered = packSkillArchive(manifest, files('liar', { 'a.md': 'swapped' }));
    await refuses(tampered, /do not match its manifest \(a\.md\)/);
    const renamed = gzipSync(
      tarOf([{ path: 'skillport.json', body: JSON.stringify(manifest) }, ...content.map((f) => ({ path: `other/${f.path}`, body: Buffer.from(f.bytes) }))]),
    );
    await refuses(renamed, /differs from the manifest/);
    await refuses(
      gzipSync(
        tarOf([
          { path: 'x/SKILL.md', body: 'a' },
          { path: 'x/SKILL.md', body: 'b' },
        ]),
      ),
      /twice|duplicate entry/,
    );
    await refuses(
      gzipSync(
        tarOf([
          { path: 'skillport.json', body: '{"format":"nope"}' },
          { path: 'x/SKILL.md', body: 'a' },
        ]),
      ),
      /unknown format/,
    );
    await refuses(
      gzipSync(
        tarOf([
          { path: 'skillport.json', body: '{not json' },
          { path: 'x/SKILL.md', body: 'a' },
        ]),
      ),
      /not valid JSON/,
    );
  });
});
