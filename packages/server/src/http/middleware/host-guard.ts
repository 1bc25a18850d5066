import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkRequest } from '../guards.js';
import { errorBody } from '../errors.js';
import { sendJson } from '../replies.js';

/**
 * DNS-rebinding and cross-origin protection, the first step for every path (http/guards.ts decides): a Host that
 * does not name this server, or a browser Origin that is neither this server's own nor listed (`--allowed-origin`),
 * is a 403, as JSON under /api/ and as JSON-RPC elsewhere.
 * It runs on node's request, before the router: the router's adapter builds each request's URL from the Host header
 * and would answer a malformed one (`127.0.0.1:80@evil.example`) with its own 400 before any middleware saw it.
 * Returns whether the request may go on.
 */
export function hostGuard(hostnames: string[], origins?: ReadonlySet<string>): (req: IncomingMessage, res: ServerResponse) => boolean {
  // Host values already accepted for a request without Origin (the verdict depends on the value alone): a client
  // sends the same one with every request, and judging it parses a URL. Bounded: emptied when full.
  const accepted = new Set<string>();
  return (req, res) => {
    const host = req.headers.host;
    if (host !== undefined && req.headers.origin === undefined && accepted.has(host)) return true;
    const refused = checkRequest(req, hostnames, origins);
    if (refused === undefined) {
      if (host !== undefined && req.headers.origin === undefined && host.length <= 300) {
        if (accepted.size >= 256) accepted.clear();
        accepted.add(host);
      }
      return true;
    }
    if ((req.url ?? '').startsWith('/api/')) sendJson(res, refused.status, errorBody(refused.code, refused.message));
    else sendJson(res, refused.status, { jsonrpc: '2.0', error: { code: -32600, message: refused.message }, id: null });
    return false;
  };
}
