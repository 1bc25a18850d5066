import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { FolderSkillSource, McpSkillSource, SkillError, SkillSet, VerificationError, skillTools } from '../src/index.js';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, EXAMPLES, eventually, makeTree, skillMd, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';
import { startProxy } from '@skillport/test-kit';
import type { Proxy } from '@skillport/test-kit';

/**
 * @skillport/client sources against real skillport processes (HTTP and stdio) and real folders: the final
 * extension through the SDK's SkillsClient, the draft-era index, skillport's tools, local folders; composed.
 */
describe('client sources', () => {
  let server: RunningServer;
  let proxy: Proxy;
  before(async () => {
    server = await startHttp([EXAMPLES]);
    proxy = await startProxy(server.url);
  });
  after(async () => {
    await proxy.stop();
    await server.stop();
  });

  test('extension over HTTP: listing reads no file; load and read are verified; same digests as a local folder', async () => {
    proxy.reset();
    const mcp = new McpSkillSource(proxy.url, { origin: 'team' });
    const local = new FolderSkillSource(EXAMPLES, { origin: 'local' });
    try {
      const remote = await mcp.list();
      assert.equal(mcp.mode, 'extension');
      assert.equal(remote.length, 6);
      assert.equal(proxy.counts['resources/read'] ?? 0, 0, 'listing must not read files');
      const folder = await local.list();
      for (const skill of remote) {
        const twin = folder.find((candidate) => candidate.name === skill.name)!;
        assert.equal(skill.packageDigest, twin.packageDigest, skill.name);
        assert.deepEqual(
          skill.files!.map((file) => [file.path, file.digest, file.size]),
          twin.files!.map((file) => [file.path, file.digest, file.size]),
        );
      }
      const csv = remote.find((skill) => skill.name === 'csv-data-cleaning')!;
      const loaded = await mcp.load(csv);
      assert.match(loaded.body, /CSV/);
      assert.equal(loaded.file.verified, true);
      assert.deepEqual(
        loaded.resources.map((file) => file.path),
        ['assets/sample.csv', 'references/pitfalls.md', 'scripts/profile_csv.py'],
      );
      const sample = await mcp.readFile(csv, 'assets/sample.csv');
      assert.equal(sample.verified, true);
      assert.match(sample.text!, /^customer_id,/);
      assert.equal(proxy.counts['resources/read'], 2);
      const fromDisk = await local.readFile(folder.find((skill) => skill.name === 'csv-data-cleaning')!, 'assets/sample.csv');
      assert.deepEqual(Buffer.from(fromDisk.bytes), Buffer.from(sample.bytes));
    } finally {
      await mcp.close();
    }
  });

  test('unlisted paths and path tricks are refused before any request', async () => {
    const mcp = new McpSkillSource(proxy.url, { origin: 'team' });
    try {
      const csv = (await mcp.list()).find((skill) => skill.name === 'csv-data-cleaning')!;
      proxy.reset();
      await assert.rejects(
        mcp.readFile(csv, 'references/missing.md'),
        (error: unknown) =>
          error instanceof VerificationError &&
          error.code === 'unlisted' &&
          /not a file of skill 'csv-data-cleaning'; its files: assets\/sample.csv/.test(error.message),
      );
      for (const path of [
        '../api-design-review/SKILL.md',
        '/etc/passwd',
        'references/../SKILL.md',
        'references\\pitfalls.md',
        '%2e%2e/x',
        'file:///etc/passwd',
        '',
        'a\0b',
      ]) {
        await assert.rejects(
          mcp.readFile(csv, path),
          (error: unknown) => error instanceof SkillError && error.code === 'path' && !error.message.includes('\n'),
          path,
        );
      }
      assert.equal(proxy.counts['resources/read'] ?? 0, 0);
    } finally {
      await mcp.close();
    }
  });

  test('extension over stdio', async () => {
    const mcp = new McpSkillSource(`stdio:${process.execPath} ${CLI} serve --no-cache ${EXAMPLES}`);
    try {
      const skills = await mcp.list();
      assert.equal(mcp.mode, 'extension');
      assert.equal(mcp.origin, 'node-bin.js');
      const loaded = await mcp.load(skills.find((skill) => skill.name === 'release-notes')!);
      assert.match(loaded.body, /release notes/i);
    } finally {
      await mcp.close();
    }
  });

  test('watch: a server announcing changed resources makes the next listing ask again (stdio and HTTP)', async () => {
    for (const kind of ['stdio', 'http'] as const) {
      const dir = makeTree({ 'first/SKILL.md': skillMd('first') });
      const live = kind === 'http' ? await startHttp([dir]) : undefined;
      let changes = 0;
      const mcp = new McpSkillSource(live ? live.url : `stdio:${process.execPath} ${CLI} serve --no-cache ${dir}`, {
        watch: true,
        onChange: () => changes++,
        defaultTtlMs: 600_000,
      });
      try {
        assert.deepEqual(
          (await mcp.list()).map((skill) => skill.name),
          ['first'],
        );
        mkdirSync(join(dir, 'second'));
        writeFileSync(join(dir, 'second/SKILL.md'), skillMd('second'));
        await eventually(async () => (changes > 0 ? true : undefined), 30_000, `${kind}: list_changed`);
        assert.deepEqual((await mcp.list()).map((skill) => skill.name).sort(), ['first', 'second'], kind);
      } finally {
        await mcp.close();
        await live?.stop();
      }
    }
  });

  test('watch: a stream the server ends when idle (--stream-lifetime) is opened again, so later changes still arrive', async () => {
    const dir = makeTree({ 'first/SKILL.md': skillMd('first') });
    const live = await startHttp([dir, '--stream-lifetime', '1000']);
    let changes = 0;
    const mcp = new McpSkillSource(live.url, { watch: true, onChange: () => changes++, defaultTtlMs: 600_000 });
    try {
      await mcp.list();
      // Past two lifetimes: the first stream and its successor were ended gracefully.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      mkdirSync(join(dir, 'second'));
      writeFileSync(join(dir, 'second/SKILL.md'), skillMd('second'));
      await eventually(async () => (changes > 0 ? true : undefined), 30_000, 'list_changed after the stream was renewed');
    } finally {
      await mcp.close();
      await live.stop();
    }
  });

  test('draft-era index: skill-md entries, SKILL.md checked against the index digest, files by relative path', async () => {
    proxy.reset();
    const mcp = new McpSkillSource(proxy.url, { origin: 'draft', mode: 'index' });
    try {
      const skills = await mcp.list();
      assert.equal(mcp.mode, 'index');
      assert.equal(skills.length, 6);
      assert.equal(proxy.counts['skills/list'] ?? 0, 0);
      const csv = skills.find((skill) => skill.name === 'csv-data-cleaning')!;
      assert.equal(csv.verification, 'skill-md');
      const loaded = await mcp.load(csv);
      assert.equal(loaded.file.verified, true);
      const pitfalls = await mcp.readFile(csv, 'references/pitfalls.md');
      assert.equal(pitfalls.verified, false, 'the draft index gives no digest for other files');
      assert.match(pitfalls.text!, /#/);
      await assert.rejects(mcp.readFile(csv, '../api-design-review/SKILL.md'), /dot segment/);
    } finally {
      await mcp.close();
    }
  });

  test('detection: without the extension the index is used, without both the tools', async () => {
    const hideExtension: NonNullable<Proxy['tamper']> = (method, _params, result) => {
      if (method !== 'initialize' && method !== 'server/discover') return result;
      const capabilities = { ...(result['capabilities'] as Record<string, unknown>) };
      delete capabilities['extensions'];
      return { ...result, capabilities };
    };
    const noIndex = await startHttp(['--no-index', EXAMPLES]);
    const bare = await startProxy(noIndex.url, hideExtension);
    proxy.tamper = hideExtension;
    try {
      const viaIndex = new McpSkillSource(proxy.url);
      assert.equal((await viaIndex.list()).length, 6);
      assert.equal(viaIndex.mode, 'index');
      await viaIndex.close();
      const viaTools = new McpSkillSource(bare.url);
      assert.equal((await viaTools.list()).length, 6);
      assert.equal(viaTools.mode, 'tools');
      assert.equal(bare.counts['skills/list'] ?? 0, 0);
      await viaTools.close();
    } finally {
      proxy.tamper = undefined;
      await bare.stop();
      await noIndex.stop();
    }
  });

  test('tool-only servers: list_skills, activate_skill, read_skill_resource; unlisted files refused', async () => {
    proxy.reset();
    const mcp = new McpSkillSource(proxy.url, { origin: 'tools', mode: 'tools' });
    try {
      const skills = await mcp.list();
      assert.equal(mcp.mode, 'tools');
      assert.equal(skills.length, 6);
      const csv = skills.find((skill) => skill.name === 'csv-data-cleaning')!;
      assert.match(csv.packageDigest!, /^sha256:/);
      const loaded = await mcp.load(csv);
      assert.match(loaded.body, /CSV/);
      assert.doesNotMatch(loaded.body, /<skill_content/);
      assert.deepEqual(
        loaded.resources.map((file) => file.path),
        ['assets/sample.csv', 'references/pitfalls.md', 'scripts/profile_csv.py'],
      );
      const sample = await mcp.readFile(csv, 'assets/sample.csv');
      assert.match(sample.text!, /^customer_id,/);
      await assert.rejects(mcp.readFile(csv, 'nope.txt'), /not a file of skill 'csv-data-cleaning'/);
      assert.equal(proxy.counts['skills/list'] ?? 0, 0);
      assert.ok((proxy.counts['tools/call'] ?? 0) >= 3);
    } finally {
      await mcp.close();
    }
  });

  test('composition: filter, dedupe by digest or name, names namespaced per origin, a dead source does not stop the others', async () => {
    const other = makeTree({
      'csv-data-cleaning/SKILL.md': skillMd('csv-data-cleaning', 'A different CSV skill. Use for CSV things.'),
      'solo/SKILL.md': skillMd('solo'),
    });
    const warnings: string[] = [];
    const make = (dedupe?: 'none' | 'name' | 'digest') =>
      new SkillSet(
        [
          new McpSkillSource(proxy.url, { origin: 'team' }),
          new FolderSkillSource(EXAMPLES, { origin: 'local' }),
          new FolderSkillSource(other, { origin: 'mine' }),
          new McpSkillSource('http://127.0.0.1:1/mcp', { origin: 'dead' }),
        ],
        { ...(dedupe ? { dedupe } : {}), filter: (skill) => skill.name !== 'sql-query-optimization', onWarning: (message) => warnings.push(message) },
      );
    const all = make();
    const plain = await all.skills();
    assert.ok(
      warnings.some((message) => message.startsWith('dead: ')),
      warnings.join('\n'),
    );
    assert.ok(!plain.some((skill) => skill.name === 'sql-query-optimization'));
    const csv = plain
      .filter((skill) => skill.name === 'csv-data-cleaning')
      .map((skill) => skill.id)
      .sort();
    assert.deepEqual(csv, ['csv-data-cleaning@local', 'csv-data-cleaning@mine', 'csv-data-cleaning@team']);
    assert.ok(plain.some((skill) => skill.id === 'solo'));
    const byDigest = await make('digest').skills();
    assert.deepEqual(
      byDigest
        .filter((skill) => skill.name === 'csv-data-cleaning')
        .map((skill) => skill.id)
        .sort(),
      ['csv-data-cleaning@mine', 'csv-data-cleaning@team'],
    );
    const byName = await make('name').skills();
    assert.deepEqual(
      byName.filter((skill) => skill.name === 'csv-data-cleaning').map((skill) => [skill.id, skill.origin]),
      [['csv-data-cleaning', 'team']],
    );
    await all.close();
    assert.throws(() => new SkillSet([new FolderSkillSource(EXAMPLES), new FolderSkillSource(other)]), /share the origin 'local'/);
  });

  test('a skill of one origin cannot be read through another', async () => {
    const team = new McpSkillSource(proxy.url, { origin: 'team' });
    const local = new FolderSkillSource(EXAMPLES, { origin: 'local' });
    try {
      const remote = (await team.list())[0]!;
      await local.list();
      await assert.rejects(local.readFile(remote, 'SKILL.md'), /not a file of skill/);
      const folder = (await local.list())[0]!;
      await assert.rejects(team.readFile(folder, 'SKILL.md'), /belongs to local, not team/);
      const tools = await skillTools(new SkillSet([team]).session());
      assert.deepEqual(
        tools.map((tool) => tool.name),
        ['load_skill', 'read_skill_resource'],
      );
    } finally {
      await team.close();
    }
  });
});
