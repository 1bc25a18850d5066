import type { Analyzer } from '../analysis/analyzer.js';
import { forEachWord } from '../analysis/words.js';
import { IntList } from './int-list.js';
import { FIELD_BITS, FIELD_MAX } from './packed-counts.js';

/** A compound's part (`zone` of `TimeZoneInfo`) counts this share of an occurrence. */
const PART_WEIGHT = 0.5;

/**
 * Counts one document's terms: occurrences per term in flat arrays indexed by term id (no map per document),
 * doubled (a compound's part counts half) and packed 8 bits per field into one integer: BM25 saturation makes
 * occurrences past 127 irrelevant anyway. Owned by one index (term ids are the index's).
 */
export class TermCounter {
  private readonly lastDoc = new IntList(); // per term: the stamp of the last document that counted it
  private readonly counts = new IntList(); // per term: packed doubled occurrences in the current document
  readonly touched: number[] = [];
  private stamp = 0;

  constructor(
    private readonly analyzer: Analyzer,
    private readonly idOf: (term: string, written?: string) => number,
  ) {}

  /** Starts a new document. */
  begin(): void {
    this.touched.length = 0;
    this.stamp++;
  }

  /**
   * Counts the words of `text` into `field`, appends their terms to `sequence` if given; returns the number of words.
   * `weight`: the share of an occurrence each word counts (at least half of one, the smallest a packed count holds).
   */
  addText(text: string, field: number, sequence: IntList | undefined, weight = 1): number {
    const shift = FIELD_BITS * field;
    const whole = Math.max(1, Math.round(2 * weight));
    const part = Math.max(1, Math.round(2 * PART_WEIGHT * weight));
    let words = 0;
    forEachWord(text, (word) => {
      words++;
      const analysis = this.analyzer.analyze(word);
      if (analysis.term !== undefined) {
        if (analysis.id < 0) analysis.id = this.idOf(analysis.term, analysis.folded);
        this.count(analysis.id, whole, shift);
        sequence?.push(analysis.id);
      }
      if (analysis.parts !== undefined) {
        analysis.partIds ??= analysis.parts.map((part) => this.idOf(part));
        for (const id of analysis.partIds) this.count(id, part, shift);
      }
    });
    return words;
  }

  /** Sets the packed count of term `id` in the current document (counted elsewhere: a DocumentAnalyzer). */
  put(id: number, packed: number): void {
    this.lastDoc.grow(id + 1);
    this.counts.grow(id + 1);
    if (this.lastDoc.data[id] !== this.stamp) {
      this.lastDoc.data[id] = this.stamp;
      this.touched.push(id);
    }
    this.counts.data[id] = packed;
  }

  /** The packed count of a term touched by the current document (then reset for the next one). */
  take(id: number): number {
    const packed = this.counts.data[id]! >>> 0;
    this.counts.data[id] = 0;
    return packed;
  }

  private count(id: number, doubled: number, shift: number): void {
    this.lastDoc.grow(id + 1);
    this.counts.grow(id + 1);
    if (this.lastDoc.data[id] !== this.stamp) {
      this.lastDoc.data[id] = this.stamp;
      this.touched.push(id);
    }
    const packed = this.counts.data[id]! >>> 0;
    if (((packed >>> shift) & FIELD_MAX) + doubled <= FIELD_MAX) this.counts.data[id] = packed + doubled * 2 ** shift;
  }
}
