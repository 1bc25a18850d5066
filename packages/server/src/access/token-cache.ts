import type { Principal } from './principal.js';
import { principalOf, tokenId, tokenMatches, tokenState } from './store.js';
import type { AccessStore, TokenCheck, TokenEntry } from './store.js';

/**
 * Verified tokens in memory, per process (per replica): a token check is a map hit, a sha256 and a constant-time
 * compare, never a database round trip. Kept right by the store's change feed: a revocation (this replica's, or
 * another's through the changes table and NOTIFY) marks the token stale, and a stale or unknown token is looked up
 * again. Expiry is checked against the clock at every use. While the store is unreachable, tokens verified before
 * go on working and a token never seen (or just changed) cannot be checked: `unavailable`, a 503 to the caller.
 *
 * The same token gives the same principal object while its record is unchanged, so per-principal state (views,
 * handlers) is found without recomputing anything. A store that can say cheaply whether another process wrote
 * (SQLite's `data_version`) is asked at every check, so there a revocation by the CLI is refused at the next request.
 */
export type CachedCheck = TokenCheck | { unavailable: string };

interface Cached {
  entry: TokenEntry;
  fingerprint: string;
  principal: Principal;
  stale: boolean;
}

const MAX_ENTRIES = 10_000;

export class TokenCache {
  readonly #entries = new Map<string, Cached>();
  /** Bumped by every invalidation: a lookup that raced one is answered but kept stale (it may predate the change). */
  #epoch = 0;
  #stamp: number | undefined;

  constructor(readonly store: AccessStore) {}

  async check(token: string, now = Date.now()): Promise<CachedCheck> {
    const id = tokenId(token);
    if (id === undefined) return { error: 'invalid' };
    this.#checkStamp();
    let cached = this.#entries.get(id);
    if (cached === undefined || cached.stale) {
      let entry: TokenEntry | undefined;
      const epoch = this.#epoch;
      try {
        entry = await this.store.tokenEntry(id);
      } catch (error) {
        return { unavailable: (error as Error).message };
      }
      if (entry === undefined) {
        this.#entries.delete(id);
        return { error: 'invalid' };
      }
      cached = this.#remember(entry, cached, epoch);
    }
    if (!tokenMatches(token, cached.entry.hash)) return { error: 'invalid' };
    const state = tokenState(cached.entry.record, now);
    return state === undefined ? { principal: cached.principal } : { error: state };
  }

  /** Whether a token principal still holds (not revoked, not expired); looks a stale token up again. */
  async stillValid(id: string, now = Date.now()): Promise<boolean> {
    this.#checkStamp();
    let cached = this.#entries.get(id);
    if (cached === undefined || cached.stale) {
      const epoch = this.#epoch;
      const entry = await this.store.tokenEntry(id);
      if (entry === undefined) return false;
      cached = this.#remember(entry, cached, epoch);
    }
    return tokenState(cached.entry.record, now) === undefined;
  }

  /** A store that can tell cheaply whether another process wrote (SQLite) is asked before the cache is trusted. */
  #checkStamp(): void {
    if (this.store.changeStamp === undefined) return;
    let stamp: number;
    try {
      stamp = this.store.changeStamp();
    } catch {
      return; // a closed store: the look-up says so
    }
    if (this.#stamp !== undefined && stamp !== this.#stamp) this.invalidateAll();
    this.#stamp = stamp;
  }

  /** A token changed (revoked on some replica): its next use is looked up again. */
  invalidate(id: string): void {
    this.#epoch++;
    const cached = this.#entries.get(id);
    if (cached !== undefined) cached.stale = true;
  }

  /** Something changed that the store could not name: every token is looked up again at its next use. */
  invalidateAll(): void {
    this.#epoch++;
    for (const cached of this.#entries.values()) cached.stale = true;
  }

  /** Token ids known here (the live principals' tokens among them). */
  ids(): string[] {
    return [...this.#entries.keys()];
  }

  #remember(entry: TokenEntry, previous: Cached | undefined, epoch: number): Cached {
    const fingerprint = entry.hash + JSON.stringify(entry.record);
    const principal = previous !== undefined && previous.fingerprint === fingerprint ? previous.principal : principalOf(entry.record);
    if (this.#entries.size >= MAX_ENTRIES && !this.#entries.has(entry.record.id)) this.#entries.clear();
    const cached = { entry, fingerprint, principal, stale: epoch !== this.#epoch };
    this.#entries.set(entry.record.id, cached);
    return cached;
  }
}
