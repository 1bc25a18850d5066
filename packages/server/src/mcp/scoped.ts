import { SkillsExtension } from '@modelcontextprotocol/server/ext/skills';
import type { ContentReader } from '../catalog/content.js';
import type { CatalogSnapshot } from '../catalog/snapshot.js';
import { createSkillSource } from './skills-source.js';
import { SkillsService } from './skills-service.js';
import type { CacheHint } from './identity.js';
import type { AccessControl } from '../access/access-control.js';
import { principalKey } from '../access/principal.js';
import type { Principal } from '../access/principal.js';

/**
 * What one principal is served through: a SkillsService over its view of the catalog (with its audit trail), and the
 * SDK's SkillsExtension over that service. Every surface is built on these, so none can reach a skill outside the
 * view. Kept per principal (bounded, least recently used dropped first) with the view fingerprint last announced to
 * its sessions, so a change is announced only to the principals whose view it changed.
 */
export interface Scoped {
  readonly key: string;
  readonly principal: Principal;
  readonly service: SkillsService;
  readonly extension: SkillsExtension;
  /** The view fingerprint its sessions were last told about. */
  fingerprint: string;
}

export interface ScopedOptions {
  catalog: () => CatalogSnapshot;
  access: AccessControl;
  content: ContentReader;
  pageSize: number;
  cacheHint: CacheHint;
  onStale?: (source: string) => void;
  onWarning?: (message: string) => void;
  /** How many principals are kept (default 10,000). */
  max?: number;
  /** `--unmet`: whether catalogs for a model list skills whose requirements are unmet, when the policy does not say. */
  unmet?: 'list' | 'omit';
  /** Whether skills without a registry scan are scanned at activation (SkillsServiceOptions.scan). */
  scan?: boolean;
}

export class ScopedServices {
  readonly #entries = new Map<string, Scoped>();

  constructor(readonly options: ScopedOptions) {}

  for(principal: Principal): Scoped {
    const key = principalKey(principal);
    let scoped = this.#entries.get(key);
    if (scoped !== undefined) {
      // Map order is insertion order: re-inserting keeps the most recently used last.
      this.#entries.delete(key);
      this.#entries.set(key, scoped);
      return scoped;
    }
    const { access } = this.options;
    const service = new SkillsService({
      snapshot: () => access.views.view(this.options.catalog(), principal),
      content: this.options.content,
      pageSize: this.options.pageSize,
      ...(this.options.onStale ? { onStale: this.options.onStale } : {}),
      audit: (input) => access.audit.record(principal, input),
      granted: () => access.views.granted(principal),
      unmet: () => access.views.policy.unmet ?? this.options.unmet ?? 'list',
      ...(this.options.scan === false ? { scan: false } : {}),
    });
    const extension = new SkillsExtension({
      source: createSkillSource(service),
      cacheHint: this.options.cacheHint,
      onWarning: (warning) => this.options.onWarning?.(`${warning.path}: ${warning.message}`),
    });
    scoped = { key, principal, service, extension, fingerprint: access.views.fingerprint(service.snapshot) };
    this.#entries.set(key, scoped);
    if (this.#entries.size > (this.options.max ?? 10_000)) this.#entries.delete(this.#entries.keys().next().value!);
    return scoped;
  }

  get(key: string): Scoped | undefined {
    return this.#entries.get(key);
  }

  drop(key: string): void {
    this.#entries.delete(key);
  }

  all(): Scoped[] {
    return [...this.#entries.values()];
  }
}

/** Whether the principal's view changed since its sessions were last told; marks it told. */
export function viewChanged(scoped: Scoped, access: AccessControl): boolean {
  const now = access.views.fingerprint(scoped.service.snapshot);
  if (now === scoped.fingerprint) return false;
  scoped.fingerprint = now;
  return true;
}
