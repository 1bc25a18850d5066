import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import { allowedHostnames, allowedOrigins } from '../src/http/guards.js';
import { hostGuard } from '../src/http/middleware/host-guard.js';
import { serveApp } from './middleware-harness.js';

/** http/middleware/host-guard.ts: before the router, a foreign Host or Origin is a 403 in the path's error shape. */

function get(url: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { headers }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('a foreign Host, a Host with userinfo, or a foreign Origin is refused before any route', async () => {
  const guard = hostGuard(allowedHostnames('127.0.0.1'));
  const served = await serveApp(
    (app) => app.all('*', (c) => c.text('served')),
    (req, res) => void guard(req, res),
  );
  try {
    const host = new URL(served.url).host;
    assert.equal((await get(served.url, '/mcp', { host })).body, 'served');
    const rebinding = await get(served.url, '/mcp', { host: 'evil.example' });
    assert.equal(rebinding.status, 403);
    assert.equal(JSON.parse(rebinding.body).jsonrpc, '2.0');
    const userinfo = await get(served.url, '/mcp', { host: '127.0.0.1:80@evil.example' });
    assert.equal(userinfo.status, 403);
    const api = await get(served.url, '/api/v1/me', { host, origin: 'https://evil.example' });
    assert.equal(api.status, 403);
    assert.ok(JSON.parse(api.body).error.code);
  } finally {
    await served.close();
  }
});

test("a browser Origin must be this server's own (host and port) or listed; none at all passes", async () => {
  const guard = hostGuard(allowedHostnames('127.0.0.1'), allowedOrigins(['http://localhost:6274']));
  const served = await serveApp(
    (app) => app.all('*', (c) => c.text('served')),
    (req, res) => void guard(req, res),
  );
  try {
    const host = new URL(served.url).host;
    const port = Number(new URL(served.url).port);
    for (const origin of [undefined, `http://${host}`, `https://${host}`, 'http://localhost:6274']) {
      const answer = await get(served.url, '/mcp', { host, ...(origin !== undefined ? { origin } : {}) });
      assert.equal(answer.body, 'served', `Origin ${origin}`);
    }
    // Behind a TLS proxy the Host names no port and the Origin none either: the same site.
    assert.equal((await get(served.url, '/', { host: 'localhost', origin: 'https://localhost' })).body, 'served');
    for (const origin of [`http://127.0.0.1:${port + 1}`, `http://localhost:${port}`, 'http://127.0.0.1', 'http://localhost:6275', 'null', 'file://']) {
      const mcp = await get(served.url, '/mcp', { host, origin });
      assert.equal(mcp.status, 403, `/mcp, Origin ${origin}`);
      const api = await get(served.url, '/api/v1/me', { host, origin });
      assert.equal(api.status, 403, `/api, Origin ${origin}`);
    }
    assert.match(JSON.parse((await get(served.url, '/mcp', { host, origin: `http://127.0.0.1:${port + 1}` })).body).error.message, /--allowed-origin/);
  } finally {
    await served.close();
  }
});

test('--allowed-origin takes origins only', () => {
  assert.deepEqual([...allowedOrigins(['HTTP://LocalHost:6274', 'https://app.example.com:443'])], ['http://localhost:6274', 'https://app.example.com']);
  for (const bad of ['localhost:6274', 'http://x/y', 'ftp://x', 'http://x?q', 'null', '*']) assert.throws(() => allowedOrigins([bad]), /is not an origin/);
});
