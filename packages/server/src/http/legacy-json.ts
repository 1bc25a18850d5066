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
        return await transport.handleRequest(request, { ...(options?.authInfo !== undefined ? { authInfo: options.authInfo } : {}), parsedBody });
      } finally {
        teardown();
      }
    },
  };
}
