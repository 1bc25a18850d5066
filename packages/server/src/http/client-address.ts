import type { IncomingMessage } from 'node:http';
import parseForwarded from 'forwarded-parse';
import proxyAddr from 'proxy-addr';

/**
 * Who is at the other end of a request, for per-address limits. Without a trusted proxy it is the peer's address, and
 * forwarding headers are ignored (anyone can send them). Behind a proxy every connection comes from the proxy, so a
 * per-address limit would make one user's connections count against everyone: with `--trusted-proxy`, a request from
 * a trusted peer is attributed to the address the proxy names (the rightmost address in `X-Forwarded-For`, or in
 * `Forwarded` with `--forwarded-header forwarded`, that is not itself trusted), as Express's `trust proxy` reads it.
 */
export interface TrustedProxies {
  /** CIDR ranges, addresses or proxy-addr's names (`loopback`, `linklocal`, `uniquelocal`); or a number of hops. */
  trust: readonly string[] | number;
  /** Which header names the client (default `x-forwarded-for`): the one the proxy writes, never one it passes on. */
  header?: 'x-forwarded-for' | 'forwarded';
}

export type ClientAddressOf = (req: IncomingMessage) => string;

/** Whether a peer's forwarding headers are believed, and how a request's client address is read. */
export interface ClientAddressing {
  /** The peer is a trusted proxy (its connections are not counted per peer address). */
  trustsPeer(address: string): boolean;
  clientAddress: ClientAddressOf;
}

export function clientAddressing(proxies: TrustedProxies | undefined): ClientAddressing {
  const peer = (req: IncomingMessage) => req.socket.remoteAddress ?? '';
  if (proxies === undefined || (Array.isArray(proxies.trust) && proxies.trust.length === 0) || proxies.trust === 0)
    return { trustsPeer: () => false, clientAddress: peer };
  const trust = typeof proxies.trust === 'number' ? hops(proxies.trust) : proxyAddr.compile([...(proxies.trust as readonly string[])]);
  const fromForwarded = proxies.header === 'forwarded';
  return {
    trustsPeer: (address) => address !== '' && trust(address, 0),
    clientAddress(req) {
      const address = peer(req);
      if (address === '' || !trust(address, 0)) return address;
      // [peer, then the header's addresses from the right]: the first one not trusted is the client.
      const chain = [address, ...forwardedFor(req, fromForwarded).reverse()];
      for (let i = 0; i < chain.length - 1; i++) if (!trust(chain[i]!, i)) return chain[i]!;
      return chain.at(-1)!;
    },
  };
}

/** `--trusted-proxy N`: the N hops nearest this server are proxies. */
function hops(count: number): (address: string, index: number) => boolean {
  return (_address, index) => index < count;
}

/** The addresses a forwarding header names, left (the original client) to right (the nearest proxy's peer). */
function forwardedFor(req: IncomingMessage, fromForwarded: boolean): string[] {
  if (!fromForwarded) {
    const header = req.headers['x-forwarded-for'];
    const text = Array.isArray(header) ? header.join(',') : (header ?? '');
    return text
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== '');
  }
  const header = req.headers['forwarded'];
  if (header === undefined || header === '') return [];
  try {
    return parseForwarded(header).flatMap((element) => (element['for'] === undefined ? [] : [bareAddress(element['for'])]));
  } catch {
    return []; // a malformed header names nobody: the request counts against the proxy's own address
  }
}

/** `for=` values may carry a port and IPv6 brackets (RFC 7239, 6): `[2001:db8::17]:4711` → `2001:db8::17`. */
function bareAddress(value: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) return bracketed[1]!;
  const withPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(value);
  return withPort ? withPort[1]! : value;
}

/**
 * A `--trusted-proxy` value: a number of hops, or a comma-separated list of CIDR ranges, addresses and names;
 * undefined with the reason when it is neither.
 */
export function parseTrustedProxy(text: string): { trust: readonly string[] | number } | { error: string } {
  const trimmed = text.trim();
  if (/^\d{1,2}$/.test(trimmed)) return { trust: Number(trimmed) };
  const parts = trimmed
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (parts.length === 0) return { error: 'give a number of hops, or addresses and CIDR ranges separated by commas' };
  try {
    proxyAddr.compile(parts);
  } catch (error) {
    return { error: (error as Error).message };
  }
  return { trust: parts };
}
