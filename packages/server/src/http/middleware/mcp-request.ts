import type { IncomingMessage, ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import { isJSONRPCNotification, isJSONRPCRequest, isJSONRPCResponse } from '@modelcontextprotocol/server';
import type { AccessControl } from '../../access/access-control.js';
import { screenRequest } from '../../mcp/request-screen.js';
import type { JsonRpcErrorResponse } from '../../mcp/uri-guard.js';
import { declaredTooLarge, readBodyLimited } from '../body.js';
import { clip, nestedDeeperThan } from '../limits.js';
import type { RequestLimits } from '../limits.js';
import { sendJson, sendJsonRpcError, tooLarge } from '../replies.js';
import type { HttpMiddleware } from '../routes.js';

/**
 * The MCP request screen, for POSTs of JSON to /mcp: the body read once within --max-body (413), nesting checked on
 * the raw text before it is parsed (400 -32600), parsed (400 -32700), a batch within --max-batch, and every JSON-RPC
 * request screened (mcp/request-screen.ts: URI length, params against the spec's schemas, path tricks; a batch reusing
 * an id is refused). What passes is `rpc` for the route; other methods and media types go on without one (the SDK
 * answers them).
 */
export function mcpRequest(access: AccessControl, limits: RequestLimits): HttpMiddleware {
  return async (c, next) => {
    const req = c.env.incoming;
    if (req.method !== 'POST' || !isJson(req)) return next();
    const rpc = await readRpc(access, limits, req, c.env.outgoing);
    if (rpc === undefined) return RESPONSE_ALREADY_SENT;
    c.set('rpc', rpc);
    await next();
  };
}

/** A screened JSON-RPC body on /mcp, and its method when it is one request. */
export interface Rpc {
  body: unknown;
  method?: string;
}

/** The screen of a POST of JSON: the body read, checked and parsed, or undefined once a refusal is written. */
export async function readRpc(access: AccessControl, limits: RequestLimits, req: IncomingMessage, res: ServerResponse): Promise<Rpc | undefined> {
  const raw = (await readBodyLimited(req, limits.maxBodyBytes))?.toString('utf8');
  if (raw === undefined) return answered(tooLarge(res, limits.maxBodyBytes));
  if (nestedDeeperThan(raw, limits.maxJsonDepth)) {
    access.metrics.error('bad_request');
    return answered(
      sendJsonRpcError(res, 400, -32600, `Invalid Request: the body nests arrays and objects deeper than ${limits.maxJsonDepth} levels (--max-json-depth)`),
    );
  }
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    access.metrics.error('bad_request');
    return answered(sendJsonRpcError(res, 400, -32700, 'Parse error: the request body is not valid JSON'));
  }
  const method =
    body !== null && typeof body === 'object' && !Array.isArray(body) && typeof (body as { method?: unknown }).method === 'string'
      ? (body as { method: string }).method
      : undefined;
  if (Array.isArray(body) && body.length > limits.maxBatch) {
    access.metrics.error('bad_request');
    return answered(
      sendJsonRpcError(res, 400, -32600, `Invalid Request: a batch of ${body.length} messages; this server takes at most ${limits.maxBatch} (--max-batch)`),
    );
  }
  const screened = screen(body, limits);
  if (screened) {
    access.metrics.error('bad_request');
    return answered(sendJson(res, screened.status, screened.response));
  }
  return { body, ...(method !== undefined ? { method } : {}) };
}

/** A body too large for /mcp is refused on its Content-Length, before anything (authentication included) reads it. */
export function mcpBodyLimit(limits: RequestLimits): HttpMiddleware {
  return async (c, next) => {
    if (!declaredTooLarge(c.env.incoming, limits.maxBodyBytes)) return next();
    void readBodyLimited(c.env.incoming, limits.maxBodyBytes); // discards what still comes, up to a cap
    return sent(tooLarge(c.env.outgoing, limits.maxBodyBytes));
  };
}

/** A refusal written to node's response: nothing for the route. */
function answered(_written: void): undefined {
  return undefined;
}

function sent(_written: void): Response {
  return RESPONSE_ALREADY_SENT;
}

export function isJson(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  return typeof type === 'string' && type.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/** The request checks every message passes before the fast path or the SDK: each message of a batch on its own. */
export function screen(body: unknown, limits: RequestLimits): { status: number; response: JsonRpcErrorResponse | JsonRpcErrorResponse[] } | undefined {
  if (!Array.isArray(body)) return screenRequest(body, limits);
  // A batch holding something that is no JSON-RPC message at all is refused whole, by the SDK (-32600).
  if (!body.every((item) => isJSONRPCRequest(item) || isJSONRPCNotification(item) || isJSONRPCResponse(item))) return undefined;
  const reused = reusedIds(body);
  const screened = body.map((item) => {
    const id = isJSONRPCRequest(item) ? item.id : undefined;
    if (id === undefined || !reused.has(id)) return screenRequest(item, limits);
    // Two requests of one batch with the same id cannot both be answered (their answers are told apart by id: the
    // SDK would answer one of them only), and MCP forbids reusing an id: both are refused.
    const message = `Invalid Request: the id ${clip(JSON.stringify(id), 100)} is used by another request of this batch; give each request an id of its own`;
    return { status: 400 as const, response: { jsonrpc: '2.0' as const, id, error: { code: -32600, message } } };
  });
  if (screened.every((item) => item === undefined)) return undefined;
  // One refused message refuses the batch: the others are answered with an error too, so none reaches the SDK.
  const status = screened.some((item) => item?.status === 400) ? 400 : 200;
  return {
    status,
    response: body.flatMap((item, at): JsonRpcErrorResponse[] => {
      if (screened[at]) return [screened[at]!.response];
      const id = (item as { id?: unknown } | null)?.id;
      if (typeof id !== 'string' && typeof id !== 'number') return [];
      return [
        { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid Request: another request of this batch was refused; send the batch again without it' } },
      ];
    }),
  };
}

/** The ids more than one request of a batch carries (1 and "1" are different ids). */
function reusedIds(batch: unknown[]): Set<string | number> {
  const seen = new Set<string | number>();
  const reused = new Set<string | number>();
  for (const item of batch) {
    if (!isJSONRPCRequest(item)) continue;
    if (seen.has(item.id)) reused.add(item.id);
    seen.add(item.id);
  }
  return reused;
}
