import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { nodeListener } from '../src/http/router.js';
import type { HttpApp, HttpEnv } from '../src/http/routes.js';

/**
 * The middleware tests' harness: a Hono app on the router's environment behind a real node:http server on
 * 127.0.0.1, as the server mounts it (http/router.ts), so each middleware meets node's real request and response.
 */
export async function serveApp(build: (app: HttpApp) => void, before?: Parameters<typeof createServer>[1]) {
  const app = new Hono<HttpEnv>({ strict: false });
  build(app);
  const listener = nodeListener(app);
  const server = createServer((req, res) => {
    if (before) before(req, res);
    if (!res.headersSent && !res.writableEnded) void listener(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
