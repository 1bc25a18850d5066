import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXAMPLES, connectHttp, createToken, makeTree, rawRequest, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

/**
 * The HTTP fast path (ADR 0002) must answer exactly as the SDK path does. Two real servers on the same folder,
 * one with --no-fast-path, get the same raw requests (shaped as the SDK client sends them); the answers must be equal.
 */
type Era = 'legacy' | 'modern';

function request(era: Era, id: number, method: string, params: Record<string, unknown>): { headers: Record<string, string>; body: string } {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (era === 'modern') {
    headers['mcp-protocol-version'] = '2026-07-28';
    headers['mcp-method'] = method;
    if (method === 'resources/read' && typeof params['uri'] === 'string') headers['mcp-name'] = params['uri'];
    if (method === 'tools/call' && typeof params['name'] === 'string') headers['mcp-name'] = params['name'];
    params = {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'eq', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    };
  } else {
    headers['mcp-protocol-version'] = '2025-11-25';
  }
  return { headers, body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) };
}

async function send(url: string, era: Era, id: number, method: string, params: Record<string, unknown>) {
  const { headers, body } = request(era, id, method, params);
  const response = await fetch(url, { method: 'POST', headers, body });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const json = type.startsWith('text/event-stream') ? JSON.parse(/^data: (.*)$/m.exec(text)![1]!) : JSON.parse(text);
  return { status: response.status, type: type.split(';')[0], json };
}

describe('HTTP fast path answers exactly like the SDK path', () => {
  let fast: RunningServer;
  let sdk: RunningServer;
  before(async () => {
    [fast, sdk] = await Promise.all([startHttp([EXAMPLES, '--page-size', '2']), startHttp([EXAMPLES, '--page-size', '2', '--no-fast-path'])]);
  });
  after(async () => {
    await Promise.all([fast.stop(), sdk.stop()]);
  });

  const cases: Array<[string, Record<string, unknown>]> = [
    ['skills/list', {}],
    ['skills/get', { uri: 'skill://csv-data-cleaning/SKILL.md' }],
    ['skills/get', { uri: 'skill://missing/SKILL.md' }],
    ['resources/read', { uri: 'skill://csv-data-cleaning/SKILL.md' }],
    ['resources/read', { uri: 'skill://csv-data-cleaning/scripts/profile_csv.py' }],
    ['resources/read', { uri: 'skill://release-notes/assets/logo.png' }],
    ['resources/read', { uri: 'skill://release-notes/assets' }],
    ['resources/read', { uri: 'skill://release-notes/nope.md' }],
    ['resources/read', { uri: 'skill://release-notes/../csv-data-cleaning/SKILL.md' }],
    ['resources/directory/read', { uri: 'skill://api-design-review' }],
    ['resources/directory/read', { uri: 'skill://api-design-review/references' }],
    ['resources/directory/read', { uri: 'skill://api-design-review/SKILL.md' }],
    ['skills/list', { cursor: 'not-a-cursor' }],
  ];

  for (const era of ['legacy', 'modern'] as const) {
    test(`same answers (${era})`, async () => {
      let id = 1;
      for (const [method, params] of cases) {
        const [a, b] = await Promise.all([send(fast.url, era, id, method, params), send(sdk.url, era, id, method, params)]);
        assert.deepEqual(a, b, `${method} ${JSON.stringify(params)}`);
        id++;
      }
      // Walk every page of skills/list on both and compare page by page.
      let cursor: string | undefined;
      let pages = 0;
      do {
        const params = cursor === undefined ? {} : { cursor };
        const [a, b] = await Promise.all([send(fast.url, era, id, 'skills/list', params), send(sdk.url, era, id, 'skills/list', params)]);
        assert.deepEqual(a, b);
        cursor = a.json.result.nextCursor;
        pages++;
        id++;
      } while (cursor !== undefined);
      assert.equal(pages, 3);
    });
  }

  /**
   * list_skills through tools/call (ADR 0002, search on the fast path): searches, listings and every kind of argument
   * the tool's schema takes or refuses. The refused ones (and other tools) fall back to the SDK, so they must match too.
   */
  const answeredHere: Array<Record<string, unknown>> = [
    { name: 'list_skills', arguments: { query: 'clean a messy csv export', limit: 10 } },
    { name: 'list_skills', arguments: { query: 'csv cleaning' } },
    { name: 'list_skills', arguments: { query: 'write release notes from the git log', limit: 2 } },
    { name: 'list_skills', arguments: { query: 'slow postgres query explain analyze', limit: 200 } },
    { name: 'list_skills', arguments: { query: 'outage postmortem timeline' } },
    { name: 'list_skills', arguments: { query: 'reviw the REST api desgin' } },
    { name: 'list_skills', arguments: { query: 'commit' } },
    { name: 'list_skills', arguments: { query: 'zebra quantum banjo' } },
    { name: 'list_skills', arguments: { query: 'Ünïcødé “quotes” \\ \u0000 </script>' } },
    { name: 'list_skills', arguments: { query: '   ' } },
    { name: 'list_skills', arguments: { query: 'csv', cursor: 'ignored-with-a-query' } },
    { name: 'list_skills', arguments: { query: 'csv', extra: 'a key the schema does not know' } },
    { name: 'list_skills', arguments: {} },
    { name: 'list_skills' },
    { name: 'list_skills', arguments: { limit: 4 } },
    { name: 'list_skills', arguments: { limit: 1, cursor: '' } },
    { name: 'list_skills', arguments: { query: 'x'.repeat(2000) } },
  ];
  const answeredBySdk: Array<Record<string, unknown>> = [
    // Refused by the schema or by the tool: the SDK answers (isError results).
    { name: 'list_skills', arguments: { cursor: 'not-a-cursor' } },
    { name: 'list_skills', arguments: { limit: 0 } },
    { name: 'list_skills', arguments: { limit: 201 } },
    { name: 'list_skills', arguments: { limit: 2.5 } },
    { name: 'list_skills', arguments: { limit: '3' } },
    { name: 'list_skills', arguments: { query: 7 } },
    { name: 'list_skills', arguments: { query: null } },
    { name: 'list_skills', arguments: { query: 'x'.repeat(2001) } },
    // Other tools and unknown ones: the SDK answers.
    { name: 'activate_skill', arguments: { name: 'csv-data-cleaning' } },
    { name: 'no_such_tool', arguments: {} },
  ];
  // Refused before either path (mcp/request-screen.ts): no answer counted.
  const screened: Array<Record<string, unknown>> = [
    { name: 'list_skills', arguments: 'not an object' },
    { name: 'list_skills', arguments: [] },
  ];

  for (const era of ['legacy', 'modern'] as const) {
    test(`tools/call list_skills: same answers (${era})`, async () => {
      const counters = async (server: RunningServer) =>
        ((await (await fetch(server.url.replace(/\/mcp$/, '/healthz'))).json()) as { requests: { fastPath: number; sdk: number } }).requests;
      const before = await counters(fast);
      let id = 500;
      let searched = 0;
      for (const params of [...answeredHere, ...answeredBySdk, ...screened]) {
        const [a, b] = await Promise.all([send(fast.url, era, id, 'tools/call', params), send(sdk.url, era, id, 'tools/call', params)]);
        assert.deepEqual(a, b, `tools/call ${JSON.stringify(params).slice(0, 200)}`);
        if (typeof (params['arguments'] as { query?: unknown } | undefined)?.query === 'string' && a.json.result?.structuredContent?.skills?.length > 0)
          searched++;
        id++;
      }
      assert.ok(searched >= 6, 'the queries found skills (the comparison is not vacuous)');
      // Walk the listing through list_skills' cursors on both.
      let cursor: string | undefined;
      let pages = 0;
      do {
        const params = { name: 'list_skills', arguments: cursor === undefined ? { limit: 2 } : { limit: 2, cursor } };
        const [a, b] = await Promise.all([send(fast.url, era, id, 'tools/call', params), send(sdk.url, era, id, 'tools/call', params)]);
        assert.deepEqual(a, b);
        cursor = a.json.result.structuredContent.nextCursor;
        pages++;
        id++;
      } while (cursor !== undefined);
      assert.equal(pages, 3);
      // Every successful list_skills call was answered by the fast path; the refused ones and other tools by the SDK.
      const after = await counters(fast);
      assert.equal(after.fastPath - before.fastPath, answeredHere.length + pages, `${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
      assert.equal(after.sdk - before.sdk, answeredBySdk.length, `${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
    });
  }

  test('the fast path was really taken', async () => {
    const health = (await (await fetch(fast.url.replace(/\/mcp$/, '/healthz'))).json()) as { requests: { fastPath: number; sdk: number } };
    const baseline = (await (await fetch(sdk.url.replace(/\/mcp$/, '/healthz'))).json()) as { requests: { fastPath: number; sdk: number } };
    assert.ok(health.requests.fastPath >= 20, JSON.stringify(health));
    assert.equal(baseline.requests.fastPath, 0);
  });
});

/**
 * The read figures in docs/benchmarks.md assume that real clients' requests take the fast path. Here the SDK's own
 * client (both eras) lists and reads through SkillsClient, and the server's counters (/healthz) must show those
 * requests on the fast path; a batch and a notification must not take it.
 */
describe('requests of the SDK client take the fast path', () => {
  let server: RunningServer;
  before(async () => {
    server = await startHttp([EXAMPLES]);
  });
  after(async () => {
    await server.stop();
  });
  const counters = async () =>
    ((await (await fetch(server.url.replace(/\/mcp$/, '/healthz'))).json()) as { requests: { fastPath: number; sdk: number } }).requests;

  for (const era of ['legacy', 'modern'] as const) {
    test(`skills/list, skills/get and resources/read from the SDK client (${era})`, async () => {
      const client = await connectHttp(server.url, era);
      try {
        const skills = new SkillsClient(client);
        const before = await counters();
        const { skills: listed } = await skills.list();
        assert.ok(listed.length > 0);
        let reads = 0;
        for (const skill of listed.slice(0, 3)) {
          for (const resource of (skill.resources as Array<{ uri: string }>).slice(0, 2)) {
            await skills.read(skill, resource.uri);
            reads++;
          }
        }
        await skills.get(listed[0]!.uri);
        const after = await counters();
        // Every list page, every read and the get: all on the fast path, none through the SDK handler.
        assert.ok(after.fastPath - before.fastPath >= reads + 2, `${JSON.stringify(before)} -> ${JSON.stringify(after)} for ${reads} reads`);
        assert.equal(after.sdk - before.sdk, 0, `${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
      } finally {
        await client.close();
      }
    });
  }

  test('a batch and a notification go through the SDK handler, not the fast path', async () => {
    const before = await counters();
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' };
    const batch = [
      { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'skill://release-notes/SKILL.md' } },
      { jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'skill://release-notes/SKILL.md' } },
    ];
    await (await fetch(server.url, { method: 'POST', headers, body: JSON.stringify(batch) })).text();
    const notification = { jsonrpc: '2.0', method: 'notifications/initialized' };
    await (await fetch(server.url, { method: 'POST', headers, body: JSON.stringify(notification) })).text();
    const after = await counters();
    assert.equal(after.fastPath, before.fastPath, `${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
    assert.equal(after.sdk - before.sdk, 2, `${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
  });
});

/**
 * Searches on the fast path answer from the caller's own view (ADR 0151: one index, a view per principal): with
 * tokens and a policy, each principal's searches, including ones naming the other's skills and words only their
 * bodies hold, get exactly the SDK path's answers, and never a skill it may not see. An admin's /metrics shows that
 * the fast path answered them.
 */
describe('list_skills on the fast path: per-principal views, no leaks (tokens)', () => {
  const SKILLS = [
    { path: 'acme/acme-deploy', name: 'acme-deploy', org: 'acme' },
    { path: 'acme/onboarding', name: 'onboarding', org: 'acme' },
    { path: 'globex/globex-ledger', name: 'globex-ledger', org: 'globex' },
    { path: 'globex/onboarding', name: 'onboarding', org: 'globex' },
    { path: 'public/style-guide', name: 'style-guide', org: undefined },
  ];
  const marker = (path: string) => `zq${path.replace(/[^a-z]/g, '')}body`;
  const tree: Record<string, string> = {};
  for (const skill of SKILLS) {
    tree[`${skill.path}/SKILL.md`] =
      `---\nname: ${skill.name}\ndescription: Helps with ${skill.name} work for the team. Use when asked about ${skill.name}.\n---\n\n# ${skill.name}\n\n## Steps\n\nDo it carefully. ${marker(skill.path)}\n`;
  }
  const policy =
    'default: none\nrules:\n  - uri: skill://acme/\n    allow: [org:acme]\n  - uri: skill://globex/\n    allow: [org:globex]\n  - uri: skill://public/\n    allow: [public]\n';
  const data = mkdtempSync(join(tmpdir(), 'skillport-fast-tools-'));
  const policyFile = join(data, 'policy.yaml');
  writeFileSync(policyFile, policy);
  const tokens: Record<string, string> = {};
  let admin: string;
  let fast: RunningServer;
  let sdk: RunningServer;
  before(async () => {
    tokens['alice'] = await createToken(data, ['--user', 'alice', '--org', 'acme']);
    tokens['bob'] = await createToken(data, ['--user', 'bob', '--org', 'globex']);
    tokens['dave'] = await createToken(data, ['--user', 'dave']);
    admin = await createToken(data, ['--user', 'root', '--scope', 'admin']);
    const dir = makeTree(tree);
    const args = [dir, '--auth', 'tokens', '--data', data, '--policy', policyFile, '--no-watch'];
    [fast, sdk] = await Promise.all([startHttp(args), startHttp([...args, '--no-fast-path'])]);
  });
  after(async () => {
    await Promise.all([fast?.stop(), sdk?.stop()]);
  });

  const sees = (who: string, skill: (typeof SKILLS)[number]) =>
    skill.org === undefined || (who === 'alice' && skill.org === 'acme') || (who === 'bob' && skill.org === 'globex');
  const queries = [
    ...SKILLS.map((skill) => skill.name),
    ...SKILLS.map((skill) => marker(skill.path)),
    'onboarding steps for the team',
    'deploy ledger style guide',
  ];

  for (const era of ['legacy', 'modern'] as const) {
    test(`each principal searches its own view only, as the SDK path answers (${era})`, async () => {
      let id = 1;
      for (const [who, token] of Object.entries(tokens)) {
        let found = 0;
        for (const query of queries) {
          const params = { name: 'list_skills', arguments: { query, limit: 20 } };
          const [a, b] = await Promise.all([
            rawRequest(fast.url, era, token, id, 'tools/call', params),
            rawRequest(sdk.url, era, token, id, 'tools/call', params),
          ]);
          id++;
          assert.deepEqual(a, b, `${who}: ${query}`);
          const hits = (a.json.result.structuredContent.skills as Array<{ uri: string }>).map((hit) => hit.uri);
          for (const skill of SKILLS) {
            const uri = `skill://${skill.path}/SKILL.md`;
            if (!sees(who, skill)) assert.ok(!hits.includes(uri), `${who} found ${uri} searching "${query}"`);
            // Its body's own word finds a visible skill (the comparison is not vacuous).
            else if (query === marker(skill.path)) assert.ok(hits.includes(uri), `${who} should find ${uri}`);
          }
          found += hits.length;
          // total is the size of the caller's view, never the catalog's.
          assert.equal(a.json.result.structuredContent.total, SKILLS.filter((skill) => sees(who, skill)).length);
        }
        assert.ok(found > 0, who);
      }
    });
  }

  test('/metrics: the searches were answered by the fast path on one server, by the SDK on the other', async () => {
    const answers = async (server: RunningServer) => {
      const text = await (await fetch(server.url.replace(/\/mcp$/, '/metrics'), { headers: { authorization: `Bearer ${admin}` } })).text();
      const value = (path: string) => Number(new RegExp(`^skillport_mcp_answers_total\\{path="${path}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
      return { fast: value('fast'), sdk: value('sdk') };
    };
    const searches = 2 * Object.keys(tokens).length * queries.length;
    assert.deepEqual(await answers(fast), { fast: searches, sdk: 0 });
    assert.deepEqual(await answers(sdk), { fast: 0, sdk: searches });
  });
});
