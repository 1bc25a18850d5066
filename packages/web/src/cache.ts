/**
 * Rendered HTML kept by content digest, within a byte budget: least recently used out first, and an entry larger
 * than `maxEntryBytes` never kept (it would push out everything else for one page). What is rendered from the same
 * bytes is the same, so a hit is always right; the budget bounds what is held however many pages are viewed.
 */
export class RenderCache<V = string> {
  readonly #entries = new Map<string, { value: V; size: number }>();
  #bytes = 0;
  hits = 0;
  misses = 0;

  constructor(
    readonly budgetBytes: number,
    readonly maxEntryBytes: number,
    /** Bytes an entry holds; for text, UTF-16 code units as V8 holds most strings. */
    readonly sizeOf: (value: V) => number = (value) => String(value).length * 2,
  ) {}

  get bytes(): number {
    return this.#bytes;
  }

  /** The value kept for `key` (now the most recent), or undefined. */
  get(key: string): V | undefined {
    const hit = this.#entries.get(key);
    if (hit === undefined) {
      this.misses++;
      return undefined;
    }
    this.hits++;
    // Map order is insertion order: taken out and put back, the entry becomes the most recent.
    this.#entries.delete(key);
    this.#entries.set(key, hit);
    return hit.value;
  }

  /** Keeps `value` for `key` when it is small enough, the least recently used going first past the budget. */
  set(key: string, value: V): void {
    const size = this.sizeOf(value);
    if (size > this.maxEntryBytes) return;
    const previous = this.#entries.get(key);
    if (previous !== undefined) {
      this.#entries.delete(key);
      this.#bytes -= previous.size;
    }
    this.#entries.set(key, { value, size });
    this.#bytes += size;
    for (const [oldest, entry] of this.#entries) {
      if (this.#bytes <= this.budgetBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.size;
    }
  }

  /** The value kept for `key`, or `make()`'s, kept. */
  through(key: string, make: () => V): V {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const value = make();
    this.set(key, value);
    return value;
  }
}
