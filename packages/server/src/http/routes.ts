import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpBindings } from '@hono/node-server';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { AuditInput } from '../access/audit.js';
import type { Principal, Scope } from '../access/principal.js';

/**
 * The types a group of HTTP routes is written against (the registry's /api/v1, a web catalog): the router's
 * environment, the kit the server hands to routes, and the shape of a group of routes. See http/router.ts.
 */
export type HttpEnv = {
  Bindings: HttpBindings;
  Variables: {
    principal: Principal;
    /** The client's address (http/client-address.ts) and the request slots its answer holds (middleware/client-limits.ts). */
    client?: string;
    slots?: Array<() => void>;
    /** A screened JSON-RPC body on /mcp (middleware/mcp-request.ts). */
    rpc?: { body: unknown; method?: string };
    /** A web form's fields, once its CSRF value was checked (middleware/csrf.ts). */
    form?: URLSearchParams;
  };
};
export type HttpApp = Hono<HttpEnv>;
export type HttpContext = Context<HttpEnv>;
export type HttpMiddleware = MiddlewareHandler<HttpEnv>;

/** What a group of routes gets from the server when it is mounted. */
export interface RouteKit {
  /** Middleware: the caller must hold `scope`, else 403 `insufficient_scope` (RFC 6750). */
  requireScope(scope: Scope): HttpMiddleware;
  /** Who asks: every mounted route runs after authentication. */
  principal(c: HttpContext): Principal;
  /** The whole request body, or HttpError 413 `too_large` past `limit` bytes (the rest is drained, not kept). */
  readBody(c: HttpContext, limit: number): Promise<Buffer>;
  /** Records an event in the audit trail as the caller (a write the audit log keeps, such as a review decision). */
  audit(c: HttpContext, input: AuditInput): void;
}

/**
 * A group of routes beside /mcp: registers its handlers on the server's router. Mount one through
 * `SkillportServerOptions.routes` or a plugin's `routes` (see docs/architecture.md, "Adding routes"), e.g.
 * `(app, kit) => app.get('/', (c) => c.html(page(kit.principal(c))))`. Routes run after authentication and the
 * `read` scope check; throw `HttpError` for an error answer. Paths under /api/v1/ answer errors as JSON.
 */
export type HttpRoutes = (app: HttpApp, kit: RouteKit) => void;

/** What a public route (answered before authentication: a webhook checks its own signature) gets from the server. */
export interface PublicRouteKit {
  /** The whole request body, or HttpError 413 `too_large` past `limit` bytes. */
  readBody(c: HttpContext, limit: number): Promise<Buffer>;
  /** Records an event in the audit trail (a refused webhook), as the anonymous caller. */
  audit(input: AuditInput): void;
}

/**
 * Routes that run before authentication, for callers that prove themselves otherwise (a git host's signed webhook).
 * They must check every request themselves; mount them through `SkillportServerOptions.publicRoutes`.
 */
export type PublicRoutes = (app: HttpApp, kit: PublicRouteKit) => void;

/**
 * The web catalog's entry (packages/web): asked by the router for every request outside /mcp, /metrics and /api/
 * that no public route answered, before bearer authentication, since a browser signs in with a cookie. It writes
 * the answer itself and says true, or false to leave the request to the routes (then 404).
 */
export interface WebRoute {
  /** `form`: the fields of a POST to one of `forms`, whose CSRF value the router checked (middleware/csrf.ts). */
  handle(req: IncomingMessage, res: ServerResponse, path: string, search: string, form?: URLSearchParams): Promise<boolean>;
  /** Paths whose POSTs are forms: each is CSRF-checked before `handle` is asked. */
  forms?: ReadonlySet<string>;
  /** Answers a form post the CSRF check refused (a 403 page). */
  refuseForm?(req: IncomingMessage, res: ServerResponse): Promise<void>;
}
