import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import { allowedHostnames } from '../src/http/guards.js';
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
