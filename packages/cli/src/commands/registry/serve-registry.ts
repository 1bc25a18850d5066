import type { SkillLimits } from '@skillport/core';
import type { IncomingMessage } from 'node:http';
import type { HttpRoute, Principal, SkillProvider } from '@skillport/server';
import { plural } from '../../output.js';
import { versionHistory } from './web-history.js';

/** The registry part of `serve --data DIR|postgres://…`: the store's skills as a catalog provider, /api/v1, and /healthz figures. */
export interface ServeRegistryOptions {
  data: string;
  trustedKeys?: string;
  requireSignatures?: boolean;
  registryTag?: string;
  prefix?: string;
  limits: Partial<SkillLimits>;
  onProblem: (message: string) => void;
  /** One line per registry write through the API (publish, tag, yank, revoke, review); absent with --quiet. */
  onEvent?: (line: string) => void;
  /**
   * With `--auth tokens|jwt`: writes need the caller's scopes (publish; admin for revoke and review) instead of
   * SKILLPORT_PUBLISH_TOKEN. With `--auth none` the shared publish token stays (docs/security.md).
   */
  scoped?: boolean;
  /** Whether the caller of a request may see a skill name (bound once the server exists). */
  canSee?: (req: IncomingMessage, name: string) => boolean;
}

export interface ServedRegistry {
  providers: SkillProvider[];
  routes: HttpRoute[];
  health: () => Record<string, unknown>;
  /** For /readyz: caught up with the store (with PostgreSQL, the database every replica shares). */
  ready: () => Promise<{ ready: boolean; reason?: string }>;
  summary: () => string;
  /** Published versions for the web catalog's skill pages. */
  history: import('@skillport/web').VersionHistory;
  close(): Promise<void>;
}

export async function serveRegistry(options: ServeRegistryOptions): Promise<ServedRegistry> {
  // Loaded only when --data is given: the store's native SQLite module is not needed to serve folders.
  const { openRegistry, redactUrl, isPostgresUrl } = await import('@skillport/registry');
  const where = isPostgresUrl(options.data) ? redactUrl(options.data) : options.data;
  const { hasScope, principalOf } = await import('@skillport/server');
  const scopeAuthorizer = {
    async authorizeWrite(req: IncomingMessage, action: 'publish' | 'tag' | 'yank' | 'revoke' | 'review') {
      const principal: Principal | undefined = principalOf(req);
      if (principal === undefined) return { ok: false as const, status: 401 as const, message: 'writes need Authorization: Bearer <token>' };
      const needed = action === 'revoke' || action === 'review' ? 'admin' : 'publish';
      if (!hasScope(principal, needed)) return { ok: false as const, status: 403 as const, message: `${action} needs a token with the ${needed} scope` };
      return { ok: true as const, principal: principal.user ?? principal.agent ?? 'anonymous' };
    },
  };
  const { resolveLimits } = await import('@skillport/core');
  const registry = await openRegistry({
    dir: options.data,
    limits: resolveLimits(options.limits),
    ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
    ...(options.registryTag !== undefined ? { tag: options.registryTag } : {}),
    ...(options.trustedKeys !== undefined ? { trustedKeysFile: options.trustedKeys } : {}),
    requireSignatures: options.requireSignatures === true,
    onProblem: options.onProblem,
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.scoped ? { authorizer: scopeAuthorizer } : {}),
    ...(options.canSee ? { canSee: options.canSee } : {}),
  });
  const writable = options.scoped === true || (process.env['SKILLPORT_PUBLISH_TOKEN'] ?? '') !== '';
  return {
    providers: [registry.provider],
    routes: [registry.routes],
    health: () => ({ registry: { ...registry.provider.stats(), writable } }),
    ready: () => registry.provider.readiness(),
    summary: () => {
      const stats = registry.provider.stats();
      return `registry ${where} (${plural(stats.names, 'skill')}, ${plural(stats.versions, 'version')}; ${options.scoped ? 'writes with publish-scope tokens' : writable ? 'writes with SKILLPORT_PUBLISH_TOKEN' : 'read-only: SKILLPORT_PUBLISH_TOKEN not set'})`;
    },
    history: versionHistory(registry.service),
    close: () => registry.close(),
  };
}
