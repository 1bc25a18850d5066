import { parseSkillUri } from '@skillport/core';
import type { JSONRPCMessage, MessageExtraInfo, Transport, TransportSendOptions } from '@modelcontextprotocol/server';

/**
 * The SDK's resources/read handler parses the requested URI with `new URL()`, which resolves `.`, `..` and their
 * percent-encoded forms before the skill source sees it, so `skill://a/x/../b/SKILL.md` would read skill `b`. The
 * serving rules refuse every such path trick, so resources/read requests are checked on their raw URI, before
 * the SDK, on every transport: HTTP calls `refusal` from its request handler, stdio wraps its transport.
 */
export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: string | number;
  error: { code: number; message: string; data?: unknown };
}

/** The error to answer instead of the SDK, or undefined when the message may go on. */
export function refusal(message: unknown): JsonRpcErrorResponse | undefined {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return undefined;
  const { method, id, params } = message as { method?: unknown; id?: unknown; params?: { uri?: unknown } };
  if (method !== 'resources/read' || (typeof id !== 'string' && typeof id !== 'number')) return undefined;
  const uri = params?.uri;
  if (typeof uri !== 'string' || !/^skill:/i.test(uri)) return undefined;
  const parsed = parseSkillUri(uri);
  if (parsed !== 'traversal' && parsed !== 'syntax') return undefined;
  // The same answer as for any URI that names nothing served.
  return { jsonrpc: '2.0', id, error: { code: -32602, message: `Resource not found: ${uri}`, data: { uri } } };
}

/**
 * For a JSON-RPC batch (an array; the 2025-era SDK accepts them): when any request in it would be refused, the whole
 * batch is answered here, each refused read with its refusal and every other request with an error, so no path
 * trick can reach the SDK inside a batch. Undefined when the body is not a batch or nothing in it is refused.
 */
export function batchRefusal(body: unknown): JsonRpcErrorResponse[] | undefined {
  if (!Array.isArray(body)) return undefined;
  const refused = body.map((item) => refusal(item));
  if (refused.every((item) => item === undefined)) return undefined;
  return body.flatMap((item, at): JsonRpcErrorResponse[] => {
    if (refused[at]) return [refused[at]!];
    const id = (item as { id?: unknown } | null)?.id;
    if (typeof id !== 'string' && typeof id !== 'number') return [];
    return [{ jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid Request: the batch holds a refused resources/read; send it without that request' } }];
  });
}

/** A transport that answers refused reads itself and passes everything else through untouched. */
export class GuardedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  constructor(private readonly inner: Transport) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      const refused = refusal(message);
      if (refused) void inner.send(refused as unknown as JSONRPCMessage).catch((error: unknown) => this.onerror?.(error as Error));
      else this.onmessage?.(message, extra);
    };
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  setProtocolVersion = (version: string): void => {
    this.inner.setProtocolVersion?.(version);
  };

  setSupportedProtocolVersions = (versions: string[]): void => {
    this.inner.setSupportedProtocolVersions?.(versions);
  };
}
