import type { IncomingMessage } from 'node:http';
import { localhostAllowedHostnames, validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';
import { clip } from './limits.js';

/**
 * DNS-rebinding and cross-origin protection for every HTTP request, /mcp and the router alike: the Host header must
 * name this server (a loopback name, the address it is bound to, or a host the operator allowed; the SDK's
 * validator), and a browser's Origin, when sent, must be this server's own origin (the host and port the Host header
 * names) or one the operator listed (`--allowed-origin`): a page on another port of the same machine is another
 * site, whose requests must not reach /mcp where the web catalog's forms already refused them. `null` and
 * unparsable origins are refused. Clients that send no Origin (MCP clients, the CLI, curl) are not browsers and
 * pass. The SDK reads a Host header as a URL's authority, which would take `localhost:80/evil` for `localhost`: a
 * Host that is not exactly a name and an optional port is refused first.
 */
export type GuardFailure = { status: 403; code: string; message: string };

/** The hostnames Host and Origin may name (lowercase; IPv6 in brackets, as the SDK compares them). */
export function allowedHostnames(bindHost: string, extraHosts: readonly string[] = []): string[] {
  const hosts = new Set(localhostAllowedHostnames());
  const named = [...(bindHost === '0.0.0.0' || bindHost === '::' ? [] : [bindHost]), ...extraHosts];
  for (const host of named) {
    const lower = host.toLowerCase();
    hosts.add(lower.includes(':') && !lower.startsWith('[') ? `[${lower}]` : lower);
  }
  return [...hosts];
}

/**
 * Whether a Host header value is exactly a host and an optional port: `127.0.0.1:80@evil.example` (userinfo
 * tricks), paths, spaces, a second colon or a port past 65535 are refused whole, never read as the name before them.
 */
export function isHostAndPort(value: string): boolean {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(value.trim().toLowerCase());
  return match !== null && (match[2] === undefined || Number(match[2]) <= 65535);
}

/**
 * The origins `--allowed-origin` lists, serialised as browsers send them (`http://localhost:6274`); throws on a value
 * that is not a plain http(s) origin, naming it.
 */
export function allowedOrigins(values: string | readonly string[] = []): Set<string> {
  const origins = new Set<string>();
  for (const value of typeof values === 'string' ? [values] : values) {
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {}
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.href !== `${url.origin}/`) {
      throw new Error(`${JSON.stringify(value)} is not an origin (a scheme, a host and an optional port: http://localhost:6274)`);
    }
    origins.add(url.origin);
  }
  return origins;
}

/** Whether `origin` names the host and port the request was sent to (`host`, its Host header), whatever the scheme a proxy terminated. */
export function isOwnOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined || host === '') return false;
  try {
    const named = new URL(origin);
    return (named.protocol === 'http:' || named.protocol === 'https:') && named.host === new URL(`${named.protocol}//${host}`).host;
  } catch {
    return false; // "null" (an opaque origin) or no URL at all
  }
}

export function checkRequest(req: IncomingMessage, hostnames: string[], origins: ReadonlySet<string> = new Set()): GuardFailure | undefined {
  const header = req.headers.host;
  if (header !== undefined && header !== '' && !isHostAndPort(header))
    return { status: 403, code: 'invalid_host_header', message: `Invalid Host header: ${JSON.stringify(header)}` };
  const host = validateHostHeader(header, hostnames);
  if (!host.ok) return { status: 403, code: host.errorCode, message: host.message };
  const sent = req.headers.origin;
  if (sent === undefined || origins.has(sent)) return undefined;
  const origin = validateOriginHeader(sent, hostnames);
  if (!origin.ok) return { status: 403, code: origin.errorCode, message: origin.message };
  if (!isOwnOrigin(sent, header)) {
    return {
      status: 403,
      code: 'invalid_origin',
      message: `Invalid Origin header: ${JSON.stringify(clip(sent, 100))} is not this server's origin; a browser client elsewhere needs --allowed-origin`,
    };
  }
  return undefined;
}
