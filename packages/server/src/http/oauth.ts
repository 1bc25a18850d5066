import type { IncomingMessage } from 'node:http';
import type { AccessControl } from '../access/access-control.js';
import { SCOPES } from '../access/principal.js';
import type { Scope } from '../access/principal.js';

/**
 * What MCP clients expect of a protected server (MCP authorization; RFC 6750 and RFC 9728): a request without
 * valid credentials gets 401 with `WWW-Authenticate: Bearer resource_metadata="…"`, pointing at the protected resource
 * metadata served at `/.well-known/oauth-protected-resource/mcp` (and at the bare well-known path); a valid
 * principal without the scope a request needs gets 403 with `error="insufficient_scope"`.
 *
 * These are the only answers whose body is not `{"error": {"code", "message"}}`: RFC 6750 defines their shape.
 * They are built as plain answers so that /mcp (node:http) and the router (Hono) write the same bytes.
 */
export const METADATA_PATH = '/.well-known/oauth-protected-resource';
export const MCP_PATH = '/mcp';

/** A complete HTTP answer, to be written by whichever layer owns the response. */
export interface Answer {
  status: 401 | 403 | 503;
  headers: Record<string, string>;
  body: string;
}

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

/** The caller's credential cannot be checked now (the access store is away and this replica has not seen it). */
export function authUnavailable(description: string): Answer {
  return answer(503, { 'retry-after': '1' }, { error: { code: 'store_unavailable', message: description } });
}

/** The answer to a failed authentication: 401 (RFC 6750), or 503 when the credential could not be checked. */
export function refused(access: AccessControl, req: IncomingMessage, auth: { status: 401 | 503; error?: string | undefined; description: string }): Answer {
  return auth.status === 503 ? authUnavailable(auth.description) : unauthorized(access, req, auth.error, auth.description);
}

export function unauthorized(access: AccessControl, req: IncomingMessage, error: string | undefined, description: string): Answer {
  const parts = [`resource_metadata=${quote(metadataUrl(access, req))}`];
  if (error !== undefined) parts.push(`error=${quote(error)}`, `error_description=${quote(description)}`);
  return answer(401, { 'www-authenticate': `Bearer ${parts.join(', ')}` }, { error: error ?? 'unauthorized', error_description: description });
}

export function forbidden(access: AccessControl, req: IncomingMessage, scope: Scope): Answer {
  const header = `Bearer error="insufficient_scope", scope="${scope}", resource_metadata=${quote(metadataUrl(access, req))}, error_description="This needs the ${scope} scope"`;
  access.metrics.error('forbidden');
  return answer(403, { 'www-authenticate': header }, { error: 'insufficient_scope', error_description: `This needs the ${scope} scope`, scope });
}

function answer(status: Answer['status'], headers: Record<string, string>, value: unknown): Answer {
  const body = JSON.stringify(value);
  return {
    status,
    headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), 'cache-control': 'no-store' },
    body,
  };
}
