import type { SkillLimits } from '@skillport/core';
import type { ServerPlugin } from '@skillport/server';
import { ScopeAuthorizer } from './auth.js';
import { openRegistry } from './registry.js';

/**
 * The registry of `serve --data DIR` as a server plugin: the store's skills join the catalog, /api/v1/skills… is
 * mounted on the router, /healthz shows its figures. Visibility comes from the server's context at setup, so the API
 * shows a caller only the names its view allows from the first request on.
 */
export interface RegistryPluginOptions {
  data: string;
  trustedKeys?: string;
  requireSignatures?: boolean;
  registryTag?: string;
  prefix?: string;
  limits: SkillLimits;
  onProblem: (message: string) => void;
  env?: NodeJS.ProcessEnv;
}

export function registryPlugin(options: RegistryPluginOptions): ServerPlugin {
  return {
    name: 'registry',
    async setup(context) {
      const env = options.env ?? process.env;
      const base = options.prefix !== undefined ? `skill://${options.prefix.replace(/^\/+|\/+$/g, '')}/` : 'skill://';
      const registry = await openRegistry({
        dir: options.data,
        limits: options.limits,
        ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
        ...(options.registryTag !== undefined ? { tag: options.registryTag } : {}),
        ...(options.trustedKeys !== undefined ? { trustedKeysFile: options.trustedKeys } : {}),
        requireSignatures: options.requireSignatures === true,
        onProblem: options.onProblem,
        env,
        // With --auth tokens|jwt writes go by the caller's scopes; with --auth none by SKILLPORT_PUBLISH_TOKEN.
        ...(context.authenticated ? { authorizer: new ScopeAuthorizer() } : {}),
        canSee: (principal, name) => context.canSee(principal, name, `${base}${encodeURIComponent(name)}/SKILL.md`),
      });
      const writable = context.authenticated || (env['SKILLPORT_PUBLISH_TOKEN'] ?? '') !== '';
      return {
        providers: [registry.provider],
        routes: registry.routes,
        health: () => ({ registry: { ...registry.provider.stats(), writable } }),
        summary: () => {
          const stats = registry.provider.stats();
          const writes = context.authenticated ? 'writes with publish-scope tokens' : writable ? 'writes with SKILLPORT_PUBLISH_TOKEN' : 'read-only: SKILLPORT_PUBLISH_TOKEN not set';
          return `registry ${options.data} (${stats.names} skill(s), ${stats.versions} version(s); ${writes})`;
        },
        close: () => registry.close(),
      };
    },
  };
}
