import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { DIGEST_PATTERN, packageDigest, sha256Digest } from '../src/index.js';
import type { ManifestLine } from '../src/index.js';

const hex = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/**
 * The canonical form, rebuilt from digest.ts's doc comment without the product code: one line
 * `<digest> <size> <path>\n` per file, lines sorted by path in Unicode code-point order (which is the byte
 * order of UTF-8), the package digest being `sha256:` + hex sha256 of the UTF-8 bytes of the concatenation.
 */
function referencePackageDigest(files: readonly ManifestLine[]): string {
  const sorted = [...files].sort((a, b) => Buffer.compare(Buffer.from(a.path, 'utf8'), Buffer.from(b.path, 'utf8')));
  const text = sorted.map((file) => `${file.digest} ${file.size} ${file.path}\n`).join('');
  return `sha256:${hex(Buffer.from(text, 'utf8'))}`;
}

const file = (path: string, content: string): ManifestLine => ({ path, size: Buffer.byteLength(content), digest: `sha256:${hex(content)}` });

describe('sha256Digest', () => {
  test('sha256:<64 lowercase hex> of the raw bytes', () => {
    assert.equal(sha256Digest(''), 'sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.equal(sha256Digest('abc'), 'sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    assert.equal(sha256Digest(new Uint8Array([0xff, 0x00])), `sha256:${hex(new Uint8Array([0xff, 0x00]))}`);
    assert.equal(sha256Digest('é'), sha256Digest(Buffer.from('é', 'utf8')));
    assert.match(sha256Digest('x'), DIGEST_PATTERN);
  });

  test('DIGEST_PATTERN refuses other spellings', () => {
    for (const digest of ['sha256:' + 'A'.repeat(64), 'sha256:' + 'a'.repeat(63), 'sha512:' + 'a'.repeat(64), 'a'.repeat(64), 'sha256:' + 'g'.repeat(64)]) {
      assert.doesNotMatch(digest, DIGEST_PATTERN);
    }
  });
});

describe('packageDigest', () => {
  const files = [
    file('SKILL.md', '---\nname: pdf\ndescription: x\n---\n'),
    file('references/guide.md', '# Guide\n'),
    file('scripts/run.py', 'print(1)\n'),
    file('a b/ü.txt', 'umlaut'),
    file('Z.md', 'capital'),
  ];

  test('matches the documented canonical form, recomputed independently', () => {
    assert.equal(packageDigest(files), referencePackageDigest(files));
    assert.match(packageDigest(files), DIGEST_PATTERN);
  });

  test('a hand-written canonical text for a two-file package', () => {
    const a = file('SKILL.md', 'x');
    const b = file('b.txt', 'yy');
    const text = `${a.digest} 1 SKILL.md\n${b.digest} 2 b.txt\n`;
    assert.equal(packageDigest([b, a]), `sha256:${hex(text)}`);
  });

  test('the empty package is the digest of the empty string', () => {
    assert.equal(packageDigest([]), sha256Digest(''));
  });

  test('independent of input order', () => {
    const expected = packageDigest(files);
    const orders = [[...files].reverse(), [files[2]!, files[0]!, files[4]!, files[1]!, files[3]!], [...files].sort(() => 0)];
    for (const order of orders) assert.equal(packageDigest(order), expected);
  });

  test('sorted by code point, not by UTF-16 code unit', () => {
    // U+FF5E sorts before U+1F600 by code point, but after it by UTF-16 code unit (0xFF5E > 0xD83D).
    const pair = [file('\u{1F600}.md', 'emoji'), file('\uFF5E.md', 'tilde')];
    const byCodePoint = `${pair[1]!.digest} 5 \uFF5E.md\n${pair[0]!.digest} 5 \u{1F600}.md\n`;
    assert.equal(packageDigest(pair), `sha256:${hex(byCodePoint)}`);
    assert.equal(packageDigest([...pair].reverse()), `sha256:${hex(byCodePoint)}`);
    assert.equal(packageDigest(pair), referencePackageDigest(pair));
  });

  test('changes with any path, size or digest', () => {
    const base = packageDigest(files);
    const changed = (index: number, patch: Partial<ManifestLine>) => files.map((item, i) => (i === index ? { ...item, ...patch } : item));
    assert.notEqual(packageDigest(changed(1, { path: 'references/Guide.md' })), base);
    assert.notEqual(packageDigest(changed(1, { size: files[1]!.size + 1 })), base);
    assert.notEqual(packageDigest(changed(1, { digest: sha256Digest('other') })), base);
    assert.notEqual(packageDigest(files.slice(1)), base);
  });

  test('paths are written raw (UTF-8, not percent-encoded)', () => {
    const item = file('my notes/é.md', 'x');
    assert.equal(packageDigest([item]), `sha256:${hex(Buffer.from(`${item.digest} 1 my notes/é.md\n`, 'utf8'))}`);
  });
});
