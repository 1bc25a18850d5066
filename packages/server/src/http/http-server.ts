import { createServer } from 'node:http';
import { declaredTooLarge, readBodyLimited } from './body.js';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { InMemoryServerEventBus, createMcpHandler, isJSONRPCNotification, isJSONRPCRequest, isJSONRPCResponse } from '@modelcontextprotocol/server';
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { AccessControl } from '../access/access-control.js';
import { hasScope, principalKey } from '../access/principal.js';
import type { Principal } from '../access/principal.js';
import type { Scoped } from '../mcp/scoped.js';
import { errorBody } from './errors.js';
import { allowedHostnames, checkRequest } from './guards.js';
import { forbidden, refused as authRefused } from './oauth.js';
import type { Answer } from './oauth.js';
import { createRouter, nodeListener } from './router.js';
import type { HttpRoutes, PublicRoutes, WebRoute } from './routes.js';

export type { WebRoute } from './routes.js';
import { answer, classify } from './fast-path.js';
import { screenRequest } from '../mcp/request-screen.js';
import type { JsonRpcErrorResponse } from '../mcp/uri-guard.js';
import { DEFAULT_REQUEST_LIMITS, clip, nestedDeeperThan } from './limits.js';
import type { RequestLimits } from './limits.js';
import { jsonLegacyHandler } from './legacy-json.js';
import type { FastPathContext } from './fast-path.js';
import type { McpFactory } from '../mcp/server-factory.js';
import type { Activity } from '../activity.js';
import { clientAddressing } from './client-address.js';
import type { TrustedProxies } from './client-address.js';
import { OpenCounts } from './open-counts.js';
import { WriteStalls } from './write-stalls.js';
import { listenLifetime } from './listen-lifetime.js';

export interface HttpOptions {
  host: string;
  port: number;
  /** Extra Host/Origin names to accept (a public hostname behind a proxy, say). */
  allowedHosts?: string[];
  /** Answer hot read-only methods without the SDK's per-request instance (ADR 0002). Default on. */
  fastPath?: boolean;
  /** Request limits (http/limits.ts); each one left out keeps its default. */
  limits?: Partial<RequestLimits>;
  /** Extra JSON for GET /healthz (left out when access is restricted: global figures are not for everyone). */
  health?: () => Record<string, unknown>;
  /**
   * GET /readyz: 200 when this server is ready to take traffic (a registry replica: caught up with its database),
   * 503 with the reason otherwise. Without it, ready once listening.
   */
  ready?: () => Promise<{ ready: boolean; reason?: string }>;
  /** On close, how long requests in flight may take to finish before their connections are cut (default 10 s). */
  drainMs?: number;
  /** Routes beside /mcp (a registry's /api/v1, a web catalog at /), mounted on the router (http/router.ts). */
  routes?: readonly HttpRoutes[];
  /** Routes answered before authentication, which check their callers themselves (the git webhook). */
  publicRoutes?: readonly PublicRoutes[];
  /** Pages for people (the web catalog) on paths outside /mcp, /metrics and /api/: asked before authentication. */
  web?: WebRoute;
  /** Proxies whose forwarding header names the client (http/client-address.ts); none by default. */
  trustedProxies?: TrustedProxies;
}

/** Identity on HTTP: who is asking (access), and what a principal is served through (scoped). */
export interface HttpAccess {
  access: AccessControl;
  scoped: (principal: Principal) => Scoped;
  /** Told of every request but health probes (background work waits for quiet: activity.ts). */
  activity?: Activity;
}

/** The SDK handler of one principal: its own change-event bus, so list_changed reaches only its streams. */
export interface PrincipalHandler {
  key: string;
  scoped: Scoped;
  handler: McpHttpHandler;
  bus: InMemoryServerEventBus;
  sdk: ReturnType<typeof toNodeHandler>;
  lastUsed: number;
}

export interface RunningHttpServer {
  url: string;
  server: Server;
  /** The SDK handlers in use, one per principal (for change notifications). */
  handlers(): PrincipalHandler[];
  /** Closes one principal's handler (its open streams end): after its token was revoked. */
  drop(key: string): Promise<void>;
  close(): Promise<void>;
}

const MCP_PATH = '/mcp';
/** Idle principal handlers (no open stream, unused this long) are closed once there are more than MAX_HANDLERS. */
const MAX_HANDLERS = 1000;
const IDLE_MS = 60_000;

export async function startHttpServer(
  factory: McpFactory,
  fast: Omit<FastPathContext, 'service'>,
  options: HttpOptions,
  identity: HttpAccess,
): Promise<RunningHttpServer> {
  const hostnames = allowedHostnames(options.host, options.allowedHosts);
  const limits: RequestLimits = { ...DEFAULT_REQUEST_LIMITS, ...options.limits };
  const maxBody = limits.maxBodyBytes;
  const { access } = identity;
  const addressing = clientAddressing(options.trustedProxies);
  const stalls = new WriteStalls(limits.writeTimeoutMs);
  const requestsPerClient = new OpenCounts(limits.maxRequestsPerClient);
  const requestsPerPrincipal = new OpenCounts(limits.maxRequestsPerPrincipal);
  const streamsPerClient = new OpenCounts(limits.maxStreamsPerClient);
  const streamsPerPrincipal = new OpenCounts(limits.maxStreamsPerPrincipal);
  /** Each request's client address and the request slot it holds (a listen stream trades it for a stream slot). */
  const slots = new WeakMap<IncomingMessage, { client: string; release: Array<() => void> }>();
  const handlers = new Map<string, PrincipalHandler>();
  const handlerFor = (principal: Principal): PrincipalHandler => {
    const key = principalKey(principal);
    let entry = handlers.get(key);
    if (entry === undefined) {
      if (handlers.size >= MAX_HANDLERS) sweep();
      const scoped = identity.scoped(principal);
      const bus = new InMemoryServerEventBus();
      // 2026-era requests through the SDK's handler (one JSON answer unless the exchange streams); 2025-era requests
      // through a stateless transport that answers a request whose answer is one message as application/json.
      const handler = createMcpHandler(() => factory.create(principal), { onerror: () => {}, maxRequestBodySize: maxBody, bus, legacy: 'reject' });
      const sdk = toNodeHandler(
        listenLifetime(
          jsonLegacyHandler(handler, () => factory.create(principal)),
          limits.streamLifetimeMs,
          fast.identity,
        ),
        {
          maxRequestBodySize: maxBody,
        },
      );
      entry = { key, scoped, handler, bus, sdk, lastUsed: Date.now() };
      handlers.set(key, entry);
    }
    entry.lastUsed = Date.now();
    return entry;
  };
  const sweep = () => {
    const now = Date.now();
    for (const [key, entry] of handlers) {
      if (entry.bus.listenerCount === 0 && now - entry.lastUsed > IDLE_MS) {
        handlers.delete(key);
        void entry.handler.close();
      }
    }
  };
  const fastPath = options.fastPath ?? true;
  const counters = { fastPath: 0, sdk: 0 };

  const router = nodeListener(
    createRouter({
      access,
      scoped: identity.scoped,
      health: () => ({ ...options.health?.(), requests: counters, writes: { queuedBytes: stalls.queuedBytes(), dropped: stalls.dropped } }),
      ready: async () => (closing ? { ready: false, reason: 'shutting down' } : ((await options.ready?.()) ?? { ready: true })),
      routes: options.routes ?? [],
      ...(options.publicRoutes ? { publicRoutes: options.publicRoutes } : {}),
      ...(options.web ? { web: options.web } : {}),
    }),
  );

  /**
   * Socket to bytes: Host/Origin checks for every request; anything but /mcp goes to the router; /mcp is
   * authenticated here, then answered by the fast path (ADR 0002) or the principal's SDK handler.
   */
  const onRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const [path = '/'] = (req.url ?? '/').split('?');
    const refused = checkRequest(req, hostnames);
    if (refused) {
      if (path.startsWith('/api/')) return sendJson(res, refused.status, errorBody(refused.code, refused.message));
      return sendJsonRpcError(res, refused.status, -32600, refused.message);
    }
    if (path !== MCP_PATH) return router(req, res);
    // A body too large for /mcp is refused on its Content-Length, before anything (authentication included) reads it.
    if (declaredTooLarge(req, maxBody)) {
      void readBodyLimited(req, maxBody); // discards what still comes, up to a cap
      return tooLarge(res, maxBody);
    }

    // Who is asking: the answer is for one principal.
    const auth = await access.authenticate(req);
    if (!('principal' in auth)) return sendAnswer(res, authRefused(access, req, auth));
    const principal = auth.principal;
    // An answer still open when the credential expires (a subscriptions/listen stream) is closed then, as a
    // revocation closes it: the client's next request meets the 401.
    if (principal.expiresAt !== undefined) closeAtExpiry(res, principal.expiresAt);
    if (!hasScope(principal, 'read')) return sendAnswer(res, forbidden(access, req, 'read'));
    const slot = slots.get(req);
    const identified = principal.via === 'token' || principal.via === 'jwt';
    if (identified) {
      const release = requestsPerPrincipal.take(principalKey(principal));
      if (release === undefined)
        return tooMany(
          res,
          `Too many requests in progress for this credential: at most ${limits.maxRequestsPerPrincipal} at a time (--max-requests-per-principal)`,
        );
      slot?.release.push(release);
      res.once('close', release);
    }
    const entry = handlerFor(principal);
    const { sdk } = entry;
    const started = process.hrtime.bigint();
    let method: string | undefined;
    res.once('finish', () => access.metrics.observe(method, Number(process.hrtime.bigint() - started) / 1e9));
    if (req.method !== 'POST' || !isJson(req)) {
      counters.sdk++;
      access.metrics.answered('sdk');
      return void (await sdk(req, res));
    }
    let body: unknown;
    const raw = (await readBodyLimited(req, maxBody))?.toString('utf8');
    if (raw === undefined) return tooLarge(res, maxBody);
    if (nestedDeeperThan(raw, limits.maxJsonDepth)) {
      access.metrics.error('bad_request');
      return sendJsonRpcError(
        res,
        400,
        -32600,
        `Invalid Request: the body nests arrays and objects deeper than ${limits.maxJsonDepth} levels (--max-json-depth)`,
      );
    }
    try {
      body = JSON.parse(raw);
    } catch {
      access.metrics.error('bad_request');
      return sendJsonRpcError(res, 400, -32700, 'Parse error: the request body is not valid JSON');
    }
    if (body !== null && typeof body === 'object' && !Array.isArray(body) && typeof (body as { method?: unknown }).method === 'string')
      method = (body as { method: string }).method;
    if (Array.isArray(body) && body.length > limits.maxBatch) {
      access.metrics.error('bad_request');
      return sendJsonRpcError(
        res,
        400,
        -32600,
        `Invalid Request: a batch of ${body.length} messages; this server takes at most ${limits.maxBatch} (--max-batch)`,
      );
    }
    if (method === 'subscriptions/listen') {
      // A stream holds a stream slot, not a request slot: it is counted per principal and per client address.
      for (const release of slot?.release.splice(0) ?? []) release();
      const refusedStream = takeStream(res, slot?.client ?? '', identified ? principalKey(principal) : undefined);
      if (refusedStream) return tooMany(res, refusedStream, (body as { id?: unknown }).id);
    }
    const screened = screen(body, limits);
    if (screened) {
      access.metrics.error('bad_request');
      return sendJson(res, screened.status, screened.response);
    }
    const hot = classify(req, body);
    if (fastPath && hot && (await answer({ ...fast, service: entry.scoped.service }, hot, res))) {
      counters.fastPath++;
      access.metrics.answered('fast');
      return;
    }
    counters.sdk++;
    access.metrics.answered('sdk');
    await sdk(req, res, body);
  };

  // Requests being answered (not open event streams, which only end when their handler closes): a shutdown lets
  // them finish, within drainMs.
  let closing = false;
  let inFlight = 0;
  let drained: (() => void) | undefined;
  /** Takes the stream slots of a listen request, released when its answer closes; or says which limit refused it. */
  const takeStream = (res: ServerResponse, client: string, principal: string | undefined): string | undefined => {
    const forClient = streamsPerClient.take(client);
    if (forClient === undefined)
      return `Too many open subscriptions/listen streams from ${client}: at most ${limits.maxStreamsPerClient} (--max-streams-per-client)`;
    const forPrincipal = principal === undefined ? () => {} : streamsPerPrincipal.take(principal);
    if (forPrincipal === undefined) {
      forClient();
      return `Too many open subscriptions/listen streams for this credential: at most ${limits.maxStreamsPerPrincipal} (--max-streams-per-principal)`;
    }
    res.once('close', () => {
      forClient();
      forPrincipal();
    });
    return undefined;
  };

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '').split('?')[0];
    const client = addressing.clientAddress(req);
    const release = requestsPerClient.take(client);
    if (release === undefined) {
      const message = `Too many requests in progress from ${client}: at most ${limits.maxRequestsPerClient} at a time (--max-requests-per-client)`;
      if (path?.startsWith('/api/')) sendJson(res, 429, errorBody('too_many_requests', message), { 'retry-after': '1' });
      else tooMany(res, message);
      return;
    }
    slots.set(req, { client, release: [release] });
    res.once('close', release);
    const counted = !(req.method === 'GET' && path === MCP_PATH);
    if (counted) {
      inFlight++;
      const ended = path === '/healthz' || path === '/readyz' ? undefined : identity.activity?.begin();
      res.once('close', () => {
        ended?.();
        if (--inFlight === 0) drained?.();
      });
    }
    if (closing) res.setHeader('connection', 'close');
    onRequest(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJsonRpcError(res, 500, -32603, 'Internal error');
      else res.destroy(error instanceof Error ? error : undefined);
    });
  };
  const server = createServer(
    {
      maxHeaderSize: limits.maxHeaderBytes,
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // Timeouts are enforced on this tick (node's default is 30 s, which would let a slow client overstay).
      connectionsCheckingInterval: Math.max(100, Math.min(1000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4))),
    },
    handle,
  );
  // `Expect: 100-continue` with a body too large for /mcp: refused before the client sends it.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if ((req.url ?? '').split('?')[0] === MCP_PATH && declaredTooLarge(req, maxBody)) {
      void readBodyLimited(req, maxBody);
      return tooLarge(res, maxBody);
    }
    res.writeContinue();
    handle(req, res);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => answerClientError(error, socket, limits));
  // Open connections per client address: past the limit, a new connection gets a 429 and is closed.
  const perClient = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    stalls.watch(socket);
    const address = socket.remoteAddress ?? '';
    // A trusted proxy carries many clients' requests: they are counted per forwarded address, per request.
    if (addressing.trustsPeer(address)) return;
    const open = (perClient.get(address) ?? 0) + 1;
    perClient.set(address, open);
    socket.once('close', () => {
      const left = (perClient.get(address) ?? 1) - 1;
      if (left <= 0) perClient.delete(address);
      else perClient.set(address, left);
    });
    if (open > limits.maxConnectionsPerClient) {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        error: {
          code: -32600,
          message: `Too many connections from ${address}: at most ${limits.maxConnectionsPerClient} at a time (--max-connections-per-client)`,
        },
        id: null,
      });
      socket.end(
        `HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      socket.destroySoon();
    }
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
    handlers: () => [...handlers.values()],
    async drop(key) {
      const entry = handlers.get(key);
      if (entry === undefined) return;
      handlers.delete(key);
      await entry.handler.close();
    },
    async close() {
      // Stop accepting, let what is in flight finish (bounded), then end streams and connections.
      closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, options.drainMs ?? 10_000);
          timer.unref();
          drained = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      await Promise.all([...handlers.values()].map((entry) => entry.handler.close()));
      handlers.clear();
      stalls.stop();
      server.closeAllConnections();
      await stopped;
    },
  };
}

function isJson(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  return typeof type === 'string' && type.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

function sendAnswer(res: ServerResponse, answer: Answer): void {
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}

/** The request checks every message passes before the fast path or the SDK: each message of a batch on its own. */
function screen(body: unknown, limits: RequestLimits): { status: number; response: JsonRpcErrorResponse | JsonRpcErrorResponse[] } | undefined {
  if (!Array.isArray(body)) return screenRequest(body, limits);
  // A batch holding something that is no JSON-RPC message at all is refused whole, by the SDK (-32600).
  if (!body.every((item) => isJSONRPCRequest(item) || isJSONRPCNotification(item) || isJSONRPCResponse(item))) return undefined;
  const reused = reusedIds(body);
  const screened = body.map((item) => {
    const id = isJSONRPCRequest(item) ? item.id : undefined;
    if (id === undefined || !reused.has(id)) return screenRequest(item, limits);
    // Two requests of one batch with the same id cannot both be answered (their answers are told apart by id: the
    // SDK would answer one of them only), and MCP forbids reusing an id: both are refused.
    const message = `Invalid Request: the id ${clip(JSON.stringify(id), 100)} is used by another request of this batch; give each request an id of its own`;
    return { status: 400 as const, response: { jsonrpc: '2.0' as const, id, error: { code: -32600, message } } };
  });
  if (screened.every((item) => item === undefined)) return undefined;
  // One refused message refuses the batch: the others are answered with an error too, so none reaches the SDK.
  const status = screened.some((item) => item?.status === 400) ? 400 : 200;
  return {
    status,
    response: body.flatMap((item, at): JsonRpcErrorResponse[] => {
      if (screened[at]) return [screened[at]!.response];
      const id = (item as { id?: unknown } | null)?.id;
      if (typeof id !== 'string' && typeof id !== 'number') return [];
      return [
        { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid Request: another request of this batch was refused; send the batch again without it' } },
      ];
    }),
  };
}

/** The ids more than one request of a batch carries (1 and "1" are different ids). */
function reusedIds(batch: unknown[]): Set<string | number> {
  const seen = new Set<string | number>();
  const reused = new Set<string | number>();
  for (const item of batch) {
    if (!isJSONRPCRequest(item)) continue;
    if (seen.has(item.id)) reused.add(item.id);
    seen.add(item.id);
  }
  return reused;
}

function closeAtExpiry(res: ServerResponse, expiresAt: number): void {
  // setTimeout holds at most 2^31-1 ms (~24.8 days); a credential valid longer re-arms.
  const arm = (): void => {
    const timer = setTimeout(
      () => {
        if (Date.now() < expiresAt) return arm();
        if (!res.writableEnded) res.destroy();
      },
      Math.min(Math.max(0, expiresAt - Date.now()), 2 ** 31 - 1),
    );
    timer.unref();
    res.once('close', () => clearTimeout(timer));
  };
  arm();
}

function tooLarge(res: ServerResponse, limit: number): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message: `Request body larger than ${limit} bytes (--max-body)` }, id: null });
  // Answered before the body is read (body.ts drops what still comes, and cuts a client that goes on too long).
  res.writeHead(413, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Errors node's HTTP parser raises before a request exists: one JSON line with a 4xx, then the connection closes. */
/** Sockets already answered by answerClientError: node's parser reports every later chunk as another error. */
const answeredClientErrors = new WeakSet<Socket>();

function answerClientError(error: NodeJS.ErrnoException, socket: Socket, limits: RequestLimits): void {
  if (answeredClientErrors.has(socket)) return; // being drained (below); destroying now would reset the answer away
  if (!socket.writable || (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, text, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', `Request headers larger than ${limits.maxHeaderBytes} bytes (--max-header-size)`]
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [
            408,
            'Request Timeout',
            `Request not received in time: headers within ${limits.headersTimeoutMs} ms, the whole request within ${limits.requestTimeoutMs} ms (--headers-timeout, --request-timeout)`,
          ]
        : [400, 'Bad Request', `Bad Request: malformed HTTP (${error.code ?? 'parse error'})`];
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message }, id: null });
  answeredClientErrors.add(socket);
  socket.end(`HTTP/1.1 ${status} ${text}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`);
  // A client still sending (a 1 MiB header) would get a reset instead of the answer if the socket closed with its
  // bytes unread: read and drop them for a while, up to twice the body limit, then cut.
  let discarded = 0;
  const cut = setTimeout(() => socket.destroy(), 5000);
  cut.unref();
  socket.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > 2 * limits.maxBodyBytes) socket.destroy();
  });
  socket.once('close', () => clearTimeout(cut));
  socket.resume();
}

function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** 429 with one line naming the limit; the JSON-RPC id when the request had one. */
function tooMany(res: ServerResponse, message: string, id: unknown = null): void {
  const rpcId = typeof id === 'string' || typeof id === 'number' ? id : null;
  sendJson(res, 429, { jsonrpc: '2.0', error: { code: -32600, message }, id: rpcId }, { 'retry-after': '1' });
}
