import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import { EXAMPLES, connectHttp, eventually, runCli, startHttp } from '@skillport/test-kit';
import type { Era, RunningServer } from '@skillport/test-kit';
import { outcome, rawRequest } from '@skillport/test-kit';
import { callText, publish, releaseFolder, storeDir } from '@skillport/test-kit';

/**
 * What a caller is answered, through real MCP clients of both protocol eras against real `skillport serve --http`:
 * the same tools for everyone, a hidden skill indistinguishable from one that never existed, revoked versions that
 * say so, and plain JSON for every answer that is one message (SSE only for streams), and a stream that ends when
 * the JWT it was opened with expires.
 */

const temporary: string[] = [];
const tempDir = (label: string) => {
  const dir = mkdtempSync(join(tmpdir(), `skillport-${label}-`));
  temporary.push(dir);
  return dir;
};
after(() => {
  for (const dir of temporary) rmSync(dir, { recursive: true, force: true });
});

const ERAS = ['legacy', 'modern'] as const satisfies readonly Era[];
const CORE_TOOLS = ['activate_skill', 'list_skills', 'read_skill_resource'];

describe('the same tools for everyone', () => {
  let server: RunningServer;
  before(async () => {
    // Anonymous callers see one small skill: the single-skill fast path applies to their view.
    const policy = join(tempDir('tools'), 'policy.yaml');
    writeFileSync(policy, 'default: none\nrules:\n  - skills: release-notes\n    allow: [public]\n');
    server = await startHttp([EXAMPLES, '--no-watch', '--policy', policy]);
  });
  after(async () => {
    await server.stop();
  });

  for (const era of ERAS) {
    test(`a view of one skill lists and calls every tool of the mode (${era})`, async () => {
      const client = await connectHttp(server.url, era);
      try {
        assert.deepEqual((await client.listTools()).tools.map((tool) => tool.name).sort(), CORE_TOOLS);
        const listed = await callText(client, 'list_skills', {});
        assert.equal(listed.isError, false, listed.text);
        assert.match(listed.text, /release-notes/);
        assert.doesNotMatch(listed.text, /disabled/);
        const activated = await callText(client, 'activate_skill', { name: 'release-notes' });
        assert.equal(activated.isError, false, activated.text);
        assert.match(activated.text, /<skill_content name="release-notes"/);
      } finally {
        await client.close();
      }
    });
  }
});

describe('a hidden skill answers exactly like one that never existed', () => {
  let hiding: RunningServer;
  let absent: RunningServer;
  const HIDDEN = 'csv-data-cleaning';
  before(async () => {
    const dir = tempDir('hidden');
    const policy = join(dir, 'policy.yaml');
    writeFileSync(policy, 'default: public\nrules:\n  - skills: "csv-*"\n    allow: [org:acme]\n');
    // The same catalog without the hidden skill at all.
    const without = join(dir, 'skills');
    cpSync(EXAMPLES, without, { recursive: true });
    rmSync(join(without, HIDDEN), { recursive: true });
    [hiding, absent] = await Promise.all([startHttp([EXAMPLES, '--no-watch', '--policy', policy]), startHttp([without, '--no-watch'])]);
  });
  after(async () => {
    await Promise.all([hiding.stop(), absent.stop()]);
  });

  /** Every surface that takes a skill's name or URI, asked about `name`. */
  async function answers(url: string, era: Era, name: string): Promise<Record<string, unknown>> {
    const client = await connectHttp(url, era);
    const root = `skill://${name}`;
    try {
      const raw = async (id: number, method: string, params: Record<string, unknown>) => {
        const answer = await rawRequest(url, era, undefined, id, method, params);
        return { status: answer.status, error: answer.json.error, result: answer.json.result };
      };
      return {
        activateByName: await callText(client, 'activate_skill', { name }),
        activateByUri: await callText(client, 'activate_skill', { uri: `${root}/SKILL.md` }),
        activateVersion: await callText(client, 'activate_skill', { name, version: '1.0.0' }),
        readTool: await callText(client, 'read_skill_resource', { name, path: 'SKILL.md' }),
        readToolByUri: await callText(client, 'read_skill_resource', { uri: `${root}/SKILL.md`, path: 'references/guide.md' }),
        search: await callText(client, 'list_skills', { query: name.replace(/-/g, ' ') }),
        prompt: await outcome(() => client.getPrompt({ name })),
        readManifest: await outcome(() => client.readResource({ uri: `${root}/SKILL.md` })),
        readFile: await outcome(() => client.readResource({ uri: `${root}/references/cleaning-rules.md` })),
        skillsGet: await raw(1, 'skills/get', { uri: `${root}/SKILL.md` }),
        directory: await raw(2, 'resources/directory/read', { uri: root }),
      };
    } finally {
      await client.close();
    }
  }

  const anonymise = (value: unknown, name: string) => JSON.parse(JSON.stringify(value).split(name).join('<NAME>')) as unknown;

  for (const era of ERAS) {
    test(`every surface: hidden by policy = absent from the catalog (${era})`, async () => {
      const [hidden, missing] = await Promise.all([answers(hiding.url, era, HIDDEN), answers(absent.url, era, HIDDEN)]);
      for (const surface of Object.keys(missing)) assert.deepEqual(hidden[surface], missing[surface], surface);
    });

    test(`suggestions come from the caller's view: a hidden name answers like any unknown name far from every visible one (${era})`, async () => {
      const [hidden, unknown] = await Promise.all([answers(hiding.url, era, HIDDEN), answers(hiding.url, era, 'zq')]);
      for (const surface of ['activateByName', 'activateByUri', 'activateVersion', 'readTool', 'prompt', 'readManifest', 'skillsGet', 'directory']) {
        assert.deepEqual(anonymise(hidden[surface], HIDDEN), anonymise(unknown[surface], 'zq'), surface);
      }
      // A typo of a hidden name is never answered with that name.
      const client = await connectHttp(hiding.url, era);
      try {
        const typo = await callText(client, 'activate_skill', { name: 'csv-data-cleanin' });
        assert.doesNotMatch(typo.text, /csv-data-cleaning/);
        const close = await callText(client, 'activate_skill', { name: 'sql-query-optimisation' });
        assert.match(close.text, /Did you mean: sql-query-optimization\?/);
      } finally {
        await client.close();
      }
    });
  }
});

describe('revoked means said so', () => {
  let server: RunningServer;
  before(async () => {
    const data = storeDir();
    temporary.push(data);
    for (const version of ['1.0.0', '1.1.0']) assert.equal((await publish([releaseFolder('a', version), '--data', data, '--version', version])).code, 0);
    assert.equal((await runCli(['yank', 'a@1.0.0', '--data', data])).code, 0);
    const revoked = await runCli(['revoke', 'a@1.1.0', '--reason', 'references/guide.md carries a prompt injection', '--data', data]);
    assert.equal(revoked.code, 0, revoked.stderr);
    server = await startHttp(['--data', data, '--no-watch']);
  });
  after(async () => {
    await server.stop();
  });

  for (const era of ERAS) {
    test(`after yank a@1.0.0 and revoke a@1.1.0: activate by name and version says revoked, and why; the yanked one stays readable (${era})`, async () => {
      const client = await connectHttp(server.url, era);
      try {
        const revoked = await callText(client, 'activate_skill', { name: 'a', version: '1.1.0' });
        assert.equal(revoked.isError, true);
        assert.match(revoked.text, /a@1\.1\.0 was revoked on .*: references\/guide\.md carries a prompt injection/);
        assert.doesNotMatch(revoked.text, /not found/);
        const readRevoked = await callText(client, 'read_skill_resource', { name: 'a', version: '1.1.0', path: 'references/guide.md' });
        assert.match(readRevoked.text, /revoked/);
        const yanked = await callText(client, 'activate_skill', { name: 'a', version: '1.0.0' });
        assert.equal(yanked.isError, false, yanked.text);
        assert.match(yanked.text, /<skill_content name="a" uri="skill:\/\/1\.0\.0\/a\/SKILL\.md"/);
        assert.match(yanked.text, /Release 1\.0\.0/);
        const guide = await callText(client, 'read_skill_resource', { name: 'a', version: '1.0.0', path: 'references/guide.md' });
        assert.equal(guide.text, 'guide for release 1.0.0\n');
        const bare = await callText(client, 'activate_skill', { name: 'a' });
        assert.match(bare.text, /every version of 'a' is yanked or revoked/);
        const unknown = await callText(client, 'activate_skill', { name: 'b', version: '1.0.0' });
        assert.match(unknown.text, /Skill 'b' not found/);
      } finally {
        await client.close();
      }
    });
  }
});

/** A client whose fetch records each answer's method and content type, and notices when a listen stream ends. */
function recordingClient(url: string, era: Era, headers: Record<string, string> = {}, onListChanged?: () => void) {
  const seen: Array<{ method: string; type: string; status: number }> = [];
  let listenEnded: Promise<void> | undefined;
  const recording = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await fetch(input, init);
    let method = new Headers(init?.headers).get('mcp-method') ?? '';
    if (method === '' && typeof init?.body === 'string') {
      const body = JSON.parse(init.body) as { method?: string } | Array<{ method?: string }>;
      method = Array.isArray(body) ? 'batch' : (body.method ?? 'response');
    }
    seen.push({ method, type: (response.headers.get('content-type') ?? '').split(';')[0]!, status: response.status });
    if (method === 'subscriptions/listen' && response.body !== null) {
      const [mine, theirs] = response.body.tee();
      listenEnded = (async () => {
        const reader = mine.getReader();
        try {
          while (!(await reader.read()).done);
        } catch {
          // An aborted stream ends too.
        }
      })();
      return new Response(theirs, { status: response.status, statusText: response.statusText, headers: response.headers });
    }
    return response;
  };
  const client = new Client(
    { name: 'skillport-test', version: '1.0.0' },
    {
      ...(era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {}),
      ...(onListChanged ? { listChanged: { resources: { onChanged: onListChanged } } } : {}),
    },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recording, requestInit: { headers } });
  return { client, transport, seen, listenEnded: () => listenEnded };
}

describe('plain JSON where it can be', () => {
  let server: RunningServer;
  before(async () => {
    server = await startHttp([EXAMPLES, '--no-watch']);
  });
  after(async () => {
    await server.stop();
  });

  for (const era of ERAS) {
    for (const fastPath of [true, false]) {
      test(`one request, one message: application/json on every method (${era}${fastPath ? '' : ', --no-fast-path'})`, async () => {
        const target = fastPath ? server : await startHttp([EXAMPLES, '--no-watch', '--no-fast-path']);
        const { client, transport, seen } = recordingClient(target.url, era);
        try {
          await client.connect(transport);
          await client.listTools();
          await client.callTool({ name: 'activate_skill', arguments: { name: 'release-notes' } });
          await client.listPrompts();
          await client.getPrompt({ name: 'release-notes' });
          await client.listResources();
          await client.readResource({ uri: 'skill://release-notes/SKILL.md' });
          await assert.rejects(client.readResource({ uri: 'skill://nothing/SKILL.md' }));
          await new SkillsClient(client).list();
          const answered = seen.filter((entry) => entry.status === 200);
          assert.ok(answered.length >= 8, JSON.stringify(seen));
          for (const entry of answered) assert.equal(entry.type, 'application/json', `${entry.method}: ${entry.type}`);
        } finally {
          await client.close();
          if (!fastPath) await target.stop();
        }
      });
    }
  }

  test('a subscription stream stays a stream (modern)', async () => {
    let notified = 0;
    const { client, transport, seen } = recordingClient(server.url, 'modern', {}, () => void notified++);
    try {
      await client.connect(transport);
      await client.listResources();
      const listen = await eventually(async () => seen.find((entry) => entry.method === 'subscriptions/listen'), 10_000, 'a subscriptions/listen request');
      assert.equal(listen.type, 'text/event-stream');
    } finally {
      await client.close();
    }
  });
});

describe('an expired JWT ends its open stream', () => {
  let server: RunningServer;
  let keys: Awaited<ReturnType<typeof generateKeyPair>>;
  before(async () => {
    keys = await generateKeyPair('ES256', { extractable: true });
    const pem = join(tempDir('jwt'), 'key.pem');
    writeFileSync(pem, await exportSPKI(keys.publicKey));
    server = await startHttp([EXAMPLES, '--auth', 'jwt', '--jwt-key', pem, '--jwt-issuer', 'https://idp.example.test', '--jwt-audience', 'skillport']);
  });
  after(async () => {
    await server.stop();
  });

  test('subscriptions/listen opened with a token expiring in 3 s is closed at expiry', async () => {
    const token = await new SignJWT({ sub: 'alice', scope: 'read' })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer('https://idp.example.test')
      .setAudience('skillport')
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + 3)
      .sign(keys.privateKey);
    const { client, transport, listenEnded } = recordingClient(server.url, 'modern', { authorization: `Bearer ${token}` }, () => {});
    try {
      await client.connect(transport);
      await client.listResources();
      const { ended } = await eventually(
        async () => {
          const stream = listenEnded();
          return stream === undefined ? undefined : { ended: stream };
        },
        10_000,
        'a subscriptions/listen stream',
      );
      const outcomeOf = await Promise.race([ended.then(() => 'ended'), new Promise((resolve) => setTimeout(() => resolve('still open 20 s later'), 20_000))]);
      assert.equal(outcomeOf, 'ended');
    } finally {
      await client.close().catch(() => {});
    }
  });
});
