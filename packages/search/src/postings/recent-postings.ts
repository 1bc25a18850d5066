/**
 * The search index's recent postings (../index/skill-index.ts): those of the documents added since the last merge, in flat typed
 * arrays, one row per (document, term): the term, the document's slot, its packed counts, and the next row of the
 * same term (a chain per term, slots ascending, since documents are appended in slot order).
 *
 * Why not a growable array per term: building the first index of a large catalog appends tens of millions of rows
 * (about 300 a document), and in a micro-benchmark of the appends alone (60,000 documents × 300 terms) appending each
 * to its term's own JS array cost about ten times as much as appending to these (the per-term arrays are scattered in
 * memory and grow by copying); it was 42 % of `add`'s own time in a profile of a 100,000-document build (issue 13).
 * In the whole build the gain is smaller: docs/benchmarks.md, "Incremental search", third pass.
 *
 * A document's rows are consecutive and in ascending term order, so the counts of one term in one recent document
 * are found by a binary search in that document's rows.
 */
export class RecentPostings {
  /** Rows in use. */
  rows = 0;
  term: Int32Array;
  slot: Int32Array;
  packed: Uint32Array;
  /** The next row of the same term, -1 at the end of its chain. */
  next: Int32Array;
  /** Per term: its first and last rows (-1 when none). */
  private head = new Int32Array(0);
  private last = new Int32Array(0);
  /** Per recent document (slot - firstSlot): its first row. */
  private docStart = new Int32Array(64);
  private docs = 0;
  /** Slots from this one on are recent. */
  private firstSlot = 0;
  /** Rows expected before the next reset (the index's merge point): the arrays grow to it at once, untouched pages not resident. */
  private planned = 0;

  constructor(private readonly initialCapacity = 4096) {
    this.term = new Int32Array(initialCapacity);
    this.slot = new Int32Array(initialCapacity);
    this.packed = new Uint32Array(initialCapacity);
    this.next = new Int32Array(initialCapacity);
  }

  /**
   * Forgets every row (after a merge folded them into the compact lists); slots from `firstSlot` on are recent.
   * `planned`: about how many rows will be appended before the next reset; growing straight to it spares the copies
   * of growth by doubling, and the half-empty arrays doubling leaves (the arrays' pages are resident only once written).
   */
  reset(firstSlot: number, planned = 0): void {
    this.planned = planned;
    this.rows = 0;
    this.docs = 0;
    this.firstSlot = firstSlot;
    this.head.fill(-1);
    this.last.fill(-1);
    // The arrays grew for a large batch (the first build): give the memory back.
    if (this.term.length > this.initialCapacity * 16) {
      this.term = new Int32Array(this.initialCapacity);
      this.slot = new Int32Array(this.initialCapacity);
      this.packed = new Uint32Array(this.initialCapacity);
      this.next = new Int32Array(this.initialCapacity);
      this.docStart = new Int32Array(64);
    }
  }

  /**
   * Appends a document's postings: `terms` ascending, `packedOf(term)` its counts. Slots come in order, one after
   * the other from `firstSlot`.
   */
  addDocument(slot: number, terms: ArrayLike<number>, packedOf: (term: number) => number): void {
    const doc = slot - this.firstSlot;
    if (doc !== this.docs) throw new Error(`recent postings: slot ${slot} out of order`);
    if (doc + 1 >= this.docStart.length) this.docStart = grown(this.docStart, doc + 2);
    this.docStart[doc] = this.rows;
    this.docs++;
    const count = terms.length;
    if (this.rows + count > this.term.length) this.reserve(this.rows + count);
    if (count > 0 && terms[count - 1]! >= this.head.length) this.cover(terms[count - 1]! + 1);
    for (let at = 0; at < count; at++) {
      const term = terms[at]!;
      const row = this.rows++;
      this.term[row] = term;
      this.slot[row] = slot;
      this.packed[row] = packedOf(term);
      this.next[row] = -1;
      const last = this.last[term]!;
      if (last < 0) this.head[term] = row;
      else this.next[last] = row;
      this.last[term] = row;
    }
  }

  /** The first row of `term`'s chain, -1 when it has no recent posting; follow `next` from there. */
  first(term: number): number {
    return term < this.head.length ? this.head[term]! : -1;
  }

  /** The packed counts of `term` in recent document `slot`, 0 when it does not hold it. */
  packedCount(term: number, slot: number): number {
    const doc = slot - this.firstSlot;
    if (doc < 0 || doc >= this.docs) return 0;
    let low = this.docStart[doc]!;
    const end = doc + 1 < this.docs ? this.docStart[doc + 1]! : this.rows;
    let high = end;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.term[middle]! < term) low = middle + 1;
      else high = middle;
    }
    return low < end && this.term[low] === term ? this.packed[low]! : 0;
  }

  private reserve(rows: number): void {
    const size = Math.max(rows, this.term.length * 2, this.planned);
    this.term = grown(this.term, size);
    this.slot = grown(this.slot, size);
    this.packed = grown(this.packed, size);
    this.next = grown(this.next, size);
  }

  private cover(terms: number): void {
    const size = Math.max(terms, this.head.length * 2, 1024);
    const head = new Int32Array(size).fill(-1);
    head.set(this.head);
    const last = new Int32Array(size).fill(-1);
    last.set(this.last);
    this.head = head;
    this.last = last;
  }
}

function grown<T extends Int32Array | Uint32Array>(array: T, size: number): T {
  const bigger = new (array.constructor as new (length: number) => T)(Math.max(size, array.length * 2));
  bigger.set(array);
  return bigger;
}
