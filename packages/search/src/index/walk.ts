/**
 * The hot loops of a query: a posting list's values added to the documents' accumulators, as small functions of
 * their own so that the engine compiles each with the BM25F value and the accumulation inlined (inside the large
 * search function its inlining budget runs out).
 */
import type { PostingLayout } from '../postings/compact-postings.js';
import { IntList } from '../postings/int-list.js';
import { MAPPED_COVERAGE } from '../expansion/query-expansion.js';
import { saturated } from '../scoring/bm25f.js';
import type { FieldWeights } from '../scoring/bm25f.js';

/** A query term's per-document state: coverage (0 none, 1 a mapped term only, 2 the word or a near or related one) in the low bits, and whether the document holds the word itself. */
export const COVERAGE_MASK = 3;
export const OWN_BIT = 4;

/** Per slot: the score so far, the coverage so far, and 0 (not met), 1 (in the running) or 2 (out of it). */
export interface Accumulators {
  scores: Float64Array;
  covered: Float64Array;
  marked: Uint8Array;
}

/**
 * One query term's per-slot best value and state (see COVERAGE_MASK). A slot's best value counts only where its
 * state is set (every take sets it): only the states are cleared after a query, the values are left as they were.
 */
export interface TermAccumulators {
  best: Float64Array;
  state: Uint8Array;
}

/** What one list adds: its scale (idf × factor × weight), whether its term is a mapped one, the term's importance, and whether it is the typed word's own list. */
export interface ListValue {
  scale: number;
  mapped: boolean;
  importance: number;
  own: boolean;
}

/**
 * A list's value for a document in the running: the term keeps its best value (the score takes the difference) and
 * its coverage (a mapped term earns MAPPED_COVERAGE of the word's credit, the word or a near or related one all);
 * `own`: the list is the typed word's own (the document then holds the word, for phrase bounds). Idempotent.
 */
export function take(
  scores: Float64Array,
  covered: Float64Array,
  best: Float64Array,
  state: Uint8Array,
  doc: number,
  value: number,
  mapped: boolean,
  importance: number,
  own: boolean,
): void {
  const was = state[doc]!;
  const prior = was === 0 ? 0 : best[doc]!;
  if (was === 0 || value > prior) {
    scores[doc]! += value - prior;
    best[doc] = value;
  }
  if (mapped) {
    if (was === 0) {
      state[doc] = 1;
      covered[doc]! += MAPPED_COVERAGE * importance;
    }
  } else if ((was & COVERAGE_MASK) !== 2) {
    state[doc] = (was & OWN_BIT) | 2;
    covered[doc]! += was === 1 ? importance - MAPPED_COVERAGE * importance : importance;
  }
  if (own) state[doc]! |= OWN_BIT;
}

/** Compact postings `start .. end` of a list added to the documents in the running (marked 1) only. */
export function walkRunning(
  layout: PostingLayout,
  start: number,
  end: number,
  into: Accumulators,
  term: TermAccumulators,
  list: ListValue,
  weights: FieldWeights,
  lengths: readonly IntList[],
): void {
  const { scores, covered, marked } = into;
  const { best, state } = term;
  const { scale, mapped, importance, own } = list;
  const { words, counts, shift, codeMask, positionMask } = layout;
  for (let at = start; at < end; at++) {
    const word = words[at]!;
    const doc = word >>> shift;
    if (marked[doc] !== 1) continue;
    const packed = counts[(word & codeMask) | (at & positionMask)]!;
    take(scores, covered, best, state, doc, scale * saturated(packed, doc, weights, lengths), mapped, importance, own);
  }
}

/**
 * Compact postings `start .. end` of a list while documents are still admitted: a visible document first met here
 * is admitted (marked 1, into `touched`) unless its value is below `admitBelow` (marked 2, into `declined`: it
 * could never rank); documents out of the running are skipped.
 */
export function walkAdmitting(
  layout: PostingLayout,
  start: number,
  end: number,
  visible: Uint8Array,
  into: Accumulators,
  term: TermAccumulators,
  list: ListValue,
  weights: FieldWeights,
  lengths: readonly IntList[],
  admitBelow: number,
  touched: IntList,
  declined: IntList,
): void {
  const { scores, covered, marked } = into;
  const { best, state } = term;
  const { scale, mapped, importance, own } = list;
  const { words, counts, shift, codeMask, positionMask } = layout;
  for (let at = start; at < end; at++) {
    const word = words[at]!;
    const doc = word >>> shift;
    const mark = marked[doc]!;
    if (visible[doc] !== 1 || mark === 2) continue;
    const value = scale * saturated(counts[(word & codeMask) | (at & positionMask)]!, doc, weights, lengths);
    if (mark !== 1) {
      if (value < admitBelow) {
        marked[doc] = 2;
        declined.push(doc);
        continue;
      }
      marked[doc] = 1;
      touched.push(doc);
    }
    take(scores, covered, best, state, doc, value, mapped, importance, own);
  }
}

/**
 * After a query, the first `count` terms' states cleared (a value counts where its state is set, see
 * TermAccumulators); many touched slots: clearing the whole array is cheaper than visiting each slot once per term.
 */
export function clearStates(terms: readonly TermAccumulators[], count: number, touched: IntList, slots: number): void {
  const clearAll = touched.length * 8 > slots;
  for (let term = 0; term < count; term++) {
    const { state } = terms[term]!;
    if (clearAll) {
      state.fill(0, 0, slots);
      continue;
    }
    for (let at = 0; at < touched.length; at++) state[touched.data[at]!] = 0;
  }
}

let primed = false;

/**
 * Runs `take` and `clearStates` through each of their branches on a few scratch slots (microseconds), so that the
 * optimising compiler sees every branch from the first real query on: otherwise each branch a first query meets
 * late (a mapped term after a direct one, the word's own list, a query touching most slots) throws away the
 * optimised code that inlined it, and a restart's first searches pay for recompiling it. Once a process; changes
 * nothing but the engine's type feedback.
 */
export function primeTake(): void {
  if (primed) return;
  primed = true;
  const scores = new Float64Array(8);
  const covered = new Float64Array(8);
  const best = new Float64Array(8);
  const state = new Uint8Array(8);
  for (let round = 0; round < 16; round++) {
    state.fill(0);
    // A mapped term first, then the word itself (coverage raised from a mapped one), a lower and a higher value, own.
    take(scores, covered, best, state, 0, 0.5, true, 1.5, false);
    take(scores, covered, best, state, 0, 0.25, false, 1.5, true);
    take(scores, covered, best, state, 0, 0.75, false, 1.5, false);
    take(scores, covered, best, state, 0, 0.125, true, 1.5, false);
    take(scores, covered, best, state, 1, 0.5, false, 1.5, true);
    take(scores, covered, best, state, 2, 0.5, true, 1.5, true);
    const touched = new IntList(8);
    touched.push(round % 2 === 0 ? 1 : 7);
    clearStates([{ best, state }], 1, touched, round % 2 === 0 ? 2 : 64);
  }
}
