import type { Command } from 'commander';
import { parseTrustedProxy } from '@skillport/server';
import type { RequestLimits, TrustedProxies } from '@skillport/server';
import { arg } from '../kit.js';
import { parsePositiveInt, parseSize } from '../output.js';

/**
 * The serve options for HTTP request limits (docs/security.md, "Limits"), kept apart from serve.ts. Defaults are the
 * server's (DEFAULT_REQUEST_LIMITS); a flag left out keeps its default.
 */
export interface LimitFlags {
  maxBody?: number;
  maxHeaderSize?: number;
  maxUriLength?: number;
  maxJsonDepth?: number;
  maxBatch?: number;
  headersTimeout?: number;
  requestTimeout?: number;
  maxConnectionsPerClient?: number;
  writeTimeout?: number;
  maxRequestsPerClient?: number;
  maxRequestsPerPrincipal?: number;
  maxStreamsPerClient?: number;
  maxStreamsPerPrincipal?: number;
  streamLifetime?: number;
  trustedProxy?: TrustedProxies['trust'];
  forwardedHeader?: 'x-forwarded-for' | 'forwarded';
}

export function addLimitOptions(command: Command): Command {
  return command
    .option('--max-body <size>', 'HTTP: largest request body on /mcp (default 4MiB)', arg(parseSize))
    .option('--max-header-size <size>', 'HTTP: largest request line and headers (default 16KiB)', arg(parseSize))
    .option('--max-uri-length <n>', 'longest uri in a request (HTTP and stdio), in characters (default 8192)', arg(parsePositiveInt('--max-uri-length')))
    .option('--max-json-depth <n>', 'HTTP: deepest nesting of a request body (default 64)', arg(parsePositiveInt('--max-json-depth')))
    .option('--max-batch <n>', 'HTTP: most messages in one JSON-RPC batch (default 32)', arg(parsePositiveInt('--max-batch')))
    .option('--headers-timeout <ms>', 'HTTP: time a client has to send its request headers (default 10000)', arg(parsePositiveInt('--headers-timeout')))
    .option(
      '--request-timeout <ms>',
      'HTTP: time a client has to send a whole request, body included (default 120000)',
      arg(parsePositiveInt('--request-timeout')),
    )
    .option(
      '--max-connections-per-client <n>',
      'HTTP: open connections from one address at a time; not counted for a --trusted-proxy (default 256)',
      arg(parsePositiveInt('--max-connections-per-client')),
    )
    .option(
      '--write-timeout <ms>',
      'HTTP: time an answer may wait for a client that stopped reading before the connection is cut (default 30000)',
      arg(parsePositiveInt('--write-timeout')),
    )
    .option(
      '--max-requests-per-client <n>',
      'HTTP: answers in progress for one client address (default 256)',
      arg(parsePositiveInt('--max-requests-per-client')),
    )
    .option(
      '--max-requests-per-principal <n>',
      'HTTP: answers in progress for one token or JWT subject (default 256)',
      arg(parsePositiveInt('--max-requests-per-principal')),
    )
    .option(
      '--max-streams-per-client <n>',
      'HTTP: open subscriptions/listen streams for one client address (default 64)',
      arg(parsePositiveInt('--max-streams-per-client')),
    )
    .option(
      '--max-streams-per-principal <n>',
      'HTTP: open subscriptions/listen streams for one token or JWT subject (default 32)',
      arg(parsePositiveInt('--max-streams-per-principal')),
    )
    .option(
      '--stream-lifetime <ms>',
      'HTTP: a subscriptions/listen stream with no change notification this long is ended gracefully (default 600000)',
      arg(parsePositiveInt('--stream-lifetime')),
    )
    .option(
      '--trusted-proxy <cidrs|hops>',
      'HTTP: proxies whose forwarding header names the client, for per-address limits: addresses and CIDR ranges (comma-separated; loopback, uniquelocal) or a number of hops',
      arg(trustedProxy),
    )
    .option(
      '--forwarded-header <name>',
      'HTTP: the header a --trusted-proxy writes the client into: x-forwarded-for (default) or forwarded (RFC 7239)',
      arg(forwardedHeader),
    );
}

function trustedProxy(text: string): TrustedProxies['trust'] {
  const parsed = parseTrustedProxy(text);
  if ('error' in parsed) throw new Error(`--trusted-proxy ${JSON.stringify(text)}: ${parsed.error}`);
  return parsed.trust;
}

function forwardedHeader(text: string): 'x-forwarded-for' | 'forwarded' {
  const lower = text.trim().toLowerCase();
  if (lower !== 'x-forwarded-for' && lower !== 'forwarded')
    throw new Error(`--forwarded-header must be x-forwarded-for or forwarded (got ${JSON.stringify(text)})`);
  return lower;
}

/** The proxies the flags trust (none unless --trusted-proxy is given). */
export function trustedProxyOptions(flags: LimitFlags): TrustedProxies | undefined {
  if (flags.trustedProxy === undefined) return undefined;
  return { trust: flags.trustedProxy, ...(flags.forwardedHeader !== undefined ? { header: flags.forwardedHeader } : {}) };
}

/** The limits the flags set (the others keep the server's defaults). */
export function limitOptions(flags: LimitFlags): Partial<RequestLimits> {
  const limits: Partial<RequestLimits> = {};
  if (flags.maxBody !== undefined) limits.maxBodyBytes = flags.maxBody;
  if (flags.maxHeaderSize !== undefined) limits.maxHeaderBytes = flags.maxHeaderSize;
  if (flags.maxUriLength !== undefined) limits.maxUriLength = flags.maxUriLength;
  if (flags.maxJsonDepth !== undefined) limits.maxJsonDepth = flags.maxJsonDepth;
  if (flags.maxBatch !== undefined) limits.maxBatch = flags.maxBatch;
  if (flags.headersTimeout !== undefined) limits.headersTimeoutMs = flags.headersTimeout;
  if (flags.requestTimeout !== undefined) limits.requestTimeoutMs = flags.requestTimeout;
  if (flags.maxConnectionsPerClient !== undefined) limits.maxConnectionsPerClient = flags.maxConnectionsPerClient;
  if (flags.writeTimeout !== undefined) limits.writeTimeoutMs = flags.writeTimeout;
  if (flags.maxRequestsPerClient !== undefined) limits.maxRequestsPerClient = flags.maxRequestsPerClient;
  if (flags.maxRequestsPerPrincipal !== undefined) limits.maxRequestsPerPrincipal = flags.maxRequestsPerPrincipal;
  if (flags.maxStreamsPerClient !== undefined) limits.maxStreamsPerClient = flags.maxStreamsPerClient;
  if (flags.maxStreamsPerPrincipal !== undefined) limits.maxStreamsPerPrincipal = flags.maxStreamsPerPrincipal;
  if (flags.streamLifetime !== undefined) limits.streamLifetimeMs = flags.streamLifetime;
  return limits;
}
