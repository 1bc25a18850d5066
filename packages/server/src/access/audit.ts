import type { CatalogSkill } from '../catalog/model.js';
import type { Metrics } from './metrics.js';
import { principalLabel } from './principal.js';
import type { Principal } from './principal.js';
import type { AccessStore, AuditEvent } from './store.js';

/**
 * The audit trail: every activation and file read, with who, which skill (version and package digest), which file,
 * the outcome and when. Events are counted at once (metrics) and written to the access store in small batches (one
 * transaction every 100 ms or 500 events), so a hot read path costs an array push, not a disk write. Writes are
 * asynchronous and never block a request: when the store fails (PostgreSQL away), events wait in a bounded queue
 * (`MAX_QUEUED`; beyond it the oldest are dropped and counted), the failure is said once, retried with backoff,
 * and its recovery said too; `/healthz` shows the queue (`state()`). `close()` writes what is left.
 */
const MAX_QUEUED = 100_000;
const BATCH = 500;
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
  #writing: Promise<void> = Promise.resolve();
  #failing: string | undefined;
  #dropped = 0;
  #retryMs = 100;

  constructor(
    readonly store: AccessStore | undefined,
    readonly metrics: Metrics,
    readonly onError: (message: string) => void = () => {},
  ) {}

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
      detail: (input.detail ?? (skill ? gitSourceOf(skill) : undefined))?.slice(0, 512),
    });
    if (this.#buffer.length > MAX_QUEUED) {
      const excess = this.#buffer.length - MAX_QUEUED;
      this.#buffer.splice(0, excess);
      this.#dropped += excess;
    }
    if (this.#buffer.length >= BATCH && this.#failing === undefined) void this.flush();
    else this.#schedule(this.#failing === undefined ? 100 : this.#retryMs);
  }

  #schedule(delayMs: number): void {
    if (this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, delayMs);
    this.#timer.unref();
  }

  /** Writes what is queued; resolves once written (or once the attempt failed and the events were put back). */
  flush(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    // One write at a time, in order: a batch that failed goes back to the front before the next is taken.
    this.#writing = this.#writing.then(() => this.#writeQueued());
    return this.#writing;
  }

  async #writeQueued(): Promise<void> {
    while (this.#buffer.length > 0 && this.store !== undefined) {
      const batch = this.#buffer.splice(0, BATCH);
      try {
        await this.store.appendAudit(batch);
      } catch (error) {
        this.#buffer.unshift(...batch);
        if (this.#failing === undefined)
          this.onError(`audit: cannot write to the access store (${(error as Error).message}); keeping up to ${MAX_QUEUED} events in memory and retrying`);
        this.#failing = (error as Error).message;
        this.#retryMs = Math.min(this.#retryMs * 2, 5000);
        this.#schedule(this.#retryMs);
        return;
      }
      if (this.#failing !== undefined) {
        this.onError(`audit: the access store takes events again${this.#dropped > 0 ? ` (${this.#dropped} dropped while it was away)` : ''}`);
        this.#failing = undefined;
        this.#retryMs = 100;
      }
    }
  }

  /** Events waiting to be written, events dropped because the queue was full, and the last write error. */
  state(): { queued: number; dropped: number; failing?: string } {
    return { queued: this.#buffer.length, dropped: this.#dropped, ...(this.#failing !== undefined ? { failing: this.#failing } : {}) };
  }
}

/** A skill's version: the registry's when it has one, else `metadata.version` from its frontmatter. */
/** A git source's skill: where its bytes came from (`git <repository> <ref>@<commit>`), for the audit trail. */
export function gitSourceOf(skill: CatalogSkill): string | undefined {
  if (skill.origin.kind !== 'stored' || !skill.origin.source.startsWith('git:')) return undefined;
  const provenance = (skill.entry._meta as Record<string, unknown> | undefined)?.['dev.skillport/provenance'] as Record<string, unknown> | undefined;
  if (typeof provenance?.['commit'] !== 'string') return undefined;
  return `git ${String(provenance['repository'])} ${String(provenance['ref'])}@${provenance['commit']}`;
}

export function versionOf(skill: CatalogSkill): string | undefined {
  const origin = skill.origin as { version?: unknown };
  if (typeof origin.version === 'string') return origin.version;
  const metadata = skill.frontmatter['metadata'];
  if (metadata !== null && typeof metadata === 'object' && typeof (metadata as Record<string, unknown>)['version'] === 'string') {
    return (metadata as Record<string, string>)['version'];
  }
  return undefined;
}
