import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import type { Client } from '@modelcontextprotocol/client';
import { EXAMPLES, connectHttp, connectStdio, startHttp } from '@skillport/test-kit';
import type { Era, RunningServer } from '@skillport/test-kit';

/** Everything a Skills-extension client sees, checked against the bytes on disk. */
async function checkExamples(client: Client, era: Era): Promise<void> {
  const caps = client.getServerCapabilities();
  assert.deepEqual(caps?.extensions?.['io.modelcontextprotocol/skills'], { directoryRead: true });
  assert.ok(caps?.resources, 'resources capability declared');

  const skills = new SkillsClient(client);
  const listing = await skills.list();
  assert.equal(listing.invalid.length, 0);
  const names = listing.skills.map((skill) => skill.frontmatter.name).sort();
  assert.deepEqual(names, ['api-design-review', 'csv-data-cleaning', 'git-commit-messages', 'incident-postmortem', 'release-notes', 'sql-query-optimization']);
  if (era === 'modern') {
    assert.equal(typeof listing.ttlMs, 'number');
    assert.equal(listing.cacheScope, 'public');
  }
  for (const skill of listing.skills) {
    assert.match(skill.uri, /^skill:\/\/[a-z0-9-]+\/SKILL\.md$/);
    assert.ok(Array.isArray(skill.resources));
    for (const resource of skill.resources as Array<{ uri: string; digest: string; size: number }>) {
      // SkillsClient.read verifies size, digest and (for SKILL.md) the frontmatter; we also compare with the disk.
      const file = await skills.read(skill, resource.uri);
      const rel = decodeURIComponent(resource.uri.slice('skill://'.length));
      const disk = readFileSync(join(EXAMPLES, rel));
      assert.equal(Buffer.compare(Buffer.from(file.bytes), disk), 0, resource.uri);
      assert.equal(resource.digest, `sha256:${createHash('sha256').update(disk).digest('hex')}`);
      if (resource.uri.endsWith('.md')) assert.equal(file.mimeType, 'text/markdown');
      if (resource.uri.endsWith('.md')) assert.equal(typeof file.text, 'string');
    }
  }

  // Binary asset arrives as a blob; scripts and CSV as text.
  const release = listing.skills.find((skill) => skill.frontmatter.name === 'release-notes')!;
  const logo = await client.readResource({ uri: 'skill://release-notes/assets/logo.png' });
  const content = logo.contents[0]!;
  assert.ok('blob' in content, 'png served as blob');
  assert.equal(content.mimeType, 'image/png');
  assert.ok(release);

  const got = await skills.get('skill://csv-data-cleaning/SKILL.md');
  assert.equal(got.skill.frontmatter.name, 'csv-data-cleaning');
  await assert.rejects(skills.get('skill://no-such-skill/SKILL.md'), (error: { code?: number }) => error.code === -32602);

  const dir = await skills.readDirectory('skill://api-design-review');
  const children = dir.resources.map((child) => `${child.name}:${child.mimeType}`).sort();
  assert.deepEqual(children, ['SKILL.md:text/markdown', 'references:inode/directory']);
  const nested = await skills.readDirectory('skill://api-design-review/references/pagination');
  assert.deepEqual(
    nested.resources.map((child) => child.uri),
    ['skill://api-design-review/references/pagination/cursor-pagination.md'],
  );

  const resources = await client.listResources();
  assert.equal(resources.resources.filter((resource) => resource.uri.endsWith('/SKILL.md')).length, 6);
  for (const resource of resources.resources) {
    assert.ok(resource.name && resource.description, 'listed SKILL.md has name and description');
  }
}

describe('serve examples over Streamable HTTP', () => {
  let server: RunningServer;
  before(async () => {
    server = await startHttp([EXAMPLES]);
  });
  after(async () => {
    await server.stop();
  });

  for (const era of ['legacy', 'modern'] as const) {
    test(`every skill and file verified (${era})`, async () => {
      const client = await connectHttp(server.url, era);
      assert.equal(client.getNegotiatedProtocolVersion(), era === 'modern' ? '2026-07-28' : '2025-11-25');
      await checkExamples(client, era);
      await client.close();
    });
  }

  test('binds to 127.0.0.1 by default', () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });
});

describe('serve examples over stdio', () => {
  for (const era of ['legacy', 'modern'] as const) {
    test(`every skill and file verified (${era})`, async () => {
      const { client } = await connectStdio([EXAMPLES], era);
      assert.equal(client.getNegotiatedProtocolVersion(), era === 'modern' ? '2026-07-28' : '2025-11-25');
      await checkExamples(client, era);
      await client.close();
    });
  }
});
