import type { IncomingMessage, ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { AccessControl } from '../access/access-control.js';
import { principalKey } from '../access/principal.js';
import type { Principal } from '../access/principal.js';
import { answer, classify } from './fast-path.js';
import type { FastPathContext } from './fast-path.js';
import type { InMemoryServerEventBus, McpHttpHandler } from '@modelcontextprotocol/server';
import type { toNodeHandler } from '@modelcontextprotocol/node';
import type { Scoped } from '../mcp/scoped.js';
import type { RequestLimits } from './limits.js';
import { mcpBodyLimit, mcpRequest } from './middleware/mcp-request.js';
import type { Rpc } from './middleware/mcp-request.js';
import { MCP_PATH } from './oauth.js';
import type { OpenCounts } from './open-counts.js';
import { sendJsonRpcError, tooMany } from './replies.js';
import type { HttpApp, HttpMiddleware } from './routes.js';
import { endOnClientFinOnceStreaming } from './half-close.js';

/**
 * `/mcp` on the router, after the middleware every route shares (host guard, per-address limit) and with the ones it
 * shares with the API (authentication, the `read` scope, the per-principal limit): the body limit on Content-Length
 * first (before authentication reads anything), the MCP request screen, the stream caps, then one handler: the fast
 * path (ADR 0002) or the principal's SDK handler.
 */
/** The SDK handler of one principal: its own change-event bus, so list_changed reaches only its streams. */
export interface PrincipalHandler {
  key: string;
  scoped: Scoped;
  handler: McpHttpHandler;
  bus: InMemoryServerEventBus;
  sdk: ReturnType<typeof toNodeHandler>;
  lastUsed: number;
}

/**
 * A catalog that holds only its first page for now: that page (no cursor, no hint) is answered, and every other
 * request waits until `complete` resolves true (the whole catalog is in); false: the scan failed, nothing more is.
 */
export interface EarlyCatalog {
  pending(): boolean;
  complete: Promise<boolean>;
  /** Whether this caller's first page is the early catalog's (an unrestricted view, no other source's skills). */
  firstPage(service: Scoped['service']): boolean;
}

export interface McpRouteOptions {
  access: AccessControl;
  limits: RequestLimits;
  fast: Omit<FastPathContext, 'service'>;
  fastPath: boolean;
  handlerFor(principal: Principal): PrincipalHandler;
  /** Requests answered by the fast path and by the SDK, and how many came by the direct route (direct-route.ts). */
  counters: { fastPath: number; sdk: number; direct: number };
  streamsPerClient: OpenCounts;
  streamsPerPrincipal: OpenCounts;
  /** The early catalog of a cold start (http-server.ts `EarlyCatalog`): only its first page is answered until complete. */
  early?: EarlyCatalog;
  /** Told when a `subscriptions/listen` answer starts its event stream: from then on no request being answered. */
  streamStarted?: (res: ServerResponse) => void;
}

export interface SharedMiddleware {
  authenticate: HttpMiddleware;
  readScope: HttpMiddleware;
  perPrincipal: HttpMiddleware;
}

export function mountMcp(app: HttpApp, options: McpRouteOptions, shared: SharedMiddleware): readonly HttpMiddleware[] {
  const { access, limits } = options;
  const chain = [
    mcpBodyLimit(limits),
    shared.authenticate,
    expiry,
    shared.readScope,
    shared.perPrincipal,
    observe(access),
    mcpRequest(access, limits),
    streamCaps(options),
    mcpHandler(options),
  ];
  // One route per handler, in order: what `app.all(path, ...handlers)` registers.
  for (const handler of chain) app.all(MCP_PATH, handler);
  return chain;
}

/**
 * An answer still open when the credential expires (a subscriptions/listen stream) is closed then, as a revocation
 * closes it: the client's next request meets the 401.
 */
const expiry: HttpMiddleware = async (c, next) => {
  armExpiry(c.get('principal'), c.env.outgoing);
  await next();
};

export function armExpiry(principal: Principal, res: ServerResponse): void {
  if (principal.expiresAt !== undefined) closeAtExpiry(res, principal.expiresAt);
}

/** Each answered /mcp request's time, by method, on /metrics. */
function observe(access: AccessControl): HttpMiddleware {
  return async (c, next) => {
    observeAnswer(access, c.env.outgoing, () => c.get('rpc')?.method);
    await next();
  };
}

/** `method` is asked once the answer is written (the body is read after this starts the clock). */
export function observeAnswer(access: AccessControl, res: ServerResponse, method: () => string | undefined): void {
  const started = process.hrtime.bigint();
  res.once('finish', () => access.metrics.observe(method(), Number(process.hrtime.bigint() - started) / 1e9));
}

/**
 * A `subscriptions/listen` stream holds a stream slot, per client address and per principal, instead of a request
 * slot: over a cap it is refused with 429 and the listen request's id.
 */
function streamCaps(options: McpRouteOptions): HttpMiddleware {
  return async (c, next) => {
    if (!capStream(options, c.get('rpc'), c.get('client') ?? '', c.get('principal'), c.get('slots'), c.env.outgoing)) return RESPONSE_ALREADY_SENT;
    await next();
  };
}

/** Whether the request goes on; false when a cap refused it (the 429 is written). */
export function capStream(
  options: McpRouteOptions,
  rpc: Rpc | undefined,
  client: string,
  principal: Principal,
  slots: Array<() => void> | undefined,
  res: ServerResponse,
): boolean {
  const { limits, streamsPerClient, streamsPerPrincipal } = options;
  if (rpc?.method !== 'subscriptions/listen') return true;
  for (const release of slots?.splice(0) ?? []) release();
  const forClient = streamsPerClient.take(client);
  if (forClient === undefined) {
    tooMany(res, `Too many open subscriptions/listen streams from ${client}: at most ${limits.maxStreamsPerClient} (--max-streams-per-client)`, idOf(rpc.body));
    return false;
  }
  const identified = principal.via === 'token' || principal.via === 'jwt';
  const forPrincipal = identified ? streamsPerPrincipal.take(principalKey(principal)) : () => {};
  if (forPrincipal === undefined) {
    forClient();
    tooMany(
      res,
      `Too many open subscriptions/listen streams for this credential: at most ${limits.maxStreamsPerPrincipal} (--max-streams-per-principal)`,
      idOf(rpc.body),
    );
    return false;
  }
  res.once('close', () => {
    forClient();
    forPrincipal();
  });
  endOnClientFinOnceStreaming(res, options.streamStarted);
  return true;
}

/** The fast path's answer when it has one, else the principal's SDK handler (every method, media type and era). */
function mcpHandler(options: McpRouteOptions): HttpMiddleware {
  return async (c) => {
    await handleMcp(options, c.env.incoming, c.env.outgoing, c.get('principal'), c.get('rpc'));
    return RESPONSE_ALREADY_SENT;
  };
}

export async function handleMcp(
  options: McpRouteOptions,
  req: IncomingMessage,
  res: ServerResponse,
  principal: Principal,
  rpc: Rpc | undefined,
): Promise<void> {
  const { access, counters, fast } = options;
  const entry = options.handlerFor(principal);
  const early = options.early;
  if (early?.pending()) {
    // The first page (no cursor, no host hint) is all the early catalog holds whole; anything else waits for the rest.
    const hot = options.fastPath && rpc !== undefined ? classify(req, rpc.body) : undefined;
    const firstPage = hot?.method === 'skills/list' && hot.params['cursor'] === undefined && hot.hint === undefined && early.firstPage(entry.scoped.service);
    if (!firstPage && !(await early.complete)) return sendJsonRpcError(res, 503, -32603, 'the skill folders could not be read; the server is stopping');
  }
  if (rpc === undefined) {
    counters.sdk++;
    access.metrics.answered('sdk');
    await entry.sdk(req, res);
    return;
  }
  const hot = options.fastPath ? classify(req, rpc.body) : undefined;
  if (hot && (await answer({ ...fast, service: entry.scoped.service }, hot, res))) {
    counters.fastPath++;
    access.metrics.answered('fast');
    return;
  }
  // The early first page is the fast path's alone: the SDK answers from the whole catalog.
  if (early?.pending() && !(await early.complete)) return sendJsonRpcError(res, 503, -32603, 'the skill folders could not be read; the server is stopping');
  counters.sdk++;
  access.metrics.answered('sdk');
  await entry.sdk(req, res, rpc.body);
}

function idOf(body: unknown): unknown {
  return body !== null && typeof body === 'object' ? (body as { id?: unknown }).id : null;
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
