import { WebStandardStreamableHTTPServerTransport, isLegacyRequest } from '@modelcontextprotocol/server';
import type { McpHttpHandler, McpServer } from '@modelcontextprotocol/server';

type FetchOptions = Parameters<McpHttpHandler['fetch']>[1];

/**
 * 2025-era (stateless) requests answered as plain `application/json` (one JSON-RPC message, or an array for a batch)
 * rather than an SSE stream of one event: the SDK's own stateless fallback always streams. Nothing this server does
 * in answer to a 2025-era request streams (no progress, no server-to-client requests), and a 2025 client accepts
 * both. 2026-era requests go to the SDK's handler, which answers JSON by itself and streams what genuinely streams
 * (`subscriptions/listen`). GET and DELETE (2025 session operations) are refused as the stateless SDK does.
 */
export function jsonLegacyHandler(modern: McpHttpHandler, create: () => Promise<McpServer>): { fetch: McpHttpHandler['fetch'] } {
  return {
    fetch: async (request: Request, options?: FetchOptions) => {
      const method = request.method.toUpperCase();
      if (method === 'GET' || method === 'DELETE') {
        return Response.json(
          { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null },
          { status: 405, headers: { allow: 'POST' } },
        );
      }
      const parsedBody = options?.parsedBody;
      if (method !== 'POST' || parsedBody === undefined || !(await isLegacyRequest(request, parsedBody))) return modern.fetch(request, options);
      const server = await create();
      const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await server.connect(transport);
      const teardown = () => {
        void transport.close().catch(() => {});
        void server.close().catch(() => {});
      };
      request.signal?.addEventListener('abort', teardown, { once: true });
      try {
        const response = await transport.handleRequest(acceptLowercased(request), {
          ...(options?.authInfo !== undefined ? { authInfo: options.authInfo } : {}),
          parsedBody,
        });
        return Array.isArray(parsedBody) ? asBatchAnswer(response) : response;
      } finally {
        teardown();
      }
    },
  };
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
