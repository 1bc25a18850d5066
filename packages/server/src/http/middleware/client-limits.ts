import type { ServerResponse } from 'node:http';
import { principalKey } from '../../access/principal.js';
import type { Principal } from '../../access/principal.js';
import type { ClientAddressing } from '../client-address.js';
import { errorBody } from '../errors.js';
import type { OpenCounts } from '../open-counts.js';
import type { HttpContext, HttpMiddleware } from '../routes.js';

/**
 * Answers in progress, counted per client address (the peer, or behind a trusted proxy the address it forwards) and,
 * after authentication, per principal (tokens and JWTs: with `--auth none` everyone is one principal). Past a cap:
 * 429 with one line naming the flag. Each slot is given back when the answer closes; `slots` lets a route trade them
 * (a `subscriptions/listen` stream holds a stream slot instead).
 */
export function perClient(addressing: ClientAddressing, counts: OpenCounts): HttpMiddleware {
  return async (c, next) => {
    const client = addressing.clientAddress(c.env.incoming);
    const release = holdSlot(counts, client, c.env.outgoing);
    if (release === undefined) return refuse(c, `Too many requests in progress from ${client}: at most ${counts.max} at a time (--max-requests-per-client)`);
    c.set('client', client);
    c.set('slots', [release]);
    await next();
  };
}

export function perPrincipal(counts: OpenCounts): HttpMiddleware {
  return async (c, next) => {
    const principal = c.get('principal');
    if (!countsPerPrincipal(principal)) return next();
    const release = holdSlot(counts, principalKey(principal), c.env.outgoing);
    if (release === undefined) return refuse(c, perPrincipalRefusal(counts));
    c.get('slots')?.push(release);
    await next();
  };
}

/** Whether a principal's answers in progress are counted: tokens and JWTs (with `--auth none` everyone is one). */
export function countsPerPrincipal(principal: Principal): boolean {
  return principal.via === 'token' || principal.via === 'jwt';
}

/** A request slot of `key`, given back when the answer closes; undefined when `key` already holds the cap. */
export function holdSlot(counts: OpenCounts, key: string, res: ServerResponse): (() => void) | undefined {
  const release = counts.take(key);
  if (release !== undefined) res.once('close', release);
  return release;
}

export function perPrincipalRefusal(counts: OpenCounts): string {
  return `Too many requests in progress for this credential: at most ${counts.max} at a time (--max-requests-per-principal)`;
}

function refuse(c: HttpContext, message: string): Response {
  if (c.req.path.startsWith('/api/')) return c.json(errorBody('too_many_requests', message), 429, { 'retry-after': '1' });
  return c.json({ jsonrpc: '2.0', error: { code: -32600, message }, id: null }, 429, { 'retry-after': '1' });
}
