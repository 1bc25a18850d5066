/**
 * Limits that protect the HTTP server from oversized, deep, slow or numerous requests (docs/security.md, "Limits").
 * Each is refused with a 4xx and one line saying which limit and how to change it; none is a 5xx.
 */
export interface RequestLimits {
  /** Largest request body, in bytes (refused on its Content-Length header, or as soon as it is passed). */
  maxBodyBytes: number;
  /** Largest request head (request line and headers), in bytes: node's maxHeaderSize. */
  maxHeaderBytes: number;
  /** Longest `uri` in a request's params, in characters (checked before any URI is parsed). */
  maxUriLength: number;
  /** Deepest nesting of arrays and objects in a request body (checked before it is parsed). */
  maxJsonDepth: number;
  /** Most messages in one JSON-RPC batch (2025-era clients). */
  maxBatch: number;
  /** Time a client has to send a request's headers, in ms (slow clients, slowloris). */
  headersTimeoutMs: number;
  /** Time a client has to send a whole request, headers and body, in ms. */
  requestTimeoutMs: number;
  /** Open connections from one client address at a time (not counted for a trusted proxy's connections). */
  maxConnectionsPerClient: number;
  /** Time an answer may wait for a client that stopped reading before its connection is cut, in ms. */
  writeTimeoutMs: number;
  /** Answers in progress for one client address (behind a trusted proxy, the address the proxy names). */
  maxRequestsPerClient: number;
  /** Answers in progress for one principal (a token or a JWT; not with `--auth none`, where everyone is one). */
  maxRequestsPerPrincipal: number;
  /** Open `subscriptions/listen` streams for one client address. */
  maxStreamsPerClient: number;
  /** Open `subscriptions/listen` streams for one principal. */
  maxStreamsPerPrincipal: number;
  /** A `subscriptions/listen` stream that carried no change notification this long is ended (gracefully), in ms. */
  streamLifetimeMs: number;
}

export const DEFAULT_REQUEST_LIMITS: RequestLimits = {
  maxBodyBytes: 4 * 1024 * 1024,
  maxHeaderBytes: 16 * 1024,
  maxUriLength: 8 * 1024,
  maxJsonDepth: 64,
  maxBatch: 32,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 120_000,
  maxConnectionsPerClient: 256,
  writeTimeoutMs: 30_000,
  maxRequestsPerClient: 256,
  maxRequestsPerPrincipal: 256,
  maxStreamsPerClient: 64,
  maxStreamsPerPrincipal: 32,
  streamLifetimeMs: 600_000,
};

/**
 * Whether a JSON text nests arrays and objects deeper than `max`. A linear scan of the raw text (strings skipped), so a
 * body of a million brackets is refused without building anything, and without recursion in the parser.
 */
export function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** A URI (or any text from a request) shortened for an error message, so an answer never echoes a huge request. */
export function clip(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max)}… (${text.length} characters)`;
}
