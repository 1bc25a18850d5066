import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import { eventually, makeTree, sdkShaped, startHttp, tempFolder } from '@skillport/test-kit';
import type { Era, RunningServer } from '@skillport/test-kit';

/**
 * The direct route for a POST of JSON to /mcp (http/direct-route.ts) answers, byte for byte, what the router's
 * middleware chain answers (`--no-direct-route`): the same requests, sent raw over a socket to both servers, get the
 * same status line, headers and body (the Date header and each server's own port aside), for answers (the fast
 * path's reads and lists, the SDK's) and for every refusal on the way (bad host, oversize by length and chunked,
 * no or a bad credential, the wrong scope, per principal and per address, bad JSON, too deep, a screened URI).
 */
const tree = {
  'alpha/SKILL.md': '---\nname: alpha\ndescription: The first skill. Use when testing the direct route.\n---\n\n# Alpha\n\n"quoted" \\ text\n',
  'alpha/references/notes.md': '# Notes\n\nSome notes — with ünïcødé.\n',
  'beta/SKILL.md': '---\nname: beta\ndescription: The second skill. Use when testing.\n---\n\n# Beta\n',
};

const ISSUER = 'https://idp.example.test';
const AUDIENCE = 'skillport';
const MAX_BODY = 4096;

interface Pair {
  direct: RunningServer;
  router: RunningServer;
}

/** One HTTP exchange on a fresh connection (closed by the server after its answer); the whole answer as text. */
function exchange(url: string, text: string): Promise<string> {
  const { port, hostname } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(text));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

/** A request with the given headers (a Host naming the server unless given) and body; `connection: close`. */
function requestText(url: string, headers: Record<string, string>, body: string): string {
  const { host } = new URL(url);
  const all: Record<string, string> = { host, connection: 'close', ...headers };
  if (all['transfer-encoding'] === undefined) all['content-length'] = String(Buffer.byteLength(body));
  return `POST /mcp HTTP/1.1\r\n${Object.entries(all)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n${body}`;
}

/** What may differ between two servers: the Date header and the server's own address (in a 401's metadata URL). */
function normalised(url: string, answer: string): string {
  const { host } = new URL(url);
  return answer.replace(/\r\nDate: [^\r]*/, '').replaceAll(host, 'HOST');
}

async function both(pair: Pair, build: (url: string) => string): Promise<string> {
  const [direct, router] = await Promise.all([exchange(pair.direct.url, build(pair.direct.url)), exchange(pair.router.url, build(pair.router.url))]);
  const a = normalised(pair.direct.url, direct);
  assert.ok(a.startsWith('HTTP/1.1 '), `an answer: ${JSON.stringify(a.slice(0, 200))}`);
  assert.equal(a, normalised(pair.router.url, router));
  return a;
}

function rpc(
  era: Era,
  id: number,
  method: string,
  params: Record<string, unknown>,
  extra: Record<string, string> = {},
): { headers: Record<string, string>; body: string } {
  const shaped = sdkShaped(era, method, params);
  return { headers: { ...shaped.headers, ...extra }, body: JSON.stringify({ jsonrpc: '2.0', id, method, params: shaped.params }) };
}

async function counted(server: RunningServer): Promise<{ fastPath: number; sdk: number; direct: number }> {
  const health = (await (await fetch(server.url.replace(/\/mcp$/, '/healthz'))).json()) as { requests: { fastPath: number; sdk: number; direct: number } };
  return health.requests;
}

/** A request that sends its headers and half its body, then waits: it holds its answer slots until ended. */
function holding(url: string, token: string): Promise<Socket> {
  const { port, hostname, host } = new URL(url);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'skills/list', params: {} });
  return new Promise((resolve) => {
    const socket: Socket = connect(Number(port), hostname, () => {
      socket.write(
        `POST /mcp HTTP/1.1\r\nhost: ${host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\nmcp-protocol-version: 2025-11-25\r\nauthorization: Bearer ${token}\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
      );
      resolve(socket);
    });
    socket.on('error', () => {});
  });
}

describe('the direct /mcp route answers as the router does', () => {
  const root = makeTree(tree);
  let open: Pair;
  let jwt: Pair;
  let sign: (claims: Record<string, unknown>) => Promise<string>;

  before(async () => {
    const keys = await generateKeyPair('ES256', { extractable: true });
    const pem = join(tempFolder('direct-route'), 'key.pem');
    writeFileSync(pem, await exportSPKI(keys.publicKey));
    sign = (claims) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256' })
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt()
        .setExpirationTime('10m')
        .sign(keys.privateKey);
    // Long socket deadlines: on a loaded machine a busy server can take more than the default 10 s to read a request,
    // and node's headers timeout would answer it 408 before either route saw it.
    const limits = ['--max-body', String(MAX_BODY), '--max-json-depth', '8', '--headers-timeout', '300000', '--request-timeout', '600000'];
    const auth = [
      '--auth',
      'jwt',
      '--jwt-key',
      pem,
      '--jwt-issuer',
      ISSUER,
      '--jwt-audience',
      AUDIENCE,
      '--max-requests-per-client',
      '2',
      '--max-requests-per-principal',
      '1',
    ];
    const [a, b, c, d] = await Promise.all([
      startHttp([root, ...limits]),
      startHttp([root, ...limits, '--no-direct-route']),
      startHttp([root, ...limits, ...auth]),
      startHttp([root, ...limits, ...auth, '--no-direct-route']),
    ]);
    open = { direct: a!, router: b! };
    jwt = { direct: c!, router: d! };
  });
  after(async () => {
    await Promise.all([open.direct.stop(), open.router.stop(), jwt.direct.stop(), jwt.router.stop()]);
  });

  test('answers: reads (a miss, then a hit), list pages, directory reads, SDK-answered methods, both eras', async () => {
    const before = await counted(open.direct);
    const asked: Array<{ headers: Record<string, string>; body: string }> = [];
    for (const era of ['legacy', 'modern'] as const) {
      for (const uri of ['skill://alpha/SKILL.md', 'skill://alpha/references/notes.md', 'skill://alpha/references/notes.md'])
        asked.push(rpc(era, 7, 'resources/read', { uri }));
      asked.push(rpc(era, 8, 'skills/list', {}));
      asked.push(rpc(era, 9, 'resources/directory/read', { uri: 'skill://alpha/' }));
      asked.push(rpc(era, 10, 'resources/read', { uri: 'skill://nothing/SKILL.md' }));
      asked.push(rpc(era, 11, 'ping', {}));
    }
    asked.push({ headers: sdkShaped('legacy', 'initialize', {}).headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }) });
    asked.push(rpc('legacy', 12, 'resources/read', { uri: 'skill://alpha/SKILL.md' }, { 'content-type': 'application/json; charset=utf-8' }));
    let fast = 0;
    for (const { headers, body } of asked) {
      const answer = await both(open, (url) => requestText(url, headers, body));
      if (answer.startsWith('HTTP/1.1 200')) fast++;
    }
    assert.ok(fast >= 10, 'most of them are answered');
    const after = await counted(open.direct);
    assert.equal(after.direct - before.direct, asked.length, 'every one took the direct route');
    assert.equal((await counted(open.router)).direct, 0, 'the router-only server took none');
  });

  test('refusals on the way: host, oversize, bad JSON, nesting, a screened URI, a batch', async () => {
    const read = rpc('legacy', 3, 'resources/read', { uri: 'skill://alpha/SKILL.md' });
    const answers = [
      await both(open, (url) => requestText(url, { ...read.headers, host: 'evil.example' }, read.body)),
      await both(open, (url) => requestText(url, read.headers, 'x'.repeat(MAX_BODY + 1))),
      await both(open, (url) => {
        const chunk = 'y'.repeat(1000);
        const chunks = Array.from({ length: 6 }, () => `${(1000).toString(16)}\r\n${chunk}\r\n`).join('');
        return requestText(url, { ...read.headers, 'transfer-encoding': 'chunked' }, `${chunks}0\r\n\r\n`);
      }),
      await both(open, (url) => requestText(url, read.headers, '{"jsonrpc": "2.0", "id": 1,')),
      await both(open, (url) => requestText(url, read.headers, `${'['.repeat(20)}${']'.repeat(20)}`)),
      await both(open, (url) =>
        requestText(
          url,
          read.headers,
          JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: `skill://alpha/${'../'.repeat(3)}etc` } }),
        ),
      ),
      await both(open, (url) => requestText(url, read.headers, JSON.stringify([JSON.parse(read.body), JSON.parse(read.body)]))),
    ];
    assert.deepEqual(
      answers.slice(0, 5).map((answer) => answer.slice(9, 12)),
      ['403', '413', '413', '400', '400'],
    );
  });

  test('credentials: none, a bad one, the wrong scope, a good one', async () => {
    const read = rpc('modern', 5, 'resources/read', { uri: 'skill://beta/SKILL.md' });
    const good = await sign({ sub: 'alice', scope: 'read' });
    const statuses = [];
    for (const authorization of [
      undefined,
      'Basic abc',
      'Bearer not-a-token',
      `Bearer ${await sign({ sub: 'bob', scope: 'publish-ish' })}`,
      `Bearer ${good}`,
    ]) {
      const headers = authorization === undefined ? read.headers : { ...read.headers, authorization };
      statuses.push((await both(jwt, (url) => requestText(url, headers, read.body))).slice(9, 12));
    }
    assert.deepEqual(statuses, ['401', '401', '401', '403', '200']);
  });

  test('answers in progress: per principal, then per client address', async () => {
    const alice = await sign({ sub: 'alice', scope: 'read' });
    const bob = await sign({ sub: 'bob', scope: 'read' });
    const carol = await sign({ sub: 'carol', scope: 'read' });
    const held = await Promise.all([holding(jwt.direct.url, alice), holding(jwt.router.url, alice)]);
    try {
      const read = rpc('legacy', 6, 'resources/read', { uri: 'skill://beta/SKILL.md' }, { authorization: `Bearer ${alice}` });
      // The held request has taken alice's one slot once both servers refuse her a second.
      await eventually(async () => {
        const [a, b] = await Promise.all([
          exchange(jwt.direct.url, requestText(jwt.direct.url, read.headers, read.body)),
          exchange(jwt.router.url, requestText(jwt.router.url, read.headers, read.body)),
        ]);
        return a.startsWith('HTTP/1.1 429') && b.startsWith('HTTP/1.1 429') ? true : undefined;
      });
      assert.match(await both(jwt, (url) => requestText(url, read.headers, read.body)), /^HTTP\/1\.1 429[^]*--max-requests-per-principal/);
      held.push(...(await Promise.all([holding(jwt.direct.url, bob), holding(jwt.router.url, bob)])));
      const third = { ...read.headers, authorization: `Bearer ${carol}` };
      await eventually(async () => {
        const [a, b] = await Promise.all([
          exchange(jwt.direct.url, requestText(jwt.direct.url, third, read.body)),
          exchange(jwt.router.url, requestText(jwt.router.url, third, read.body)),
        ]);
        return a.startsWith('HTTP/1.1 429') && b.startsWith('HTTP/1.1 429') ? true : undefined;
      });
      assert.match(await both(jwt, (url) => requestText(url, third, read.body)), /^HTTP\/1\.1 429[^]*--max-requests-per-client/);
    } finally {
      for (const socket of held) socket.destroy();
    }
    // Slots are given back when the held requests end: alice is served again.
    const again = rpc('legacy', 7, 'resources/read', { uri: 'skill://beta/SKILL.md' }, { authorization: `Bearer ${alice}` });
    await eventually(async () =>
      (await exchange(jwt.direct.url, requestText(jwt.direct.url, again.headers, again.body))).startsWith('HTTP/1.1 200') ? true : undefined,
    );
    assert.match(await both(jwt, (url) => requestText(url, again.headers, again.body)), /^HTTP\/1\.1 200/);
  });
});
