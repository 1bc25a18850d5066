import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { connectAs, connectStdio, createToken, makeTree, removeTrees, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

/**
 * Requirements, availability and readiness on every MCP surface, through real clients over stdio and Streamable
 * HTTP: a skill needing an MCP server the host lacks says so (and never ranks above a ready equal), providing the
 * server makes it ready, and a skill requiring a scope follows the policy (hidden from principals without it).
 */
after(removeTrees);

const same = 'Send weekly email digests to a team mailing list.';
const tree = () =>
  makeTree({
    'alpha-tool/SKILL.md': `---\nname: alpha-tool\ndescription: ${same}\nrequires:\n  mcp: [rube]\n---\n# Steps\nWrite the digest.\n`,
    'beta-tool/SKILL.md': `---\nname: beta-tool\ndescription: ${same}\n---\n# Steps\nWrite the digest.\n`,
    'deploy/SKILL.md': '---\nname: deploy\ndescription: Deploy a web service to the cloud host.\n---\n# Deploy\n',
    'deploy/agents/openai.yaml': 'dependencies:\n  tools:\n    - type: mcp\n      value: render\n      url: "https://mcp.render.com/mcp"\n',
    'billing/SKILL.md': '---\nname: billing\ndescription: Issue refunds from the billing system.\nrequires:\n  scopes: [billing]\n---\n# Refunds\n',
  });

const ListResult = z.object({ skills: z.array(z.record(z.string(), z.unknown())) }).passthrough();
type Entry = { uri: string; frontmatter: Record<string, unknown>; _meta: Record<string, unknown> };

async function skillsList(client: Client, available?: Record<string, unknown>): Promise<Entry[]> {
  const params = available === undefined ? {} : { _meta: { 'dev.skillport/available': available } };
  const result = await client.request({ method: 'skills/list', params }, ListResult);
  return result.skills as unknown as Entry[];
}

async function call(client: Client, name: string, args: Record<string, unknown>, meta?: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) })) as {
    content: Array<{ text?: string }>;
    isError?: boolean;
    structuredContent?: Record<string, unknown>;
  };
  return { text: result.content.map((item) => item.text ?? '').join('\n'), isError: result.isError === true, structured: result.structuredContent ?? {} };
}

const byName = (entries: Entry[], name: string) => entries.find((entry) => entry.frontmatter['name'] === name)!;
const env = { SKILLPORT_WORD_VECTORS: '0' };

describe('requirements and availability over stdio', () => {
  let client: Client;
  before(async () => {
    // Lexical ranking only, so two skills written alike score alike (the word vectors weigh their names too).
    process.env['SKILLPORT_WORD_VECTORS'] = '0';
    ({ client } = await connectStdio([tree()], 'legacy', undefined));
  });
  after(async () => {
    await client?.close();
  });

  test('skills/list: the normalised requirements in _meta, and availability for the host that says what it has', async () => {
    const plain = await skillsList(client);
    const alpha = byName(plain, 'alpha-tool');
    assert.deepEqual(alpha._meta['dev.skillport/requirements'], {
      mcpServers: [{ name: 'rube' }],
      tools: [],
      scopes: [],
      agents: [],
      allowedTools: [],
      sources: ['requires'],
    });
    // Nothing said about MCP servers: unknown, not unmet.
    assert.deepEqual(alpha._meta['dev.skillport/availability'], { status: 'unknown', unknown: { mcpServers: ['rube'] } });
    assert.equal(byName(plain, 'beta-tool')._meta['dev.skillport/availability'], undefined, 'a skill needing nothing carries nothing');
    const deploy = byName(plain, 'deploy')._meta['dev.skillport/requirements'] as { mcpServers: unknown; sources: unknown };
    assert.deepEqual(deploy.mcpServers, [{ name: 'render', url: 'https://mcp.render.com/mcp' }]);
    assert.deepEqual(deploy.sources, ['agents/openai.yaml']);

    const lacking = await skillsList(client, { mcpServers: ['github'] });
    assert.deepEqual(byName(lacking, 'alpha-tool')._meta['dev.skillport/availability'], { status: 'needs', needs: { mcpServers: ['rube'] } });
    const providing = await skillsList(client, { mcpServers: ['github', 'rube'] });
    assert.deepEqual(byName(providing, 'alpha-tool')._meta['dev.skillport/availability'], { status: 'ready' });
  });

  test('list_skills: availability per entry; a ready skill ranks above an equally good unmet one; providing the server makes it ready', async () => {
    const lacking = await call(client, 'list_skills', { query: 'weekly email digests', available: { mcpServers: ['github'] } });
    const names = (lacking.structured['skills'] as Array<{ name: string; availability?: { status: string } }>).map((skill) => skill.name);
    assert.deepEqual(names.slice(0, 2), ['beta-tool', 'alpha-tool'], lacking.text);
    const alpha = (lacking.structured['skills'] as Array<Record<string, unknown>>).find((skill) => skill['name'] === 'alpha-tool')!;
    assert.deepEqual(alpha['availability'], { status: 'needs', needs: { mcpServers: ['rube'] } });

    const providing = await call(client, 'list_skills', { query: 'weekly email digests', available: { mcpServers: ['rube'] } });
    const ready = (providing.structured['skills'] as Array<{ name: string; availability?: unknown }>).slice(0, 2);
    assert.deepEqual(
      ready.map((skill) => skill.name),
      ['alpha-tool', 'beta-tool'],
      'equal scores keep their order once both are ready',
    );
    assert.deepEqual(ready[0]!.availability, { status: 'ready' });
  });

  test('activate_skill: readiness before the instructions, from the hint the session gave', async () => {
    await call(client, 'list_skills', { available: { mcpServers: ['github'] } });
    const lacking = await call(client, 'activate_skill', { name: 'alpha-tool' });
    assert.match(lacking.text, /^<skill_readiness name="alpha-tool" status="needs">Not ready: the MCP server "rube" must be connected to this host\./);
    assert.ok(lacking.text.indexOf('<skill_readiness') < lacking.text.indexOf('<skill_content'), 'readiness comes first');
    const given = await call(client, 'activate_skill', { name: 'alpha-tool' }, { 'dev.skillport/available': { mcpServers: ['rube'] } });
    assert.match(given.text, /^<skill_readiness name="alpha-tool" status="ready">Ready/);
    const plain = await call(client, 'activate_skill', { name: 'beta-tool' });
    assert.ok(plain.text.startsWith('<skill_content'), 'a skill needing nothing has no readiness block');
    // The skill's prompt says the same, before the instructions.
    const prompt = await client.request(
      { method: 'prompts/get', params: { name: 'alpha-tool', _meta: { 'dev.skillport/available': { mcpServers: [] } } } },
      z.object({ messages: z.array(z.object({ content: z.object({ text: z.string() }).passthrough() }).passthrough()) }).passthrough(),
    );
    assert.match(
      prompt.messages[0]!.content.text,
      /^Use the "alpha-tool" skill for this task\.\n\n<skill_readiness name="alpha-tool" status="needs">Not ready/,
    );
  });

  test('a skill requiring a scope is shown without a policy (nothing is managed), like any other', async () => {
    const entries = await skillsList(client);
    assert.ok(byName(entries, 'billing'));
  });
});

describe('serve --unmet omit over stdio: the hint a session gives decides what its catalog leaves out', () => {
  let client: Client;
  before(async () => {
    ({ client } = await connectStdio([tree(), '--unmet', 'omit'], 'legacy', undefined));
  });
  after(async () => {
    await client?.close();
  });

  test("nothing said: listed (may need); told it lacks rube: left out of activate_skill's catalog, still listed", async () => {
    const description = async () => (await client.listTools()).tools.find((tool) => tool.name === 'activate_skill')!.description!;
    assert.match(await description(), /<name>alpha-tool<\/name>[^]*?<availability>may need MCP server &quot;rube&quot;/);
    await call(client, 'list_skills', { available: { mcpServers: ['github'] } });
    const after = await description();
    assert.ok(!after.includes('<name>alpha-tool</name>') && after.includes('<name>beta-tool</name>'), after);
    const listed = await call(client, 'list_skills', {});
    assert.ok(listed.text.includes('alpha-tool'), 'list_skills still lists it');
  });
});

describe('the policy: grants judge availability, a scope-restricted skill is hidden from principals without the scope', () => {
  const data = mkdtempSync(join(tmpdir(), 'skillport-req-'));
  const policy = join(mkdtempSync(join(tmpdir(), 'skillport-req-policy-')), 'policy.yaml');
  let server: RunningServer;
  const tokens: Record<string, string> = {};
  before(async () => {
    writeFileSync(
      policy,
      [
        'default: public',
        'unmet: omit',
        'grants:',
        '  - for: org:acme',
        '    connections: [rube]',
        '    scopes: [billing]',
        '  - for: org:globex',
        '    connections: [github]',
        '',
      ].join('\n'),
    );
    tokens['alice'] = await createToken(data, ['--user', 'alice', '--org', 'acme']);
    tokens['bob'] = await createToken(data, ['--user', 'bob', '--org', 'globex']);
    server = await startHttp([tree(), '--auth', 'tokens', '--data', data, '--policy', policy], env);
  });
  after(async () => {
    await server?.stop();
  });

  for (const era of ['legacy', 'modern'] as const) {
    test(`granted connections make a skill ready, without the host's help (${era})`, async () => {
      const alice = await connectAs(server.url, era, tokens['alice']);
      const bob = await connectAs(server.url, era, tokens['bob']);
      try {
        // Ready through the policy: the entry says which requirements the grants cover (a client re-judging adds them).
        assert.deepEqual(byName(await skillsList(alice), 'alpha-tool')._meta['dev.skillport/availability'], {
          status: 'ready',
          granted: { mcpServers: ['rube'] },
        });
        assert.deepEqual(byName(await skillsList(bob), 'alpha-tool')._meta['dev.skillport/availability'], { status: 'needs', needs: { mcpServers: ['rube'] } });
        // What the host has adds to what the policy grants.
        assert.deepEqual(byName(await skillsList(bob, { mcpServers: ['rube'] }), 'alpha-tool')._meta['dev.skillport/availability'], { status: 'ready' });
        const listed = await call(bob, 'list_skills', { query: 'weekly email digests' });
        assert.deepEqual(
          (listed.structured['skills'] as Array<{ name: string }>).slice(0, 2).map((skill) => skill.name),
          ['beta-tool', 'alpha-tool'],
        );
        // unmet: omit leaves alpha-tool out of the catalog written for bob's model, not out of his listing.
        const tools = await bob.listTools();
        const activate = tools.tools.find((tool) => tool.name === 'activate_skill')!;
        assert.ok(!activate.description!.includes('<name>alpha-tool</name>'), activate.description);
        assert.ok(activate.description!.includes('<name>beta-tool</name>'));
        const aliceTools = await alice.listTools();
        assert.ok(aliceTools.tools.find((tool) => tool.name === 'activate_skill')!.description!.includes('<name>alpha-tool</name>'));
      } finally {
        await Promise.all([alice.close(), bob.close()]);
      }
    });

    test(`a scope-restricted skill: visible with the scope, absent without it, on every surface (${era})`, async () => {
      const alice = await connectAs(server.url, era, tokens['alice']);
      const bob = await connectAs(server.url, era, tokens['bob']);
      try {
        assert.ok(byName(await skillsList(alice), 'billing'));
        assert.equal(byName(await skillsList(bob), 'billing'), undefined);
        const uri = 'skill://billing/SKILL.md';
        const missing = 'skill://no-such-skill/SKILL.md';
        const outcome = async (run: () => Promise<unknown>) => {
          try {
            await run();
            return 'ok';
          } catch (error) {
            return String((error as Error).message)
              .replace(uri, 'URI')
              .replace(missing, 'URI');
          }
        };
        // Exactly as a skill that does not exist: nothing reveals it.
        assert.equal(await outcome(() => bob.readResource({ uri })), await outcome(() => bob.readResource({ uri: missing })));
        assert.equal(
          await outcome(() => bob.request({ method: 'skills/get', params: { uri } }, z.object({}).passthrough())),
          await outcome(() => bob.request({ method: 'skills/get', params: { uri: missing } }, z.object({}).passthrough())),
        );
        const activated = await call(bob, 'activate_skill', { name: 'billing' });
        const none = await call(bob, 'activate_skill', { name: 'no-such-skill' });
        assert.equal(activated.isError, true);
        assert.equal(activated.text.replace('billing', 'X'), none.text.replace('no-such-skill', 'X'));
        const search = await call(bob, 'list_skills', { query: 'refunds billing system' });
        assert.ok(!search.text.includes('skill://billing/'), search.text);
        assert.ok(!(await bob.listResources()).resources.some((resource) => resource.uri === uri));
        assert.equal((await call(alice, 'activate_skill', { name: 'billing' })).isError, false);
      } finally {
        await Promise.all([alice.close(), bob.close()]);
      }
    });
  }
});

describe('the HTTP fast path answers a hinted request as the SDK path does', () => {
  let fast: RunningServer;
  let sdk: RunningServer;
  const shared = tree();
  before(async () => {
    [fast, sdk] = await Promise.all([startHttp([shared, '--page-size', '2'], env), startHttp([shared, '--page-size', '2', '--no-fast-path'], env)]);
  });
  after(async () => {
    await Promise.all([fast?.stop(), sdk?.stop()]);
  });

  async function send(url: string, era: 'legacy' | 'modern', id: number, method: string, params: Record<string, unknown>, hint: unknown) {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const meta: Record<string, unknown> = hint === undefined ? {} : { 'dev.skillport/available': hint };
    if (era === 'modern') {
      headers['mcp-protocol-version'] = '2026-07-28';
      headers['mcp-method'] = method;
      if (method === 'tools/call') headers['mcp-name'] = String(params['name']);
      meta['io.modelcontextprotocol/protocolVersion'] = '2026-07-28';
      meta['io.modelcontextprotocol/clientInfo'] = { name: 'eq', version: '1' };
      meta['io.modelcontextprotocol/clientCapabilities'] = {};
    } else headers['mcp-protocol-version'] = '2025-11-25';
    const body = { jsonrpc: '2.0', id, method, params: Object.keys(meta).length > 0 ? { ...params, _meta: meta } : params };
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await response.text();
    return text.startsWith('event:') ? JSON.parse(/^data: (.*)$/m.exec(text)![1]!) : JSON.parse(text);
  }

  for (const era of ['legacy', 'modern'] as const) {
    test(`skills/list pages, skills/get and list_skills with a hint: equal answers, and the hint is heeded (${era})`, async () => {
      let id = 1;
      const cases: Array<[string, Record<string, unknown>]> = [
        ['skills/get', { uri: 'skill://alpha-tool/SKILL.md' }],
        ['tools/call', { name: 'list_skills', arguments: { query: 'weekly email digests' } }],
        ['tools/call', { name: 'list_skills', arguments: {} }],
        ['tools/call', { name: 'list_skills', arguments: { query: 'weekly email digests', available: { mcpServers: ['rube'] } } }],
      ];
      for (const hint of [{ mcpServers: ['github'] }, { mcpServers: ['rube'] }, { mcpServers: 'not a list' }, undefined]) {
        for (const [method, params] of cases) {
          const [a, b] = await Promise.all([send(fast.url, era, id, method, params, hint), send(sdk.url, era, id, method, params, hint)]);
          assert.deepEqual(a, b, `${method} ${JSON.stringify(params)} ${JSON.stringify(hint)}`);
          id++;
        }
        let cursor: string | undefined;
        do {
          const params = cursor === undefined ? {} : { cursor };
          const [a, b] = await Promise.all([send(fast.url, era, id, 'skills/list', params, hint), send(sdk.url, era, id, 'skills/list', params, hint)]);
          assert.deepEqual(a, b, `skills/list ${JSON.stringify(hint)}`);
          cursor = a.result.nextCursor;
          id++;
        } while (cursor !== undefined);
      }
      const lacking = await send(fast.url, era, id++, 'skills/get', { uri: 'skill://alpha-tool/SKILL.md' }, { mcpServers: ['github'] });
      assert.deepEqual(lacking.result.skill._meta['dev.skillport/availability'], { status: 'needs', needs: { mcpServers: ['rube'] } });
    });
  }
});
