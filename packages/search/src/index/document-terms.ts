/**
 * A document's fields → counted terms: the one analysis both ways of indexing use. `SkillSearchIndex.add` counts
 * into the index's own term ids; a `DocumentAnalyzer` (a worker thread, apart from any index) counts into a table of
 * its own and hands back an `AnalysedDocument` of typed arrays, which `SkillSearchIndex.insert` maps onto the index's
 * ids through the `AnalysedTerms` that mirror that table. Either way the index ends up holding the same thing.
 */
import { Analyzer } from '../analysis/analyzer.js';
import { IntList } from '../postings/int-list.js';
import { TermCounter } from '../postings/term-counter.js';
import { shorter } from '../postings/vocabulary.js';
import type { SearchDocument } from '../types.js';

/** Characters of a body indexed: all of it in practice (the corpus's longest is ~60,000), with a bound on index work. */
export const BODY_CHARS = 100_000;
/**
 * A skill's other Markdown files (SearchDocument.references: references, examples, rules) are indexed with its body,
 * each word counting half an occurrence (the least a packed count holds) and half a word of the body's length, up
 * to REFERENCE_CHARS characters in all: the words a user describes a problem with are often only there. Measured on
 * the seen sets (ADR 0204): full weight, or the full length, lost queries at rank 1; 10,000-400,000 characters alike.
 */
export const REFERENCE_WEIGHT = 0.5;
const REFERENCE_LENGTH = 0.5;
export const REFERENCE_CHARS = 50_000;

/** Counts the fields of `source` into `counter` (begun), the description's terms into `description`; returns the word count per field. */
export function countDocument(counter: TermCounter, source: SearchDocument, description: IntList): number[] {
  const lengths = [counter.addText(String(source?.name ?? ''), 0, undefined), counter.addText(String(source?.description ?? ''), 1, description), 0, 0];
  if (Array.isArray(source?.headings)) for (const heading of source.headings) lengths[2]! += counter.addText(String(heading), 2, undefined);
  lengths[3] = typeof source?.body === 'string' ? counter.addText(source.body.slice(0, BODY_CHARS), 3, undefined) : 0;
  if (Array.isArray(source?.references)) {
    let left = REFERENCE_CHARS;
    let words = 0;
    for (const text of source.references as unknown[]) {
      if (left <= 0) break;
      if (typeof text !== 'string') continue;
      const part = text.slice(0, left);
      left -= part.length;
      words += counter.addText(part, 3, undefined, REFERENCE_WEIGHT);
    }
    lengths[3] += Math.round(words * REFERENCE_LENGTH);
  }
  return lengths;
}

/**
 * One document analysed by a `DocumentAnalyzer`: plain typed arrays (cheap to post between threads), its terms as
 * ids of the analyser's table. The id, name and description are the caller's to add back (`insert` takes them).
 */
export interface AnalysedDocument {
  /** Words per field (name, description, headings, body). */
  lengths: Int32Array;
  /** The document's distinct terms, in the order it first used them (the order an index assigns new ids in). */
  terms: Int32Array;
  /** Per term (parallel), its packed occurrences per field (TermCounter). */
  counts: Uint32Array;
  /** The description's terms in order (the phrase bonus). */
  sequence: Int32Array;
  /** Terms this document gave a shorter written form than the analyser had seen (AnalysedTerms.written). */
  improved: Int32Array;
}

/** What the analyser learnt since it last handed out its new terms: appended to the AnalysedTerms mirroring it. */
export interface NewTerms {
  /** Terms first seen, their ids following on from the last hand-out. */
  terms: string[];
  /** Written forms changed (all terms so far): ids and the new forms, parallel. */
  writtenIds: Int32Array;
  written: string[];
}

/**
 * Analyses documents apart from any index (in a worker thread), numbering terms in a table of its own, which the
 * index's side mirrors (`AnalysedTerms`) from the `NewTerms` handed out with each batch. The table holds every term
 * seen: one analyser per large batch (a first build), not for the life of a server.
 */
export class DocumentAnalyzer {
  private readonly ids = new Map<string, number>();
  private readonly written: string[] = [];
  private readonly counter: TermCounter;
  private readonly fresh: string[] = [];
  private readonly changed = new Set<number>();
  private readonly improved = new IntList(64);

  constructor() {
    this.counter = new TermCounter(new Analyzer(), (term, written) => this.idOf(term, written));
  }

  analyse(source: SearchDocument): AnalysedDocument {
    const counter = this.counter;
    counter.begin();
    this.improved.length = 0;
    const sequence = new IntList(16);
    const lengths = Int32Array.from(countDocument(counter, source, sequence));
    const terms = Int32Array.from(counter.touched);
    const counts = new Uint32Array(terms.length);
    for (let at = 0; at < terms.length; at++) counts[at] = counter.take(terms[at]!);
    return { lengths, terms, counts, sequence: sequence.toArray(), improved: this.improved.toArray() };
  }

  /** The terms and written forms learnt since the last call (hand them over before the documents analysed meanwhile). */
  newTerms(): NewTerms {
    const terms = this.fresh.splice(0);
    const writtenIds = Int32Array.from(this.changed);
    this.changed.clear();
    return { terms, writtenIds, written: Array.from(writtenIds, (id) => this.written[id]!) };
  }

  private idOf(term: string, written?: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(term, id);
      this.fresh.push(term);
      this.written.push('');
    }
    if (written !== undefined && shorter(written, this.written[id]!)) {
      this.written[id] = written;
      this.changed.add(id);
      this.improved.push(id);
    }
    return id;
  }
}

/**
 * The index's side of one DocumentAnalyzer's table: its terms and written forms (from `NewTerms`, in the order they
 * were handed out), and which index term each is, resolved as documents are inserted (redone when the index
 * renumbers its terms, or for another index).
 */
export class AnalysedTerms {
  readonly terms: string[] = [];
  readonly written: string[] = [];
  /** Per term, its id in `owner` at `epoch` (-1: not resolved yet). */
  readonly resolved = new IntList();
  owner: object | undefined;
  epoch = -1;

  learn(update: NewTerms): void {
    for (const term of update.terms) {
      this.terms.push(term);
      this.written.push('');
    }
    this.resolved.grow(this.terms.length);
    this.resolved.data.fill(-1, this.resolved.length, this.terms.length);
    this.resolved.length = this.terms.length;
    for (let at = 0; at < update.writtenIds.length; at++) this.written[update.writtenIds[at]!] = update.written[at]!;
  }

  /** Forgets every resolution (the index renumbered its terms, or this table now feeds another index). */
  reset(owner: object, epoch: number): void {
    this.owner = owner;
    this.epoch = epoch;
    this.resolved.data.fill(-1, 0, this.resolved.length);
  }
}
