import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CSRF_COOKIE } from '@skillport/server';

/**
 * Browser-facing protections in one place (docs/security.md, "Web catalog"):
 * - every answer carries a strict Content-Security-Policy: scripts, styles and images from this origin only, no
 *   inline script or style, no framing, forms post only here; so even markup that slipped through cannot run;
 * - the session cookie holds the caller's token: HttpOnly (scripts cannot read it), SameSite=Strict (other sites
 *   cannot send it), Secure when the request came over HTTPS (directly or as a proxy says);
 * - state-changing forms carry a CSRF value (made here, `csrfToken`) that must match a second HttpOnly SameSite=Strict
 *   cookie (double submit); the server's router checks it before any form reaches this package (the server's
 *   http/middleware/csrf.ts), refusing through `refuseForm`.
 */
export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export const SESSION_COOKIE = 'skillport_session';

export function securityHeaders(): Record<string, string> {
  return {
    'content-security-policy': CSP,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
  };
}

export function cookies(req: IncomingMessage): Map<string, string> {
  const found = new Map<string, string>();
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (!found.has(name)) found.set(name, part.slice(eq + 1).trim());
  }
  return found;
}

export function isHttps(req: IncomingMessage): boolean {
  if ((req.socket as { encrypted?: boolean }).encrypted === true) return true;
  const forwarded = req.headers['x-forwarded-proto'];
  return typeof forwarded === 'string' && forwarded.split(',')[0]!.trim().toLowerCase() === 'https';
}

export function cookie(req: IncomingMessage, name: string, value: string, maxAgeSeconds?: number): string {
  const parts = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Strict'];
  if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${maxAgeSeconds}`);
  if (isHttps(req)) parts.push('Secure');
  return parts.join('; ');
}

/** The caller's CSRF value, made (and its cookie queued on `res`) when it has none yet. */
export function csrfToken(req: IncomingMessage, res: ServerResponse): string {
  const existing = cookies(req).get(CSRF_COOKIE);
  if (existing !== undefined && /^[A-Za-z0-9_-]{32,64}$/.test(existing)) return existing;
  const made = randomBytes(24).toString('base64url');
  appendCookie(res, cookie(req, CSRF_COOKIE, made));
  // Later reads within the same request see it too.
  req.headers.cookie = `${req.headers.cookie ? `${req.headers.cookie}; ` : ''}${CSRF_COOKIE}=${made}`;
  return made;
}

export function appendCookie(res: ServerResponse, value: string): void {
  const previous = res.getHeader('set-cookie');
  const list = Array.isArray(previous) ? previous : typeof previous === 'string' ? [previous] : [];
  res.setHeader('set-cookie', [...list, value]);
}

/** The placeholder origin `next` is resolved against when the request names none (no Host header). */
const NO_ORIGIN = 'http://skillport.invalid';

/**
 * A path of this site to go back to after signing in, or `/`. `next` is resolved as a URL against the site's origin,
 * as the browser will resolve the Location, and kept only when it lands on that origin: a backslash after the slash,
 * protocol- or scheme-relative forms, other schemes all resolve elsewhere and go home. What is sent is the
 * resolved path (serialised, so no control character) and it is checked again, since a dot segment can leave a path
 * starting with `//` that would read as another host.
 */
export function safeNext(next: string | null, origin: string = NO_ORIGIN): string {
  // The site makes its own `next` percent-encoded: raw control characters (which URL parsers drop) are refused.
  if (next === null || next.length > 2000 || /[\u0000-\u001f\u007f]/.test(next)) return '/';
  let base: URL;
  try {
    base = new URL(origin);
  } catch {
    base = new URL(NO_ORIGIN);
  }
  const landing = (value: string): URL | undefined => {
    try {
      return new URL(value, base);
    } catch {
      return undefined;
    }
  };
  const first = landing(next);
  if (first === undefined || first.origin !== base.origin) return '/';
  const path = `${first.pathname}${first.search}${first.hash}`;
  if (!path.startsWith('/') || path.startsWith('//') || path.startsWith('/\\') || landing(path)?.origin !== base.origin) return '/';
  return path;
}

/** This request's own origin as the browser sees it (scheme from the connection or proxy, the Host it sent). */
export function siteOrigin(req: IncomingMessage): string {
  const host = req.headers.host;
  return typeof host === 'string' && host !== '' ? `${isHttps(req) ? 'https' : 'http'}://${host}` : NO_ORIGIN;
}

/**
 * The token in the session cookie: `undefined` when none was sent, `malformed` when the cookie cannot be a token
 * (not percent-decodable, control characters, over 8 KiB): such a cookie is cleared like a stale one, never a 500.
 */
export function sessionToken(req: IncomingMessage): string | 'malformed' | undefined {
  const raw = cookies(req).get(SESSION_COOKIE);
  if (raw === undefined || raw === '') return undefined;
  let token: string;
  try {
    token = decodeURIComponent(raw);
  } catch {
    return 'malformed';
  }
  return token.length > 8192 || /[\u0000-\u0020\u007f]/.test(token) ? 'malformed' : token;
}
