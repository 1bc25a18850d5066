import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { connectHttp, makeTree, removeTrees, runCli, skillMd, startHttp, tempFolder } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

const running: RunningServer[] = [];
after(async () => {
  await Promise.all(running.map((server) => server.stop()));
  removeTrees();
});

/** What a server serves: URI → name, package digest and plugin metadata. */
async function served(source: string): Promise<Map<string, { name: string; digest: unknown; plugin: unknown }>> {
  const server = await startHttp([source]);
  running.push(server);
  const client = await connectHttp(server.url, 'modern');
  try {
    const skills = (await new SkillsClient(client).list()).skills;
    return new Map(
      skills.map((skill) => {
        const meta = skill._meta as Record<string, unknown>;
        return [skill.uri, { name: String(skill.frontmatter.name), digest: meta['dev.skillport/packageDigest'], plugin: meta['dev.skillport/plugin'] }];
      }),
    );
  } finally {
    await client.close();
  }
}

describe('export --marketplace', () => {
  test('a marketplace served, exported and served again gives the same skills, plugins and digests', async () => {
    const original = makeTree({
      '.claude-plugin/marketplace.json': JSON.stringify({
        name: 'acme',
        owner: { name: 'Acme' },
        plugins: [
          { name: 'docs', source: './plugins/docs', description: 'Docs', version: '1.2.0' },
          { name: 'ops', source: './plugins/ops', version: '0.1.0' },
        ],
      }),
      'plugins/docs/skills/writer/SKILL.md': skillMd('writer'),
      'plugins/docs/skills/writer/references/style.md': '# Style\n',
      'plugins/docs/skills/reviewer/SKILL.md': skillMd('reviewer'),
      'plugins/ops/skills/deploy/SKILL.md': skillMd('deploy'),
      'plugins/ops/skills/deploy/scripts/run.sh': '#!/bin/sh\necho deploy\n',
    });
    const server = await startHttp([original]);
    running.push(server);
    const out = join(tempFolder('export'), 'acme-market');
    const run = await runCli(['export', server.url, '--marketplace', out, '--json']);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { marketplace: out, plugins: ['docs', 'ops'], skills: 3 });
    const marketplace = JSON.parse(readFileSync(join(out, '.claude-plugin/marketplace.json'), 'utf8')) as { plugins: Array<Record<string, unknown>> };
    assert.deepEqual(marketplace.plugins, [
      { name: 'docs', description: 'Docs', version: '1.2.0', source: './docs' },
      { name: 'ops', description: 'Does deploy things. Use when the user asks for deploy.', version: '0.1.0', source: './ops' },
    ]);
    assert.ok(existsSync(join(out, 'plugins/docs/.claude-plugin/plugin.json')));
    const before = await served(original);
    const after2 = await served(out);
    assert.deepEqual(
      [...after2].map(([uri, skill]) => [uri, skill.name, skill.digest]),
      [...before].map(([uri, skill]) => [uri, skill.name, skill.digest]),
    );
    assert.deepEqual((after2.get('skill://docs/writer/SKILL.md')!.plugin as Record<string, unknown>)['version'], '1.2.0');
  });

  test('a plain folder of skills: one plugin per skill or per top folder; names and package digests read back the same', async () => {
    const dir = makeTree({ 'alpha/SKILL.md': skillMd('alpha'), 'group/beta/SKILL.md': skillMd('beta'), 'group/gamma/SKILL.md': skillMd('gamma') });
    const server = await startHttp([dir]);
    running.push(server);
    const digests = (map: Map<string, { name: string; digest: unknown }>) => [...map.values()].map((skill) => `${skill.name} ${String(skill.digest)}`).sort();
    const before = await served(dir);
    for (const per of ['skill', 'folder']) {
      const out = join(tempFolder('export'), `by-${per}`);
      const run = await runCli(['export', server.url, '--marketplace', out, '--plugin-per', per]);
      assert.equal(run.code, 0, run.stderr);
      const plugins = (JSON.parse(readFileSync(join(out, '.claude-plugin/marketplace.json'), 'utf8')) as { plugins: Array<{ name: string }> }).plugins.map(
        (p) => p.name,
      );
      assert.deepEqual(plugins, per === 'skill' ? ['alpha', 'beta', 'gamma'] : ['alpha', 'group']);
      assert.deepEqual(digests(await served(out)), digests(before));
    }
    // An existing folder is not overwritten without --force.
    const taken = makeTree({ 'keep.txt': 'mine' });
    const refused = await runCli(['export', server.url, '--marketplace', taken]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /is not an empty folder; use --force/);
    assert.equal(readFileSync(join(taken, 'keep.txt'), 'utf8'), 'mine');
  });
});
