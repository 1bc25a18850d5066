import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { EXAMPLES, connectHttp, makeTree, runCli, skillMd, startHttp } from '@skillport/test-kit';

describe('serve --config', () => {
  test('an agentskills-mcp-server server.json works as it is, with ${VAR} substitution', async () => {
    const dir = makeTree({ 'skills/incident-response/SKILL.md': skillMd('incident-response'), 'skills/other/SKILL.md': skillMd('other') });
    const config = join(dir, 'server.json');
    writeFileSync(
      config,
      JSON.stringify({
        name: 'Skills of ${TEAM_NAME}',
        instructions: 'Use the incident skill when paged. Token: ${NOT_SET_ANYWHERE}',
        skills: [{ id: 'incident-response', provider: 'fs', options: { root: './skills' } }],
      }),
    );
    const server = await startHttp(['--config', config], { TEAM_NAME: 'ops' });
    try {
      assert.match(server.stderr(), /\$\{NOT_SET_ANYWHERE\} is not set; using an empty string/);
      const client = await connectHttp(server.url, 'legacy');
      assert.equal(client.getServerVersion()?.name, 'Skills of ops');
      assert.equal(client.getInstructions(), 'Use the incident skill when paged. Token: ');
      const listing = await new SkillsClient(client).list();
      assert.deepEqual(
        listing.skills.map((skill) => skill.uri),
        ['skill://incident-response/SKILL.md'],
      );
      await client.close();
    } finally {
      await server.stop();
    }
  });

  test('a YAML config of serve options; command-line flags win', async () => {
    const dir = makeTree({});
    const config = join(dir, 'skillport.yaml');
    writeFileSync(config, `dirs:\n  - ${EXAMPLES}\ntools: full\nprefix: from-file\npageSize: 2\n`);
    const server = await startHttp(['--config', config, '--prefix', 'from-flag']);
    try {
      const client = await connectHttp(server.url, 'modern');
      const listing = await new SkillsClient(client).list();
      assert.equal(listing.skills.length, 6);
      assert.ok(listing.skills.every((skill) => skill.uri.startsWith('skill://from-flag/')));
      const tools = (await client.listTools()).tools.map((tool) => tool.name);
      assert.ok(tools.includes('get_skill_outline'));
      await client.close();
    } finally {
      await server.stop();
    }
  });

  test('clear errors: bad provider settings, unknown setting, unreadable file', async () => {
    const dir = makeTree({});
    const http = join(dir, 'http.json');
    writeFileSync(http, JSON.stringify({ name: 'x', skills: [{ id: 'a', provider: 'http', options: { headers: { A: 'b' } } }] }));
    const one = await runCli(['serve', '--config', http]);
    assert.equal(one.code, 1);
    assert.match(one.stderr, /skills\[0\] \(a\)\.options\.base_url must be the host's URL/);
    const ftp = join(dir, 'ftp.json');
    writeFileSync(ftp, JSON.stringify({ name: 'x', skills: [{ id: 'a', provider: 'ftp' }] }));
    const four = await runCli(['serve', '--config', ftp]);
    assert.equal(four.code, 1);
    assert.match(four.stderr, /provider must be "fs" or "http" \(got "ftp"\)/);
    const remote = join(dir, 'remote.yaml');
    writeFileSync(remote, 'remotes:\n  - url: https://example.com\n    timeout: soon\n');
    const five = await runCli(['serve', '--config', remote]);
    assert.equal(five.code, 1);
    assert.match(five.stderr, /remotes\[0\]\.timeout must be a duration such as 1500, "30s" or "5m"/);
    const unknown = join(dir, 'unknown.yaml');
    writeFileSync(unknown, 'dirs: [.]\nportt: 3\n');
    const two = await runCli(['serve', '--config', unknown]);
    assert.equal(two.code, 1);
    assert.match(two.stderr, /unknown setting "portt"/);
    const unmet = join(dir, 'unmet.yaml');
    writeFileSync(unmet, 'dirs: [.]\nunmet: hide\n');
    const six = await runCli(['serve', '--config', unmet]);
    assert.equal(six.code, 1);
    assert.match(six.stderr, /unmet must be "list" or "omit"/);
    const three = await runCli(['serve', '--config', join(dir, 'missing.json')]);
    assert.equal(three.code, 1);
    assert.match(three.stderr, /cannot read config/);
    const none = await runCli(['serve']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /give at least one skill folder/);
  });
});

describe('serve --allow-field', () => {
  const skill = (name: string) => `---\nname: ${name}\ndescription: A skill whose team keeps its own field.\nowner-team: platform\n---\n# ${name}\n`;
  const unexpected = /Unexpected fields in frontmatter: owner-team/;

  test('a field the user accepts is served without its warning, on the command line, in a config file and in the user settings', async () => {
    const dir = makeTree({ 'skills/deploy-notes/SKILL.md': skill('deploy-notes') });
    const folder = join(dir, 'skills');
    const plain = await startHttp([folder]);
    await plain.stop();
    assert.match(plain.stderr(), unexpected, 'without --allow-field the field is a warning');
    const flagged = await startHttp([folder, '--allow-field', 'owner-team', '--allow-field', 'other']);
    try {
      assert.doesNotMatch(flagged.stderr(), unexpected, flagged.stderr());
      const client = await connectHttp(flagged.url, 'legacy');
      const listing = await new SkillsClient(client).list();
      assert.deepEqual(
        listing.skills.map((entry) => entry.uri),
        ['skill://deploy-notes/SKILL.md'],
      );
      await client.close();
    } finally {
      await flagged.stop();
    }
    const config = join(dir, 'skillport.yaml');
    writeFileSync(config, `dirs:\n  - ${folder}\nallowField:\n  - owner-team\n`);
    const fromFile = await startHttp(['--config', config]);
    await fromFile.stop();
    assert.doesNotMatch(fromFile.stderr(), unexpected, fromFile.stderr());
    const home = makeTree({ 'config/config.json': JSON.stringify({ allowFields: ['owner-team'] }) });
    const fromSettings = await startHttp([folder], { SKILLPORT_CONFIG_DIR: join(home, 'config') });
    await fromSettings.stop();
    assert.doesNotMatch(fromSettings.stderr(), unexpected, fromSettings.stderr());
  });

  test('a restart without the flag, from the kept catalog, warns again', async () => {
    const dir = makeTree({ 'skills/deploy-notes/SKILL.md': skill('deploy-notes') });
    const folder = join(dir, 'skills');
    const cache = join(dir, 'cache');
    const first = await startHttp([folder, '--cache-dir', cache, '--allow-field', 'owner-team'], {}, { cache: true });
    await first.stop();
    assert.doesNotMatch(first.stderr(), unexpected, first.stderr());
    const second = await startHttp([folder, '--cache-dir', cache], {}, { cache: true });
    await second.stop();
    assert.match(second.stderr(), unexpected, second.stderr());
  });
});
