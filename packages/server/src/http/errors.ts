import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ServerError } from '../errors.js';

/**
 * An error answer from a route under the router (http/router.ts): thrown anywhere in a handler, written as
 * `{"error": {"code", "message"}}` with `status` (docs/api.md). Only the OAuth 401/403 challenges have another
 * shape, the one RFC 6750 defines (http/oauth.ts).
 */
export class HttpError extends ServerError {
  override name = 'HttpError';
  constructor(
    readonly status: ContentfulStatusCode,
    code: string,
    message: string,
    /** Extra response headers (`allow` on a 405, say). */
    readonly headers: Record<string, string> = {},
  ) {
    super(code, message);
  }
}

/** The one JSON error body under /api/v1 and the admin API. */
export function errorBody(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message } };
}

/** A 405 with the methods a path takes (the router answers an unknown method on a known path with it). */
export function methodNotAllowed(allow: string): never {
  throw new HttpError(405, 'method_not_allowed', `Method not allowed; use ${allow}`, { allow });
}
