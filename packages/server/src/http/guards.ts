import type { IncomingMessage } from 'node:http';
import { localhostAllowedHostnames, validateHostHeader, validateOriginHeader } from '@modelcontextprotocol/server';

/**
 * DNS-rebinding protection for every HTTP request, /mcp and the router alike, with the SDK's validators: the Host
 * header must name this server (a loopback name, the address it is bound to, or a host the operator allowed), and a
 * browser's Origin, when sent, must be one of those hosts too (`null` and unparsable origins are refused). Both are
 * checked before anything else reads the request.
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

export function checkRequest(req: IncomingMessage, hostnames: string[]): GuardFailure | undefined {
  const host = validateHostHeader(req.headers.host, hostnames);
  if (!host.ok) return { status: 403, code: host.errorCode, message: host.message };
  const origin = validateOriginHeader(req.headers.origin, hostnames);
  if (!origin.ok) return { status: 403, code: origin.errorCode, message: origin.message };
  return undefined;
}
