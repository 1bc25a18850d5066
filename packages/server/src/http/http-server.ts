import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { checkRequest, hostPolicy } from './guards.js';
import { answer, classify } from './fast-path.js';
import { refusal } from '../mcp/uri-guard.js';
import type { FastPathContext } from './fast-path.js';
import type { McpFactory } from '../mcp/server-factory.js';

export interface HttpOptions {
  host: string;
  port: number;
  /** Extra Host/Origin names to accept (a public hostname behind a proxy, say). */
  allowedHosts?: string[];
  /** Answer hot read-only methods without the SDK's per-request instance (ADR 0002). Default on. */
  fastPath?: boolean;
  maxBodyBytes?: number;
  /** Extra JSON for GET /healthz. */
  health?: () => Record<string, unknown>;
  /** Extra HTTP routes beside /mcp (a registry's /api/v1), each owning a path prefix; Host/Origin are checked first. */
  routes?: readonly HttpRoute[];
}

/**
 * A group of HTTP routes mounted beside MCP: every request whose path starts with `prefix` goes to `handle`, after
 * the same Host and Origin checks as /mcp. The handler answers the request itself (it owns its body and errors).
 */
export interface HttpRoute {
  /** Path prefix, e.g. `/api/v1/`. */
  prefix: string;
  handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<void>;
}

export interface RunningHttpServer {
  url: string;
  server: Server;
  handler: McpHttpHandler;
  close(): Promise<void>;
}

const MCP_PATH = '/mcp';

export async function startHttpServer(factory: McpFactory, fast: FastPathContext, options: HttpOptions): Promise<RunningHttpServer> {
  const policy = hostPolicy(options.host, options.allowedHosts);
  const maxBody = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const handler = createMcpHandler(() => factory.create(), { onerror: () => {}, maxRequestBodySize: maxBody });
  const sdk = toNodeHandler(handler, { maxRequestBodySize: maxBody });
  const fastPath = options.fastPath ?? true;
  const counters = { fastPath: 0, sdk: 0 };

  const onRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const refused = checkRequest(req, policy);
    if (refused) return sendJsonRpcError(res, refused.status, -32600, refused.message);
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/healthz' && req.method === 'GET') {
      const body = JSON.stringify({ status: 'ok', ...options.health?.(), requests: counters });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
      return;
    }
    const route = options.routes?.find((candidate) => path.startsWith(candidate.prefix) || path === candidate.prefix.replace(/\/$/, ''));
    if (route !== undefined) return route.handle(req, res, path);
    if (path !== MCP_PATH) return sendJsonRpcError(res, 404, -32600, `Not found: MCP is served at ${MCP_PATH}`);
    if (req.method !== 'POST' || !isJson(req)) {
      counters.sdk++;
      return void (await sdk(req, res));
    }
    let body: unknown;
    try {
      const raw = await readBody(req, maxBody);
      if (raw === undefined) return sendJsonRpcError(res, 413, -32600, `Request body larger than ${maxBody} bytes`);
      body = JSON.parse(raw);
    } catch {
      return sendJsonRpcError(res, 400, -32700, 'Parse error: the request body is not valid JSON');
    }
    const refusedUri = refusal(body);
    if (refusedUri) return sendJson(res, 200, refusedUri);
    const hot = classify(req, body);
    if (fastPath && hot && (await answer(fast, hot, res))) {
      counters.fastPath++;
      return;
    }
    counters.sdk++;
    await sdk(req, res, body);
  };

  const server = createServer((req, res) => {
    onRequest(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJsonRpcError(res, 500, -32603, 'Internal error');
      else res.destroy(error instanceof Error ? error : undefined);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${hostForUrl}:${address.port}${MCP_PATH}`,
    server,
    handler,
    async close() {
      await handler.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function isJson(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  return typeof type === 'string' && type.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) over = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(over ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
