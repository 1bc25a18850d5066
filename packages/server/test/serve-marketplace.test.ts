import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import type { Client } from '@modelcontextprotocol/client';
import { connectHttp, eventually, gitFixture, makeTree, removeTrees, skillMd, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

/** Claude Code's plugin marketplace layout: listed plugins (one by path under pluginRoot, one with its own plugin.json), one unlisted, one remote. */
const MARKETPLACE = {
  '.claude-plugin/marketplace.json': JSON.stringify({
    name: 'acme-tools',
    owner: { name: 'Acme' },
    metadata: { pluginRoot: './plugins' },
    plugins: [
      { name: 'docs', source: './docs', description: 'Writing and reviewing docs', version: '1.2.0' },
      { name: 'ops', source: './ops' },
      { name: 'elsewhere', source: { source: 'github', repo: 'acme/elsewhere' } },
      { name: 'escape', source: '../../outside' },
    ],
  }),
  'plugins/docs/skills/writer/SKILL.md': skillMd('writer'),
  'plugins/docs/skills/reviewer/SKILL.md': skillMd('reviewer'),
  'plugins/docs/skills/reviewer/references/checklist.md': '# Checklist\n',
  'plugins/ops/.claude-plugin/plugin.json': JSON.stringify({ name: 'ops', version: '0.3.0', description: 'Deploys' }),
  'plugins/ops/skills/deploy/SKILL.md': skillMd('deploy'),
  'plugins/unlisted/skills/secret/SKILL.md': skillMd('secret'),
  'skills/loose/SKILL.md': skillMd('loose'),
};

const running: RunningServer[] = [];
after(async () => {
  await Promise.all(running.map((server) => server.stop()));
  removeTrees();
});

async function listing(client: Client): Promise<Map<string, Record<string, unknown>>> {
  const skills = (await new SkillsClient(client).list()).skills;
  return new Map(skills.map((skill) => [skill.uri, (skill._meta as Record<string, unknown>)['dev.skillport/plugin'] as Record<string, unknown>]));
}

const EXPECTED = ['skill://docs/reviewer/SKILL.md', 'skill://docs/writer/SKILL.md', 'skill://ops/deploy/SKILL.md'];

describe('plugin marketplaces', () => {
  test('a folder: the listed plugins’ skills under their names, with the plugin’s description and version; nothing else', async () => {
    const dir = makeTree(MARKETPLACE);
    const server = await startHttp([dir]);
    running.push(server);
    const client = await connectHttp(server.url, 'modern');
    const skills = await listing(client);
    assert.deepEqual([...skills.keys()].sort(), EXPECTED);
    assert.deepEqual(skills.get('skill://docs/writer/SKILL.md'), {
      name: 'docs',
      marketplace: 'acme-tools',
      description: 'Writing and reviewing docs',
      version: '1.2.0',
    });
    assert.deepEqual(skills.get('skill://ops/deploy/SKILL.md'), { name: 'ops', marketplace: 'acme-tools', description: 'Deploys', version: '0.3.0' });
    assert.match(server.stderr(), /plugin elsewhere comes from another source \(github\); not served/);
    assert.match(server.stderr(), /plugin escape: its source "..\/..\/outside" is not a folder of the marketplace/);
    const read = await client.readResource({ uri: 'skill://docs/reviewer/references/checklist.md' });
    assert.equal((read.contents[0] as { text: string }).text, '# Checklist\n');

    // Listing a plugin serves it; an edit is served (watched).
    const doc = JSON.parse(MARKETPLACE['.claude-plugin/marketplace.json']) as { plugins: unknown[] };
    doc.plugins.push({ name: 'unlisted', source: './unlisted' });
    writeFileSync(join(dir, '.claude-plugin/marketplace.json'), JSON.stringify(doc));
    await eventually(async () => ((await listing(client)).has('skill://unlisted/secret/SKILL.md') ? true : undefined));
    await client.close();
  });

  test('a repository: the same marketplace from git, with provenance and plugin metadata', async () => {
    const repo = gitFixture(MARKETPLACE);
    const commit = repo.git('rev-parse', 'HEAD');
    const server = await startHttp([`git:${repo.bare}#main`]);
    running.push(server);
    const client = await connectHttp(server.url, 'modern');
    const skills = (await new SkillsClient(client).list()).skills;
    assert.deepEqual(skills.map((skill) => skill.uri).sort(), EXPECTED);
    const writer = skills.find((skill) => skill.uri === 'skill://docs/writer/SKILL.md')!;
    const meta = writer._meta as Record<string, Record<string, unknown>>;
    assert.equal(meta['dev.skillport/plugin']!['version'], '1.2.0');
    assert.deepEqual(meta['dev.skillport/provenance'], { repository: repo.bare, ref: 'refs/heads/main', commit, path: 'plugins/docs/skills/writer' });
    await client.close();
  });
});
