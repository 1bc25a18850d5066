import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { manifestFor, packSkillArchive } from '../src/package-format.js';
import { RegistryProvider } from '../src/provider.js';
import { RegistryService } from '../src/service.js';
import { generateKeyPair, parseTrustedKeys, signDigest } from '../src/signing.js';
import { SqliteStore } from '../src/sqlite-store.js';
import { files } from './fixtures.js';

const dirs: string[] = [];
const closers: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const close of closers) await close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function setup(options: { prefix?: string; tag?: string; trusted?: string; requireSignatures?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'skillport-provider-'));
  dirs.push(dir);
  const store = SqliteStore.open(dir);
  const trustedKeys = options.trusted ? parseTrustedKeys(options.trusted) : undefined;
  const service = new RegistryService({ store, ...(trustedKeys ? { trustedKeys } : {}) });
  const provider = await RegistryProvider.open({
    store,
    pollMs: 0,
    ...(options.prefix ? { prefix: options.prefix } : {}),
    ...(options.tag ? { tag: options.tag } : {}),
    ...(trustedKeys ? { trustedKeys } : {}),
    ...(options.requireSignatures ? { requireSignatures: true } : {}),
  });
  closers.push(
    () => provider.close(),
    () => store.close(),
  );
  const publish = async (name: string, version: string, extra: Record<string, string> = {}, tags?: string[], key?: string) => {
    const content = files(name, extra);
    const signatures = key ? [signDigest(manifestFor(name, content).packageDigest, key)] : [];
    await service.publish({
      archive: packSkillArchive(manifestFor(name, content, { signatures }), content),
      version,
      publisher: 'p',
      ...(tags ? { tags } : {}),
    });
    await provider.refresh();
  };
  return { service, provider, publish };
}

const skillOf = (found: unknown) => {
  assert.ok(found && typeof found === 'object' && 'skill' in found, JSON.stringify(found));
  return (found as { skill: { uri: string; packageDigest: string; entry: { _meta?: Record<string, unknown> } } }).skill;
};

describe('registry provider', () => {
  test('lists the tagged version and resolves exact versions, tags and digests; URIs that are not its own are left alone', async () => {
    const { provider, publish } = await setup();
    await publish('alpha', '1.0.0');
    await publish('alpha', '1.1.0', { 'b.md': 'b' });
    assert.deepEqual(
      provider.skills().map((s) => [s.uri, s.entry._meta?.['dev.skillport/version']]),
      [['skill://alpha/SKILL.md', '1.1.0']],
    );
    const exact = skillOf(provider.lookup('skill://1.0.0/alpha/SKILL.md'));
    assert.equal(exact.uri, 'skill://1.0.0/alpha/SKILL.md');
    assert.equal(skillOf(provider.lookup('skill://1.0.0/alpha/references')).uri, exact.uri, 'any URI inside the version finds it');
    assert.equal(skillOf(provider.version('skill://alpha/SKILL.md', { version: '1.0.0' })).uri, exact.uri);
    assert.equal(skillOf(provider.version('skill://alpha/SKILL.md', { version: 'latest' })).uri, 'skill://1.1.0/alpha/SKILL.md');
    assert.equal(skillOf(provider.version('skill://1.1.0/alpha/SKILL.md', { digest: exact.packageDigest })).uri, exact.uri);
    assert.equal(provider.version('skill://alpha/SKILL.md', { digest: `sha256:${'1'.repeat(64)}` }), undefined);
    assert.match(JSON.stringify(provider.version('skill://alpha/SKILL.md', { version: '9.9.9' })), /has no version or tag '9\.9\.9'/);
    // A folder skill elsewhere whose first segment happens to be a registry name is not ours.
    assert.equal(provider.version('skill://alpha/nested/SKILL.md', { version: '1.0.0' }), undefined);
    assert.equal(provider.version('skill://team/alpha/SKILL.md', { version: '1.0.0' }), undefined);
    assert.equal(provider.lookup('skill://2.0.0/alpha/SKILL.md'), undefined);
    assert.equal(provider.lookup('skill://beta/SKILL.md'), undefined);
    assert.equal(provider.lookup('file:///etc/passwd'), undefined);
    assert.equal(provider.lookup('skill://1.0.0/%2e%2e/alpha/SKILL.md'), undefined);
  });

  test('prefix and served tag', async () => {
    const { provider, publish } = await setup({ prefix: 'acme/tools', tag: 'stable' });
    await publish('gamma', '1.0.0');
    assert.deepEqual(
      provider.skills().map((s) => s.uri),
      [],
      'nothing tagged stable yet',
    );
    await publish('gamma', '1.1.0', { 'c.md': 'c' }, ['stable']);
    assert.deepEqual(
      provider.skills().map((s) => s.uri),
      ['skill://acme/tools/gamma/SKILL.md'],
    );
    assert.equal(skillOf(provider.lookup('skill://acme/tools/1.0.0/gamma/SKILL.md')).uri, 'skill://acme/tools/1.0.0/gamma/SKILL.md');
    assert.equal(provider.lookup('skill://1.0.0/gamma/SKILL.md'), undefined, 'outside the prefix');
  });

  test('yanked: unlisted but readable, with yankedAt in provenance; revoked: refused with the reason; all withdrawn: said so', async () => {
    const { service, provider, publish } = await setup();
    await publish('delta', '1.0.0');
    await publish('delta', '2.0.0', { 'd.md': 'd' });
    await service.yank('delta', '2.0.0');
    await provider.refresh();
    assert.deepEqual(
      provider.skills().map((s) => s.entry._meta?.['dev.skillport/version']),
      ['1.0.0'],
    );
    const yanked = skillOf(provider.lookup('skill://2.0.0/delta/SKILL.md'));
    assert.ok((yanked.entry._meta?.['dev.skillport/provenance'] as Record<string, unknown>)['yankedAt']);
    await service.revoke('delta', '1.0.0', 'bad advice');
    await provider.refresh();
    assert.deepEqual(provider.skills(), []);
    assert.match(JSON.stringify(provider.lookup('skill://1.0.0/delta/SKILL.md')), /delta@1\.0\.0 was revoked on .*: bad advice/);
    assert.match(JSON.stringify(provider.lookup('skill://delta/SKILL.md')), /every version of 'delta' is yanked or revoked/);
  });

  test('with requireSignatures, versions no trusted key signed are refused, listed or not', async () => {
    const trusted = generateKeyPair();
    const { provider, publish } = await setup({ trusted: trusted.publicKey, requireSignatures: true });
    await publish('eps', '1.0.0');
    await publish('zeta', '1.0.0', {}, undefined, trusted.privateKey);
    assert.deepEqual(
      provider.skills().map((s) => s.uri),
      ['skill://zeta/SKILL.md'],
    );
    assert.match(JSON.stringify(provider.lookup('skill://1.0.0/eps/SKILL.md')), /not signed by a trusted key/);
    const signatures = (provider.skills()[0]!.entry._meta?.['dev.skillport/provenance'] as { signatures: Array<{ trusted: boolean }> }).signatures;
    assert.deepEqual(
      signatures.map((s) => s.trusted),
      [true],
    );
  });

  test('sees changes made by another process through the store revision (polling)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'skillport-provider-poll-'));
    dirs.push(dir);
    const reader = SqliteStore.open(dir);
    const writer = SqliteStore.open(dir);
    const provider = await RegistryProvider.open({ store: reader, pollMs: 20 });
    closers.push(
      () => provider.close(),
      () => reader.close(),
      () => writer.close(),
    );
    let changes = 0;
    provider.onChange(() => changes++);
    const content = files('polled');
    await new RegistryService({ store: writer }).publish({
      archive: packSkillArchive(manifestFor('polled', content), content),
      version: '1.0.0',
      publisher: 'other',
    });
    const until = Date.now() + 5000;
    while (provider.skills().length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(
      provider.skills().map((s) => s.uri),
      ['skill://polled/SKILL.md'],
    );
    assert.ok(changes >= 1);
  });
});
