/**
 * Query expansion: a query's text → its terms (the words typed, compounds of adjacent words), and each term → the
 * index terms that stand for it, with the factor a match through them counts at:
 *    - exact, ×1: the term itself;
 *    - prefix, ×0.5: an index term extending a query term of 4+ characters (`deploy` → `deployment`);
 *    - truncation, ×0.5: an index term of 5+ characters that the query term extends by at most 4 characters
 *      (`migration` → `migrat`, the stem of `migrate`);
 *    - typo, ×0.4: for a query term of 5+ characters the index does not hold at all, the index terms one edit
 *      away (an insertion, deletion, substitution, or swap of adjacent characters: `kuberntes` → `kubernetes`),
 *      found in seven buckets of the vocabulary (../postings/vocabulary.ts), never the whole of it;
 *    - compound, ×0.7: two adjacent query words that form one index term when joined (`web app` → `webapp`);
 *    - related, ×0.2: the catalog terms of words WordNet relates to the query word as typed (./wordnet.ts), at most
 *      MAX_RELATED per query word;
 *    - mapped, ×0.8 with the idf capped at the query word's own: the domain words a situation word or phrase maps
 *      to (./word-map.ts, ./situation-words.txt), with MAPPED_COVERAGE of the word's coverage credit.
 */
import type { Analyzer } from '../analysis/analyzer.js';
import { searchTerms } from '../analysis/analyzer.js';
import { lightStem } from '../analysis/stem.js';
import { forEachWord } from '../analysis/words.js';
import type { Vocabulary } from '../postings/vocabulary.js';
import { MIN_PREFIX_LENGTH } from '../postings/vocabulary.js';
import type { Scope } from '../scoring/bm25f.js';
import { compareText } from '../scoring/order.js';
import type { SearchMatch } from '../types.js';
import { withinOneEdit } from './edits.js';
import { WordMap } from './word-map.js';
import type { RelatedWord } from './wordnet.js';

export const PREFIX_WEIGHT = 0.5;
export const TRUNCATION_WEIGHT = 0.5;
export const TYPO_WEIGHT = 0.4;
export const COMPOUND_WEIGHT = 0.7;
export const RELATED_WEIGHT = 0.2;
/**
 * A match through the situation-word map (./word-map.ts) counts this share of an exact match, with its idf capped at
 * the query word's own (a mapped term never says more than the word typed, so it cannot beat the word itself in the
 * same field), and earns MAPPED_COVERAGE of the word's coverage credit: full credit would let a skill matching one
 * broad mapped term look as if it had matched the word (ADR 0150). Chosen on the seen sets and blind set 2's dev
 * part: 0.7-0.9 did best (0.3 gained half as much; 1.0 lost queries on the older sets), 0.8 is inside that range;
 * coverage 0.45-0.6 best (0.3 and 1.0 lost queries at rank 1).
 */
export const MAPPED_WEIGHT = 0.8;
export const MAPPED_COVERAGE = 0.6;
/** Related words kept per query word (WordNet lists dozens for a common word). */
const MAX_RELATED = 24;
const MIN_TRUNCATED_LENGTH = 5;
const MAX_TRUNCATION = 4;
const MIN_TYPO_LENGTH = 5;
/** Near matches kept per query term and kind: a short prefix must not drag in half the vocabulary. */
const MAX_EXPANSIONS = 64;
/** Bounds on a query's work. */
export const MAX_QUERY_TERMS = 32;

/** An index term standing for a query term: its id, the factor its matches count at, and how it relates. */
export type Expansion = [id: number, factor: number, kind: SearchMatch['kind']];

export interface QueryTerm {
  term: string;
  /** The word as typed (folded, unstemmed), for related-word lookups; undefined for compounds and parts. */
  word?: string | undefined;
  /** Compounds found by joining query words count less than the words the user typed. */
  weight: number;
  /** Terms the situation-word map gives for this word (alone or in a phrase), stemmed. */
  mapped?: string[];
}

/** Turns a query into terms and each term into the index terms standing for it (the index's vocabulary). */
export class QueryExpander {
  /** null: the shipped map, parsed on the first query (not at construction: a server builds its index at start). */
  private situations: WordMap | undefined | null;

  constructor(
    private readonly vocabulary: Vocabulary,
    private readonly analyzer: Analyzer,
    private readonly related: ((word: string) => RelatedWord[]) | undefined,
    situations: WordMap | undefined | null,
  ) {
    this.situations = situations;
  }

  /** Reads the situation map and WordNet's indexes now, not on the first query (SkillSearchIndex.prepare). */
  prepare(): void {
    if (this.situations === null) this.situations = WordMap.bundled(searchTerms);
    this.related?.('file');
  }

  /** The id of a term held by at least one document of the scope. */
  known(term: string, scope: Scope): number | undefined {
    const id = this.vocabulary.get(term);
    return id !== undefined && scope.df(id) > 0 ? id : undefined;
  }

  /** The distinct query terms (plus compounds of adjacent words), and the typed terms in order for phrases. */
  queryTerms(text: string, scope: Scope): { terms: QueryTerm[]; sequence: string[] } {
    const terms: QueryTerm[] = [];
    const sequence: string[] = [];
    const seen = new Set<string>();
    const add = (term: string, weight: number, word?: string): void => {
      if (terms.length < MAX_QUERY_TERMS && !seen.has(term)) {
        seen.add(term);
        terms.push({ term, weight, word });
      }
    };
    let previous: string | undefined; // the previous word (folded), when it was a term on its own
    forEachWord(text, (word) => {
      if (sequence.length >= MAX_QUERY_TERMS) return;
      const { folded, term, parts } = this.analyzer.analyze(word, false);
      if (term === undefined) {
        previous = undefined;
        return;
      }
      // A compound the catalog never spells that way (`dotNetCore`) is looked up by its parts.
      const byParts = parts !== undefined && this.known(term, scope) === undefined;
      for (const stem of byParts ? parts : [term]) {
        sequence.push(stem);
        add(stem, 1, byParts ? undefined : folded);
      }
      if (previous !== undefined && !byParts) {
        const joined = lightStem(previous + folded);
        if (this.known(joined, scope) !== undefined) add(joined, COMPOUND_WEIGHT);
      }
      previous = byParts ? undefined : folded;
    });
    if (this.situations === null) this.situations = WordMap.bundled(searchTerms);
    if (this.situations !== undefined) {
      const mapped = this.situations.expand(sequence);
      sequence.forEach((stem, at) => {
        const targets = mapped[at]!;
        const owner = targets.length > 0 ? terms.find((candidate) => candidate.term === stem && candidate.weight === 1) : undefined;
        if (owner === undefined) return;
        owner.mapped = owner.mapped === undefined ? targets : [...new Set([...owner.mapped, ...targets])];
      });
    }
    return { terms, sequence };
  }

  /**
   * The index terms that stand for a query term, with their weights (the term itself, if indexed, at 1). Near
   * matches are taken in a canonical order (most documents first, then code-unit order), so the same documents give
   * the same expansions whatever order they were added in.
   */
  expansions(term: string, word: string | undefined, mapped: readonly string[] | undefined, scope: Scope): Expansion[] {
    const found: Expansion[] = [];
    const exact = this.known(term, scope);
    if (exact !== undefined) found.push([exact, 1, 'exact']);
    if (word !== undefined && this.related !== undefined) {
      let taken = 0;
      for (const related of this.related(word)) {
        if (taken >= MAX_RELATED) break;
        if (related.word.includes(' ')) continue;
        const analysis = this.analyzer.analyze(related.word, false);
        const id = analysis.term === undefined ? undefined : this.known(analysis.term, scope);
        if (id === undefined || id === exact || found.some(([other]) => other === id)) continue;
        found.push([id, RELATED_WEIGHT * related.weight, 'related']);
        taken++;
      }
    }
    if (term.length >= MIN_PREFIX_LENGTH) {
      const candidates: number[] = [];
      for (const id of this.vocabulary.withPrefixOf(term)) {
        const candidate = this.vocabulary.terms[id]!;
        if (candidate.length > term.length && candidate.startsWith(term) && scope.df(id) > 0) candidates.push(id);
      }
      for (const id of this.canonical(candidates, scope)) found.push([id, PREFIX_WEIGHT, 'near']);
    }
    for (let length = Math.max(MIN_TRUNCATED_LENGTH, term.length - MAX_TRUNCATION); length < term.length; length++) {
      const head = this.known(term.slice(0, length), scope);
      if (head !== undefined) found.push([head, TRUNCATION_WEIGHT, 'near']);
    }
    if (exact === undefined && term.length >= MIN_TYPO_LENGTH) {
      const buckets = this.vocabulary.oneEditBuckets(term);
      const candidates = new Set<number>();
      for (const bucket of buckets) {
        for (const id of bucket ?? []) {
          if (!candidates.has(id) && withinOneEdit(term, this.vocabulary.terms[id]!) && scope.df(id) > 0 && !found.some(([other]) => other === id))
            candidates.add(id);
        }
      }
      for (const id of this.canonical([...candidates], scope)) found.push([id, TYPO_WEIGHT, 'near']);
    }
    // Mapped terms last: a term that is also a near or related match keeps that (stronger) kind.
    for (const target of mapped ?? []) {
      const id = this.known(target, scope);
      if (id !== undefined && !found.some(([other]) => other === id)) found.push([id, MAPPED_WEIGHT, 'mapped']);
    }
    return found;
  }

  /** Near-match candidates in canonical order (most documents first, then code-unit order), at most MAX_EXPANSIONS. */
  private canonical(ids: number[], scope: Scope): number[] {
    if (ids.length > 1) ids.sort((a, b) => scope.df(b) - scope.df(a) || compareText(this.vocabulary.terms[a]!, this.vocabulary.terms[b]!));
    return ids.length > MAX_EXPANSIONS ? ids.slice(0, MAX_EXPANSIONS) : ids;
  }
}
