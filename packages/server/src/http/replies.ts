import type { ServerResponse } from 'node:http';
import { errorBody } from './errors.js';
import type { Answer } from './oauth.js';

/** Answers written straight to node's response: the /mcp chain and the socket-level refusals share them. */
export function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * A refusal made before the router (a transport-level one): in the REST API's shape, `{"error": {"code", "message"}}`,
 * on `/api/` paths (docs/api.md), as a JSON-RPC error everywhere else (the MCP endpoint, and paths not known).
 */
export function transportRefusal(path: string | undefined, rpcCode: number, restCode: string, message: string): unknown {
  return (path?.startsWith('/api/') ?? false) ? errorBody(restCode, message) : { jsonrpc: '2.0', error: { code: rpcCode, message }, id: null };
}

export function sendTransportRefusal(res: ServerResponse, path: string | undefined, status: number, rpcCode: number, restCode: string, message: string): void {
  sendJson(res, status, transportRefusal(path, rpcCode, restCode, message));
}

/** 429 with one line naming the limit; the JSON-RPC id when the request had one. */
export function tooMany(res: ServerResponse, message: string, id: unknown = null): void {
  const rpcId = typeof id === 'string' || typeof id === 'number' ? id : null;
  sendJson(res, 429, { jsonrpc: '2.0', error: { code: -32600, message }, id: rpcId }, { 'retry-after': '1' });
}

export function sendAnswer(res: ServerResponse, answer: Answer): void {
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}

export function tooLarge(res: ServerResponse, limit: number): void {
  const body = JSON.stringify({ jsonrpc: '2.0', error: { code: -32600, message: `Request body larger than ${limit} bytes (--max-body)` }, id: null });
  // Answered before the body is read (body.ts drops what still comes, and cuts a client that goes on too long).
  res.writeHead(413, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/**
 * An answer written as the router's adapter writes a Response (the direct /mcp route answers its refusals in the
 * same bytes as the router): header names lower-cased in sorted order, then the length when they did not give it.
 */
export function sendAsRouter(res: ServerResponse, status: number, headers: Record<string, string>, body: string): void {
  const written: Record<string, string | number> = {};
  const named = Object.entries(headers).map(([name, value]): [string, string] => [name.toLowerCase(), value]);
  named.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [name, value] of named) written[name] = value;
  if (!('content-length' in written)) written['content-length'] = Buffer.byteLength(body);
  res.writeHead(status, written);
  res.end(body);
}

/** `c.json(value, status, headers)` of the router, written straight to node's response. */
export function sendJsonAsRouter(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  sendAsRouter(res, status, { 'content-type': 'application/json', ...headers }, JSON.stringify(value));
}
