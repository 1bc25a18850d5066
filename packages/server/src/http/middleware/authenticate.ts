import type { IncomingMessage } from 'node:http';
import type { AccessControl, AuthResult } from '../../access/access-control.js';
import { refused } from '../oauth.js';
import type { HttpMiddleware } from '../routes.js';

/**
 * The one place a request becomes a principal: a bearer token or JWT in `Authorization`, or (the web catalog's
 * sessions) a token from a cookie, checked by `AccessControl`; with `--auth none` the configured principal.
 * `/mcp`, `/api/v1`, the admin API and `/metrics` take it as middleware; the web catalog asks `requestPrincipal`,
 * with its session cookie's token when no bearer header came.
 */
export function requestPrincipal(access: AccessControl, req: IncomingMessage, sessionToken?: string): Promise<AuthResult> {
  if (sessionToken !== undefined) return access.authenticateToken(sessionToken);
  return access.authenticate(req);
}

/** Sets `principal`, or answers 401 (RFC 6750) / 503 when the credential is missing, refused or cannot be checked. */
export function authenticate(access: AccessControl): HttpMiddleware {
  return async (c, next) => {
    const auth = await requestPrincipal(access, c.env.incoming);
    if (!('principal' in auth)) {
      const answer = refused(access, c.env.incoming, auth);
      return c.body(answer.body, answer.status, answer.headers);
    }
    c.set('principal', auth.principal);
    await next();
  };
}
