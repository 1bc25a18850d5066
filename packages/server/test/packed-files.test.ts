import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { encodePath, joinSkillUri, mimeTypeFor, sha256Digest } from '@skillport/core';
import type { InspectedSkill, SkillFileRecord, SkillManifest } from '@skillport/core';
import { buildCatalogSkill } from '../src/catalog/catalog-skill.js';
import { StringPool, compactFolder } from '../src/catalog/intern.js';
import type { ScannedFolder } from '../src/catalog/folder-scan.js';
import type { CatalogSkill } from '../src/catalog/model.js';
import { CompactSkill, PackedFiles } from '../src/catalog/packed-files.js';
import { CatalogSnapshot } from '../src/catalog/snapshot.js';

/**
 * The packed file list (packed-files.ts) holds a skill's files as columns and makes each record, digest and URI
 * when asked for: what it gives back must be exactly what it was given, and the catalog skill built on it must
 * answer exactly as one built on plain records.
 */
const record = (path: string, content = path, target?: string): SkillFileRecord => {
  const file: SkillFileRecord = { path, size: Buffer.byteLength(content), digest: sha256Digest(Buffer.from(content)), mimeType: mimeTypeFor(path) };
  if (target !== undefined) file.target = target;
  return file;
};

/** Unusual names: spaces, percent signs, non-ASCII (composed and decomposed), emoji, dots, names that sort apart once encoded. */
const UNUSUAL = [
  'SKILL.md',
  'a b/c d.md',
  'a%20b.md',
  'a+b.md',
  'ünïcödé/ﬁle.md',
  'u\u0308nicode.md',
  'emoji/😀.txt',
  'zz.md',
  'Z.md',
  '_under.md',
  '-dash.md',
  'folder/.hidden',
  'folder/sub/deep/deeper/file.json',
  'x#y.md',
  'q?.md',
  "it's.md",
  '中文/说明.md',
].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

const manifest = (files: SkillFileRecord[]): SkillManifest => ({
  name: 'unusual',
  description: 'files with unusual names',
  frontmatter: { name: 'unusual', description: 'files with unusual names' },
  headings: [],
  files,
  totalBytes: files.reduce((sum, file) => sum + file.size, 0),
  packageDigest: sha256Digest(Buffer.from(files.map((file) => file.digest).join())),
});

/** The catalog's files as plain data, in the order it serves them. */
const served = (skill: CatalogSkill) =>
  skill.files.map((file) => ({ uri: file.uri, path: file.path, size: file.size, digest: file.digest, mimeType: file.mimeType, target: file.target }));

describe('PackedFiles: columns that give back exactly the records they were made from', () => {
  test('round trip: paths, sizes, digests, media types and link targets, in order', () => {
    const records = UNUSUAL.map((path, index) => record(path, `content ${index}`, index % 5 === 3 ? `/elsewhere/${path}` : undefined));
    const packed = PackedFiles.from(records);
    assert.equal(packed.length, records.length);
    assert.deepEqual(packed.records(), records);
    assert.equal(packed.hasTargets, true);
    for (const [index, file] of records.entries()) {
      assert.equal(packed.digest(index), file.digest);
      assert.equal(packed.target(index), file.target);
    }
  });

  test('no files, one file, and a few thousand', () => {
    assert.deepEqual(PackedFiles.from([]).records(), []);
    const one = [record('SKILL.md')];
    assert.deepEqual(PackedFiles.from(one).records(), one);
    const many = Array.from({ length: 5000 }, (_, index) => record(`files/${String(index).padStart(5, '0')}.md`, `#${index}`));
    const packed = PackedFiles.from(many);
    assert.deepEqual(packed.records(), many);
    assert.equal(packed.hasTargets, false);
    assert.equal(packed.digest(4999), many[4999]!.digest);
  });

  test('digests of every byte value and sizes past 32 bits come back as given', () => {
    const records: SkillFileRecord[] = Array.from({ length: 256 }, (_, byte) => ({
      path: `b${byte}.bin`,
      size: byte === 255 ? 2 ** 40 + 7 : byte,
      digest: `sha256:${byte.toString(16).padStart(2, '0').repeat(32)}`,
      mimeType: 'application/octet-stream',
    }));
    assert.deepEqual(PackedFiles.from(records).records(), records);
  });

  test('a digest not written as sha256 and 64 lowercase hex digits is kept as it was given', () => {
    const upper = `sha256:${'AB'.repeat(32)}`;
    const records: SkillFileRecord[] = [{ ...record('SKILL.md'), digest: upper }, { ...record('other.md'), digest: 'sha512:abc' }, record('plain.md')];
    const packed = PackedFiles.from(records);
    assert.deepEqual(packed.records(), records);
    assert.equal(packed.digest(0), upper);
    // Of the right length, with one digit that is not hex (first, in the middle, last) or not lowercase.
    const hex = 'ab'.repeat(32);
    for (const odd of [`g${hex.slice(1)}`, `${hex.slice(0, 31)}z${hex.slice(32)}`, `${hex.slice(0, 63)}-`, `${hex.slice(0, 63)}F`, `${hex.slice(0, 62)} a`]) {
      const mixed: SkillFileRecord[] = [record('SKILL.md'), { ...record('odd.md'), digest: `sha256:${odd}` }];
      assert.deepEqual(PackedFiles.from(mixed).records(), mixed, odd);
      assert.equal(PackedFiles.from(mixed).digest(1), `sha256:${odd}`);
    }
    assert.deepEqual(PackedFiles.from([{ ...record('a.md'), digest: `SHA256:${hex}` }]).records()[0]!.digest, `SHA256:${hex}`);
  });

  test('sameTargets: links compared file by file', () => {
    const plain = PackedFiles.from([record('SKILL.md'), record('a.md')]);
    const linked = PackedFiles.from([record('SKILL.md'), record('a.md', 'a.md', '/t/a.md')]);
    const linkedElsewhere = PackedFiles.from([record('SKILL.md'), record('a.md', 'a.md', '/u/a.md')]);
    assert.equal(plain.sameTargets(PackedFiles.from([record('SKILL.md'), record('a.md')])), true);
    assert.equal(plain.sameTargets(linked), false);
    assert.equal(linked.sameTargets(plain), false);
    assert.equal(linked.sameTargets(PackedFiles.from([record('SKILL.md'), record('a.md', 'x', '/t/a.md')])), true);
    assert.equal(linked.sameTargets(linkedElsewhere), false);
    assert.equal(plain.sameTargets(PackedFiles.from([record('SKILL.md')])), false);
  });
});

describe('a catalog skill on packed files answers as one on plain records', () => {
  const records = UNUSUAL.map((path, index) => record(path, `body ${index}`, path === 'zz.md' ? '/real/zz.md' : undefined));
  const origin = { kind: 'stored' as const, source: 'test', blobs: { read: async () => new Uint8Array() } };
  const built = buildCatalogSkill(manifest(records), ['tests', 'unusual'], origin);
  assert.ok(typeof built !== 'string', String(built));
  const skill = built as CatalogSkill;

  test('files in URI order, each URI the encoded path under the skill folder', () => {
    const expected = records
      .map((file) => ({ ...file, uri: `${joinSkillUri(['tests', 'unusual'])}/${encodePath(file.path)}` }))
      .sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0))
      .map(({ uri, path, size, digest, mimeType, target }) => ({ uri, path, size, digest, mimeType, target }));
    assert.deepEqual(served(skill), expected);
    // Encoding moves some files (a space encodes as %20, which sorts before letters): the order is the URIs'.
    assert.notDeepEqual(
      expected.map((file) => file.path),
      records.map((file) => file.path),
    );
  });

  test('the wire entry lists every file with its digest and size', () => {
    const entry = skill.entry;
    assert.deepEqual(
      entry.resources,
      served(skill).map(({ uri, digest, size }) => ({ uri, digest, size })),
    );
  });

  test('every file and folder is found by its URI, and nothing else is', () => {
    const snapshot = new CatalogSnapshot([skill], 1);
    for (const file of skill.files) {
      const found = snapshot.file(file.uri);
      assert.ok(found !== undefined, file.uri);
      assert.equal(found.file.path, file.path);
      assert.equal(found.file.digest, file.digest);
    }
    assert.equal(snapshot.file(`${skill.rootUri}/missing.md`), undefined);
    assert.equal(snapshot.file(`${skill.rootUri}/a%20b`), undefined, 'a folder is not a file');
    assert.equal(snapshot.isDirectory(`${skill.rootUri}/a%20b`), true);
    assert.equal(snapshot.isDirectory(`${skill.rootUri}/folder/sub/deep`), true);
    assert.equal(snapshot.isDirectory(`${skill.rootUri}/folder/su`), false);
    const children = snapshot.directory(`${skill.rootUri}/folder`)!.map((child) => child.name);
    assert.deepEqual(children, ['.hidden', 'sub']);
  });
});

describe('compactFolder: a scanned folder keeps its files packed', () => {
  test('the folder gives back the same records and builds the same catalog skill', () => {
    const files = UNUSUAL.map((path, index) => record(path, `scan ${index}`));
    const inspected: InspectedSkill = {
      ...manifest(files.map((file) => ({ ...file }))),
      dir: '/skills/unusual',
      realDir: '/skills/unusual',
      folderName: 'unusual',
    };
    const folder: ScannedFolder = {
      root: { dir: '/skills', prefix: [] },
      dir: '/skills/unusual',
      segments: ['unusual'],
      inspection: { skill: inspected, problems: [] },
    };
    const plain = buildCatalogSkill({ ...manifest(files) }, ['unusual'], {
      kind: 'folder',
      root: '/skills',
      dir: '/skills/unusual',
      realDir: '/skills/unusual',
    });
    compactFolder(folder, new StringPool());
    const compact = folder.inspection.skill!;
    assert.ok(compact instanceof CompactSkill);
    assert.deepEqual(compact.files, files);
    const built = buildCatalogSkill(compact, ['unusual'], { kind: 'folder', root: '/skills', dir: '/skills/unusual', realDir: '/skills/unusual' });
    assert.ok(typeof built !== 'string' && typeof plain !== 'string');
    assert.deepEqual(served(built), served(plain));
    assert.deepEqual(built.entry, plain.entry);
    assert.equal(built.packageDigest, plain.packageDigest);
  });
});
