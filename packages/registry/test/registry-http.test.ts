import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import type { Client } from '@modelcontextprotocol/client';
import { connectHttp, eventually, makeTree, runCli, skillMd, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';
import { callText, publish, registryUrl, releaseFolder, storeDir, writeRelease } from '@skillport/test-kit';

const TOKEN = 'test-publish-token';

describe('registry over HTTP: publish with the CLI, serve through MCP', () => {
  let server: RunningServer;
  let registry: string;
  let client: Client;
  let keyDir: string;
  let data: string;
  let skillBase: string;
  before(async () => {
    data = storeDir();
    keyDir = makeTree({});
    assert.equal((await runCli(['keygen', '-o', join(keyDir, 'ci.key')])).code, 0);
    assert.equal((await runCli(['keygen', '-o', join(keyDir, 'other.key')])).code, 0);
    // A folder skill with the same name as a registry skill: the folder wins its URI.
    // And a folder named like a version: it must not take over the registry's exact-version URI.
    const folders = makeTree({
      'shadowed/SKILL.md': skillMd('shadowed', 'The folder copy of shadowed. Use it for folder things.'),
      '1.0.0/shadowed/SKILL.md': skillMd('shadowed', 'IMPOSTOR folder at an exact-version URI.'),
    });
    server = await startHttp(['--data', data, '--trusted-keys', join(keyDir, 'ci.key.pub'), folders], { SKILLPORT_PUBLISH_TOKEN: TOKEN });
    registry = registryUrl(server.url);
    client = await connectHttp(server.url, 'modern');
    skillBase = join(releaseFolder('pdf-tools', '1.2.0'), '..');
  });
  after(async () => {
    await client?.close();
    await server?.stop();
  });

  const auth = ['--registry', () => registry, '--token', TOKEN] as const;
  const target = () => ['--registry', registry, '--token', TOKEN];

  test('publish a signed folder: the version, its digests and provenance come back; skills/list serves it, verified', async () => {
    void auth;
    const result = await publish([
      join(skillBase, 'pdf-tools'),
      ...target(),
      '--version',
      '1.2.0',
      '--sign',
      join(keyDir, 'ci.key'),
      '--source-repo',
      'https://git.example/skills',
      '--source-commit',
      'abc123',
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.json?.['status'], 'created');
    assert.equal(result.json?.['version'], '1.2.0');
    assert.match(String(result.json?.['packageDigest']), /^sha256:[0-9a-f]{64}$/);
    assert.deepEqual(
      (result.json?.['signatures'] as Array<{ trusted: boolean }>).map((s) => s.trusted),
      [true],
    );
    assert.deepEqual(result.json?.['provenance'], { repository: 'https://git.example/skills', commit: 'abc123' });
    assert.equal(result.json?.['uri'], 'skill://1.2.0/pdf-tools/SKILL.md');

    const skills = new SkillsClient(client);
    const entry = await eventually(async () => (await skills.list()).skills.find((skill) => skill.frontmatter.name === 'pdf-tools'), 5000, 'pdf-tools listed');
    assert.equal(entry.uri, 'skill://pdf-tools/SKILL.md');
    const meta = entry._meta as Record<string, unknown>;
    assert.equal(meta['dev.skillport/version'], '1.2.0');
    assert.equal(meta['dev.skillport/packageDigest'], result.json?.['packageDigest']);
    assert.equal(meta['dev.skillport/versionUri'], 'skill://1.2.0/pdf-tools/SKILL.md');
    assert.deepEqual(meta['dev.skillport/tags'], ['latest']);
    const provenance = meta['dev.skillport/provenance'] as Record<string, unknown>;
    assert.equal(provenance['repository'], 'https://git.example/skills');
    assert.equal(provenance['review'], 'unreviewed');
    assert.deepEqual(
      (provenance['signatures'] as Array<{ trusted: boolean }>).map((s) => s.trusted),
      [true],
    );
    // The SDK's skills client verifies size and digest of what it reads.
    const guide = await skills.read(entry, 'skill://pdf-tools/references/guide.md');
    assert.equal(guide.text, 'guide for release 1.2.0\n');
  });

  test('the same bytes again are a no-op; other bytes under the same version are refused (409, exit 1)', async () => {
    const same = await publish([join(skillBase, 'pdf-tools'), ...target(), '--version', '1.2.0']);
    assert.equal(same.code, 0, same.stderr);
    assert.equal(same.json?.['status'], 'exists');
    const other = releaseFolder('pdf-tools', 'other');
    const conflict = await publish([other, ...target(), '--version', '1.2.0']);
    assert.equal(conflict.code, 1);
    assert.match(conflict.stderr, /already published with other bytes.*HTTP 409/);
  });

  test('writes need the token: none is 401, a wrong one 403; reads need none', async () => {
    const none = await publish([join(skillBase, 'pdf-tools'), '--registry', registry, '--version', '9.0.0']);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /Authorization: Bearer.*HTTP 401/);
    const wrong = await publish([join(skillBase, 'pdf-tools'), '--registry', registry, '--token', 'nope', '--version', '9.0.0']);
    assert.match(wrong.stderr, /not valid for this registry.*HTTP 403/);
    const versions = await runCli(['versions', 'pdf-tools', '--registry', registry, '--json']);
    assert.equal(versions.code, 0, versions.stderr);
    assert.deepEqual(Object.keys(JSON.parse(versions.stdout).tags), ['latest']);
  });

  test('a new version moves latest; the old one stays readable at its exact URI, by skills/get and by activate_skill {version}', async () => {
    writeRelease(skillBase, 'pdf-tools', '1.3.0');
    const next = await publish([join(skillBase, 'pdf-tools'), ...target(), '--version', '1.3.0']);
    assert.equal(next.code, 0, next.stderr);
    const skills = new SkillsClient(client);
    await eventually(
      async () =>
        ((await skills.list()).skills.find((s) => s.frontmatter.name === 'pdf-tools')?._meta as Record<string, unknown> | undefined)?.[
          'dev.skillport/version'
        ] === '1.3.0' || undefined,
      5000,
      '1.3.0 listed',
    );
    const old = await client.readResource({ uri: 'skill://1.2.0/pdf-tools/references/guide.md' });
    assert.equal((old.contents[0] as { text: string }).text, 'guide for release 1.2.0\n');
    const oldEntry = await skills.get('skill://1.2.0/pdf-tools/SKILL.md');
    assert.equal((oldEntry.skill._meta as Record<string, unknown>)['dev.skillport/version'], '1.2.0');
    const unlisted = (await skills.list()).skills.filter((s) => s.uri.includes('1.2.0'));
    assert.deepEqual(unlisted, [], 'exact versions are not listed');
    // Folders of an exact version are directory resources like a listed skill's.
    const root = await skills.readDirectory('skill://1.2.0/pdf-tools');
    assert.deepEqual(
      root.resources.map((r) => [r.uri, r.mimeType]),
      [
        ['skill://1.2.0/pdf-tools/SKILL.md', 'text/markdown'],
        ['skill://1.2.0/pdf-tools/references', 'inode/directory'],
      ],
    );
    const references = await skills.readDirectory('skill://1.2.0/pdf-tools/references');
    assert.deepEqual(
      references.resources.map((r) => r.uri),
      ['skill://1.2.0/pdf-tools/references/guide.md'],
    );
    await assert.rejects(skills.readDirectory('skill://1.2.0/pdf-tools/nope'));

    const activated = await callText(client, 'activate_skill', { name: 'pdf-tools', version: '1.2.0' });
    assert.equal(activated.isError, false, activated.text);
    assert.match(
      activated.text,
      /<skill_content name="pdf-tools" uri="skill:\/\/1\.2\.0\/pdf-tools\/SKILL\.md" digest="sha256:[0-9a-f]{64}" version="1\.2\.0">/,
    );
    assert.match(activated.text, /Release 1\.2\.0/);
    assert.match(
      activated.text,
      /<skill_provenance>published .* by publish-token; signed by ed25519:[0-9a-f]{32} \(trusted\); source https:\/\/git\.example\/skills at abc123; review: unreviewed<\/skill_provenance>/,
    );
    const current = await callText(client, 'activate_skill', { name: 'pdf-tools' });
    assert.match(current.text, /version="1\.3\.0"/);
    const byVersion = await callText(client, 'read_skill_resource', { name: 'pdf-tools', version: '1.2.0', path: 'references/guide.md' });
    assert.equal(byVersion.text, 'guide for release 1.2.0\n');
    const missing = await callText(client, 'activate_skill', { name: 'pdf-tools', version: '7.7.7' });
    assert.equal(missing.isError, true);
    assert.match(missing.text, /has no version or tag '7\.7\.7'\. Versions: 1\.2\.0, 1\.3\.0; tags: latest -> 1\.3\.0/);
    const list = await callText(client, 'list_skills', {});
    assert.match(list.text, /"name":"pdf-tools"[^}]*"version":"1\.3\.0"/);
  });

  test('tags and yank: a yanked version leaves the listing and its tags but stays readable by exact version', async () => {
    const tag = await runCli(['tag', 'pdf-tools@1.3.0', 'beta', ...target(), '--json']);
    assert.equal(tag.code, 0, tag.stderr);
    assert.deepEqual(JSON.parse(tag.stdout).tags, { beta: '1.3.0', latest: '1.3.0' });
    const yank = await runCli(['yank', 'pdf-tools@1.3.0', ...target()]);
    assert.equal(yank.code, 0, yank.stderr);
    const versions = JSON.parse((await runCli(['versions', 'pdf-tools', '--registry', registry, '--json'])).stdout);
    assert.deepEqual(versions.tags, { latest: '1.2.0' });
    assert.ok(versions.versions.find((v: { version: string }) => v.version === '1.3.0').yankedAt);
    const skills = new SkillsClient(client);
    await eventually(
      async () =>
        ((await skills.list()).skills.find((s) => s.frontmatter.name === 'pdf-tools')?._meta as Record<string, unknown> | undefined)?.[
          'dev.skillport/version'
        ] === '1.2.0' || undefined,
      5000,
      'back to 1.2.0',
    );
    const yanked = await client.readResource({ uri: 'skill://1.3.0/pdf-tools/references/guide.md' });
    assert.equal((yanked.contents[0] as { text: string }).text, 'guide for release 1.3.0\n');
    const activated = await callText(client, 'activate_skill', { name: 'pdf-tools', version: '1.3.0' });
    assert.match(activated.text, /yanked .* \(kept readable for sessions pinned to it\)/);
  });

  test('revoke: refused everywhere with its reason (resources/read, skills/get, tools); the reason reaches the model', async () => {
    const revoke = await runCli(['revoke', 'pdf-tools@1.3.0', '--reason', 'references/guide.md carries a prompt injection', ...target()]);
    assert.equal(revoke.code, 0, revoke.stderr);
    // (Not a URI read before: a 2026-07-28 client may answer those from its cache for ttlMs.)
    await eventually(
      async () => {
        try {
          await client.readResource({ uri: 'skill://1.3.0/pdf-tools/SKILL.md' });
          return undefined;
        } catch (error) {
          return String(error);
        }
      },
      5000,
      'revoked read refused',
    ).then((message) => assert.match(message, /pdf-tools@1\.3\.0 was revoked on .*: references\/guide\.md carries a prompt injection/));
    await assert.rejects(new SkillsClient(client).get('skill://1.3.0/pdf-tools/SKILL.md'), /was revoked/);
    const tool = await callText(client, 'activate_skill', { name: 'pdf-tools', version: '1.3.0' });
    assert.equal(tool.isError, true);
    assert.match(tool.text, /^Error: pdf-tools@1\.3\.0 was revoked on .*prompt injection/);
    const byUri = await callText(client, 'read_skill_resource', { uri: 'skill://1.3.0/pdf-tools/SKILL.md', path: 'references/guide.md' });
    assert.match(byUri.text, /was revoked/);
    const retag = await runCli(['tag', 'pdf-tools@1.3.0', 'latest', ...target()]);
    assert.equal(retag.code, 1);
    assert.match(retag.stderr, /is revoked .* cannot be tagged/);
  });

  test("a folder and the registry hold the same name: the folder wins the URI; the registry's versions stay reachable", async () => {
    const shadow = releaseFolder('shadowed', '1.0.0');
    assert.equal((await publish([shadow, ...target(), '--version', '1.0.0'])).code, 0);
    const skills = new SkillsClient(client);
    const listed = (await skills.list()).skills.filter((s) => s.frontmatter.name === 'shadowed');
    assert.equal(listed.length, 1);
    assert.match(String(listed[0]!.frontmatter.description), /folder copy/);
    await eventually(async () => (/two skills at skill:\/\/shadowed\/SKILL\.md/.test(server.stderr()) ? true : undefined), 5000, 'clash reported');
    await eventually(
      async () => (/skill:\/\/1\.0\.0\/shadowed\/SKILL\.md, which names .*exact version; not served/.test(server.stderr()) ? true : undefined),
      5000,
      'impostor reported',
    );
    const manifest = await client.readResource({ uri: 'skill://1.0.0/shadowed/SKILL.md' });
    assert.doesNotMatch((manifest.contents[0] as { text: string }).text, /IMPOSTOR/);
    const exact = await client.readResource({ uri: 'skill://1.0.0/shadowed/references/guide.md' });
    assert.equal((exact.contents[0] as { text: string }).text, 'guide for release 1.0.0\n');
    const tool = await callText(client, 'activate_skill', { name: 'shadowed', version: '1.0.0' });
    assert.match(tool.text, /Release 1\.0\.0/);
  });

  test('the API answers bad requests with one-line JSON errors and keeps serving', async () => {
    const call = async (method: string, path: string, body?: string | Buffer, headers: Record<string, string> = {}) => {
      const response = await fetch(`${registry}${path}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, ...headers },
        ...(body !== undefined ? { body } : {}),
      });
      return { status: response.status, body: (await response.json()) as { error?: { code: string; message: string } } };
    };
    assert.equal((await call('GET', '/api/v1/nothing')).status, 404);
    assert.equal((await call('DELETE', '/api/v1/skills')).status, 405);
    assert.equal((await call('GET', '/api/v1/skills/..%2F..%2Fetc')).status, 404);
    assert.equal((await call('GET', '/api/v1/skills/%E0%A4%A')).status, 400);
    assert.match((await call('POST', '/api/v1/skills', 'not a gzip')).body.error!.message, /not a skill archive/);
    assert.equal((await call('PUT', '/api/v1/skills/pdf-tools/tags/beta', '{oops')).status, 400);
    assert.equal((await call('POST', '/api/v1/skills/pdf-tools/versions/1.2.0/review', JSON.stringify({ status: 'maybe' }))).status, 400);
    const big = await call('POST', '/api/v1/skills', Buffer.alloc(21 * 1024 * 1024));
    assert.equal(big.status, 413);
    const review = await call('POST', '/api/v1/skills/pdf-tools/versions/1.2.0/review', JSON.stringify({ status: 'approved' }));
    assert.equal(review.status, 200);
    const listing = await call('GET', '/api/v1/skills');
    assert.ok(Array.isArray((listing.body as unknown as { skills: unknown[] }).skills));
    const health = (await (await fetch(`${registry}/healthz`)).json()) as { registry: { versions: number; writable: boolean } };
    assert.equal(health.registry.writable, true);
    assert.ok(health.registry.versions >= 3);
  });

  test("the archive of a version can be downloaded and verified offline with its signer's public key", async () => {
    const response = await fetch(`${registry}/api/v1/skills/pdf-tools/versions/1.2.0/archive`);
    assert.equal(response.status, 200);
    const file = join(keyDir, 'pdf-tools-1.2.0.skill');
    writeFileSync(file, Buffer.from(await response.arrayBuffer()));
    const ok = await runCli(['verify', file, '--key', join(keyDir, 'ci.key.pub')]);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /Verified pdf-tools@1\.2\.0 sha256:/);
    const other = await runCli(['verify', file, '--key', join(keyDir, 'other.key.pub')]);
    assert.equal(other.code, 1);
    assert.match(other.stderr, /not signed by ed25519:/);
    // One flipped byte inside a file: the manifest no longer matches.
    const bytes = readFileSync(file);
    const { gunzipSync, gzipSync } = await import('node:zlib');
    const tar = gunzipSync(bytes);
    const at = tar.indexOf('guide for release 1.2.0');
    tar[at] = 'G'.charCodeAt(0);
    writeFileSync(file, gzipSync(tar));
    const tampered = await runCli(['verify', file, '--key', join(keyDir, 'ci.key.pub')]);
    assert.equal(tampered.code, 1);
    assert.match(tampered.stderr, /do not match its manifest \(references\/guide\.md\)/);
  });
});

describe('registry writes without SKILLPORT_TOKEN, and --require-signatures', () => {
  test('a server started without the token refuses every write and says why', async () => {
    const server = await startHttp(['--data', storeDir()], { SKILLPORT_PUBLISH_TOKEN: '' });
    try {
      assert.match(server.stderr(), /read-only: SKILLPORT_TOKEN not set/);
      const result = await publish([releaseFolder('ro-skill', '1.0.0'), '--registry', registryUrl(server.url), '--token', 'anything', '--version', '1.0.0']);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /started without SKILLPORT_TOKEN, so it refuses every write.*HTTP 503/);
    } finally {
      await server.stop();
    }
  });

  test('--require-signatures refuses unsigned and untrusted publishes and does not serve unsigned versions already in the store', async () => {
    const data = storeDir();
    const keys = makeTree({});
    await runCli(['keygen', '-o', join(keys, 'trusted.key')]);
    await runCli(['keygen', '-o', join(keys, 'stranger.key')]);
    // Published earlier, unsigned, straight into the store.
    assert.equal((await publish([releaseFolder('legacy', '1.0.0'), '--data', data, '--version', '1.0.0'])).code, 0);
    const server = await startHttp(['--data', data, '--trusted-keys', join(keys, 'trusted.key.pub'), '--require-signatures'], {
      SKILLPORT_PUBLISH_TOKEN: TOKEN,
    });
    try {
      const registry = registryUrl(server.url);
      const skill = releaseFolder('signed-skill', '1.0.0');
      const unsigned = await publish([skill, '--registry', registry, '--token', TOKEN, '--version', '1.0.0']);
      assert.match(unsigned.stderr, /requires a signature by a trusted key.*not signed.*HTTP 403/);
      const stranger = await publish([skill, '--registry', registry, '--token', TOKEN, '--version', '1.0.0', '--sign', join(keys, 'stranger.key')]);
      assert.match(stranger.stderr, /only by untrusted keys/);
      const trusted = await publish([skill, '--registry', registry, '--token', TOKEN, '--version', '1.0.0', '--sign', join(keys, 'trusted.key')]);
      assert.equal(trusted.code, 0, trusted.stderr);
      const client = await connectHttp(server.url, 'legacy');
      try {
        const names = (await new SkillsClient(client).list()).skills.map((s) => s.frontmatter.name);
        assert.deepEqual(names, ['signed-skill']);
        await assert.rejects(client.readResource({ uri: 'skill://1.0.0/legacy/SKILL.md' }), /not signed by a trusted key/);
      } finally {
        await client.close();
      }
      assert.match(server.stderr(), /legacy@1\.0\.0 \(tag latest\) is not served: is not signed by a trusted key/);
    } finally {
      await server.stop();
    }
  });
});
