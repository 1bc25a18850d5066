import { forEachId } from './varint-ids.js';

/**
 * The search index's recent postings (../index/skill-index.ts): those of the documents added since the last merge, in flat typed
 * arrays, one row per (document, term): its packed counts and the next row of the same term (a chain per term, slots
 * ascending, since documents are appended in slot order). A document's rows are consecutive, in the ascending order
 * of its distinct terms (the index keeps that list, encodeIds), so a row's term and slot are not stored: the slot is
 * found from where each document's rows start, the term from the document's term list.
 *
 * Why not a growable array per term: building the first index of a large catalog appends tens of millions of rows
 * (about 300 a document), and in a micro-benchmark of the appends alone (60,000 documents × 300 terms) appending each
 * to its term's own JS array cost about ten times as much as appending to these (the per-term arrays are scattered in
 * memory and grow by copying); it was 42 % of `add`'s own time in a profile of a 100,000-document build (issue 13).
 * In the whole build the gain is smaller: docs/benchmarks.md, "Incremental search", third pass.
 *
 * Memory: 8 bytes a row. With the term and the slot in each row (16 bytes), the rows held since the last merge were
 * the largest part of a 100,000-skill build's peak (up to half as many rows as the compact lists, at four times their
 * bytes a posting).
 */
export class RecentPostings {
  /** Rows in use. */
  rows = 0;
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
    if (this.packed.length > this.initialCapacity * 16) {
      this.packed = new Uint32Array(this.initialCapacity);
      this.next = new Int32Array(this.initialCapacity);
      this.docStart = new Int32Array(64);
    }
  }

  /**
   * Appends a document's postings: `terms` ascending (the order of its encodeIds list), `packedOf(term)` its counts.
   * Slots come in order, one after the other from `firstSlot`.
   */
  addDocument(slot: number, terms: ArrayLike<number>, packedOf: (term: number) => number): void {
    const doc = slot - this.firstSlot;
    if (doc !== this.docs) throw new Error(`recent postings: slot ${slot} out of order`);
    if (doc + 1 >= this.docStart.length) this.docStart = grown(this.docStart, doc + 2);
    this.docStart[doc] = this.rows;
    this.docs++;
    const count = terms.length;
    if (this.rows + count > this.packed.length) this.reserve(this.rows + count);
    if (count > 0 && terms[count - 1]! >= this.head.length) this.cover(terms[count - 1]! + 1);
    for (let at = 0; at < count; at++) {
      const term = terms[at]!;
      const row = this.rows++;
      this.packed[row] = packedOf(term);
      this.next[row] = -1;
      const last = this.last[term]!;
      if (last < 0) this.head[term] = row;
      else this.next[last] = row;
      this.last[term] = row;
    }
  }

  /** The first row of `term`'s chain, -1 when it has no recent posting. */
  first(term: number): number {
    return term < this.head.length ? this.head[term]! : -1;
  }

  /** Calls `visit(slot, packed)` along `term`'s chain (slots ascending); stops once it returns true. */
  walk(term: number, visit: (slot: number, packed: number) => boolean | void): void {
    let doc = 0;
    for (let row = this.first(term); row >= 0; row = this.next[row]!) {
      doc = this.docOf(row, doc);
      if (visit(this.firstSlot + doc, this.packed[row]!) === true) return;
    }
  }

  /**
   * Calls `visit(slot, term, packed)` for every row of the documents `termsOf` gives a term list (encodeIds) for,
   * in row order: slots ascending, each document's terms ascending. Documents it gives none for are skipped.
   */
  forEachRow(termsOf: (slot: number) => Uint8Array | undefined, visit: (slot: number, term: number, packed: number) => void): void {
    for (let doc = 0; doc < this.docs; doc++) {
      const slot = this.firstSlot + doc;
      const ids = termsOf(slot);
      if (ids === undefined) continue;
      let row = this.docStart[doc]!;
      forEachId(ids, (term) => visit(slot, term, this.packed[row++]!));
    }
  }

  /** The packed counts of `term` in recent document `slot`, whose term list (encodeIds) is `ids`; 0 when it does not hold it. */
  packedCount(term: number, slot: number, ids: Uint8Array | undefined): number {
    const doc = slot - this.firstSlot;
    if (doc < 0 || doc >= this.docs || ids === undefined) return 0;
    let id = 0;
    let row = this.docStart[doc]!;
    for (let at = 0; at < ids.length; row++) {
      let gap = 0;
      let shift = 0;
      let byte: number;
      do {
        byte = ids[at++]!;
        gap |= (byte & 0x7f) << shift;
        shift += 7;
      } while (byte >= 0x80);
      id += gap;
      if (id >= term) return id === term ? this.packed[row]! : 0;
    }
    return 0;
  }

  /** The recent document (slot - firstSlot) holding `row`, at or after document `from` (rows ascend along a chain). */
  private docOf(row: number, from: number): number {
    const starts = this.docStart;
    const docs = this.docs;
    if (from + 1 >= docs || starts[from + 1]! > row) return from;
    // The last document starting at or before `row`: doubling steps from `from`, then halving.
    let low = from + 1;
    let step = 1;
    while (low + step < docs && starts[low + step]! <= row) {
      low += step;
      step *= 2;
    }
    let high = Math.min(docs, low + step);
    while (high - low > 1) {
      const middle = (low + high) >>> 1;
      if (starts[middle]! <= row) low = middle;
      else high = middle;
    }
    return low;
  }

  private reserve(rows: number): void {
    const size = Math.max(rows, this.packed.length * 2, this.planned);
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
