import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { RegistryError } from '../src/model.js';
import { manifestFor, packSkillArchive } from '../src/package-format.js';
import { RegistryService } from '../src/service.js';
import { generateKeyPair, parseTrustedKeys, signDigest } from '../src/signing.js';
import { SqliteStore } from '../src/sqlite-store.js';
import { files, skillMd } from './fixtures.js';

const dirs: string[] = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function open(options: Partial<ConstructorParameters<typeof RegistryService>[0]> = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'skillport-service-'));
  dirs.push(dir);
  return new RegistryService({ store: SqliteStore.open(dir), ...options });
}

const archive = (name: string, extra: Record<string, string> = {}, version?: string, signatures = [] as ReturnType<typeof signDigest>[]) => {
  const content = files(name, extra);
  return packSkillArchive(manifestFor(name, content, { ...(version ? { version } : {}), signatures }), content);
};

const refused = (status: number, pattern: RegExp) => (error: unknown) =>
  error instanceof RegistryError && error.status === status && pattern.test(error.message);

describe('registry service', () => {
  test('publishes an archive; the same bytes again is a no-op; other bytes under the same version are 409', async () => {
    const service = open();
    const first = await service.publish({ archive: archive('pub', {}, '1.0.0'), publisher: 'tester' });
    assert.equal(first.status, 'created');
    assert.equal(first.version.publisher, 'tester');
    assert.deepEqual(
      first.tags.map((t) => [t.tag, t.version]),
      [['latest', '1.0.0']],
    );
    assert.equal((await service.publish({ archive: archive('pub', {}, '1.0.0'), publisher: 'tester' })).status, 'exists');
    await assert.rejects(
      service.publish({ archive: archive('pub', { 'x.md': 'x' }, '1.0.0'), publisher: 'tester' }),
      refused(409, /already published with other bytes/),
    );
  });

  test('the version comes from the request, the archive, or metadata.version, and must be semver', async () => {
    const service = open();
    assert.equal((await service.publish({ archive: archive('v1', {}, '1.0.0'), version: '2.0.0', publisher: 't' })).version.version, '2.0.0');
    const content = [{ path: 'SKILL.md', bytes: Buffer.from(skillMd('v2', '# v2\n', 'metadata:\n  version: 3.1.4\n')) }];
    assert.equal((await service.publish({ archive: packSkillArchive(manifestFor('v2', content), content), publisher: 't' })).version.version, '3.1.4');
    await assert.rejects(service.publish({ archive: archive('v3'), publisher: 't' }), refused(400, /no version/));
    await assert.rejects(service.publish({ archive: archive('v3'), version: 'v1.0', publisher: 't' }), refused(400, /not a semantic version/));
    await assert.rejects(service.publish({ archive: archive('v3'), version: '1.0.0\n', publisher: 't' }), refused(400, /not a semantic version/));
  });

  test('a bad version is quoted by its start and its length, however long it is', async () => {
    const service = open();
    const huge = `1.0.0-${'\u001b[2J'.repeat(3)}${'x'.repeat(4 * 1024 * 1024)}`;
    const error = await service.publish({ archive: archive('v4'), version: huge, publisher: 't' }).then(
      () => assert.fail('published'),
      (caught: unknown) => caught,
    );
    assert.ok(error instanceof RegistryError && error.code === 'bad_version', String(error));
    assert.equal(
      error.message,
      `'1.0.0-?[2J?[2J?[2J${'x'.repeat(46)}…' (${huge.length} characters) is not a semantic version (MAJOR.MINOR.PATCH, e.g. 1.2.0 or 2.0.0-beta.1)`,
    );
    // A short one is quoted whole, as before.
    await assert.rejects(
      service.publish({ archive: archive('v4'), version: 'v1.0', publisher: 't' }),
      (caught: unknown) => caught instanceof RegistryError && caught.message.startsWith("'v1.0' is not a semantic version"),
    );
  });

  test('errors refuse a skill, with the problems listed; warnings refuse it only on a strict registry', async () => {
    const service = open();
    const bad = [{ path: 'SKILL.md', bytes: Buffer.from('---\nname: Bad Name\n---\n') }];
    await assert.rejects(service.publish({ files: bad, folderName: 'bad', version: '1.0.0', publisher: 't' }), refused(422, /does not validate/));
    const unknownField = [{ path: 'SKILL.md', bytes: Buffer.from(skillMd('warned', '# w\n', 'colour: blue\n')) }];
    const strict = new RegistryService({ store: service.store, strict: true });
    await assert.rejects(
      strict.publish({ files: unknownField, folderName: 'warned', version: '1.0.0', publisher: 't' }),
      refused(422, /strictly.*Unexpected fields/),
    );
    await assert.rejects(service.publish({ archive: Buffer.from('junk'), version: '1.0.0', publisher: 't' }), refused(400, /gzip/));
    assert.deepEqual(await service.store.listNames(), []);
    assert.equal((await service.publish({ files: unknownField, folderName: 'warned', version: '1.0.0', publisher: 't' })).status, 'created');
  });

  test('a skill that only declares a top-level version publishes under it', async () => {
    const service = open();
    const content = [{ path: 'SKILL.md', bytes: Buffer.from(skillMd('topver', '# t\n', 'version: 2.1.0\n')) }];
    assert.equal((await service.publish({ files: content, folderName: 'topver', publisher: 't' })).version.version, '2.1.0');
  });

  test('tags: latest moves with each release; prereleases and explicit tags leave it alone; the first version always gets it', async () => {
    const service = open();
    await service.publish({ archive: archive('t', {}, '1.0.0-beta.1'), publisher: 't' });
    assert.deepEqual((await service.versions('t')).tags, { latest: '1.0.0-beta.1' });
    await service.publish({ archive: archive('t', { a: 'a' }, '1.0.0'), publisher: 't' });
    await service.publish({ archive: archive('t', { b: 'b' }, '1.1.0-rc.1'), publisher: 't' });
    await service.publish({ archive: archive('t', { c: 'c' }, '1.1.0'), tags: ['beta'], publisher: 't' });
    assert.deepEqual((await service.versions('t')).tags, { latest: '1.0.0', beta: '1.1.0' });
    await service.tag('t', '1.1.0', 'latest');
    assert.deepEqual((await service.versions('t')).tags, { latest: '1.1.0', beta: '1.1.0' });
    await assert.rejects(service.tag('t', '1.1.0', 'v1.2.3'), refused(400, /looks like a version/));
    await assert.rejects(service.tag('t', '1.1.0', 'Bad Tag'), refused(400, /must be 1-64/));
    await assert.rejects(service.untag('t', 'latest'), refused(400, /cannot be removed/));
    assert.deepEqual(
      (await service.untag('t', 'beta')).map((x) => x.tag),
      ['latest'],
    );
  });

  test('yank moves latest back and keeps the record; revoke needs a reason', async () => {
    const service = open();
    await service.publish({ archive: archive('y', {}, '1.0.0'), publisher: 't' });
    await service.publish({ archive: archive('y', { a: 'a' }, '1.1.0'), publisher: 't' });
    const yanked = await service.yank('y', '1.1.0');
    assert.ok(yanked.yankedAt);
    assert.deepEqual((await service.versions('y')).tags, { latest: '1.0.0' });
    await assert.rejects(service.revoke('y', '1.0.0', '  '), refused(400, /give a reason/));
    const revoked = await service.revoke('y', '1.0.0', 'prompt injection in references/a.md');
    assert.equal(revoked.revoked?.reason, 'prompt injection in references/a.md');
    assert.deepEqual((await service.versions('y')).tags, {});
    await assert.rejects(service.yank('y', '1.0.0'), refused(409, /already revoked/));
    await assert.rejects(service.versions('nope'), refused(404, /no skill named/));
  });

  test('signatures: a bad one is refused; with requireSignatures only a trusted key will do', async () => {
    const trusted = generateKeyPair();
    const stranger = generateKeyPair();
    const keys = parseTrustedKeys(trusted.publicKey);
    const service = open({ trustedKeys: keys, requireSignatures: true });
    const digest = manifestFor('s', files('s')).packageDigest;
    await assert.rejects(service.publish({ archive: archive('s', {}, '1.0.0'), publisher: 't' }), refused(403, /not signed/));
    await assert.rejects(
      service.publish({ archive: archive('s', {}, '1.0.0', [signDigest(digest, stranger.privateKey)]), publisher: 't' }),
      refused(403, /only by untrusted keys/),
    );
    const forged = { ...signDigest(digest, stranger.privateKey), keyId: trusted.keyId, publicKey: trusted.publicKey };
    await assert.rejects(service.publish({ archive: archive('s', {}, '1.0.0', [forged]), publisher: 't' }), refused(400, /does not verify/));
    const otherDigest = manifestFor('s', files('s', { z: 'z' })).packageDigest;
    await assert.rejects(
      service.publish({ archive: archive('s', {}, '1.0.0', [signDigest(otherDigest, trusted.privateKey)]), publisher: 't' }),
      refused(400, /does not verify/),
    );
    const ok = await service.publish({
      archive: archive('s', {}, '1.0.0', [signDigest(digest, trusted.privateKey), signDigest(digest, stranger.privateKey)]),
      publisher: 't',
    });
    assert.deepEqual(ok.version.signatures.map((s) => s.keyId).sort(), [trusted.keyId, stranger.keyId].sort());
    assert.equal(service.isTrusted(ok.version.signatures.find((s) => s.keyId === trusted.keyId)!), true);
    assert.equal(service.isTrusted(ok.version.signatures.find((s) => s.keyId === stranger.keyId)!), false);
  });

  test('a publish that fails before its commit leaves no version (only orphaned blobs, which check reports)', async () => {
    const service = open({
      pause: async (point) => {
        if (point === 'before-commit') throw new Error('crash here');
      },
    });
    await assert.rejects(service.publish({ archive: archive('half', { 'r.md': 'r' }, '1.0.0'), publisher: 't' }), /crash here/);
    assert.equal(await service.store.getVersion('half', '1.0.0'), undefined);
    const report = await service.store.check();
    assert.equal(report.consistent, true);
    assert.equal(report.orphanBlobs.length, 2);
  });

  test('an archive whose file names collide by case or Unicode normalisation is refused, naming both', async () => {
    const service = open();
    const cases: Array<[Record<string, string>, string]> = [
      [{ 'A.md': 'a', 'a.md': 'b' }, "'A.md' and 'a.md' differ only in case"],
      [{ 'skill.md': 'shadow' }, "'SKILL.md' and 'skill.md' differ only in case"],
      [{ 'refs/caf\u00e9.md': 'nfc', 'refs/cafe\u0301.md': 'nfd' }, "'refs/cafe\u0301.md' (NFD) and 'refs/caf\u00e9.md' (NFC) are one name in two Unicode"],
      [{ 'Docs/one.md': '1', 'docs/two.md': '2' }, "'Docs' and 'docs' differ only in case: one folder"],
    ];
    for (const [extra, named] of cases) {
      await assert.rejects(
        service.publish({ archive: archive('clash', extra, '1.0.0'), publisher: 'tester' }),
        (error: unknown) => error instanceof RegistryError && error.status === 422 && error.code === 'invalid_skill' && error.message.includes(named),
        JSON.stringify(extra),
      );
    }
    assert.deepEqual(await service.store.listNames(), []);
    // Names that only look alike are fine.
    assert.equal((await service.publish({ archive: archive('clash', { 'a.md': 'a', 'b.md': 'b' }, '1.0.0'), publisher: 'tester' })).status, 'created');
  });
});
