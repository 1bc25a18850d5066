import type { IncomingMessage } from 'node:http';

/**
 * DNS-rebinding protection for the HTTP endpoint: the Host header must name this server (a loopback name when
 * bound to loopback, or a host the operator allowed), and a browser's Origin, when sent, must be one of those
 * hosts too. Both are checked before anything else reads the request.
 */
export interface HostPolicy {
  hosts: Set<string>;
  origins: Set<string>;
}

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]', '::1'];

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export function hostPolicy(bindHost: string, extraHosts: readonly string[] = []): HostPolicy {
  const hosts = new Set<string>(LOOPBACK_NAMES);
  if (!isLoopback(bindHost) && bindHost !== '0.0.0.0' && bindHost !== '::') hosts.add(bindHost.toLowerCase());
  for (const host of extraHosts) hosts.add(host.toLowerCase());
  return { hosts, origins: new Set(hosts) };
}

/**
 * The hostname part of a Host header value (`[::1]:3333` -> `[::1]`, `Example.com:80` -> `example.com`), or undefined
 * when the value is not exactly a host and an optional port: `127.0.0.1:80@evil.example` (userinfo tricks), paths,
 * spaces or a second colon are refused whole, never read as the name before them.
 */
export function hostnameOf(value: string): string | undefined {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/.exec(value.trim().toLowerCase());
  if (match === null) return undefined;
  if (match[2] !== undefined && Number(match[2]) > 65535) return undefined;
  return match[1];
}

export type GuardFailure = { status: 403 | 421; message: string };

export function checkRequest(req: IncomingMessage, policy: HostPolicy): GuardFailure | undefined {
  const host = req.headers.host;
  const hostname = typeof host === 'string' ? hostnameOf(host) : undefined;
  if (hostname === undefined || !policy.hosts.has(hostname)) {
    return { status: 403, message: `Invalid Host header: ${JSON.stringify(host ?? '')}` };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== 'null') {
    let originHost: string | undefined;
    try {
      originHost = hostnameOf(new URL(origin).host);
    } catch {
      originHost = undefined;
    }
    if (originHost === undefined || !policy.origins.has(originHost)) {
      return { status: 403, message: `Invalid Origin header: ${JSON.stringify(origin)}` };
    }
  } else if (origin === 'null') {
    return { status: 403, message: 'Invalid Origin header: "null"' };
  }
  return undefined;
}
