import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { EXAMPLES, connectHttp, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

// A real embeddings endpoint (node:http, OpenAI-compatible) with deterministic vectors: `zorblax` means what
// `postgres` and `sql` mean, so only the embeddings can find the SQL skill for it.
const CONCEPTS = [
  ['zorblax', 'postgres', 'sql'],
  ['outage', 'incident'],
  ['commit', 'git'],
];
const vector = (text: string) => CONCEPTS.map((concept) => (text.toLowerCase().match(/[a-z]+/g) ?? []).filter((word) => concept.includes(word)).length + 0.01);

function endpoint(status: number): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const { input } = JSON.parse(body) as { input: string[] };
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(status === 200 ? { data: input.map((text, index) => ({ index, embedding: vector(text) })) } : { error: 'down' }));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` })),
  );
}

type Found = { skills: Array<{ name: string; reason: string }> };
async function search(client: Client, query: string): Promise<Found> {
  return (await client.callTool({ name: 'list_skills', arguments: { query } })).structuredContent as Found;
}

describe('list_skills with --embeddings', () => {
  let up: { server: Server; url: string };
  let down: { server: Server; url: string };
  let hybrid: RunningServer;
  let fallback: RunningServer;
  before(async () => {
    [up, down] = await Promise.all([endpoint(200), endpoint(500)]);
    [hybrid, fallback] = await Promise.all([
      startHttp([EXAMPLES, '--catalog-max', '1', '--embeddings', up.url, '--embeddings-model', 'fake']),
      startHttp([EXAMPLES, '--catalog-max', '1', '--embeddings', down.url, '--embeddings-model', 'fake']),
    ]);
  });
  after(async () => {
    await Promise.all([hybrid.stop(), fallback.stop()]);
    up.server.close();
    down.server.close();
  });

  test('a skill close in meaning is found without a shared word, and says so', async () => {
    const client = await connectHttp(hybrid.url, 'modern');
    const found = await search(client, 'zorblax');
    assert.equal(found.skills[0]?.name, 'sql-query-optimization');
    assert.equal(found.skills[0]?.reason, 'close in meaning (embeddings) only');
    // Both rankings agree: the lexical reason is kept.
    const both = await search(client, 'postgres query');
    assert.equal(both.skills[0]?.name, 'sql-query-optimization');
    assert.match(both.skills[0]!.reason, /^postgres in .*; close in meaning$/);
    await client.close();
  });

  test('an endpoint that fails leaves lexical search working', async () => {
    const client = await connectHttp(fallback.url, 'modern');
    assert.deepEqual((await search(client, 'zorblax')).skills, []);
    const found = await search(client, 'postgres query');
    assert.equal(found.skills[0]?.name, 'sql-query-optimization');
    assert.doesNotMatch(found.skills[0]!.reason, /meaning/);
    await client.close();
  });

  test('--embeddings refuses what is not a URL', async () => {
    await assert.rejects(startHttp([EXAMPLES, '--embeddings', 'not a url']), /--embeddings needs a URL/);
  });
});
