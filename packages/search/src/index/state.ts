import { MAX_CODE_BITS } from '../postings/compact-postings.js';
import { FIELDS } from '../postings/packed-counts.js';

/**
 * A compacted index as plain arrays (`SkillSearchIndex.exportState` / `fromState`), slots 0..n-1 all live:
 * - terms and their document frequencies;
 * - per slot: id, name, the text of its meaning vector (name and description; null without vectors), words per
 *   field (`lengths[f][slot]`), its distinct term ids (varint gaps, `forward[forwardOffsets[slot]..]`) and the
 *   description's term sequence (`descriptions[descriptionOffsets[slot]..]`);
 * - postings: term t's are `postings` from `postingOffsets[t]` to `postingOffsets[t + 1]`, slots ascending, one
 *   32-bit word each (../postings/compact-postings.ts): the slot above `postingShift` bits of a code into the table
 *   `postingCounts` of packed counts (../postings/packed-counts.ts), or with shift 0 the slot alone and
 *   `postingCounts` the counts per posting.
 */
export interface IndexState {
  terms: readonly string[];
  /** Per term, the word it was seen written as ('' when only seen inside a compound). */
  written: readonly string[];
  df: Int32Array;
  ids: readonly string[];
  names: readonly string[];
  meaning: ReadonlyArray<string | null>;
  lengths: Int32Array[];
  forwardOffsets: Int32Array;
  forward: Uint8Array;
  descriptionOffsets: Int32Array;
  descriptions: Int32Array;
  postingOffsets: Int32Array;
  postings: Uint32Array;
  postingShift: number;
  postingCounts: Uint32Array;
  /**
   * The pruning bounds of these postings (per term, the largest tf at `averages`, the field averages they were taken
   * at); optional: computed from the postings when missing.
   */
  bounds?: { tf: Float64Array; averages: readonly number[] };
}

/** An IndexState whose per-slot term lists and descriptions are read slot by slot (`SkillSearchIndex.exportParts`). */
export interface IndexParts extends Omit<IndexState, 'forwardOffsets' | 'forward' | 'descriptionOffsets' | 'descriptions'> {
  forwardOf(slot: number): Uint8Array;
  descriptionOf(slot: number): Int32Array;
}

/** Throws, saying what is wrong, unless every array of `state` fits with the others (a search must never index out of bounds). */
export function checkState(state: IndexState): void {
  const fail = (why: string): never => {
    throw new Error(`search index state: ${why}`);
  };
  const terms = state.terms.length;
  const count = state.ids.length;
  // Terms and ids listed twice are found by the maps a restore builds from them (fromState), not by a Set here.
  if (!state.terms.every((term) => typeof term === 'string')) fail('a term is not a string');
  if (state.written.length !== terms || !state.written.every((word) => typeof word === 'string')) fail('written forms do not match the terms');
  if (state.df.length !== terms) fail(`${state.df.length} document frequencies for ${terms} terms`);
  if (!state.ids.every((id) => typeof id === 'string')) fail('an id is not a string');
  if (state.names.length !== count || !state.names.every((name) => typeof name === 'string')) fail('names do not match the ids');
  if (state.meaning.length !== count || !state.meaning.every((text) => text === null || typeof text === 'string')) fail('meaning texts do not match the ids');
  if (state.lengths.length !== FIELDS || state.lengths.some((values) => values.length !== count || !allAtLeast(values, 0)))
    fail('field lengths do not match the ids');
  checkOffsets(state.forwardOffsets, count, state.forward.length, 'term lists', fail);
  checkOffsets(state.descriptionOffsets, count, state.descriptions.length, 'descriptions', fail);
  checkOffsets(state.postingOffsets, terms, state.postings.length, 'postings', fail);
  const shift = state.postingShift;
  if (!Number.isInteger(shift) || shift < 0 || shift > MAX_CODE_BITS || (shift > 0 && count > 2 ** (32 - shift)))
    fail('the postings layout does not fit the slots');
  if (shift === 0 ? state.postingCounts.length !== state.postings.length : state.postingCounts.length > 2 ** shift)
    fail('posting counts do not match the postings');
  if (!allAtLeast(state.descriptions, 0) || !allBelow(state.descriptions, terms)) fail('a description names an unknown term');
  const bad = badPostings(state.postingOffsets, state.postings, state.df, shift, count, shift > 0 ? state.postingCounts.length : 0);
  if (bad >= 0) {
    // Which rule the term breaks (a second look at one list, for the message).
    const start = state.postingOffsets[bad]!;
    const end = state.postingOffsets[bad + 1]!;
    const codeMask = shift === 0 ? 0 : 2 ** shift - 1;
    for (let at = start, previous = -1; at < end; at++) {
      const slot = state.postings[at]! >>> shift;
      if (slot <= previous || slot >= count) fail(`term ${bad}'s postings are not ascending slots below ${count}`);
      if (shift > 0 && (state.postings[at]! & codeMask) >= state.postingCounts.length) fail(`term ${bad}'s postings name counts the table does not hold`);
      previous = slot;
    }
    fail(`term ${bad}'s document frequency is not its posting count`);
  }
  const slot = badTermList(state.forwardOffsets, state.forward, count, terms);
  if (slot >= 0) fail(`slot ${slot} lists an unknown term`);
}

/**
 * The first term whose postings are not ascending slots below `count` with codes below `codes` (shift > 0), or whose
 * document frequency is not its posting count; -1 when none. One tight pass over every posting of a restored file:
 * locals only, no callback (at 100,000 skills it is tens of millions of words).
 */
function badPostings(offsets: Int32Array, words: Uint32Array, df: Int32Array, shift: number, count: number, codes: number): number {
  const terms = offsets.length - 1;
  const codeMask = shift === 0 ? 0 : 2 ** shift - 1;
  for (let term = 0; term < terms; term++) {
    const start = offsets[term]!;
    const end = offsets[term + 1]!;
    if (df[term] !== end - start) return term;
    let previous = -1;
    for (let at = start; at < end; at++) {
      const word = words[at]!;
      const slot = word >>> shift;
      if (slot <= previous || slot >= count || (shift > 0 && (word & codeMask) >= codes)) return term;
      previous = slot;
    }
  }
  return -1;
}

/** The first slot whose term list (varint gaps, ../postings/varint-ids.ts) names a term at or above `terms`, or runs past its end; -1 when none. */
function badTermList(offsets: Int32Array, bytes: Uint8Array, count: number, terms: number): number {
  for (let slot = 0; slot < count; slot++) {
    const end = offsets[slot + 1]!;
    let id = 0;
    for (let at = offsets[slot]!; at < end; ) {
      let gap = 0;
      let shift = 0;
      let byte: number;
      do {
        // Four bytes carry 28 bits, more than any vocabulary's ids.
        if (at >= end || shift > 21) return slot;
        byte = bytes[at++]!;
        gap |= (byte & 0x7f) << shift;
        shift += 7;
      } while (byte >= 0x80);
      id += gap;
      if (id >= terms) return slot;
    }
  }
  return -1;
}

// Loops, not `some` with a callback: these pass over every posting and term of a 100,000-skill index at each restore.
function allAtLeast(values: Int32Array, least: number): boolean {
  for (let at = 0; at < values.length; at++) if (values[at]! < least) return false;
  return true;
}

function allBelow(values: Int32Array, bound: number): boolean {
  for (let at = 0; at < values.length; at++) if (values[at]! >= bound) return false;
  return true;
}

function checkOffsets(offsets: Int32Array, entries: number, total: number, what: string, fail: (why: string) => never): void {
  if (offsets.length !== entries + 1 || offsets[0] !== 0 || offsets[entries] !== total) fail(`${what}: offsets do not span the values`);
  for (let at = 0; at < entries; at++) if (offsets[at + 1]! < offsets[at]!) fail(`${what}: offsets go backwards`);
}
