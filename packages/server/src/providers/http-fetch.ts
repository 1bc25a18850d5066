import { request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { formatBytes } from '@skillport/core';
import { SERVER_VERSION } from '../version.js';

/**
 * GETs for the HTTP skill provider, with the protections a server fetching on its own needs: a deadline per
 * attempt covering the whole response (a host that trickles bytes is cut off), retries with exponential backoff on
 * network errors, 5xx and 429 (Retry-After honoured, within limits), a size cap checked on Content-Length and again
 * while reading, redirects followed only within the same origin, and no transparent decompression (the bytes are
 * the bytes the digest names).
 *
 * Credentials (headers and query parameters from the config) go only to the origin they were configured for, and
 * never into a message: every URL in an error is shown as origin + path, without query string or user info.
 */
export interface FetchPolicy {
  /** Sent only to `credentialOrigin`. */
  headers: Readonly<Record<string, string>>;
  /** Added to the query of requests to `credentialOrigin` (signed-URL tokens). */
  params: Readonly<Record<string, string>>;
  credentialOrigin: string;
  /** Origins requests may go to (the configured one, plus any the config allows for artifacts). */
  allowedOrigins: ReadonlySet<string>;
  timeoutMs: number;
  retries: number;
  backoffMs: number;
  /** Aborts waits and requests when the provider closes. */
  signal?: AbortSignal;
}

export interface Fetched {
  status: number;
  bytes: Buffer;
  etag?: string;
  contentType?: string;
}

export class FetchError extends Error {
  override name = 'FetchError';
  /** The message without the URL it starts with (for callers that show the URL themselves). */
  readonly detail: string;
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly status?: number,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.detail = message.replace(/^https?:\/\/\S+?(: | )/, '');
  }
}

const MAX_REDIRECTS = 5;
const MAX_RETRY_AFTER_MS = 30_000;

/** `https://host/path`: how a URL appears in messages (no query string, no user info: they may hold secrets). */
export function displayUrl(url: string | URL): string {
  try {
    const parsed = typeof url === 'string' ? new URL(url) : url;
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return '(invalid URL)';
  }
}

/** GET with retries. Resolves with 200 (bytes) or 304/404 (empty bytes, for the caller to interpret). */
export async function fetchWithRetries(url: string, maxBytes: number, policy: FetchPolicy, extraHeaders: Record<string, string> = {}): Promise<Fetched> {
  let attempt = 0;
  for (;;) {
    try {
      return await fetchFollowing(url, maxBytes, policy, extraHeaders);
    } catch (error) {
      const failure = error instanceof FetchError ? error : new FetchError(String(error), false);
      if (!failure.retryable || attempt >= policy.retries || policy.signal?.aborted) throw failure;
      const backoff = policy.backoffMs * 2 ** attempt * (0.75 + Math.random() * 0.5);
      attempt++;
      await sleep(Math.min(MAX_RETRY_AFTER_MS, Math.max(backoff, failure.retryAfterMs ?? 0)), policy.signal);
    }
  }
}

async function fetchFollowing(url: string, maxBytes: number, policy: FetchPolicy, extraHeaders: Record<string, string>): Promise<Fetched> {
  let current = new URL(url);
  for (let hops = 0; ; hops++) {
    if (!policy.allowedOrigins.has(current.origin))
      throw new FetchError(
        `${displayUrl(current)}: on another host (${current.host}); only ${[...policy.allowedOrigins].map((origin) => new URL(origin).host).join(', ')} may be fetched`,
        false,
      );
    const result = await fetchOnce(current, maxBytes, policy, extraHeaders);
    if ('location' in result) {
      const next = new URL(result.location, current);
      // Same origin only: another host would receive what the request carries (and could point anywhere).
      if (next.origin !== current.origin) throw new FetchError(`${displayUrl(current)} redirects to another host (${next.host}); refused`, false);
      if (hops + 1 >= MAX_REDIRECTS) throw new FetchError(`${displayUrl(url)}: more than ${MAX_REDIRECTS} redirects`, false);
      current = next;
      continue;
    }
    return result;
  }
}

function fetchOnce(url: URL, maxBytes: number, policy: FetchPolicy, extraHeaders: Record<string, string>): Promise<Fetched | { location: string }> {
  const target = new URL(url.href);
  const headers: Record<string, string> = { 'user-agent': `skillport/${SERVER_VERSION}`, 'accept-encoding': 'identity', accept: '*/*', ...extraHeaders };
  if (target.origin === policy.credentialOrigin) {
    for (const [key, value] of Object.entries(policy.params)) if (!target.searchParams.has(key)) target.searchParams.set(key, value);
    Object.assign(headers, policy.headers);
  }
  const shown = displayUrl(target);
  const deadline = AbortSignal.timeout(policy.timeoutMs);
  const signal = policy.signal ? anySignal(deadline, policy.signal) : deadline;
  const request = target.protocol === 'https:' ? httpsRequest : target.protocol === 'http:' ? httpRequest : undefined;
  if (request === undefined) return Promise.reject(new FetchError(`${shown}: only http and https URLs can be fetched`, false));
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (error: FetchError) => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    const abortMessage = () => (policy.signal?.aborted ? `${shown}: cancelled` : `${shown}: no complete answer within ${policy.timeoutMs} ms`);
    const req = request(target, { method: 'GET', headers, signal }, (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (status >= 300 && status < 400 && status !== 304 && location) {
        res.resume();
        settled = true;
        return resolve({ location });
      }
      if (status === 304 || status === 404 || status === 410) {
        res.resume();
        settled = true;
        return resolve({ status, bytes: Buffer.alloc(0) });
      }
      if (status !== 200) {
        res.resume();
        const retryable = status >= 500 || status === 429 || status === 408;
        return fail(new FetchError(`${shown}: HTTP ${status}`, retryable, status, retryAfter(res.headers['retry-after'])));
      }
      const encoding = res.headers['content-encoding'];
      if (encoding !== undefined && encoding !== 'identity') {
        fail(new FetchError(`${shown}: sent with content-encoding ${encoding}, which was not asked for`, false));
        return res.destroy();
      }
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        fail(new FetchError(`${shown}: ${formatBytes(declared)} is larger than ${formatBytes(maxBytes)} (the limit)`, false));
        return res.destroy();
      }
      const chunks: Buffer[] = [];
      let received = 0;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBytes) {
          // Said before the socket is torn down (which reports a broken connection of its own).
          fail(new FetchError(`${shown}: larger than ${formatBytes(maxBytes)} (the limit)`, false));
          res.destroy();
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', () =>
        fail(new FetchError(signal.aborted ? abortMessage() : `${shown}: the connection broke during the answer`, !policy.signal?.aborted)),
      );
      res.on('aborted', () =>
        fail(new FetchError(signal.aborted ? abortMessage() : `${shown}: the connection broke during the answer`, !policy.signal?.aborted)),
      );
      res.on('end', () => {
        if (settled) return;
        if (res.complete === false) return fail(new FetchError(`${shown}: the answer was cut short`, true));
        settled = true;
        const etag = res.headers.etag;
        const contentType = res.headers['content-type'];
        resolve({ status, bytes: Buffer.concat(chunks), ...(etag ? { etag } : {}), ...(contentType ? { contentType } : {}) });
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (signal.aborted) return fail(new FetchError(abortMessage(), !policy.signal?.aborted));
      fail(new FetchError(`${shown}: ${error.code ?? 'request failed'}`, true));
    });
    req.end();
  });
}

/** AbortSignal.any (Node >= 20.3), or the same by hand on older 20.x. */
function anySignal(a: AbortSignal, b: AbortSignal): AbortSignal {
  if (typeof AbortSignal.any === 'function') return AbortSignal.any([a, b]);
  const controller = new AbortController();
  const abort = () => controller.abort();
  if (a.aborted || b.aborted) abort();
  a.addEventListener('abort', abort, { once: true });
  b.addEventListener('abort', abort, { once: true });
  return controller.signal;
}

function retryAfter(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    // Not unref'd: a server still starting must not exit while it waits to retry.
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener('abort', done);
      clearTimeout(timer);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
