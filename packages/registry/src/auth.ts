import { createHash, timingSafeEqual } from 'node:crypto';
import { hasScope } from '@skillport/server';
import type { Principal } from '@skillport/server';

/**
 * Who may change the registry. One small interface so the identity work (scoped tokens, principals) can replace the
 * shared publish token without touching the routes: the routes ask before reading a request body.
 */
export type WriteAction = 'publish' | 'tag' | 'yank' | 'revoke' | 'review';

/**
 * `revokeAny`: the caller may revoke and review every name it sees (the admin scope, or the shared publish token);
 * otherwise only names a policy rule gives it revoke over (ADR 0180).
 */
export type WriteDecision = { ok: true; principal: string; revokeAny: boolean } | { ok: false; status: 401 | 403 | 503; message: string };

/** What a write request brings: its Authorization header, and the principal the server authenticated. */
export interface WriteRequest {
  authorization: string | undefined;
  principal: Principal | undefined;
}

export interface WriteAuthorizer {
  authorizeWrite(request: WriteRequest, action: WriteAction, target: { name?: string }): Promise<WriteDecision>;
}

/**
 * Until identities exist: every write needs `Authorization: Bearer <token>` equal to the server's
 * `SKILLPORT_TOKEN` (formerly SKILLPORT_PUBLISH_TOKEN). Without one the server refuses every write, so a registry is never writable
 * by accident.
 */
export class PublishTokenAuthorizer implements WriteAuthorizer {
  readonly #hash: Buffer | undefined;

  constructor(token: string | undefined) {
    this.#hash = token === undefined || token === '' ? undefined : digest(token);
  }

  async authorizeWrite(request: WriteRequest): Promise<WriteDecision> {
    if (this.#hash === undefined) {
      return {
        ok: false,
        status: 503,
        message:
          "this registry is read-only: the server was started without SKILLPORT_TOKEN, so it refuses every write (set it in the server's environment and send it as a Bearer token)",
      };
    }
    const header = request.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (match === null)
      return {
        ok: false,
        status: 401,
        message:
          "writes need Authorization: Bearer <token> (the server's SKILLPORT_TOKEN; skillport takes it from --token, SKILLPORT_TOKEN or skillport login)",
      };
    // Hashes of equal length, compared in constant time: the token's length and prefix leak nothing.
    if (!timingSafeEqual(digest(match[1]!), this.#hash)) return { ok: false, status: 403, message: 'the token is not valid for this registry' };
    return { ok: true, principal: 'publish-token', revokeAny: true };
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * With `--auth tokens|jwt`: the server authenticated the caller; writes need its scopes (publish; admin for revoke
 * and review, or publish plus the policy's revoke grant over the name) instead of the shared SKILLPORT_TOKEN
 * (docs/security.md). Which names it may write is decided per name by the routes' WriteGuard.
 */
export class ScopeAuthorizer implements WriteAuthorizer {
  async authorizeWrite(request: WriteRequest, action: WriteAction): Promise<WriteDecision> {
    const principal = request.principal;
    if (principal === undefined) return { ok: false, status: 401, message: 'writes need Authorization: Bearer <token>' };
    const who = principal.user ?? principal.agent ?? 'anonymous';
    if (action === 'revoke' || action === 'review') {
      if (hasScope(principal, 'admin')) return { ok: true, principal: who, revokeAny: true };
      // A publisher may still hold revoke over some names through the policy (org admins): decided per name.
      if (hasScope(principal, 'publish')) return { ok: true, principal: who, revokeAny: false };
      return { ok: false, status: 403, message: `${action} needs a token with the admin scope (or the publish scope and a policy rule giving it revoke)` };
    }
    if (!hasScope(principal, 'publish')) return { ok: false, status: 403, message: `${action} needs a token with the publish scope` };
    return { ok: true, principal: who, revokeAny: false };
  }
}

/**
 * Which names a writer may touch (ADR 0180), asked by the service once it knows the name (from the path, or from
 * the archive for a publish). A name the writer may not see is answered exactly as a name that is not published;
 * publishing one is refused exactly as publishing a name the writer may not create.
 */
export interface WriteGuard {
  /** Who writes, as versions record their publisher (a held version is shown to its publisher). */
  writer?: string;
  sees(name: string): boolean;
  /** For a name it sees: whether the writer may do `action` to it. */
  may(action: WriteAction, name: string): boolean;
}
