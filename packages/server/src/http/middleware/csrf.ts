import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { getCookie } from 'hono/cookie';
import { readBodyLimited } from '../body.js';
import { isOwnOrigin } from '../guards.js';
import type { HttpMiddleware } from '../routes.js';
import { CSRF_COOKIE, CSRF_FIELD, MAX_FORM_BYTES } from './csrf-names.js';

/**
 * CSRF for the web catalog's forms, the only cookie-authenticated writes (sign-in, sign-out, token revocation,
 * review decisions): a POST to one of `forms` must carry, in its `_csrf` field, the value of the `skillport_csrf`
 * cookie (double submit, compared in constant time; both HttpOnly SameSite=Strict), must not say
 * `Sec-Fetch-Site: cross-site` or `same-site`, and an Origin it sends must be this server's own (cookies are shared
 * by every port of a host, so a page on another port can plant the cookie it then submits). Otherwise `refuse`
 * answers (the web catalog's 403 page). The form's fields go on as `form` for the page's handler, which reads
 * nothing else of the body. Other methods and paths pass untouched (GET on a form path is the page's own 405).
 */
export { CSRF_COOKIE, CSRF_FIELD, MAX_FORM_BYTES };

export interface CsrfOptions {
  /** Paths whose POSTs are forms. */
  forms: ReadonlySet<string>;
  /** Answers a refused form post. */
  refuse(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

export function csrf(options: CsrfOptions): HttpMiddleware {
  return async (c, next) => {
    const req = c.env.incoming;
    if (req.method !== 'POST' || !options.forms.has((req.url ?? '/').split('?')[0]!)) return next();
    const form = await readForm(req);
    if (form === undefined || !csrfValid(req, getCookie(c, CSRF_COOKIE), form.get(CSRF_FIELD))) {
      await options.refuse(req, c.env.outgoing);
      return RESPONSE_ALREADY_SENT;
    }
    c.set('form', form);
    await next();
  };
}

async function readForm(req: IncomingMessage): Promise<URLSearchParams | undefined> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') return undefined;
  const body = await readBodyLimited(req, MAX_FORM_BYTES);
  return body === undefined ? undefined : new URLSearchParams(body.toString('utf8'));
}

/** Whether a form post carries the CSRF value of its cookie and came from this site. */
function csrfValid(req: IncomingMessage, expected: string | undefined, submitted: string | null): boolean {
  const site = req.headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return false;
  const origin = req.headers.origin;
  if (origin !== undefined && !isOwnOrigin(origin, req.headers.host)) return false;
  if (expected === undefined || submitted === null) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(submitted);
  return a.length === b.length && timingSafeEqual(a, b);
}
