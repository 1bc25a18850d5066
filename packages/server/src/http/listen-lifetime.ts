import { SERVER_INFO_META_KEY, SUBSCRIPTION_ID_META_KEY } from '@modelcontextprotocol/server';
import type { McpHttpHandler } from '@modelcontextprotocol/server';
import type { ServerIdentity } from '../mcp/identity.js';

/**
 * The idle lifetime of a `subscriptions/listen` stream (`--stream-lifetime`): a stream that has carried no change
 * notification for `idleMs` is ended the way the SDK ends its streams at shutdown, with the listen request's result
 * (`resultType: "complete"`, the subscription id and the server's identity in `_meta`), which the SDK client takes
 * as a graceful close and may listen again after. The SDK's keep-alive comments do not count as activity. Ending it
 * cancels the SDK's stream, which unsubscribes it from the principal's event bus.
 */
export function withIdleLifetime(response: Response, id: string | number, idleMs: number, identity: ServerIdentity): Response {
  const body = response.body;
  if (body === null || !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) return response;
  const reader = body.getReader();
  const encoder = new TextEncoder();
  let timer: NodeJS.Timeout | undefined;
  let ended = false;
  const end = (controller: ReadableStreamDefaultController<Uint8Array>, graceful: boolean) => {
    if (ended) return;
    ended = true;
    clearTimeout(timer);
    if (graceful) {
      const result = { resultType: 'complete', _meta: { [SUBSCRIPTION_ID_META_KEY]: id, [SERVER_INFO_META_KEY]: identity } };
      controller.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result })}\n\n`));
      controller.close();
    }
    void reader.cancel().catch(() => {});
  };
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => end(controller, true), idleMs);
        timer.unref();
      };
      arm();
      // Pumped here rather than on pull: the idle timer must fire whether or not the client is reading.
      void (async () => {
        try {
          for (;;) {
            const { done, value } = await reader.read();
            if (ended) return;
            if (done) {
              ended = true;
              clearTimeout(timer);
              controller.close();
              return;
            }
            if (!isKeepAlive(value)) arm();
            controller.enqueue(value);
          }
        } catch (error) {
          if (ended) return;
          ended = true;
          clearTimeout(timer);
          controller.error(error);
        }
      })();
    },
    cancel() {
      ended = true;
      clearTimeout(timer);
      return reader.cancel().catch(() => {});
    },
  });
  return new Response(stream, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/** An SSE comment (`: keepalive`), which carries nothing for the client. */
function isKeepAlive(chunk: Uint8Array): boolean {
  return chunk.length > 0 && chunk[0] === 0x3a;
}

type FetchHandler = { fetch: McpHttpHandler['fetch'] };

/** A handler whose `subscriptions/listen` streams end after `idleMs` without a change notification. */
export function listenLifetime(inner: FetchHandler, idleMs: number, identity: ServerIdentity): FetchHandler {
  return {
    fetch: async (request, options) => {
      const response = await inner.fetch(request, options);
      const body = options?.parsedBody as { method?: unknown; id?: unknown } | undefined;
      if (body === null || typeof body !== 'object' || Array.isArray(body) || body.method !== 'subscriptions/listen') return response;
      const id = body.id;
      return typeof id === 'string' || typeof id === 'number' ? withIdleLifetime(response, id, idleMs, identity) : response;
    },
  };
}
