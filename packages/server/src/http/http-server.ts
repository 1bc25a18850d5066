import { createServer } from 'node:http';
import { declaredTooLarge, readBodyLimited } from './body.js';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { InMemoryServerEventBus, createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import type { AccessControl } from '../access/access-control.js';
import { principalKey } from '../access/principal.js';
import type { Principal } from '../access/principal.js';
import type { Scoped } from '../mcp/scoped.js';
import { allowedHostnames, allowedOrigins } from './guards.js';
import { createRouter, nodeListener, postMcpIsPlain } from './router.js';
import { directMcp } from './direct-route.js';
import type { HttpRoutes, PublicRoutes, WebRoute } from './routes.js';

export type { WebRoute } from './routes.js';
import { DEFAULT_REQUEST_LIMITS } from './limits.js';
import type { RequestLimits } from './limits.js';
import { jsonLegacyHandler } from './legacy-json.js';
import { PAGE_CACHE_MB, batchRead } from './fast-path.js';
import { PageCache } from './page-cache.js';
import type { FastPathContext } from './fast-path.js';
import type { McpFactory } from '../mcp/server-factory.js';
import type { Activity } from '../activity.js';
import { clientAddressing } from './client-address.js';
import type { TrustedProxies } from './client-address.js';
import { OpenCounts } from './open-counts.js';
import { WriteStalls } from './write-stalls.js';
import { listenLifetime } from './listen-lifetime.js';
import { mountMcp } from './mcp-route.js';
import type { EarlyCatalog, McpRouteOptions, PrincipalHandler } from './mcp-route.js';
import { hostGuard } from './middleware/host-guard.js';
import { sendTransportRefusal, tooLarge, transportRefusal } from './replies.js';

export interface HttpOptions {
  host: string;
  port: number;
  /** Extra Host/Origin names to accept (a public hostname behind a proxy, say). */
  allowedHosts?: string[];
  /** Browser origins besides this server's own whose requests are served (a browser MCP client's page): `--allowed-origin`. */
  allowedOrigins?: string[];
  /** Answer hot read-only methods without the SDK's per-request instance (ADR 0002). Default on. */
  fastPath?: boolean;
  /** A POST of JSON to /mcp takes the direct route (http/direct-route.ts) past the router's adapter. Default on. */
  directRoute?: boolean;
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
  /** Set while only the first `skills/list` page can be answered (a cold start's early page, ADR 0276). */
  early?: EarlyCatalog;
}

/** Identity on HTTP: who is asking (access), and what a principal is served through (scoped). */
export interface HttpAccess {
  access: AccessControl;
  scoped: (principal: Principal) => Scoped;
  /** Told of every request but health probes (background work waits for quiet: activity.ts). */
  activity?: Activity;
}

export type { EarlyCatalog, PrincipalHandler } from './mcp-route.js';

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
  settings: Omit<FastPathContext, 'service' | 'pages'> & { pageCacheMb?: number | undefined },
  options: HttpOptions,
  identity: HttpAccess,
): Promise<RunningHttpServer> {
  const { pageCacheMb, ...context } = settings;
  const fast: Omit<FastPathContext, 'service'> = { ...context, pages: new PageCache(Math.max(0, pageCacheMb ?? PAGE_CACHE_MB) * 1024 * 1024) };
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
          jsonLegacyHandler(
            handler,
            () => factory.create(principal),
            (message) => batchRead(scoped.service, message),
          ),
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
  const counters = { fastPath: 0, sdk: 0, direct: 0 };

  // Requests being answered (not open event streams, which only end when their handler closes): a shutdown lets
  // them finish, within drainMs; background work waits for none of them (activity.ts).
  let closing = false;
  let inFlight = 0;
  let drained: (() => void) | undefined;
  // Event streams under way: each stopped counting as a request in flight when it started. Only streams are added.
  const streams = new WeakSet<ServerResponse>();
  const streamStarted = (res: ServerResponse): void => {
    streams.add(res);
    identity.activity?.end();
    if (--inFlight === 0) drained?.();
  };
  const guardHost = hostGuard(hostnames, allowedOrigins(options.allowedOrigins));
  const mcpOptions: McpRouteOptions = {
    access,
    limits,
    fast,
    fastPath,
    handlerFor,
    counters,
    streamsPerClient,
    streamsPerPrincipal,
    ...(options.early ? { early: options.early } : {}),
    streamStarted,
  };
  const app = createRouter({
    access,
    scoped: identity.scoped,
    health: () => ({ ...options.health?.(), requests: counters, writes: { queuedBytes: stalls.queuedBytes(), dropped: stalls.dropped } }),
    ready: async () => (closing ? { ready: false, reason: 'shutting down' } : ((await options.ready?.()) ?? { ready: true })),
    routes: options.routes ?? [],
    ...(options.publicRoutes ? { publicRoutes: options.publicRoutes } : {}),
    ...(options.web ? { web: options.web } : {}),
    addressing,
    requestsPerClient,
    requestsPerPrincipal,
    mcp: (mounted, shared) => mountMcp(mounted, mcpOptions, shared),
  });
  const router = nodeListener(app);
  const direct =
    (options.directRoute ?? true)
      ? directMcp({ ...mcpOptions, addressing, requestsPerClient, requestsPerPrincipal, routerIsPlain: () => postMcpIsPlain(app) })
      : undefined;

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const path = (req.url ?? '').split('?')[0];
    inFlight++;
    const ended = path === '/healthz' || path === '/readyz' ? undefined : identity.activity?.begin();
    res.once('close', () => {
      if (streams.has(res)) return; // counted out when it started (streamStarted)
      ended?.();
      if (--inFlight === 0) drained?.();
    });
    if (closing) res.setHeader('connection', 'close');
    if (!guardHost(req, res)) return;
    // Before the whole catalog is in, only /mcp (which decides per request) and the probes (readyz says why not) go on.
    const early = options.early;
    if (early?.pending() && path !== MCP_PATH && path !== '/healthz' && path !== '/readyz') {
      void early.complete.then((whole) => {
        if (!whole) return sendTransportRefusal(res, path, 503, -32603, 'unavailable', 'the skill folders could not be read; the server is stopping');
        router(req, res).catch(() => res.destroy());
      });
      return;
    }
    if (direct?.(req, res) !== undefined) return;
    router(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendTransportRefusal(res, path, 500, -32603, 'internal', 'Internal error');
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
  // A client may send its request and half-close at once: node would end the socket on the FIN and lose an answer
  // still being made (a file read from disk). Half-open, the requests already sent are answered and the connection
  // closes after the last of them (an event stream ends at the FIN: half-close.ts); the caps and the write timeout
  // still hold those sockets.
  (server as Server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
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

/** Errors node's HTTP parser raises before a request exists: one JSON line with a 4xx, then the connection closes. */
/** Sockets already answered by answerClientError: node's parser reports every later chunk as another error. */
const answeredClientErrors = new WeakSet<Socket>();

/**
 * The path of the request a parse error is about, so that the answer takes that path's shape: a request still being
 * read (its headers were parsed), else the last request line in the bytes the parser failed on (a 431 comes before
 * node has a request). Undefined when neither names one (a request line sent apart from its oversized headers).
 */
function refusedPath(error: NodeJS.ErrnoException, socket: Socket): string | undefined {
  const incoming = (socket as Socket & { parser?: { incoming?: IncomingMessage | null } }).parser?.incoming;
  // A completed request is the one before (a pipelined request may fail after it): not the one refused.
  if (incoming != null && !incoming.complete) return (incoming.url ?? '').split('?')[0];
  const raw = (error as { rawPacket?: unknown }).rawPacket;
  if (!Buffer.isBuffer(raw)) return undefined;
  const parsed = (error as { bytesParsed?: unknown }).bytesParsed;
  const text = raw.subarray(0, typeof parsed === 'number' ? parsed : raw.length).toString('latin1');
  let path: string | undefined;
  for (const line of text.matchAll(/(?:^|\n)[A-Z]+ (\S+) HTTP\/\d\.\d\r?\n/g)) path = line[1]!.split('?')[0];
  return path;
}

function answerClientError(error: NodeJS.ErrnoException, socket: Socket, limits: RequestLimits): void {
  if (answeredClientErrors.has(socket)) return; // being drained (below); destroying now would reset the answer away
  if (!socket.writable || (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, text, restCode, message] =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'headers_too_large', `Request headers larger than ${limits.maxHeaderBytes} bytes (--max-header-size)`]
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [
            408,
            'Request Timeout',
            'request_timeout',
            `Request not received in time: headers within ${limits.headersTimeoutMs} ms, the whole request within ${limits.requestTimeoutMs} ms (--headers-timeout, --request-timeout)`,
          ]
        : [400, 'Bad Request', 'bad_request', `Bad Request: malformed HTTP (${error.code ?? 'parse error'})`];
  const body = JSON.stringify(transportRefusal(refusedPath(error, socket), -32600, restCode, message));
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
