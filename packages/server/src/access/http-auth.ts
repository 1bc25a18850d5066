import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccessControl } from './access-control.js';
import { SCOPES } from './principal.js';
import type { Principal, Scope } from './principal.js';

/**
 * What MCP clients expect of a protected server (MCP authorization; RFC 6750 and RFC 9728): a request without
 * valid credentials gets 401 with `WWW-Authenticate: Bearer resource_metadata="…"`, pointing at the protected resource
 * metadata served at `/.well-known/oauth-protected-resource/mcp` (and at the bare well-known path); a valid
 * principal without the scope a request needs gets 403 with `error="insufficient_scope"`.
 */
export const METADATA_PATH = '/.well-known/oauth-protected-resource';
export const MCP_PATH = '/mcp';

export function resourceOrigin(access: AccessControl, req: IncomingMessage): string {
  if (access.options.resourceUrl !== undefined) return new URL(access.options.resourceUrl).origin;
  // The Host header has been validated against the allowed hosts before we get here (http/guards.ts).
  const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
  return `${encrypted ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}`;
}

export function metadataUrl(access: AccessControl, req: IncomingMessage): string {
  return `${resourceOrigin(access, req)}${METADATA_PATH}${MCP_PATH}`;
}

/** RFC 9728 protected resource metadata for the MCP endpoint. */
export function protectedResourceMetadata(access: AccessControl, req: IncomingMessage): Record<string, unknown> {
  const metadata: Record<string, unknown> = {
    resource: access.options.resourceUrl ?? `${resourceOrigin(access, req)}${MCP_PATH}`,
    bearer_methods_supported: ['header'],
    scopes_supported: [...SCOPES],
    resource_name: 'skillport',
  };
  const issuer = access.jwt?.options.issuer;
  if (issuer !== undefined) metadata['authorization_servers'] = Array.isArray(issuer) ? issuer : [issuer];
  return metadata;
}

function quote(text: string): string {
  return `"${text.replace(/["\\\r\n]/g, ' ')}"`;
}

export function sendUnauthorized(access: AccessControl, req: IncomingMessage, res: ServerResponse, error: string | undefined, description: string): void {
  const parts = [`resource_metadata=${quote(metadataUrl(access, req))}`];
  if (error !== undefined) parts.push(`error=${quote(error)}`, `error_description=${quote(description)}`);
  send(res, 401, { 'www-authenticate': `Bearer ${parts.join(', ')}` }, { error: error ?? 'unauthorized', error_description: description });
}

export function sendForbidden(access: AccessControl, req: IncomingMessage, res: ServerResponse, scope: Scope): void {
  const header = `Bearer error="insufficient_scope", scope="${scope}", resource_metadata=${quote(metadataUrl(access, req))}, error_description="This needs the ${scope} scope"`;
  access.metrics.error('forbidden');
  send(res, 403, { 'www-authenticate': header }, { error: 'insufficient_scope', error_description: `This needs the ${scope} scope`, scope });
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(body);
}

const principals = new WeakMap<IncomingMessage, Principal>();

/** Remembers who sent a request (set once it is authenticated), for routes mounted beside MCP (the registry API). */
export function attachPrincipal(req: IncomingMessage, principal: Principal): void {
  principals.set(req, principal);
}

/** Who sent an authenticated request; undefined before authentication. */
export function principalOf(req: IncomingMessage): Principal | undefined {
  return principals.get(req);
}
