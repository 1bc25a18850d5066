import type { IncomingMessage } from 'node:http';
import { localhostAllowedHostnames, validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';

/**
 * DNS-rebinding protection for every HTTP request, /mcp and the router alike, with the SDK's validators: the Host
 * header must name this server (a loopback name, the address it is bound to, or a host the operator allowed), and a
 * browser's Origin, when sent, must be one of those hosts too (`null` and unparsable origins are refused). Both are
 * checked before anything else reads the request. The SDK reads a Host header as a URL's authority, which would
 * take `localhost:80/evil` for `localhost`: a Host that is not exactly a name and an optional port is refused first.
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

export function checkRequest(req: IncomingMessage, hostnames: string[]): GuardFailure | undefined {
  const header = req.headers.host;
  if (header !== undefined && header !== '' && !isHostAndPort(header))
    return { status: 403, code: 'invalid_host_header', message: `Invalid Host header: ${JSON.stringify(header)}` };
  const host = validateHostHeader(header, hostnames);
  if (!host.ok) return { status: 403, code: host.errorCode, message: host.message };
  const origin = validateOriginHeader(req.headers.origin, hostnames);
  if (!origin.ok) return { status: 403, code: origin.errorCode, message: origin.message };
  return undefined;
}
