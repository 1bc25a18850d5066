import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { Hono } from 'hono';
import type { AccessControl } from '../access/access-control.js';
import { ANONYMOUS } from '../access/principal.js';
import type { Principal } from '../access/principal.js';
import type { HttpApp, HttpContext, HttpEnv, HttpMiddleware, HttpRoutes, PublicRouteKit, PublicRoutes, RouteKit, WebRoute } from './routes.js';
import type { ClientAddressing } from './client-address.js';
import type { OpenCounts } from './open-counts.js';
import type { SharedMiddleware } from './mcp-route.js';
import { authenticate } from './middleware/authenticate.js';
import { perClient, perPrincipal } from './middleware/client-limits.js';
import { csrf } from './middleware/csrf.js';
import { requireScope } from './middleware/require-scope.js';
import type { Scoped } from '../mcp/scoped.js';
import { readBodyLimited } from './body.js';
import { HttpError, errorBody, methodNotAllowed } from './errors.js';
import { accessRoutes } from './api-routes.js';
import { METADATA_PATH, MCP_PATH, protectedResourceMetadata } from './oauth.js';

/**
 * The one router of the HTTP server (ADR 0060, revised by ADR 0190): `/mcp` (http/mcp-route.ts), health, OAuth
 * metadata, metrics, the JSON API under /api/v1 (the caller's view, the admin API, a registry's routes), any routes a
 * plugin adds and the web catalog, with the host guard, limits, authentication, scopes and the MCP request screen as
 * middleware, one file each (http/middleware/).
 *
 * Order of a request: the host guard (403, before the router) → answers in progress per client address (429) → public routes (`/healthz`,
 * `/readyz`, the RFC 9728 metadata) → `/mcp` (its own chain over the shared authentication, scope and per-principal
 * middleware) → the web catalog's pages (they sign browsers in themselves) → authentication (401) → per principal
 * (429) → `/metrics` (admin scope once access is restricted) → the `read` scope (403) → the routes. Errors thrown as `HttpError` become
 * `{"error": {"code", "message"}}`; anything else is a 500 with the same shape and no detail.
 */
export interface RouterOptions {
  access: AccessControl;
  /** The services of one principal (its view of the catalog). */
  scoped: (principal: Principal) => Scoped;
  /** The JSON of GET /healthz beyond `status` (left out when access is restricted). */
  health: () => Record<string, unknown>;
  /** GET /readyz: ready to take traffic (a registry replica caught up; not shutting down), or why not. */
  ready: () => Promise<{ ready: boolean; reason?: string }>;
  routes: readonly HttpRoutes[];
  /** Routes answered before authentication (they check their callers themselves: a signed webhook). */
  publicRoutes?: readonly PublicRoutes[];
  /** The web catalog: pages for people, asked before authentication (it signs browsers in itself). */
  web?: WebRoute;
  /** Answers in progress per client address and per principal (middleware/client-limits.ts). */
  addressing: ClientAddressing;
  requestsPerClient: OpenCounts;
  requestsPerPrincipal: OpenCounts;
  /** Mounts /mcp with the middleware it shares with the rest (http/mcp-route.ts). */
  mcp?: (app: HttpApp, shared: SharedMiddleware) => readonly HttpMiddleware[];
}

export type NodeListener = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export function createRouter(options: RouterOptions): HttpApp {
  const { access } = options;
  const app = new Hono<HttpEnv>({ strict: false });

  app.onError((error, c) => {
    if (c.env.outgoing.headersSent) {
      c.env.outgoing.destroy(error instanceof Error ? error : undefined);
      return RESPONSE_ALREADY_SENT;
    }
    if (c.req.path === MCP_PATH) {
      access.metrics.error('internal');
      return c.json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }, 500);
    }
    if (error instanceof HttpError) return c.json(errorBody(error.code, error.message), error.status, { ...error.headers, 'cache-control': 'no-store' });
    access.metrics.error('internal');
    return c.json(errorBody('internal', 'Internal error'), 500, { 'cache-control': 'no-store' });
  });
  app.notFound((c) => {
    if (c.req.path.startsWith('/api/')) return c.json(errorBody('not_found', `no such API path: ${c.req.path.slice(0, 200)} (see docs/api.md)`), 404);
    // Outside the API the only thing served is MCP: a client pointed at the wrong path gets a JSON-RPC answer.
    return c.json({ jsonrpc: '2.0', error: { code: -32600, message: `Not found: MCP is served at ${MCP_PATH}` }, id: null }, 404);
  });

  // Every path (after the host guard, which runs before the router: middleware/host-guard.ts): the per-address limit.
  const perAddress = perClient(options.addressing, options.requestsPerClient);
  app.use('*', perAddress);
  const authenticated = authenticate(access);
  const shared: SharedMiddleware = {
    authenticate: authenticated,
    readScope: requireScope(access, 'read'),
    perPrincipal: perPrincipal(options.requestsPerPrincipal),
  };

  app.get('/healthz', (c) => c.json(access.restricted ? { status: 'ok' } : { status: 'ok', ...options.health() }));
  app.get('/readyz', async (c) => {
    const state = await options.ready();
    const shown = access.restricted ? { ready: state.ready } : state;
    return c.json({ status: state.ready ? 'ready' : 'not ready', ...shown }, state.ready ? 200 : 503);
  });
  for (const path of [METADATA_PATH, `${METADATA_PATH}${MCP_PATH}`]) app.get(path, (c) => c.json(protectedResourceMetadata(access, c.env.incoming)));
  const publicKit: PublicRouteKit = {
    readBody: (c, limit) => readWhole(c, limit),
    audit: (input) => access.audit.record(ANONYMOUS, input),
  };
  for (const routes of options.publicRoutes ?? []) routes(app, publicKit);

  const mcpChain = options.mcp?.(app, shared);
  if (mcpChain !== undefined) mcpChains.set(app, [perAddress, ...mcpChain]);

  const web = options.web;
  if (web !== undefined) {
    if (web.forms !== undefined && web.refuseForm !== undefined) app.use('*', csrf({ forms: web.forms, refuse: web.refuseForm }));
    app.use('*', async (c, next) => {
      const [path = '/', search = ''] = (c.env.incoming.url ?? '/').split('?');
      if (path === '/metrics' || path.startsWith('/api/') || !(await web.handle(c.env.incoming, c.env.outgoing, path, search, c.get('form')))) return next();
      return RESPONSE_ALREADY_SENT;
    });
  }

  // Who is asking: every route below answers for one principal.
  app.use('*', authenticated);
  app.use('*', shared.perPrincipal);
  const kit: RouteKit = {
    requireScope: (scope) => requireScope(access, scope),
    principal: (c) => c.get('principal'),
    readBody: (c, limit) => readWhole(c, limit),
    audit: (c, input) => access.audit.record(c.get('principal'), input),
  };

  // Figures about the whole server: open with --auth none, for admins otherwise.
  app.on(
    ['GET', 'HEAD'],
    '/metrics',
    async (c, next) => (access.auth === 'none' ? next() : requireScope(access, 'admin')(c, next)),
    (c) => c.body(access.metrics.render(), 200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }),
  );
  app.all('/metrics', () => methodNotAllowed('GET'));
  app.use('*', shared.readScope);
  app.use('/api/*', async (c, next) => {
    await next();
    c.header('cache-control', 'no-store');
  });
  accessRoutes(app, kit, access, options.scoped);
  for (const routes of options.routes) routes(app, kit);
  return app;
}

/** The middleware a router runs for POST /mcp, as createRouter mounted it: the direct route stands for this chain. */
const mcpChains = new WeakMap<HttpApp, readonly HttpMiddleware[]>();

/**
 * Whether a POST to /mcp runs exactly the chain createRouter mounted, up to its last handler (which answers, so what
 * is matched after it never runs): false when a public route or plugin put anything of its own before it.
 */
export function postMcpIsPlain(app: HttpApp): boolean {
  const expected = mcpChains.get(app);
  if (expected === undefined) return false;
  const matched = (app.router.match('POST', MCP_PATH)[0] as Array<[[unknown, unknown], unknown]>).map(([[handler]]) => handler);
  return expected.every((handler, at) => matched[at] === handler);
}

async function readWhole(c: HttpContext, limit: number): Promise<Buffer> {
  const body = await readBodyLimited(c.env.incoming, limit);
  if (body === undefined) throw new HttpError(413, 'too_large', `the request body is larger than ${limit} bytes (the limit)`);
  return body;
}

/** The router as a node:http request listener (the adapter leaves the global Request/Response alone). */
export function nodeListener(app: HttpApp): NodeListener {
  return getRequestListener(app.fetch, { overrideGlobalObjects: false }) as NodeListener;
}
