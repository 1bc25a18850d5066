import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { EXAMPLES, eventually, sdkShaped } from '@skillport/test-kit';
import { SkillportServer } from '../src/app.js';

/**
 * An open `subscriptions/listen` stream (every 2026-era client holds one) is not a request being answered: it does
 * not keep the server busy for the work that waits for quiet (the search index's build, save and compaction:
 * activity.ts), nor does a shutdown wait its drain time for it. A real server over HTTP, a real stream.
 */

const servers: SkillportServer[] = [];
after(async () => {
  for (const server of servers) await server.close();
});

test('an open listen stream leaves the server quiet, and its shutdown does not wait for it to drain', async () => {
  const server = await SkillportServer.open({ dirs: [EXAMPLES], cacheDir: false, scanThreads: 0 });
  servers.push(server);
  // A drain time no test outlives: a shutdown that waited for the stream would not end.
  const http = await server.serveHttp({ host: '127.0.0.1', port: 0, drainMs: 3_600_000 });
  const { headers, params } = sdkShaped('modern', 'subscriptions/listen', { notifications: { resourcesListChanged: true } });
  const abort = new AbortController();
  const response = await fetch(http.url, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params }),
    signal: abort.signal,
  });
  try {
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    // The stream is open (its first event read); the server is quiet from then on.
    const reader = response.body!.getReader();
    await reader.read();
    await eventually(async () => (server.activity.idleFor() > 50 ? true : undefined), 10_000, 'quiet while the stream is open');
    // Not waited for as a request still being answered would be: the stream is ended with its handler.
    await http.close();
  } finally {
    abort.abort();
  }
});
