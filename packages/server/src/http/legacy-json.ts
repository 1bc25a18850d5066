import { WebStandardStreamableHTTPServerTransport, isLegacyRequest } from '@modelcontextprotocol/server';
import type { McpHttpHandler, McpServer } from '@modelcontextprotocol/server';
import { LEGACY_VERSIONS } from './fast-path.js';

type FetchOptions = Parameters<McpHttpHandler['fetch']>[1];
/** A batch element's answer as parts made as they are sent, or undefined for the SDK to answer it (fast-path.ts `batchRead`). */
export type StreamRead = (message: unknown) => Promise<Iterable<Uint8Array> | undefined>;

/**
 * 2025-era (stateless) requests answered as plain `application/json` (one JSON-RPC message, or an array for a batch)
 * rather than an SSE stream of one event: the SDK's own stateless fallback always streams. Nothing this server does
 * in answer to a 2025-era request streams (no progress, no server-to-client requests), and a 2025 client accepts
 * both. 2026-era requests go to the SDK's handler, which answers JSON by itself and streams what genuinely streams
 * (`subscriptions/listen`). GET and DELETE (2025 session operations) are refused as the stateless SDK does.
 */
export function jsonLegacyHandler(modern: McpHttpHandler, create: () => Promise<McpServer>, streamRead?: StreamRead): { fetch: McpHttpHandler['fetch'] } {
  return {
    fetch: async (request: Request, options?: FetchOptions) => {
      const method = request.method.toUpperCase();
      if (method === 'GET' || method === 'DELETE') {
        return Response.json(
          { jsonrpc: '2.0', error: { code: -32600, message: 'Method not allowed.' }, id: null },
          { status: 405, headers: { allow: 'POST' } },
        );
      }
      const parsedBody = options?.parsedBody;
      if (method !== 'POST' || parsedBody === undefined || !(await isLegacyRequest(request, parsedBody)))
        return documentedCode(await modern.fetch(request, options));
      // A batch is answered one message at a time, each built when the reader has taken the one before: answers
      // are not all held at once for a client that does not read (32 reads of an 11 MB file were 2 GB).
      if (Array.isArray(parsedBody) && !parsedBody.some(isInitialize)) return batchAnswer(request, parsedBody, (message) => answerOne(message), streamRead);
      const response = await documentedCode(await answerOne(parsedBody));
      return Array.isArray(parsedBody) ? asBatchAnswer(response) : response;

      async function answerOne(message: unknown): Promise<Response> {
        const server = await create();
        const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        await server.connect(transport);
        const teardown = () => {
          void transport.close().catch(() => {});
          void server.close().catch(() => {});
        };
        request.signal?.addEventListener('abort', teardown, { once: true });
        try {
          return await transport.handleRequest(acceptLowercased(request), {
            ...(options?.authInfo !== undefined ? { authInfo: options.authInfo } : {}),
            parsedBody: message,
          });
        } finally {
          request.signal?.removeEventListener('abort', teardown);
          teardown();
        }
      }
    },
  };
}

/**
 * The SDK answers a body that is not `application/json` (415), a method /mcp does not take (405) and an Accept
 * without `application/json` and `text/event-stream` (406) with -32000, a server error; this server's refusals of a
 * request it cannot take as JSON-RPC at all carry -32600 (docs/api.md), as the Python SDK's do. The SDK still decides
 * what it refuses; only the code is changed.
 */
async function documentedCode(response: Response): Promise<Response> {
  if (response.status !== 415 && response.status !== 405 && response.status !== 406) return response;
  const answer = (await response.json()) as { error?: { code?: unknown } };
  if (answer.error?.code === -32000) answer.error.code = -32600;
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return Response.json(answer, { status: response.status, headers });
}

/**
 * Media types are case-insensitive (RFC 9110, 8.3.1), but the SDK's transport looks for `application/json` and
 * `text/event-stream` in the Accept header as written, so `Accept: Application/JSON, Text/Event-Stream` got a 406:
 * it sees the header lowercased. The body was parsed already (passed as parsedBody), so the copy carries none.
 */
function acceptLowercased(request: Request): Request {
  const accept = request.headers.get('accept');
  if (accept === null || accept === accept.toLowerCase()) return request;
  const headers = new Headers(request.headers);
  headers.set('accept', accept.toLowerCase());
  return new Request(request.url, { method: request.method, headers, signal: request.signal });
}

/**
 * The answer to a batch is an array (JSON-RPC 2.0, section 6), however many answers it holds: the SDK's JSON-mode
 * transport answers a batch that produced one answer (one request, or a request and notifications) with that bare
 * object, which a client matching answers to a batch does not expect.
 */
async function asBatchAnswer(response: Response): Promise<Response> {
  if (response.status !== 200 || !(response.headers.get('content-type') ?? '').startsWith('application/json')) return response;
  const answer: unknown = await response.json();
  return Response.json(Array.isArray(answer) ? answer : [answer], { status: response.status, headers: response.headers });
}

function isInitialize(message: unknown): boolean {
  return message !== null && typeof message === 'object' && (message as { method?: unknown }).method === 'initialize';
}

/** A request (it has an id and a method) is answered; notifications and client responses are not (JSON-RPC 2.0, 6). */
function expectsAnswer(message: unknown): boolean {
  if (message === null || typeof message !== 'object') return false;
  const { id, method } = message as { id?: unknown; method?: unknown };
  return typeof method === 'string' && (typeof id === 'string' || typeof id === 'number');
}

/**
 * The batch's answers as one JSON array streamed element by element: the next message is answered only when the
 * stream is pulled (highWaterMark 0), which the node adapter does once the socket has drained, so at most one
 * answer is held per batch, and it leaves in windows, so the socket never queues a whole one. A read of a large
 * file is not built at all: `streamRead` gives its parts, made as they are sent. A batch with nothing to answer is
 * 202, as the SDK answers it.
 */
function batchAnswer(request: Request, batch: unknown[], answerOne: (message: unknown) => Promise<Response>, streamRead?: StreamRead): Response {
  if (!batch.some(expectsAnswer)) {
    void (async () => {
      for (const message of batch) await (await answerOne(message)).body?.cancel();
    })();
    return new Response(null, { status: 202 });
  }
  const encoder = new TextEncoder();
  const streams = streamRead !== undefined && streamable(request);
  let at = 0;
  let written = 0;
  // The parts of the answer being sent.
  let pending: Iterator<Uint8Array> | undefined;
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        for (;;) {
          if (request.signal?.aborted) return controller.close();
          const part = pending?.next();
          if (part !== undefined && !part.done) return controller.enqueue(part.value);
          pending = undefined;
          if (at >= batch.length) break;
          const message = batch[at++];
          const parts = streams && expectsAnswer(message) ? await streamRead(message) : undefined;
          if (parts !== undefined) {
            pending = withSeparator(written++ === 0 ? '[' : ',', parts[Symbol.iterator]());
            continue;
          }
          const response = await answerOne(message);
          const text = expectsAnswer(message) ? (await response.text()).trim() : (await response.body?.cancel(), '');
          if (text === '') continue;
          pending = windows((written++ === 0 ? '[' : ',') + text);
        }
        controller.enqueue(encoder.encode(written === 0 ? '[]' : ']'));
        controller.close();
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(stream, { status: 200, headers: { 'content-type': 'application/json' } });

  function* windows(text: string): Generator<Uint8Array> {
    for (let sent = 0; sent < text.length; sent += WINDOW) yield encoder.encode(text.slice(sent, sent + WINDOW));
  }
  function* withSeparator(separator: string, parts: Iterator<Uint8Array>): Generator<Uint8Array> {
    yield encoder.encode(separator);
    for (let part = parts.next(); !part.done; part = parts.next()) yield part.value;
  }
}

/** Characters of a batch's answer sent per write. */
const WINDOW = 64 * 1024;

/**
 * Whether the SDK would answer this request's elements at all (Accept names both media types, the version header is
 * absent or a 2025 one): only then is an element answered without it, so a refused request stays the SDK's answer.
 */
function streamable(request: Request): boolean {
  const accept = (request.headers.get('accept') ?? '').toLowerCase();
  const version = request.headers.get('mcp-protocol-version');
  return accept.includes('application/json') && accept.includes('text/event-stream') && (version === null || LEGACY_VERSIONS.has(version));
}
