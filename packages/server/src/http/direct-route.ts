import type { IncomingMessage, ServerResponse } from 'node:http';
import { hasScope, principalKey } from '../access/principal.js';
import { declaredTooLarge, discardRest } from './body.js';
import type { ClientAddressing } from './client-address.js';
import { armExpiry, capStream, handleMcp, observeAnswer } from './mcp-route.js';
import type { McpRouteOptions } from './mcp-route.js';
import { countsPerPrincipal, holdSlot, perPrincipalRefusal } from './middleware/client-limits.js';
import { requestPrincipal } from './middleware/authenticate.js';
import { isJson, readRpc } from './middleware/mcp-request.js';
import type { Rpc } from './middleware/mcp-request.js';
import { forbidden, refused } from './oauth.js';
import type { Answer } from './oauth.js';
import type { OpenCounts } from './open-counts.js';
import { sendAsRouter, sendJsonAsRouter } from './replies.js';

/**
 * The direct route (ADR 0277): a POST of JSON to exactly `/mcp`, the request nearly all MCP traffic is, answered
 * without the router's adapter (a Web Request per request) and its promise per middleware hop. It runs the router's
 * checks for /mcp in the router's order, through the same functions: answers in progress per client address,
 * the body limit, authentication, expiry, the `read` scope, per principal, the timing metric, the MCP screen, the
 * stream caps, then the fast path or the SDK. Refusals are written in the router's bytes (a test compares both
 * routes). A request it does not take (another method, path or media type; a refusal decided before anything was
 * done: the per-address cap, a declared oversize body; a router whose /mcp chain is not exactly the one it stands
 * for, as when a public route adds middleware) is left to the router: `take` returns undefined.
 */
export interface DirectRouteOptions extends McpRouteOptions {
  addressing: ClientAddressing;
  requestsPerClient: OpenCounts;
  requestsPerPrincipal: OpenCounts;
  /** Whether the router's chain for POST /mcp is the one this route stands for (asked once, at the first request). */
  routerIsPlain(): boolean;
}

export type DirectRoute = (req: IncomingMessage, res: ServerResponse) => Promise<void> | undefined;

export function directMcp(options: DirectRouteOptions): DirectRoute {
  const { access, limits, addressing, requestsPerClient, requestsPerPrincipal } = options;
  let plain: boolean | undefined;
  return (req, res) => {
    if (req.method !== 'POST' || req.url !== '/mcp' || !isJson(req) || declaredTooLarge(req, limits.maxBodyBytes)) return undefined;
    if (options.early?.pending()) return undefined;
    plain ??= options.routerIsPlain();
    if (!plain) return undefined;
    const client = addressing.clientAddress(req);
    const release = holdSlot(requestsPerClient, client, res);
    if (release === undefined) return undefined;
    options.counters.direct++;
    return answer(req, res, client, [release]).catch((error: unknown) => {
      // What the router's error handler does for /mcp.
      if (res.headersSent) return void res.destroy(error instanceof Error ? error : undefined);
      access.metrics.error('internal');
      sendJsonAsRouter(res, 500, { jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null });
    });
  };

  async function answer(req: IncomingMessage, res: ServerResponse, client: string, slots: Array<() => void>): Promise<void> {
    const auth = await requestPrincipal(access, req);
    if (!('principal' in auth)) return refuse(req, res, refused(access, req, auth));
    const { principal } = auth;
    armExpiry(principal, res);
    if (!hasScope(principal, 'read')) return refuse(req, res, forbidden(access, req, 'read'));
    if (countsPerPrincipal(principal)) {
      const release = holdSlot(requestsPerPrincipal, principalKey(principal), res);
      if (release === undefined) {
        sendJsonAsRouter(
          res,
          429,
          { jsonrpc: '2.0', error: { code: -32600, message: perPrincipalRefusal(requestsPerPrincipal) }, id: null },
          { 'retry-after': '1' },
        );
        return leaveBody(req);
      }
      slots.push(release);
    }
    let rpc: Rpc | undefined;
    observeAnswer(access, res, () => rpc?.method);
    rpc = await readRpc(access, limits, req, res);
    if (rpc === undefined) return;
    if (!capStream(options, rpc, client, principal, slots, res)) return;
    await handleMcp(options, req, res, principal, rpc);
  }

  function refuse(req: IncomingMessage, res: ServerResponse, refusal: Answer): void {
    sendAsRouter(res, refusal.status, refusal.headers, refusal.body);
    leaveBody(req);
  }

  /** A body left unread by a refusal is read and dropped (the connection stays usable), within twice the limit. */
  function leaveBody(req: IncomingMessage): void {
    if (!req.readableEnded) discardRest(req, limits.maxBodyBytes);
  }
}
