/**
 * BM25F over four fields (name, description, headings, body): per field f, tf_f = occurrences / (1 − b_f + b_f ·
 * len_f / avglen_f); the fields are combined before saturation, tf = Σ w_f · tf_f, and a term scores
 * idf · tf / (k1 + tf), with k1 = 1.2 and idf = ln(1 + (N − df + 0.5) / (df + 0.5)). Why these weights: the top of
 * ../index/skill-index.ts.
 */
import type { IntList } from '../postings/int-list.js';
import { FIELD_BITS, FIELD_MAX } from '../postings/packed-counts.js';

export const FIELD_WEIGHTS = [3, 1, 0.3, 0.15];
export const FIELD_B = [0.3, 0.75, 0.75, 0.9];
export const K1 = 1.2;
/**
 * The body's length normaliser has a floor: a short, focused body weighs more than a long one (b = 0.9), but at most
 * 1 / 0.3 times its nominal weight, so a word in a very short body never outweighs the description.
 */
export const BODY_MIN_NORM = 0.3;

/**
 * The documents a search runs over, with the statistics BM25 takes from them: the whole index, or a view (a subset
 * of its documents, e.g. what one principal may see). Statistics are the subset's own (document count, average
 * field lengths, document frequencies), so a search in a view ranks exactly like an index built from the view's
 * documents alone, and scores reveal nothing about documents outside it.
 */
export interface Scope {
  /** Per slot, 1 when the document is searched. */
  visible: Uint8Array;
  count: number;
  averages: number[];
  /** Per slot and field, the field's weight over its length normaliser (see FieldWeights). */
  weights: FieldWeights;
  df: (id: number) => number;
  /** Whether a document of the scope holds the term in its name, description or headings. */
  topical: (id: number) => boolean;
}

/**
 * Per slot, each field's weight over its length normaliser, w_f / norm_f, for a scope's average field lengths, so that
 * a posting's value is a few multiplications. One array per field: most postings are a body count alone, and their
 * value then reads the body's array only (a quarter of the bytes a long list's walk would otherwise pull through the
 * cache). A slot's entries are computed when a query first meets it after a change (`reset` invalidates them all
 * with a new stamp): a change costs nothing until then, and a query pays only for the documents it touches.
 */
export class FieldWeights {
  name = new Float64Array(0);
  description = new Float64Array(0);
  headings = new Float64Array(0);
  body = new Float64Array(0);
  stamps = new Int32Array(0);
  stamp = 0;
  averages: number[] = [1, 1, 1, 1];

  reset(slots: number, averages: number[]): void {
    if (this.stamps.length < slots) {
      const size = Math.max(16, slots * 2);
      this.name = new Float64Array(size);
      this.description = new Float64Array(size);
      this.headings = new Float64Array(size);
      this.body = new Float64Array(size);
      this.stamps = new Int32Array(size);
    }
    this.stamp++;
    this.averages = averages;
  }
}

/** Average words per field over `count` documents (1 for an empty field or index, as the normaliser's divisor). */
export function averagesOf(totals: readonly number[], count: number): number[] {
  return totals.map((total) => (count > 0 && total > 0 ? total / count : 1));
}

/** The weight over length normaliser of field f in a document of `length` words of it, at `average`. */
function fieldWeight(f: number, length: number, average: number): number {
  const b = FIELD_B[f]!;
  const norm = 1 - b + (b * length) / average;
  return FIELD_WEIGHTS[f]! / (f === 3 ? Math.max(BODY_MIN_NORM, norm) : norm);
}

/** Fills slot's entries of `weights` for its average lengths (`lengths`: words per field, by slot). */
function fillWeights(weights: FieldWeights, slot: number, lengths: readonly IntList[]): void {
  const average = weights.averages;
  weights.name[slot] = fieldWeight(0, lengths[0]!.data[slot]!, average[0]!);
  weights.description[slot] = fieldWeight(1, lengths[1]!.data[slot]!, average[1]!);
  weights.headings[slot] = fieldWeight(2, lengths[2]!.data[slot]!, average[2]!);
  weights.body[slot] = fieldWeight(3, lengths[3]!.data[slot]!, average[3]!);
  weights.stamps[slot] = weights.stamp;
}

/** The name's, description's and headings' counts in packed counts (the body's are the top FIELD_BITS). */
const HEAD_MASK = 2 ** (3 * FIELD_BITS) - 1;

/** The saturated BM25F value tf / (k1 + tf) of packed counts in document `slot` (idf is applied per term). */
export function saturated(packed: number, slot: number, fieldWeights: FieldWeights, lengths: readonly IntList[]): number {
  if (fieldWeights.stamps[slot] !== fieldWeights.stamp) fillWeights(fieldWeights, slot, lengths);
  const body = ((packed >>> (3 * FIELD_BITS)) & FIELD_MAX) * fieldWeights.body[slot]!;
  // Counts are doubled (a compound's part counts half): halved here. A body count alone: the other fields' products
  // are +0, and +0 added to a number is that number, so the value is bit for bit the general sum's.
  const tf =
    (packed & HEAD_MASK) === 0
      ? 0.5 * body
      : 0.5 *
        ((packed & FIELD_MAX) * fieldWeights.name[slot]! +
          ((packed >>> FIELD_BITS) & FIELD_MAX) * fieldWeights.description[slot]! +
          ((packed >>> (2 * FIELD_BITS)) & FIELD_MAX) * fieldWeights.headings[slot]! +
          body);
  return tf / (K1 + tf);
}

/** idf = ln(1 + (N − df + 0.5) / (df + 0.5)). */
export function idf(df: number, count: number): number {
  return Math.log(1 + (count - df + 0.5) / (df + 0.5));
}

/**
 * The largest weight over length normaliser a field can have in any document of any scope: the normaliser
 * 1 − b + b · len / avglen is at least 1 − b (an empty field), a body's at least BODY_MIN_NORM.
 */
const MAX_FIELD_WEIGHTS = FIELD_WEIGHTS.map((weight, f) => weight / (f === 3 ? Math.max(BODY_MIN_NORM, 1 - FIELD_B[f]!) : 1 - FIELD_B[f]!));

/** An upper bound of `saturated(packed', slot, …)` for any document and scope whose counts are at most `packed` field by field. */
export function saturationBound(packed: number): number {
  const tf =
    0.5 *
    ((packed & FIELD_MAX) * MAX_FIELD_WEIGHTS[0]! +
      ((packed >>> FIELD_BITS) & FIELD_MAX) * MAX_FIELD_WEIGHTS[1]! +
      ((packed >>> (2 * FIELD_BITS)) & FIELD_MAX) * MAX_FIELD_WEIGHTS[2]! +
      ((packed >>> (3 * FIELD_BITS)) & FIELD_MAX) * MAX_FIELD_WEIGHTS[3]!);
  return tf / (K1 + tf);
}
