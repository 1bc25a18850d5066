import { specTypeSchemas } from '@modelcontextprotocol/server';
import type { JSONRPCMessage, MessageExtraInfo, SpecTypeName, Transport, TransportSendOptions } from '@modelcontextprotocol/server';
import { DEFAULT_REQUEST_LIMITS, clip } from '../http/limits.js';
import { refusal } from './uri-guard.js';
import type { JsonRpcErrorResponse } from './uri-guard.js';

/**
 * Screens one JSON-RPC request before the SDK sees it, on every transport, so that bad input gets a clear -32602 of
 * one line rather than a stall, a -32603 or a validation dump:
 * - a `uri` longer than the limit is refused before anything parses it (a multi-megabyte URI of millions of segments
 *   would otherwise hold the event loop in URL parsing and be echoed back in the error);
 * - the params of the spec methods this server answers are checked against the spec's own schemas (the SDK checks
 *   the same, but answers a failure as -32603 with the raw issue array);
 * - path tricks in resources/read URIs are refused (uri-guard.ts).
 */
export interface ScreenOptions {
  maxUriLength: number;
}

/** The spec request each method's params are checked against. */
const SPEC_REQUESTS: Record<string, SpecTypeName> = {
  'resources/subscribe': 'SubscribeRequest',
  'resources/unsubscribe': 'UnsubscribeRequest',
  'prompts/get': 'GetPromptRequest',
  'tools/call': 'CallToolRequest',
  'completion/complete': 'CompleteRequest',
  'logging/setLevel': 'SetLevelRequest',
  'tools/list': 'ListToolsRequest',
  'prompts/list': 'ListPromptsRequest',
  'resources/list': 'ListResourcesRequest',
  'resources/templates/list': 'ListResourceTemplatesRequest',
};

/**
 * The methods of the HTTP fast path (ADR 0002) are checked by hand, which costs next to nothing per request: the
 * skills extension's, whose errors are no clearer than the SDK's, and resources/read (its spec params are a uri).
 */
const EXTENSION_PARAMS: Record<string, Record<string, 'string'>> = {
  'resources/read': { uri: 'string' },
  'skills/list': { cursor: 'string' },
  'skills/get': { uri: 'string' },
  'resources/directory/read': { uri: 'string', cursor: 'string' },
};
const EXTENSION_REQUIRED: Record<string, string[]> = { 'resources/read': ['uri'], 'skills/get': ['uri'], 'resources/directory/read': ['uri'] };

/** A refused request: its answer, and the HTTP status to send it with (400 for bad params, 200 for "not found"). */
export interface Screened {
  response: JsonRpcErrorResponse;
  status: 200 | 400;
}

export function screenRequest(message: unknown, options: ScreenOptions): Screened | undefined {
  if (!isJsonRpcRequest(message)) return undefined;
  const { method, id, params } = message;
  const fail = (text: string): Screened => ({ status: 400, response: { jsonrpc: '2.0', id, error: { code: -32602, message: text } } });
  // JSON-RPC 2.0 (4.2): params, when present, are a structured value; null, a string or a number makes the message
  // an Invalid Request. An array is a valid request whose params this server's methods do not take (by name only).
  if (params !== undefined && (params === null || typeof params !== 'object')) {
    return {
      status: 400,
      response: {
        jsonrpc: '2.0',
        id,
        error: { code: -32600, message: `Invalid Request: params of ${clip(method, 100)} must be an object, not ${kindOf(params)}` },
      },
    };
  }
  if (Array.isArray(params)) return fail(`Invalid params for ${clip(method, 100)}: params must be an object`);
  const p = (params ?? {}) as Record<string, unknown>;
  for (const uri of [p['uri'], (p['ref'] as { uri?: unknown } | undefined)?.uri]) {
    if (typeof uri === 'string' && uri.length > options.maxUriLength) {
      return fail(
        `Invalid params for ${clip(method, 100)}: the uri is ${uri.length} characters long, more than this server's limit of ${options.maxUriLength} (--max-uri-length)`,
      );
    }
  }
  const spec = SPEC_REQUESTS[method];
  if (spec !== undefined) {
    const schema = specTypeSchemas[spec] as { '~standard': { validate(value: unknown): unknown } };
    const result = schema['~standard'].validate({ method, ...(params !== undefined ? { params } : {}) }) as {
      issues?: ReadonlyArray<{ path?: ReadonlyArray<unknown>; message: string }>;
    };
    const issue = result?.issues?.[0];
    if (issue !== undefined) return fail(`Invalid params for ${method}: ${describeIssue(issue)}`);
  }
  const fields = EXTENSION_PARAMS[method];
  if (fields !== undefined) {
    for (const name of EXTENSION_REQUIRED[method] ?? []) if (p[name] === undefined) return fail(`Invalid params for ${method}: params.${name} is required`);
    for (const [name, type] of Object.entries(fields)) {
      if (p[name] !== undefined && typeof p[name] !== type)
        return fail(`Invalid params for ${method}: params.${name}: expected ${type}, received ${kindOf(p[name])}`);
    }
  }
  // A path trick answers exactly like a URI that names nothing served (HTTP 200, as the SDK answers those).
  const refused = refusal(message);
  return refused === undefined ? undefined : { status: 200, response: refused };
}

const REQUEST_MEMBERS = new Set(['jsonrpc', 'id', 'method', 'params']);

/**
 * A JSON-RPC 2.0 request as the SDK reads one: `jsonrpc` "2.0", a string or safe-integer id, a method, nothing else
 * at the top level. Anything else is not screened: the SDK answers it as an Invalid Request (-32600), which is what it
 * is, whatever its params hold.
 */
function isJsonRpcRequest(message: unknown): message is { jsonrpc: '2.0'; id: string | number; method: string; params?: unknown } {
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return false;
  const { jsonrpc, id, method } = message as { jsonrpc?: unknown; id?: unknown; method?: unknown };
  if (jsonrpc !== '2.0' || typeof method !== 'string' || !(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) return false;
  for (const key of Object.keys(message)) if (!REQUEST_MEMBERS.has(key)) return false;
  return true;
}

function describeIssue(issue: { path?: ReadonlyArray<unknown>; message: string }): string {
  const path = (issue.path ?? [])
    .map((part) => (typeof part === 'object' && part !== null && 'key' in part ? String((part as { key: unknown }).key) : String(part)))
    .join('.');
  const text = issue.message.replace(/^Invalid input: /, '').replace(/\s+/g, ' ');
  return clip(path === '' ? text : `${path}: ${text}`, 300);
}

function kindOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}

/** A transport that answers refused requests itself (request-screen.ts) and passes everything else through untouched. */
export class GuardedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  constructor(
    private readonly inner: Transport,
    maxUriLength = DEFAULT_REQUEST_LIMITS.maxUriLength,
    /** Called on every message in and out (activity.ts: background work waits while a client is talking). */
    private readonly onActivity?: () => void,
  ) {
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      this.onActivity?.();
      const refused = screenRequest(message, { maxUriLength })?.response;
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
    this.onActivity?.();
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
