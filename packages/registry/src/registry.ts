import type { PostgresStoreOptions } from './postgres-store.js';
import { readFileSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import type { SkillLimits } from '@skillport/core';
import type { GateSettings, HttpRoutes, Principal } from '@skillport/server';
import { PublishTokenAuthorizer } from './auth.js';
import type { WriteAuthorizer } from './auth.js';
import { registryRoutes } from './http-api.js';
import { RegistryProvider } from './provider.js';
import { RegistryService } from './service.js';
import { parseTrustedKeys } from './signing.js';
import { openStore } from './store-open.js';
import type { RegistryStore } from './store.js';

/**
 * Everything `skillport serve --data DIR|URL` needs, wired together: the store in DIR, the service, the catalog
 * provider and the /api/v1 routes.
 */
export interface OpenRegistryOptions {
  /** A store folder, or a `postgres://` URL (the PostgreSQL store; `pg` is loaded only then). */
  dir: string;
  /** The PostgreSQL store's pool and blob cache. */
  postgres?: Pick<PostgresStoreOptions, 'poolMax' | 'blobCacheMb'>;
  limits?: SkillLimits;
  prefix?: string;
  tag?: string;
  trustedKeysFile?: string;
  requireSignatures?: boolean;
  /** Refuse skills with warnings too (RegistryServiceOptions.strict). */
  strict?: boolean;
  allowFields?: readonly string[];
  /** Default: the shared publish token (`publishToken`). */
  authorizer?: WriteAuthorizer;
  /** The shared token writes need with --auth none; default SKILLPORT_TOKEN, else the old SKILLPORT_PUBLISH_TOKEN. */
  publishToken?: string;
  /** Whether a caller may see a skill name (the server's visibility policy); default every name. */
  canSee?: (principal: Principal, name: string) => boolean;
  /** The skills `principal` sees in the whole catalog, for near-duplicates at publish (default: the registry's own). */
  neighbours?: (principal: Principal | undefined) => Array<{ name: string; description: string }>;
  /** What the policy lets a caller write under a name it sees (ADR 0180); default: publish, not revoke. */
  writeGrants?: (principal: Principal, name: string) => { publish: boolean; revoke: boolean };
  pollMs?: number;
  onProblem?: (message: string) => void;
  /** One line per write done through the API (publish, tag, yank, unyank, revoke, review), for the server's log. */
  onEvent?: (line: string) => void;
  /** The publish gate's settings for a publisher and a name (the policy's `gate:`; ADR 0230); default allow all. */
  gate?: (principal: Principal | undefined, name: string) => GateSettings;
}

export interface OpenRegistry {
  store: RegistryStore;
  service: RegistryService;
  provider: RegistryProvider;
  routes: HttpRoutes;
  close(): Promise<void>;
}

export function loadTrustedKeys(file: string): Map<string, KeyObject> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read --trusted-keys ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const keys = parseTrustedKeys(text);
  if (keys.size === 0) throw new Error(`--trusted-keys ${file} holds no PEM public key (-----BEGIN PUBLIC KEY-----)`);
  return keys;
}

export async function openRegistry(options: OpenRegistryOptions): Promise<OpenRegistry> {
  const trustedKeys = options.trustedKeysFile !== undefined ? loadTrustedKeys(options.trustedKeysFile) : new Map<string, KeyObject>();
  if (options.requireSignatures && trustedKeys.size === 0)
    throw new Error('--require-signatures needs --trusted-keys FILE (the public keys whose signatures count)');
  const store = await openStore(options.dir, { ...options.postgres, ...(options.onProblem ? { onProblem: options.onProblem } : {}) });
  const service = new RegistryService({
    store,
    ...(options.limits ? { limits: options.limits } : {}),
    trustedKeys,
    requireSignatures: options.requireSignatures === true,
    strict: options.strict === true,
    ...(options.allowFields ? { allowFields: options.allowFields } : {}),
  });
  const provider = await RegistryProvider.open({
    store,
    ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
    ...(options.tag !== undefined ? { tag: options.tag } : {}),
    trustedKeys,
    requireSignatures: options.requireSignatures === true,
    ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
    ...(options.onProblem ? { onProblem: options.onProblem } : {}),
  });
  const routes = registryRoutes({
    service,
    provider,
    authorizer: options.authorizer ?? new PublishTokenAuthorizer(options.publishToken),
    ...(options.canSee ? { canSee: options.canSee } : {}),
    ...(options.writeGrants ? { writeGrants: options.writeGrants } : {}),
    ...(options.onEvent ? { onEvent: options.onEvent } : {}),
    ...(options.gate ? { gate: options.gate } : {}),
    // Near-duplicates are looked for among the skills the publisher sees, never others: the whole catalog's when the
    // server says (folders and other sources too), else the registry's own listing.
    neighbours:
      options.neighbours ??
      ((principal) =>
        provider
          .skills()
          .filter((skill) => principal === undefined || options.canSee === undefined || options.canSee(principal, skill.name))
          .map((skill) => ({ name: skill.name, description: skill.description }))),
  });
  return {
    store,
    service,
    provider,
    routes,
    async close() {
      provider.close();
      await store.close();
    },
  };
}
