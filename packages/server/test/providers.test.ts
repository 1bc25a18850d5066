import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import type { Client } from '@modelcontextprotocol/client';
import { inspectSkillFiles, sha256Digest } from '@skillport/core';
import { SkillportServer, buildCatalogSkill } from '../src/index.js';
import type { CatalogSkill, SkillProvider } from '../src/index.js';
import { connectHttp, eventually, makeTree, skillMd } from '@skillport/test-kit';

/** A provider over skills held in memory, stored by digest: the seam registries, archives and remote hosts use. */
class MemoryProvider implements SkillProvider {
  readonly label = 'memory';
  blobs = new Map<string, Uint8Array>();
  #skills: CatalogSkill[] = [];
  #listeners = new Set<() => void>();

  put(name: string, files: Record<string, string>, path: string[] = [name]): void {
    const entries = Object.entries(files).map(([p, text]) => ({ path: p, bytes: Buffer.from(text) }));
    const inspected = inspectSkillFiles(entries, { folderName: name });
    assert.ok(inspected.skill, JSON.stringify(inspected.problems));
    for (const entry of entries) this.blobs.set(sha256Digest(entry.bytes), entry.bytes);
    const skill = buildCatalogSkill(
      inspected.skill,
      path,
      { kind: 'stored', source: 'memory', blobs: { read: async (digest) => this.blobs.get(digest) ?? new Uint8Array() } },
      { 'dev.skillport/test': 'yes' },
    );
    assert.equal(typeof skill, 'object');
    this.#skills = [...this.#skills.filter((s) => s.uri !== (skill as CatalogSkill).uri), skill as CatalogSkill];
    for (const listener of this.#listeners) listener();
  }

  skills(): readonly CatalogSkill[] {
    return this.#skills;
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

describe('skills from a provider (stored origin) beside folder skills', () => {
  const provider = new MemoryProvider();
  const problems: string[] = [];
  let server: SkillportServer;
  let client: Client;
  before(async () => {
    provider.put('stored-one', { 'SKILL.md': skillMd('stored-one'), 'references/guide.md': '# Guide\n', 'references/other.md': '# Other\n' });
    // Same URI as a folder skill: the folder wins, the clash is reported.
    provider.put('folder-one', { 'SKILL.md': skillMd('folder-one', 'The stored copy, which must lose to the folder.') });
    const dir = makeTree({ 'folder-one/SKILL.md': skillMd('folder-one') });
    server = await SkillportServer.open({ dirs: [dir], providers: [provider], cacheDir: false, onProblem: (problem) => problems.push(problem.message) });
    const http = await server.serveHttp({ host: '127.0.0.1', port: 0 });
    client = await connectHttp(http.url, 'modern');
  });
  after(async () => {
    await client?.close();
    await server?.close();
  });

  test('lists both, reads stored files verified, and lets the folder win a clash', async () => {
    const skills = new SkillsClient(client);
    const listing = await skills.list();
    const byName = new Map(listing.skills.map((skill) => [skill.frontmatter.name, skill]));
    assert.deepEqual([...byName.keys()].sort(), ['folder-one', 'stored-one']);
    assert.doesNotMatch(String(byName.get('folder-one')!.frontmatter.description), /stored copy/);
    assert.equal((byName.get('stored-one')!._meta as Record<string, unknown>)['dev.skillport/test'], 'yes');
    const guide = await skills.read(byName.get('stored-one')!, 'skill://stored-one/references/guide.md');
    assert.equal(guide.text, '# Guide\n');
    assert.ok(
      problems.some((message) => message.includes('two skills at skill://folder-one/SKILL.md')),
      problems.join('\n'),
    );
  });

  test('a blob that does not match its digest is refused, and the rest keeps serving', async () => {
    const skill = provider.skills().find((s) => s.name === 'stored-one')!;
    // Not read before (verified bytes are cached by digest, so a tampered blob can only show on a first read).
    const other = skill.files.find((file) => file.path === 'references/other.md')!;
    provider.blobs.set(other.digest, Buffer.from('# Tampered\n'));
    await assert.rejects(client.readResource({ uri: other.uri }));
    const manifest = await client.readResource({ uri: 'skill://stored-one/SKILL.md' });
    assert.match(String((manifest.contents[0] as { text: string }).text), /name: stored-one/);
  });

  test('a provider change is served at once', async () => {
    provider.put('stored-two', { 'SKILL.md': skillMd('stored-two') });
    await eventually(
      async () => {
        const listing = await new SkillsClient(client).list();
        return listing.skills.some((skill) => skill.frontmatter.name === 'stored-two') ? true : undefined;
      },
      5000,
      'stored-two listed',
    );
  });
});
