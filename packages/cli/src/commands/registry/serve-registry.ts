import type { SkillLimits } from '@skillport/core';
import type { HttpRoute, SkillProvider } from '@skillport/server';

/** The registry part of `serve --data DIR`: the store's skills as a catalog provider, /api/v1, and /healthz figures. */
export interface ServeRegistryOptions {
  data: string;
  trustedKeys?: string;
  requireSignatures?: boolean;
  registryTag?: string;
  prefix?: string;
  limits: Partial<SkillLimits>;
  onProblem: (message: string) => void;
}

export interface ServedRegistry {
  providers: SkillProvider[];
  routes: HttpRoute[];
  health: () => Record<string, unknown>;
  summary: () => string;
  close(): Promise<void>;
}

export async function serveRegistry(options: ServeRegistryOptions): Promise<ServedRegistry> {
  // Loaded only when --data is given: the store's native SQLite module is not needed to serve folders.
  const { openRegistry } = await import('@skillport/registry');
  const { resolveLimits } = await import('@skillport/core');
  const registry = await openRegistry({
    dir: options.data,
    limits: resolveLimits(options.limits),
    ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
    ...(options.registryTag !== undefined ? { tag: options.registryTag } : {}),
    ...(options.trustedKeys !== undefined ? { trustedKeysFile: options.trustedKeys } : {}),
    requireSignatures: options.requireSignatures === true,
    onProblem: options.onProblem,
  });
  const writable = (process.env['SKILLPORT_PUBLISH_TOKEN'] ?? '') !== '';
  return {
    providers: [registry.provider],
    routes: [registry.routes],
    health: () => ({ registry: { ...registry.provider.stats(), writable } }),
    summary: () => {
      const stats = registry.provider.stats();
      return `registry ${options.data} (${stats.names} skill(s), ${stats.versions} version(s); ${writable ? 'writes with SKILLPORT_PUBLISH_TOKEN' : 'read-only: SKILLPORT_PUBLISH_TOKEN not set'})`;
    },
    close: () => registry.close(),
  };
}
