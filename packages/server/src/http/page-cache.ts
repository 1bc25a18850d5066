import type { CatalogSnapshot } from '../catalog/snapshot.js';

/**
 * Answers that are pure functions of a snapshot (a `skills/list` page for one view, era and cursor) serialised
 * once and served as bytes (issue 13). Entries hang off the snapshot (a WeakMap), so they go when the snapshot
 * does; a byte budget shared by every snapshot and view bounds what is held at once (oldest first out), so a
 * 100,000-skill catalog's pages (about 100 MB in all) are not all kept. Each request adds only its own id.
 */
export class PageCache {
  readonly #bySnapshot = new WeakMap<CatalogSnapshot, Map<string, Buffer>>();
  /** Insertion order of every entry held, for the budget (an entry of a collected snapshot just ages out). */
  #order: Array<{ pages: WeakRef<Map<string, Buffer>>; key: string; size: number }> = [];
  #head = 0;
  #bytes = 0;

  constructor(
    readonly budgetBytes = 64 * 1024 * 1024,
    readonly maxEntryBytes = 4 * 1024 * 1024,
  ) {}

  get bytes(): number {
    return this.#bytes;
  }

  /** The bytes of `key` for this snapshot, made by `make` (and kept) on a miss; undefined when `make` declines. */
  get(snapshot: CatalogSnapshot, key: string, make: () => string | undefined): Buffer | undefined {
    let pages = this.#bySnapshot.get(snapshot);
    const hit = pages?.get(key);
    if (hit !== undefined) return hit;
    const text = make();
    if (text === undefined) return undefined;
    // An allocation of its own: a small page made with Buffer.from would sit in Node's shared 8 KiB pool and keep
    // the whole 8 KiB (and whatever else shares it) for as long as the page is cached, beyond what the budget counts.
    const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
    bytes.write(text);
    if (bytes.length > this.maxEntryBytes) return bytes;
    if (pages === undefined) this.#bySnapshot.set(snapshot, (pages = new Map()));
    pages.set(key, bytes);
    this.#order.push({ pages: new WeakRef(pages), key, size: bytes.length });
    this.#bytes += bytes.length;
    while (this.#bytes > this.budgetBytes && this.#head < this.#order.length) {
      const oldest = this.#order[this.#head++]!;
      this.#bytes -= oldest.size;
      oldest.pages.deref()?.delete(oldest.key);
    }
    if (this.#head > 1024 && this.#head * 2 > this.#order.length) {
      this.#order = this.#order.slice(this.#head);
      this.#head = 0;
    }
    return bytes;
  }
}
