import { entryMetaOf } from '../catalog/catalog-skill.js';
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
 * and its recovery said too; `/healthz` shows the queue (`state()`). `drain()` writes what is left.
 *
 * Refusals (anything but `ok`) cannot fill the disk (docs/security.md, "Audit"): their rows are compact (the path
 * asked for cut at `REFUSED_PATH_MAX` characters, an error code instead of the message), the first refusal of a
 * kind (principal, action, surface, outcome, skill or path asked for, file) in a window is written at once and its
 * repeats in that window become one row with their count when the window ends, and past `DISTINCT_PER_WINDOW`
 * kinds per principal in a window the rest are counted in one row of their own. Rows older than the retention are
 * pruned in the background in small batches (`startRetention`).
 */
const MAX_QUEUED = 100_000;
const BATCH = 500;
/** How long repeats of one refusal fold into one row. */
export const REFUSAL_WINDOW_MS = 60_000;
/** Kinds of refusal one principal may add as rows of their own in one window; past it they share one counted row. */
export const DISTINCT_PER_WINDOW = 64;
/** Kinds of refusal tracked in one window over all principals (memory bound); past it, one shared counted row. */
const MAX_TRACKED = 4096;
/** Characters of a refused path or name kept (hostile ones run to kilobytes). */
export const REFUSED_PATH_MAX = 256;
/** The retention when none is configured (`--audit-retention`; docs/deploy.md). */
export const DEFAULT_AUDIT_RETENTION_MS = 30 * 86_400_000;
/** Rows deleted per statement while pruning, and the pause between statements (so requests keep the store). */
const PRUNE_BATCH = 500;
const PRUNE_PAUSE_MS = 20;

export interface AuditInput {
  action: 'activate' | 'read' | 'webhook' | 'review';
  surface: string;
  skill?: CatalogSkill | undefined;
  /** What the caller asked for when no skill was found (a name or a URI); a review decision's skill name. */
  requested?: string | undefined;
  /** The version meant when there is no catalog skill to take it from (a review decision). */
  version?: string | undefined;
  file?: string | undefined;
  outcome: string;
  /** For `error` outcomes, the message (cut); refusals keep only `code`. */
  detail?: string | undefined;
  /** A short code saying why a refusal happened (`revoked`, `too_large`, …), kept instead of the text. */
  code?: string | undefined;
}

/** Repeats of one refusal kind in the current window: the row they become, and how many there were. */
interface Repeats {
  event: AuditEvent;
  count: number;
}

/** Characters of a review decision's reason kept (the registry takes at most 500). */
export const REVIEW_REASON_MAX = 500;

/**
 * The audit event of a reviewer's decision on a held version (ADR 0231), one shape for every surface that decides
 * (the web's review page, the registry API and so the CLI), so the log reads the same whichever was used.
 */
export function reviewDecision(surface: string, name: string, version: string, decision: 'approved' | 'rejected', reason: string): AuditInput {
  const text = reason.trim().slice(0, REVIEW_REASON_MAX);
  return { action: 'review', surface, requested: name, version, outcome: decision, ...(text !== '' ? { detail: text } : {}) };
}

export interface AuditLogOptions {
  now?: () => number;
  windowMs?: number;
}

export class AuditLog {
  #buffer: AuditEvent[] = [];
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();
  #failing: string | undefined;
  #dropped = 0;
  #retryMs = 100;
  readonly #now: () => number;
  readonly #windowMs: number;
  #windowStart: number;
  #windowTimer: NodeJS.Timeout | undefined;
  /** This window's refusal kinds (key → the row their repeats become), and how many kinds each principal added. */
  #repeats = new Map<string, Repeats>();
  #kindsOf = new Map<string, number>();
  #retentionTimer: NodeJS.Timeout | undefined;
  #sizeTimer: NodeJS.Timeout | undefined;
  #pruneFailing = false;

  constructor(
    readonly store: AccessStore | undefined,
    readonly metrics: Metrics,
    readonly onError: (message: string) => void = () => {},
    options: AuditLogOptions = {},
  ) {
    this.#now = options.now ?? Date.now;
    this.#windowMs = options.windowMs ?? REFUSAL_WINDOW_MS;
    this.#windowStart = this.#now();
  }

  record(principal: Principal, input: AuditInput): void {
    if (input.action === 'activate') this.metrics.activation(input.outcome);
    else if (input.action === 'read') this.metrics.read(input.outcome);
    if (this.store === undefined) return;
    const skill = input.skill;
    const version = skill ? versionOf(skill) : input.version?.slice(0, 128);
    // A review decision (`approved`, `rejected`) is a write that happened, not a refusal: each is kept whole.
    const refused = input.outcome !== 'ok' && input.action !== 'review';
    const event: AuditEvent = {
      time: new Date(this.#now()).toISOString(),
      principal: principalLabel(principal),
      user: principal.user,
      tokenId: principal.tokenId,
      action: input.action,
      surface: input.surface,
      skill: skill?.name ?? (refused ? bounded(input.requested) : input.requested?.slice(0, 512)),
      uri: skill?.uri,
      version,
      digest: skill?.packageDigest,
      file: refused ? bounded(input.file) : input.file?.slice(0, 4096),
      outcome: input.outcome,
      detail: refused
        ? input.outcome === 'error'
          ? input.detail?.slice(0, 200)
          : input.code?.slice(0, 40)
        : (input.detail ?? (skill ? gitSourceOf(skill) : undefined))?.slice(0, 512),
    };
    if (refused && !this.#firstOfWindow(event)) return;
    this.#push(event);
  }

  /** Whether a refusal is the first of its kind in this window (then written); else it is counted with its kind. */
  #firstOfWindow(event: AuditEvent): boolean {
    const now = this.#now();
    if (now - this.#windowStart >= this.#windowMs) this.#closeWindow(now);
    const key = `${event.principal}\n${event.action}\n${event.surface}\n${event.outcome}\n${event.skill ?? ''}\n${event.file ?? ''}`;
    let repeats = this.#repeats.get(key);
    if (repeats !== undefined) {
      repeats.count++;
      repeats.event.time = event.time;
      this.metrics.auditFolded();
      return false;
    }
    const kinds = this.#kindsOf.get(event.principal) ?? 0;
    if (kinds < DISTINCT_PER_WINDOW && this.#repeats.size < MAX_TRACKED) {
      this.#kindsOf.set(event.principal, kinds + 1);
      this.#repeats.set(key, { event: { ...event }, count: 0 });
      return true;
    }
    // Past the principal's (or everyone's) share of kinds: counted in one row per principal and outcome.
    const overflow = this.#repeats.size < MAX_TRACKED ? `${event.principal}\n${event.outcome}\n*` : `*\n${event.outcome}`;
    repeats = this.#repeats.get(overflow);
    if (repeats === undefined) {
      const shared: AuditEvent = { ...event, skill: '(other names)', file: undefined, uri: undefined, detail: 'many_distinct' };
      if (overflow.startsWith('*')) Object.assign(shared, { principal: '(many principals)', user: undefined, tokenId: undefined });
      repeats = { event: shared, count: 0 };
      this.#repeats.set(overflow, repeats);
    }
    repeats.count++;
    repeats.event.time = event.time;
    this.metrics.auditFolded();
    return false;
  }

  /** Ends the window: each kind's repeats become one row with their count. */
  #closeWindow(now: number): void {
    for (const { event, count } of this.#repeats.values()) if (count > 0) this.#push({ ...event, count });
    this.#repeats.clear();
    this.#kindsOf.clear();
    this.#windowStart = now;
  }

  #push(event: AuditEvent): void {
    this.#buffer.push(event);
    if (this.#buffer.length > MAX_QUEUED) {
      const excess = this.#buffer.length - MAX_QUEUED;
      this.#buffer.splice(0, excess);
      this.#dropped += excess;
    }
    if (this.#buffer.length >= BATCH && this.#failing === undefined) void this.flush();
    else this.#schedule(this.#failing === undefined ? 100 : this.#retryMs);
    // Repeats wait for their window to end; a timer ends it even when no further refusal comes.
    if (this.#repeats.size > 0 && this.#windowTimer === undefined) {
      this.#windowTimer = setTimeout(() => {
        this.#windowTimer = undefined;
        this.#closeWindow(this.#now());
      }, this.#windowMs);
      this.#windowTimer.unref();
    }
  }

  /** Ends the refusal window and writes everything (at shutdown, and in tests). */
  drain(): Promise<void> {
    clearTimeout(this.#windowTimer);
    this.#windowTimer = undefined;
    this.#closeWindow(this.#now());
    return this.flush();
  }

  /**
   * Deletes rows older than `retentionMs`, `batch` rows per statement with a pause between statements, so a large
   * backlog never holds the store for long; returns how many went.
   */
  async prune(retentionMs: number, batch = PRUNE_BATCH): Promise<number> {
    if (this.store === undefined || retentionMs <= 0) return 0;
    const before = new Date(this.#now() - retentionMs).toISOString();
    let deleted = 0;
    for (;;) {
      const n = await this.store.pruneAudit(before, batch);
      deleted += n;
      this.metrics.auditPruned(n);
      if (n < batch) return deleted;
      await new Promise((resolve) => setTimeout(resolve, PRUNE_PAUSE_MS));
    }
  }

  /**
   * Prunes now and every `intervalMs` in the background (never blocking a request; a failure is said once), and
   * keeps the audit database's size for /metrics. `retentionMs` 0 keeps every row (the size is still reported).
   */
  startRetention(retentionMs: number, intervalMs = 10 * 60_000): void {
    if (this.store === undefined || this.#retentionTimer !== undefined) return;
    let first = true;
    const run = async () => {
      try {
        const deleted = await this.prune(retentionMs);
        // Said once, at the first pass (an upgrade's backlog, or a retention shortened): rows going is no surprise.
        if (first && deleted > 0) this.onError(`audit: removed ${deleted} rows older than ${spanText(retentionMs)} (--audit-retention; off keeps every row)`);
        first = false;
        this.metrics.auditBytes(await this.store!.auditBytes());
        this.#pruneFailing = false;
      } catch (error) {
        if (!this.#pruneFailing) this.onError(`audit: cannot prune the log (${(error as Error).message}); retrying later`);
        this.#pruneFailing = true;
      }
    };
    // Soon after start (a backlog from before goes first), then on the interval; the size every minute.
    const soon = setTimeout(() => void run(), 1000);
    soon.unref();
    this.#retentionTimer = setInterval(() => void run(), intervalMs);
    this.#retentionTimer.unref();
    this.#sizeTimer = setInterval(() => {
      this.store!.auditBytes().then(
        (bytes) => this.metrics.auditBytes(bytes),
        () => undefined,
      );
    }, 60_000);
    this.#sizeTimer.unref();
  }

  stopRetention(): void {
    clearInterval(this.#retentionTimer);
    clearInterval(this.#sizeTimer);
    this.#retentionTimer = undefined;
    this.#sizeTimer = undefined;
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

function spanText(ms: number): string {
  const [n, unit] = ms % 86_400_000 === 0 ? [ms / 86_400_000, 'day'] : [Math.round(ms / 3_600_000), 'hour'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}

/** A refused path or name, cut to REFUSED_PATH_MAX characters (marked with an ellipsis when cut). */
function bounded(text: string | undefined): string | undefined {
  return text === undefined || text.length <= REFUSED_PATH_MAX ? text : `${text.slice(0, REFUSED_PATH_MAX)}…`;
}

/** A skill's version: the registry's when it has one, else `metadata.version` from its frontmatter. */
/** A git source's skill: where its bytes came from (`git <repository> <ref>@<commit>`), for the audit trail. */
export function gitSourceOf(skill: CatalogSkill): string | undefined {
  if (skill.origin.kind !== 'stored' || !skill.origin.source.startsWith('git:')) return undefined;
  const provenance = entryMetaOf(skill)?.['dev.skillport/provenance'] as Record<string, unknown> | undefined;
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
