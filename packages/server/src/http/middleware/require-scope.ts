import type { AccessControl } from '../../access/access-control.js';
import { hasScope } from '../../access/principal.js';
import type { Scope } from '../../access/principal.js';
import { forbidden } from '../oauth.js';
import type { HttpMiddleware } from '../routes.js';

/** After `authenticate`: the principal must hold `scope`, else 403 `insufficient_scope` (RFC 6750). */
export function requireScope(access: AccessControl, scope: Scope): HttpMiddleware {
  return async (c, next) => {
    if (hasScope(c.get('principal'), scope)) return next();
    const answer = forbidden(access, c.env.incoming, scope);
    return c.body(answer.body, answer.status, answer.headers);
  };
}
