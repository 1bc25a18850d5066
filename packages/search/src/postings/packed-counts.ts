/**
 * A posting's counts: a term's occurrences in one document, per field, doubled (a compound's part counts half) and
 * packed 8 bits per field into one 32-bit integer (BM25 saturation makes occurrences past 127 irrelevant anyway).
 */
export const FIELDS = 4; // name, description, headings, body
export const FIELD_NAMES = ['name', 'description', 'headings', 'body'] as const;
/** Bits per field in a packed count (FIELDS × FIELD_BITS ≤ 32). */
export const FIELD_BITS = 8;
export const FIELD_MAX = (1 << FIELD_BITS) - 1;
/** Where the description's count sits in a packed count (field 1). */
export const DESCRIPTION_SHIFT = FIELD_BITS * 1;

/** Bit f set when field f holds the term. */
export function fieldBits(packed: number): number {
  let bits = 0;
  for (let f = 0; f < FIELDS; f++) if (((packed >>> (FIELD_BITS * f)) & FIELD_MAX) !== 0) bits |= 1 << f;
  return bits;
}
