import type { PostgresStoreOptions } from './postgres-store.js';
import type { SkillLimits } from '@skillport/core';
import type { Principal, ServerPlugin, SkillVersionInfo } from '@skillport/server';
import { hasScope } from '@skillport/server';
import { ScopeAuthorizer } from './auth.js';
import { isHeld } from './model.js';
import type { StoredFinding, VersionRecord } from './model.js';
import type { WriteGuard } from './auth.js';
import { isPostgresUrl, redactUrl } from './postgres-url.js';
import { openRegistry } from './registry.js';
import type { OpenRegistry } from './registry.js';

/**
 * The registry of `serve --data DIR` as a server plugin: the store's skills join the catalog, /api/v1/skills… is
 * mounted on the router, /healthz shows its figures. Visibility comes from the server's context at setup, so the API
 * shows a caller only the names its view allows from the first request on.
 */
export interface RegistryPluginOptions {
  /** A store folder, or a `postgres://` URL. */
  data: string;
  /** The PostgreSQL store's pool and blob cache (the defaults of PostgresStoreOptions when not given). */
  postgres?: Pick<PostgresStoreOptions, 'poolMax' | 'blobCacheMb'>;
  trustedKeys?: string;
  requireSignatures?: boolean;
  /** Refuse to publish skills with warnings too (serve --strict). */
  strict?: boolean;
  allowFields?: readonly string[];
  registryTag?: string;
  prefix?: string;
  limits: SkillLimits;
  onProblem: (message: string) => void;
  /** One line per registry write through the API (publish, tag, yank, revoke, review). */
  onEvent?: (line: string) => void;
  /** The shared publish token with --auth none (the CLI gives SKILLPORT_TOKEN); none: the registry is read-only. */
  publishToken?: string;
}

/** A skill's published versions as the web catalog's skill page shows them (structurally its VersionHistory). */
export interface RegistryVersionHistory {
  /**
   * Newest first; undefined when nothing is published under that name (or before the plugin is set up). With
   * `viewer`, the held versions it may see (its own, or a name it reviews) are included, marked `pending`.
   */
  versions(name: string, viewer?: Principal): Promise<RegistryVersionInfo[] | undefined>;
}

export type RegistryVersionInfo = SkillVersionInfo;

export interface RegistryPlugin extends ServerPlugin {
  /** Published versions, for the web catalog's skill pages (answers once the server has set the plugin up). */
  history: RegistryVersionHistory;
  /** The review queue for the web catalog's admin review page (structurally its ReviewQueue; ADR 0231). */
  reviews: {
    pending(
      reviewer: Principal,
    ): Promise<
      Array<{ name: string; version: string; publisher: string; publishedAt: string; reasons: string[]; findings: StoredFinding[]; decidable: boolean }>
    >;
    decide(name: string, version: string, decision: 'approved' | 'rejected', reason: string, reviewer: Principal): Promise<void>;
  };
}

export function registryPlugin(options: RegistryPluginOptions): RegistryPlugin {
  let opened: OpenRegistry | undefined;
  let sees: ((principal: Principal, name: string) => boolean) | undefined;
  let grants: ((principal: Principal, name: string) => { publish: boolean; revoke: boolean }) | undefined;
  /**
   * A web reviewer's guard over the names it sees, as the API's (ScopeAuthorizer): the admin scope reviews every
   * name it sees; the publish scope reviews the names a policy `revoke:` grant gives it; anyone else reviews none,
   * and sees only the held versions it published.
   */
  const reviewerGuard = (reviewer: Principal): WriteGuard => {
    const any = hasScope(reviewer, 'admin');
    const perName = !any && hasScope(reviewer, 'publish');
    return {
      writer: reviewer.user ?? reviewer.agent ?? 'admin',
      sees: (name) => sees?.(reviewer, name) ?? false,
      may: (action, name) => (action === 'review' || action === 'revoke') && (any || (perName && (grants?.(reviewer, name).revoke ?? false))),
    };
  };
  /** Whether a principal is shown a version held for review: its publisher (with a publish-scope token) or a reviewer of its name. */
  const seesPending = (principal: Principal, record: Pick<VersionRecord, 'name' | 'publisher' | 'review'>): boolean => {
    if (record.review !== 'pending') return false;
    const guard = reviewerGuard(principal);
    // As the API has it: a publisher reads its held versions with a token that may publish, not a read-only one.
    const publisher = hasScope(principal, 'publish') ? (principal.user ?? principal.agent) : undefined;
    return guard.sees(record.name) && (guard.may('review', record.name) || (publisher !== undefined && record.publisher === publisher));
  };
  return {
    name: 'registry',
    reviews: {
      async pending(reviewer) {
        if (opened === undefined) return [];
        const guard = reviewerGuard(reviewer);
        const records = await opened.service.pending(guard);
        return records.map((record) => ({
          decidable: guard.may('review', record.name),
          name: record.name,
          version: record.version,
          publisher: record.publisher,
          publishedAt: record.publishedAt,
          reasons: record.gate?.reasons ?? [],
          findings: record.gate?.findings ?? [],
        }));
      },
      async decide(name, version, decision, reason, reviewer) {
        if (opened === undefined) throw new Error('the registry is not open');
        await opened.service.decide(name, version, decision, reason, reviewerGuard(reviewer));
        await opened.provider.refresh();
        options.onEvent?.(`${decision} ${name}@${version} by ${reviewerGuard(reviewer).writer} (web)`);
      },
    },
    history: {
      async versions(name, viewer) {
        if (opened === undefined) return undefined;
        const { service } = opened;
        let found;
        try {
          found = await service.versions(name);
        } catch {
          return undefined;
        }
        const tagsOf = new Map<string, string[]>();
        for (const [tag, version] of Object.entries(found.tags)) tagsOf.set(version, [...(tagsOf.get(version) ?? []), tag]);
        // The store lists them in publish order: newest first reads best. A version held for review is shown only
        // to its publisher and its name's reviewers (the same test as over MCP, ADR 0235); a rejected one to no one.
        const shown = (record: VersionRecord) => !isHeld(record) || (viewer !== undefined && seesPending(viewer, record));
        return [...found.versions]
          .filter(shown)
          .reverse()
          .map((record) => ({
            version: record.version,
            packageDigest: record.packageDigest,
            publishedAt: record.publishedAt,
            publisher: record.publisher,
            tags: tagsOf.get(record.version) ?? [],
            ...(record.yankedAt !== undefined ? { yankedAt: record.yankedAt } : {}),
            ...(record.revoked !== undefined ? { revoked: record.revoked } : {}),
            signatures: record.signatures.map((signature) => ({ keyId: signature.keyId, trusted: service.isTrusted(signature) })),
            ...(record.provenance.repository !== undefined ? { repository: record.provenance.repository } : {}),
            ...(record.provenance.commit !== undefined ? { commit: record.provenance.commit } : {}),
            review: record.review,
            ...(isHeld(record) && viewer !== undefined ? { pending: { reviewable: reviewerGuard(viewer).may('review', record.name) } } : {}),
            ...(record.gate !== undefined ? { scan: { counts: record.gate.counts, findings: record.gate.findings.slice(0, 50) } } : {}),
          }));
      },
    },
    async setup(context) {
      const publishToken = options.publishToken || undefined;
      const base = options.prefix !== undefined ? `skill://${options.prefix.replace(/^\/+|\/+$/g, '')}/` : 'skill://';
      // Visibility and writes are judged by the name and the URI it is listed at.
      const listedUri = (name: string) => `${base}${encodeURIComponent(name)}/SKILL.md`;
      const registry = await openRegistry({
        dir: options.data,
        ...(options.postgres !== undefined ? { postgres: options.postgres } : {}),
        limits: options.limits,
        ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
        ...(options.registryTag !== undefined ? { tag: options.registryTag } : {}),
        ...(options.trustedKeys !== undefined ? { trustedKeysFile: options.trustedKeys } : {}),
        requireSignatures: options.requireSignatures === true,
        strict: options.strict === true,
        ...(options.allowFields ? { allowFields: options.allowFields } : {}),
        onProblem: options.onProblem,
        ...(options.onEvent ? { onEvent: options.onEvent } : {}),
        // With --auth tokens|jwt writes go by the caller's scopes; with --auth none by the shared publish token.
        ...(publishToken !== undefined ? { publishToken } : {}),
        ...(context.authenticated ? { authorizer: new ScopeAuthorizer() } : {}),
        canSee: (principal, name) => context.canSee(principal, name, listedUri(name)),
        writeGrants: (principal, name) => context.writeGrants(principal, name, listedUri(name)),
        gate: (principal, name) => context.gate(principal, name, listedUri(name)),
        neighbours: (principal) => context.visibleSkills(principal),
      });
      opened = registry;
      sees = (principal, name) => context.canSee(principal, name, listedUri(name));
      grants = (principal, name) => context.writeGrants(principal, name, listedUri(name));
      const writable = context.authenticated || publishToken !== undefined;
      const provider = registry.provider;
      return {
        providers: [provider],
        privateSkills: {
          generation: () => provider.pendingGeneration,
          // A version waiting for review reaches, over MCP and the web, only those the API shows it to: its publisher
          // and the reviewers of its name (ADR 0235), through the same guard as the web's review queue.
          for: (principal) => {
            return provider.pendingFor((record) => seesPending(principal, record));
          },
          onChange: (listener) => provider.onChange(() => listener()),
        },
        routes: registry.routes,
        health: () => ({ registry: { ...registry.provider.stats(), writable } }),
        ready: () => registry.provider.readiness(),
        summary: () => {
          const stats = registry.provider.stats();
          const writes = context.authenticated
            ? 'writes with publish-scope tokens'
            : writable
              ? 'writes with the token in SKILLPORT_TOKEN'
              : 'read-only: SKILLPORT_TOKEN not set';
          const where = isPostgresUrl(options.data) ? redactUrl(options.data) : options.data;
          return `registry ${where} (${count(stats.names, 'skill')}, ${count(stats.versions, 'version')}; ${writes})`;
        },
        close: () => registry.close(),
      };
    },
  };
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
