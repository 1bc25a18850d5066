import type { CatalogSkill } from '../catalog/model.js';
import type { Metrics } from './metrics.js';
import { principalLabel } from './principal.js';
import type { Principal } from './principal.js';
import type { AccessStore, AuditEvent } from './store.js';

/**
 * The audit trail: every activation and file read, with who, which skill (version and package digest), which file,
 * the outcome and when. Events are counted at once (metrics) and written to the access store in small batches (one
 * transaction every 100 ms or 500 events), so a hot read path costs an array push, not a disk write. `close()`
 * writes what is left.
 */
export interface AuditInput {
  action: 'activate' | 'read';
  surface: string;
  skill?: CatalogSkill | undefined;
  /** What the caller asked for when no skill was found (a name or a URI). */
  requested?: string | undefined;
  file?: string | undefined;
  outcome: string;
  detail?: string | undefined;
}

export class AuditLog {
  #buffer: AuditEvent[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(readonly store: AccessStore | undefined, readonly metrics: Metrics, readonly onError: (message: string) => void = () => {}) {}

  record(principal: Principal, input: AuditInput): void {
    if (input.action === 'activate') this.metrics.activation(input.outcome);
    else this.metrics.read(input.outcome);
    if (this.store === undefined) return;
    const skill = input.skill;
    const version = skill ? versionOf(skill) : undefined;
    this.#buffer.push({
      time: new Date().toISOString(),
      principal: principalLabel(principal),
      user: principal.user,
      tokenId: principal.tokenId,
      action: input.action,
      surface: input.surface,
      skill: skill?.name ?? input.requested?.slice(0, 512),
      uri: skill?.uri,
      version,
      digest: skill?.packageDigest,
      file: input.file?.slice(0, 4096),
      outcome: input.outcome,
      detail: input.detail?.slice(0, 512),
    });
    if (this.#buffer.length >= 500) this.flush();
    else if (this.#timer === undefined) {
      this.#timer = setTimeout(() => this.flush(), 100);
      this.#timer.unref();
    }
  }

  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#buffer;
    this.#buffer = [];
    if (batch.length === 0 || this.store === undefined) return;
    try {
      this.store.appendAudit(batch);
    } catch (error) {
      this.onError(`audit: ${batch.length} event(s) not written: ${(error as Error).message}`);
    }
  }
}

/** A skill's version: the registry's when it has one, else `metadata.version` from its frontmatter. */
export function versionOf(skill: CatalogSkill): string | undefined {
  const origin = skill.origin as { version?: unknown };
  if (typeof origin.version === 'string') return origin.version;
  const metadata = skill.frontmatter['metadata'];
  if (metadata !== null && typeof metadata === 'object' && typeof (metadata as Record<string, unknown>)['version'] === 'string') {
    return (metadata as Record<string, string>)['version'];
  }
  return undefined;
}
