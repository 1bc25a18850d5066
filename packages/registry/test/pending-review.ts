import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { callText, connectAs, connectHttp, connectStdio, createToken, eventually, outcome, startHttp, tempFolder } from '@skillport/test-kit';
import type { Era, RunningServer } from '@skillport/test-kit';
import { Api, skillArchive } from './write-attack.js';

/**
 * Versions held for review over MCP (ADR 0235), through a real `serve --http --auth tokens --policy` process and a
 * real stdio one on the same store (a folder or a PostgreSQL database: pending-mcp*.test.ts): a pending version is served, marked pending, to its publisher and to the
 * reviewers of its name only; to anyone else every surface (MCP, the web catalog, /api) answers exactly as before it
 * was published; approval serves it to everyone allowed, rejection to no one.
 */
const POLICY = `default: none
rules:
  - skills: "acme-*"
    allow: [org:acme]
    revoke: [user:acme-lead]
  - skills: "beta-*"
    allow: [org:beta]
gate:
  block: high
  rules:
    - skills: "acme-*"
      review: medium
`;

const SUDO = 'Install the zyxwv helper:\n\n```bash\nsudo apt-get install -y zyxwv-helper\n```\n';

/** The tests, in the current describe block; `store` gives a store folder or a postgres:// URL. */
export function pendingTests(store: () => Promise<string>): void {
  const tokens: Record<string, string> = {};
  let data: string;
  let policy: string;
  let server: RunningServer;
  let api: Api;
  let web: string;
  const clients: Client[] = [];
  const mcp = async (who: string, era: Era = 'legacy') => {
    const client = await connectAs(server.url, era, tokens[who]!);
    clients.push(client);
    return client;
  };

  before(async () => {
    data = await store();
    policy = join(tempFolder('skillport-pending-policy-'), 'policy.yaml');
    writeFileSync(policy, POLICY);
    tokens['ci'] = await createToken(data, ['--user', 'acme-ci', '--org', 'acme', '--scope', 'publish']);
    tokens['other'] = await createToken(data, ['--user', 'acme-bot', '--org', 'acme', '--scope', 'publish']);
    // The publisher's own user with a read-only token: the API shows it no held version, and neither does MCP.
    tokens['ciRead'] = await createToken(data, ['--user', 'acme-ci', '--org', 'acme']);
    tokens['alice'] = await createToken(data, ['--user', 'alice', '--org', 'acme']);
    tokens['lead'] = await createToken(data, ['--user', 'acme-lead', '--org', 'acme', '--scope', 'publish']);
    tokens['root'] = await createToken(data, ['--user', 'acme-root', '--org', 'acme', '--scope', 'admin']);
    tokens['beta'] = await createToken(data, ['--user', 'beta-ci', '--org', 'beta', '--scope', 'publish']);
    server = await startHttp(['--data', data, '--auth', 'tokens', '--policy', policy, '--tools', 'full,asm']);
    api = new Api(server.url.replace(/\/mcp$/, ''));
    web = server.url.replace(/\/mcp$/, '');
    assert.equal((await api.publish(tokens['ci']!, skillArchive('acme-tool', '1.0.0', 'Release one of the tool.'))).status, 201);
    assert.equal((await api.publish(tokens['beta']!, skillArchive('beta-tool', '1.0.0', 'Beta release.'))).status, 201);
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await server?.stop();
  });

  /** Every surface a caller can ask about the pending names and versions, each answer kept for comparison. */
  async function surfaces(client: Client, token: string): Promise<Array<[string, unknown]>> {
    const answers: Array<[string, unknown]> = [];
    const ask = async (what: string, run: () => Promise<unknown>) => answers.push([what, await outcome(run)]);
    const skills = new SkillsClient(client);
    await ask('skills/list', () => skills.list());
    await ask('resources/list', () => client.listResources());
    await ask('prompts/list', () => client.listPrompts());
    await ask('list_skills', () => client.callTool({ name: 'list_skills', arguments: {} }));
    await ask('index.json', () => client.readResource({ uri: 'skill://index.json' }));
    for (const query of ['zyxwv helper', 'acme-new', 'acme tool release two'])
      await ask(`search ${query}`, () => client.callTool({ name: 'list_skills', arguments: { query } }));
    for (const prefix of ['', 'a', 'acme-n'])
      await ask(`complete ${prefix}`, () =>
        client.complete({ ref: { type: 'ref/resource', uri: 'skills://{skill_id}/resources' }, argument: { name: 'skill_id', value: prefix } }),
      );
    for (const uri of ['skill://1.0.0/acme-new/SKILL.md', 'skill://1.1.0/acme-tool/SKILL.md', 'skill://acme-new/SKILL.md']) {
      await ask(`skills/get ${uri}`, () => skills.get(uri));
      await ask(`read ${uri}`, () => client.readResource({ uri }));
      await ask(`activate uri ${uri}`, () => client.callTool({ name: 'activate_skill', arguments: { uri } }));
    }
    await ask('activate acme-new', () => client.callTool({ name: 'activate_skill', arguments: { name: 'acme-new' } }));
    await ask('activate acme-tool', () => client.callTool({ name: 'activate_skill', arguments: { name: 'acme-tool' } }));
    await ask('activate acme-tool 1.1.0', () => client.callTool({ name: 'activate_skill', arguments: { name: 'acme-tool', version: '1.1.0' } }));
    await ask('read tool acme-new', () => client.callTool({ name: 'read_skill_resource', arguments: { name: 'acme-new', path: 'SKILL.md' } }));
    await ask('prompt acme-new', () => client.getPrompt({ name: 'acme-new' }));
    await ask('get_skill_body acme-new', () => client.callTool({ name: 'get_skill_body', arguments: { skill_id: 'acme-new' } }));
    // The web catalog and the registry API, with the same bearer token.
    for (const path of [
      '/',
      '/?q=zyxwv',
      '/skills/1.0.0/acme-new',
      '/skills/acme-new',
      '/skills/acme-tool',
      '/api/v1/skills',
      '/api/v1/skills/acme-new',
      '/api/v1/skills/acme-tool',
      '/api/v1/skills/acme-new/versions/1.0.0',
      '/api/v1/skills/acme-tool/versions/1.1.0',
    ]) {
      await ask(`GET ${path}`, async () => {
        const response = await fetch(`${web}${path}`, { headers: { authorization: `Bearer ${token}` } });
        return { status: response.status, body: (await response.text()).replace(/name="csrf" value="[^"]*"/g, '') };
      });
    }
    return answers;
  }

  const others = ['alice', 'other', 'beta', 'ciRead'];
  const earlier: Record<string, Array<[string, unknown]>> = {};

  test('a pending version is served to its publisher and reviewers, marked pending; everyone else sees what they saw before', async () => {
    for (const who of others) earlier[who] = await surfaces(await mcp(who), tokens[who]!);

    const first = await api.publish(tokens['ci']!, skillArchive('acme-new', '1.0.0', `A new tool.\n\n${SUDO}`));
    assert.equal(first.status, 201, first.text);
    assert.equal(JSON.parse(first.text).review, 'pending');
    const second = await api.publish(tokens['ci']!, skillArchive('acme-tool', '1.1.0', `Release two of the tool.\n\n${SUDO}`));
    assert.equal(JSON.parse(second.text).review, 'pending', second.text);

    for (const who of others) {
      const after = await surfaces(await mcp(who), tokens[who]!);
      for (const [index, [what, answer]] of after.entries()) assert.deepEqual(answer, earlier[who]![index]![1], `${who}: ${what}`);
      assert.doesNotMatch(JSON.stringify(after), /A new tool|Release two|zyxwv-helper|apt-get/, who);
    }

    // The publisher (acme-ci), the name's reviewer by the policy (acme-lead) and an admin of the org (acme-root).
    for (const who of ['ci', 'lead', 'root']) {
      for (const era of ['legacy', 'modern'] as const) {
        const client = await mcp(who, era);
        const skills = new SkillsClient(client);
        const listed = await skills.list();
        const entries = (listed as { skills: Array<{ uri: string; _meta?: Record<string, unknown> }> }).skills;
        const pending = entries.find((entry) => entry.uri === 'skill://1.0.0/acme-new/SKILL.md');
        assert.ok(pending, `${who} ${era}: ${entries.map((entry) => entry.uri).join(' ')}`);
        assert.match(String(pending._meta?.['dev.skillport/pending']), /^pending review, not approved/);
        assert.equal((pending._meta?.['dev.skillport/provenance'] as { review: string }).review, 'pending');
        assert.ok(entries.some((entry) => entry.uri === 'skill://1.1.0/acme-tool/SKILL.md'));
        assert.ok(
          entries.some((entry) => entry.uri === 'skill://acme-tool/SKILL.md'),
          'the served version stays listed',
        );
        const got = await skills.get('skill://1.0.0/acme-new/SKILL.md');
        assert.match(JSON.stringify(got), /pending review, not approved/);
        const read = await client.readResource({ uri: 'skill://1.0.0/acme-new/SKILL.md' });
        assert.match(JSON.stringify(read.contents), /A new tool/);
        // The extension era's activation: the bytes as listed, the pending mark in the content item's `_meta`.
        assert.match(String(read.contents[0]?._meta?.['dev.skillport/pending']), /^pending review, not approved/, `${who} ${era}`);
        const servedRead = await client.readResource({ uri: 'skill://acme-tool/SKILL.md' });
        assert.equal(servedRead.contents[0]?._meta?.['dev.skillport/pending'], undefined, 'the served version is read unmarked');
        const activated = await callText(client, 'activate_skill', { name: 'acme-new' });
        assert.ok(!activated.isError, activated.text);
        assert.match(activated.text, /A new tool/);
        assert.match(activated.text, /<skill_review status="pending">pending review, not approved/);
        // By name the served version wins; the pending one is reached by its version or URI.
        const served = await callText(client, 'activate_skill', { name: 'acme-tool' });
        assert.match(served.text, /Release one of the tool/);
        assert.doesNotMatch(served.text, /skill_review/);
        const byVersion = await callText(client, 'activate_skill', { name: 'acme-tool', version: '1.1.0' });
        assert.ok(!byVersion.isError, byVersion.text);
        assert.match(byVersion.text, /Release two of the tool[\s\S]*<skill_review status="pending">/);
        const list = await callText(client, 'list_skills', {});
        assert.match(list.text, /"uri": ?"skill:\/\/1\.0\.0\/acme-new\/SKILL\.md"[^}]*"review": ?"pending review, not approved/);
        const body = await callText(client, 'get_skill_body', { skill_id: 'acme-new' });
        assert.match(body.text, /^<skill_review status="pending">pending review, not approved[^<]*<\/skill_review>\n+# acme-new/);
        // Search finds the pending versions for them (indexed apart from the catalog everyone else's search uses).
        const searched = await callText(client, 'list_skills', { query: 'zyxwv helper' });
        const found = JSON.parse(searched.text) as { skills: Array<{ uri: string; review?: string }>; indexing?: unknown };
        assert.deepEqual(found.skills.map((hit) => hit.uri).sort(), ['skill://1.0.0/acme-new/SKILL.md', 'skill://1.1.0/acme-tool/SKILL.md'], searched.text);
        assert.ok(found.skills.every((hit) => hit.review?.startsWith('pending review, not approved')));
        assert.equal(found.indexing, undefined, 'a view with pending versions is searched whole');
        const completion = await client.complete({
          ref: { type: 'ref/resource', uri: 'skills://{skill_id}/resources' },
          argument: { name: 'skill_id', value: 'acme-n' },
        });
        assert.ok(
          completion.completion.values.some((value) => value.includes('acme-new')),
          completion.completion.values.join(' '),
        );
      }
    }
    // Asked after them (their pages, views and search are cached by now), the others still see what they saw before.
    for (const who of others) {
      const again = await surfaces(await mcp(who, 'modern'), tokens[who]!);
      const legacy = await surfaces(await mcp(who), tokens[who]!);
      for (const [index, [what, answer]] of legacy.entries()) assert.deepEqual(answer, earlier[who]![index]![1], `${who} after the publisher: ${what}`);
      assert.doesNotMatch(JSON.stringify(again), /A new tool|Release two|zyxwv-helper|apt-get/, `${who} (2026 era)`);
    }
  });

  test('the web catalog shows its publisher the pending version, in search too', async () => {
    const page = await fetch(`${web}/?q=zyxwv`, { headers: { authorization: `Bearer ${tokens['ci']}` } });
    assert.match(await page.text(), /skill:\/\/1\.0\.0\/acme-new\/SKILL\.md/);
    const skillPage = await fetch(`${web}/skills/1.0.0/acme-new`, { headers: { authorization: `Bearer ${tokens['ci']}` } });
    assert.equal(skillPage.status, 200);
    assert.match(await skillPage.text(), /<span class="state warn"[^>]*>pending review, not approved<\/span>/);
  });

  test('a stdio client is its --principal: the publisher sees the pending version, a reader of its org does not', async () => {
    const args = ['--data', data, '--policy', policy, '--no-watch'];
    const publisher = await connectStdio([...args, '--principal', 'user:acme-ci,org:acme,scope:publish'], 'legacy');
    const reader = await connectStdio([...args, '--principal', 'user:alice,org:acme'], 'legacy');
    try {
      const mine = await callText(publisher.client, 'activate_skill', { name: 'acme-new' });
      assert.match(mine.text, /A new tool[\s\S]*<skill_review status="pending">/);
      // What alice was answered over HTTP before anything of that name was published.
      const theirs = await callText(reader.client, 'activate_skill', { name: 'acme-new' });
      const before = earlier['alice']!.find(([what]) => what === 'activate acme-new')![1] as { ok: { content: Array<{ text: string }> } };
      assert.ok(theirs.isError);
      assert.equal(theirs.text, before.ok.content[0]!.text);
    } finally {
      await publisher.client.close();
      await reader.client.close();
    }
  });

  test('over HTTP with --auth none every caller is the --principal: a reviewer principal sees it, an anonymous one does not', async () => {
    const reviewer = await startHttp(['--data', data, '--policy', policy, '--no-watch', '--principal', 'user:acme-lead,org:acme,scope:publish']);
    const anonymous = await startHttp(['--data', data, '--policy', policy, '--no-watch']);
    try {
      const seen = await connectHttp(reviewer.url, 'modern');
      const unseen = await connectHttp(anonymous.url, 'modern');
      clients.push(seen, unseen);
      const mine = await callText(seen, 'activate_skill', { name: 'acme-new' });
      assert.match(mine.text, /A new tool[\s\S]*<skill_review status="pending">/);
      const theirs = await callText(unseen, 'activate_skill', { name: 'acme-new' });
      assert.ok(theirs.isError);
      assert.doesNotMatch(theirs.text, /pending|acme-tool/);
    } finally {
      await reviewer.stop();
      await anonymous.stop();
    }
  });

  test('a version held while a publisher is connected is announced to it (list_changed) and listed, pending', async () => {
    let notified = 0;
    const args = ['--data', data, '--policy', policy, '--no-watch', '--principal', 'user:acme-ci,org:acme,scope:publish'];
    const { client } = await connectStdio(args, 'legacy', { listChanged: { resources: { onChanged: () => void notified++ } } });
    try {
      const skills = new SkillsClient(client);
      const uris = async () => ((await skills.list()) as { skills: Array<{ uri: string }> }).skills.map((entry) => entry.uri);
      assert.ok(!(await uris()).includes('skill://1.0.0/acme-late/SKILL.md'));
      const held = await api.publish(tokens['ci']!, skillArchive('acme-late', '1.0.0', `Late.\n\n${SUDO}`));
      assert.equal(JSON.parse(held.text).review, 'pending', held.text);
      // The stdio server hears of it through the store (its poll, or NOTIFY on PostgreSQL).
      await eventually(async () => (notified > 0 ? true : undefined), 30_000, 'list_changed to the publisher');
      await eventually(async () => ((await uris()).includes('skill://1.0.0/acme-late/SKILL.md') ? true : undefined), 30_000, 'the pending version listed');
    } finally {
      await client.close();
    }
  });

  test('approval serves the version to everyone allowed, without the pending mark; rejection hides it from all', async () => {
    const approved = await api.call(tokens['lead']!, 'POST', '/api/v1/skills/acme-new/versions/1.0.0/approve', '{}');
    assert.equal(approved.status, 200, approved.text);
    const rejected = await api.call(tokens['lead']!, 'POST', '/api/v1/skills/acme-tool/versions/1.1.0/reject', JSON.stringify({ reason: 'not needed' }));
    assert.equal(rejected.status, 200, rejected.text);
    for (const who of ['alice', 'other', 'ci', 'lead']) {
      const client = await mcp(who);
      const activated = await callText(client, 'activate_skill', { name: 'acme-new' });
      assert.match(activated.text, /A new tool/, who);
      assert.doesNotMatch(activated.text, /skill_review/, who);
      assert.match(activated.text, /review: approved/, who);
      const listed = await new SkillsClient(client).list();
      const uris = (listed as { skills: Array<{ uri: string }> }).skills.map((entry) => entry.uri);
      assert.ok(uris.includes('skill://acme-new/SKILL.md'), `${who}: ${uris.join(' ')}`);
      assert.ok(!uris.some((uri) => uri.includes('1.1.0')), `${who}: a rejected version is listed to no one`);
      const byVersion = await callText(client, 'activate_skill', { name: 'acme-tool', version: '1.1.0' });
      assert.ok(byVersion.isError, `${who}: ${byVersion.text}`);
      assert.doesNotMatch(byVersion.text, /Release two/);
    }
    // beta still sees nothing of acme's.
    const beta = await mcp('beta');
    const nothing = await callText(beta, 'activate_skill', { name: 'acme-new' });
    assert.ok(nothing.isError);
    const list = await callText(beta, 'list_skills', {});
    assert.doesNotMatch(list.text, /acme-/, list.text);
  });
}
