import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { EXAMPLES, createToken, eventually, startHttp, tempFolder } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

/**
 * `subscriptions/listen` streams (docs/security.md, "Streams"), through the SDK's real MCP client over Streamable
 * HTTP: capped per principal and per client address, where the address behind a trusted proxy is the one the proxy
 * forwards (so one user holding streams does not lock the proxy's other users out), and ended after an idle
 * lifetime with the SDK's graceful close.
 */

/** A 2026-era client as a user behind the proxy: its token, and the address the proxy says it came from. */
async function user(url: string, token: string, forwardedFor: string): Promise<Client> {
  const client = new Client({ name: 'streams-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  const headers = { authorization: `Bearer ${token}`, 'x-forwarded-for': forwardedFor };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

const FILTER = { resourcesListChanged: true };

describe('stream caps behind a trusted proxy', () => {
  let server: RunningServer;
  const tokens: Record<string, string> = {};
  const clients: Client[] = [];
  before(async () => {
    const data = tempFolder('streams');
    for (const name of ['alice', 'bob', 'carol']) tokens[name] = await createToken(data, ['--user', name]);
    server = await startHttp([
      EXAMPLES,
      '--no-watch',
      '--auth',
      'tokens',
      '--data',
      data,
      '--trusted-proxy',
      '127.0.0.1',
      '--max-connections-per-client',
      '3',
      '--max-streams-per-principal',
      '2',
      '--max-streams-per-client',
      '3',
    ]);
  });
  after(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await server?.stop();
  });

  test('one principal past its cap is refused; others on the same proxy, and at the same address, are served', async () => {
    const alice = await user(server.url, tokens['alice']!, '10.0.0.1');
    const carol = await user(server.url, tokens['carol']!, '10.0.0.1');
    const bob = await user(server.url, tokens['bob']!, '10.0.0.2');
    clients.push(alice, carol, bob);
    await alice.listen(FILTER);
    await alice.listen(FILTER);
    await assert.rejects(alice.listen(FILTER), /at most 2 \(--max-streams-per-principal\)/);
    // carol shares alice's address: the address holds 2 streams of its 3.
    await carol.listen(FILTER);
    await assert.rejects(carol.listen(FILTER), /at most 3 \(--max-streams-per-client\)/);
    // bob is another user of the same proxy: more connections from 127.0.0.1 than --max-connections-per-client,
    // yet he listens and reads.
    await bob.listen(FILTER);
    await bob.listen(FILTER);
    const listed = await bob.listResources();
    assert.ok(listed.resources.length > 0);
    // alice's requests that are not streams are still answered.
    assert.ok((await alice.listResources()).resources.length > 0);
  });

  test('a closed stream gives its slot back', async () => {
    const alice = await user(server.url, tokens['alice']!, '10.0.0.3');
    clients.push(alice);
    // alice holds 2 streams from the first test (at 10.0.0.1): at her cap.
    await assert.rejects(alice.listen(FILTER), /--max-streams-per-principal/);
    await clients[0]!.close(); // the first test's alice: her two streams end
    await eventually(
      async () => {
        await alice.listen(FILTER);
        return true;
      },
      10_000,
      'a stream slot given back',
    );
  });
});

describe('forwarding headers from a peer that is not a trusted proxy', () => {
  let server: RunningServer;
  let token: string;
  before(async () => {
    const data = tempFolder('streams-untrusted');
    token = await createToken(data, ['--user', 'mallory']);
    server = await startHttp([
      EXAMPLES,
      '--no-watch',
      '--auth',
      'tokens',
      '--data',
      data,
      '--max-streams-per-client',
      '1',
      '--max-streams-per-principal',
      '10',
    ]);
  });
  after(async () => {
    await server?.stop();
  });

  test('are ignored: every stream counts against the peer address', async () => {
    const first = await user(server.url, token, '10.0.0.1');
    const second = await user(server.url, token, '10.0.0.2');
    try {
      await first.listen(FILTER);
      await assert.rejects(second.listen(FILTER), /from 127\.0\.0\.1: at most 1 \(--max-streams-per-client\)/);
    } finally {
      await first.close();
      await second.close();
    }
  });
});

describe('--stream-lifetime', () => {
  let server: RunningServer;
  before(async () => {
    server = await startHttp([EXAMPLES, '--no-watch', '--stream-lifetime', '1500']);
  });
  after(async () => {
    await server?.stop();
  });

  test('an idle stream is ended with the SDK graceful close, and the client may listen again', async () => {
    const client = new Client({ name: 'streams-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    try {
      const subscription = await client.listen(FILTER);
      const cause = await Promise.race([subscription.closed, new Promise((resolve) => setTimeout(() => resolve('still open after 20 s'), 20_000))]);
      assert.equal(cause, 'graceful');
      const again = await client.listen(FILTER);
      await again.close();
    } finally {
      await client.close();
    }
  });
});
