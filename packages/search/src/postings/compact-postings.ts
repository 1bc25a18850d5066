/**
 * The compact postings' layout: one 32-bit word a posting, the document's slot in the high bits and, in the low
 * `shift` bits, a code for its packed counts (./packed-counts.ts) in a table of the distinct packed values (a few
 * thousand in a catalog: most postings are a body count of one to three). Slots ascend within a list, so the slots
 * decoded from the words do too. When the slots leave too few bits for the table (millions of skills), the layout
 * is wide: shift 0, the word is the slot and the counts are kept per posting (8 bytes a posting instead of 4).
 * Either way a posting's counts are `counts[(word & codeMask) | (at & positionMask)]`: no branch in the walks.
 */
export interface PostingLayout {
  words: Uint32Array;
  /** The code table (shift > 0), or the counts per posting (shift 0, wide). */
  counts: Uint32Array;
  shift: number;
  codeMask: number;
  positionMask: number;
}

/** The most code bits a word gives its counts. */
export const MAX_CODE_BITS = 24;

/** The code bits that slots below `slots` leave in a word, at most `most` (0: none, wide). */
export function shiftFor(slots: number, most = MAX_CODE_BITS): number {
  return Math.min(most, slots <= 1 ? MAX_CODE_BITS : Math.clz32(slots - 1));
}

/** The masks of a layout with this shift (0: wide). */
export function masksFor(shift: number): { codeMask: number; positionMask: number } {
  return shift === 0 ? { codeMask: 0, positionMask: -1 } : { codeMask: 2 ** shift - 1, positionMask: 0 };
}

/**
 * The table of distinct packed counts, append-only while the layout stays compact (a code, once given, names the
 * same counts until the next full rewrite), so a merge encodes only the recent postings.
 */
export class CountCodes {
  values: Uint32Array;
  size: number;
  private readonly codes = new Map<number, number>();

  constructor(values: Uint32Array = new Uint32Array(256), size = 0) {
    this.values = values;
    this.size = size;
    for (let code = 0; code < size; code++) this.codes.set(values[code]!, code);
  }

  /** The code of packed counts, given now when they are new. */
  code(packed: number): number {
    const known = this.codes.get(packed);
    if (known !== undefined) return known;
    if (this.size === this.values.length) {
      const bigger = new Uint32Array(Math.max(16, this.values.length * 2));
      bigger.set(this.values);
      this.values = bigger;
    }
    this.values[this.size] = packed;
    this.codes.set(packed, this.size);
    return this.size++;
  }
}
