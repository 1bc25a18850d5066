import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import type { Client } from '@modelcontextprotocol/client';
import { connectHttp, connectStdio, eventually, startHttp } from '@skillport/test-kit';
import { callText, publish, registryUrl, releaseFolder, storeDir, writeRelease } from '@skillport/test-kit';

const listedVersion = async (client: Client, name: string) => {
  const entry = (await new SkillsClient(client).list()).skills.find((skill) => skill.frontmatter.name === name);
  return (entry?._meta as Record<string, unknown> | undefined)?.['dev.skillport/version'];
};

describe('pinned sessions', () => {
  test('stdio: one connection keeps reading the version it activated after a newer one is published by another process', async () => {
    const data = storeDir();
    const folder = releaseFolder('report-writer', '1.2.0');
    const base = join(folder, '..');
    assert.equal((await publish([folder, '--data', data, '--version', '1.2.0'])).code, 0);
    const { client, stderr } = await connectStdio(['--data', data], 'legacy');
    try {
      assert.equal(await listedVersion(client, 'report-writer'), '1.2.0');
      const first = await callText(client, 'activate_skill', { name: 'report-writer' });
      assert.match(first.text, /version="1\.2\.0"/);
      assert.match(first.text, /Release 1\.2\.0/);

      // Another process publishes 1.3.0 into the same store; this server sees it by polling the store's revision.
      writeRelease(base, 'report-writer', '1.3.0');
      const next = await publish([folder, '--data', data, '--version', '1.3.0']);
      assert.equal(next.code, 0, next.stderr);
      await eventually(async () => ((await listedVersion(client, 'report-writer')) === '1.3.0' ? true : undefined), 10_000, `1.3.0 listed\n${stderr()}`);

      // Same connection, no version given: still 1.2.0 (by name and by the listed URI).
      const read = await callText(client, 'read_skill_resource', { name: 'report-writer', path: 'references/guide.md' });
      assert.equal(read.text, 'guide for release 1.2.0\n');
      const byListedUri = await callText(client, 'read_skill_resource', { uri: 'skill://report-writer/SKILL.md', path: 'references/guide.md' });
      assert.equal(byListedUri.text, 'guide for release 1.2.0\n');
      const again = await callText(client, 'activate_skill', { name: 'report-writer' });
      assert.match(again.text, /Release 1\.2\.0/);
      assert.match(again.text, /keeps version 1\.2\.0, which it activated earlier; 1\.3\.0 is now current/);

      // Asking for the new version switches the pin.
      const switched = await callText(client, 'activate_skill', { name: 'report-writer', version: '1.3.0' });
      assert.match(switched.text, /Release 1\.3\.0/);
      const after = await callText(client, 'read_skill_resource', { name: 'report-writer', path: 'references/guide.md' });
      assert.equal(after.text, 'guide for release 1.3.0\n');
    } finally {
      await client.close();
    }
    // A new session starts on what is listed now.
    const fresh = await connectStdio(['--data', data], 'legacy');
    try {
      const activated = await callText(fresh.client, 'activate_skill', { name: 'report-writer' });
      assert.match(activated.text, /Release 1\.3\.0/);
    } finally {
      await fresh.client.close();
    }
  });

  test('HTTP (stateless): the pin travels in the call, as the exact-version URI or the package digest activation returned', async () => {
    const data = storeDir();
    const folder = releaseFolder('deploy-guide', '1.2.0');
    const base = join(folder, '..');
    const server = await startHttp(['--data', data], { SKILLPORT_PUBLISH_TOKEN: 't0k' });
    try {
      const target = ['--registry', registryUrl(server.url), '--token', 't0k'];
      assert.equal((await publish([folder, ...target, '--version', '1.2.0'])).code, 0);
      const client = await connectHttp(server.url, 'modern');
      try {
        const activated = await callText(client, 'activate_skill', { name: 'deploy-guide' });
        const uri = /uri="([^"]+)"/.exec(activated.text)![1]!;
        const digest = /digest="([^"]+)"/.exec(activated.text)![1]!;
        assert.equal(uri, 'skill://1.2.0/deploy-guide/SKILL.md');
        assert.match(activated.text, new RegExp(`read_skill_resource \\{"uri": "${uri.replace(/\./g, '\\.')}"`));

        writeRelease(base, 'deploy-guide', '1.3.0');
        assert.equal((await publish([folder, ...target, '--version', '1.3.0'])).code, 0);
        await eventually(async () => ((await listedVersion(client, 'deploy-guide')) === '1.3.0' ? true : undefined), 5000, '1.3.0 listed');

        assert.equal((await callText(client, 'read_skill_resource', { uri, path: 'references/guide.md' })).text, 'guide for release 1.2.0\n');
        assert.equal(
          (await callText(client, 'read_skill_resource', { name: 'deploy-guide', digest, path: 'references/guide.md' })).text,
          'guide for release 1.2.0\n',
        );
        assert.equal((await callText(client, 'read_skill_resource', { name: 'deploy-guide', path: 'references/guide.md' })).text, 'guide for release 1.3.0\n');
        const stale = await callText(client, 'read_skill_resource', { name: 'deploy-guide', digest: `sha256:${'0'.repeat(64)}`, path: 'references/guide.md' });
        assert.equal(stale.isError, true);
        assert.match(stale.text, /has changed since/);
      } finally {
        await client.close();
      }
    } finally {
      await server.stop();
    }
  });
});
