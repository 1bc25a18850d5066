/**
 * Ranked keyword search over skills: a request in the user's own words → the skills most likely to help, best
 * first. No model: lexical matching plus a lexical database (WordNet, shipped in an npm package), with everything
 * that does not depend on the query precomputed when the index is built (a query adds up precomputed posting
 * values; it never scans the documents). Each document is analysed on its own (text → terms per field), so the
 * analysis stays usable by an index that adds and removes documents one at a time.
 *
 * Terms. Text is split into words at anything that is not a letter, combining mark or digit (Unicode-aware:
 * `über-große` and `数据分析` are words), NFKC-normalised, lowercased, Latin diacritics folded (`diátaxis` →
 * `diataxis`). Hyphenated names split at the hyphens like at any other punctuation. A word in camelCase or mixing
 * letters and digits (`TimeZoneInfo`, `net8`) is indexed whole and also as its parts, each part counting half an
 * occurrence (`timezoneinfo` + `time zone info`). A short stopword list is dropped (articles, pronouns,
 * auxiliaries, contraction tails such as the `m` of `I'm`, conversational filler such as `really` or `something`),
 * and every other word is reduced by `lightStem` (../analysis/stem.ts). A query word the index does not know
 * but that has parts is looked up by its parts.
 *
 * Score = coverage^0.4 · Σ over the distinct query terms of the term's best match + phrase bonus + name bonus.
 *
 * 1. BM25F over four fields: the name, the description, the headings (ATX headings of the SKILL.md body) and the
 *    whole body (up to BODY_CHARS characters).
 *    Per field f, tf_f = occurrences / (1 − b_f + b_f · len_f / avglen_f); the fields are combined before
 *    saturation, tf = Σ w_f · tf_f, and a term scores idf · tf / (k1 + tf), with k1 = 1.2 and
 *    idf = ln(1 + (N − df + 0.5) / (df + 0.5)) (df: documents holding the term in any field). Field weights:
 *    name 3 (a word of the name says what the skill is), description 1, headings 0.3 (a heading says what the skill
 *    also covers, and bodies are long and generic: "Overview", "Quick Start"), body 0.15 (many words, most of them
 *    incidental, but the words users describe their problem with are often only there); b = 0.3 for names
 *    (uniformly short), 0.9 for bodies (a short, focused body says more per word; the normaliser is floored at
 *    BODY_MIN_NORM), 0.75 for the others.
 * 2. Near matches, at a fraction of the exact score; a query term counts once per document, by its best match:
 *    - prefix, ×0.5: an index term extending a query term of 4+ characters (`deploy` → `deployment`);
 *    - truncation, ×0.5: an index term of 5+ characters that the query term extends by at most 4 characters
 *      (`migration` → `migrat`, the stem of `migrate`);
 *    - typo, ×0.4: for a query term of 5+ characters the index does not hold at all, the index terms one edit
 *      away (an insertion, deletion, substitution, or swap of adjacent characters: `kuberntes` → `kubernetes`).
 *      The vocabulary is bucketed by length and first character, and by length and second character; the seven
 *      buckets that can hold a term one edit away are compared with an early-exit check, never the whole
 *      vocabulary and never a full edit-distance table;
 *    - compound, ×0.7: two adjacent query words that form one index term when joined (`web app` → `webapp`).
 *    - related, ×0.2: the catalog terms of words WordNet relates to the query word as typed (synonyms and
 *      derivationally related forms of its most frequent sense: `blurry` → `fuzzy`, `blur`; ../expansion/wordnet.ts), at most
 *      MAX_RELATED per query word. A source of related words can be passed instead (`SearchOptions.related`).
 *    - mapped, ×0.8 with the idf capped at the query word's own: the domain words a situation word or phrase maps
 *      to in a shipped, general-English map (`accountant` → `tax`, `bookkeeping`; `far away` → `cdn`, `latency`;
 *      ../expansion/word-map.ts, ../expansion/situation-words.txt). A skill matching a word only this way earns 0.6 of its coverage
 *      credit (3.), so a broad mapped term cannot pass for the word itself (`SearchOptions.situations`).
 * 3. Coverage: the share of the query's weight (Σ idf of its terms) that the document matches at all. Raised to
 *    COVERAGE_EXPONENT (0.4), it scales the sum above, so a skill matching most of what was asked beats one that repeats a single word.
 * 4. Phrase bonus: for each pair of adjacent query terms that also stand side by side (stopwords skipped on both
 *    sides) in the description, 0.3 × the smaller of the two terms' scores in that document.
 * 5. Name bonus, with S = Σ idf of the query terms the index holds (about the most the term sum can reach): a query
 *    equal to a skill's name (case, punctuation and separators ignored: `PDF` ↔ `pdf`, `slack gif creator` ↔
 *    `slack-gif-creator`) adds S, so the skill the user named comes first; a query that is the start of a name at a
 *    word boundary (`slack gif` → `slack-gif-creator`) adds S / 2.
 * 6. Meaning: the best MEANING_DEPTH documents above the cut (below) are reordered by the cosine of the query's and
 *    each one's name-and-description vector, means of general-English word vectors (../expansion/word-vectors.ts): each gains
 *    MEANING_WEIGHT × the best score × its cosine / the best cosine among them (`SearchOptions.wordVectors`).
 * 7. The typed words' own matches: each candidate of 6. (or, without vectors, of the `limit` best) is multiplied by
 *    e^(EXACT_BOOST × its exact share), the BM25F value of the typed words it holds itself (same stem) over the
 *    query's weight (0 to 1), so a skill whose score comes from near, related and mapped words falls behind a close
 *    one the words themselves match (ADR 0257). The confidence is judged on the score before this step.
 *
 * The values were chosen before the recall benchmark (bench/search.mjs) existed, then revised on it: headings
 * lowered from 0.5 to 0.3, the coverage factor added, and the phrase bonus made proportional (a flat bonus of
 * (idf₁ + idf₂) / 4 lost more queries than it won). Other values moved its recall by a query or two at most.
 * The body field came from a second query set written blind to this code (bench/search-queries-heldout.json):
 * without it, recall@5 there was 90.0%, with it 95.3% (whole bodies: 96.0%, at several times the indexing cost).
 * A third set, written blind with few words in common with the skills (bench/blind/queries-dev.json), showed the
 * opening of the body was not enough: whole bodies at 0.15 with b = 0.9 took its recall@5 from 43% to 59%, WordNet
 * related words to 61% (older sets within a query or two). Measured and dropped: pseudo-relevance feedback (the
 * best documents' description terms as a second query: no gain), WordNet hypernyms/hyponyms and rarer senses
 * (lost queries). Figures and misses: docs/benchmarks.md; the why: docs/decisions/0150-search-meaning-offline.md.
 *
 * Results: the documents with a positive score of at least CUT_RATIO (a quarter) of the best one, by score
 * (descending), then name, then id (code-unit order, not locale order), so the same documents and query always give
 * the same list. Each carries its matches (per query word: the index term it matched through, exact, near or
 * related, and the fields holding it) and a one-line `reason` built from them, naming the words that matched
 * nothing, so that a model can judge a weak hit. A query is cut to 1,000 characters
 * and 32 terms; one without a usable term (only stopwords or punctuation) finds nothing.
 */
import { Analyzer } from '../analysis/analyzer.js';
import { QueryExpander, MAPPED_COVERAGE } from '../expansion/query-expansion.js';
import type { Expansion } from '../expansion/query-expansion.js';
import { WordVectors } from '../expansion/word-vectors.js';
import { WordNet } from '../expansion/wordnet.js';
import { CountCodes, MAX_CODE_BITS, masksFor, shiftFor } from '../postings/compact-postings.js';
import type { PostingLayout } from '../postings/compact-postings.js';
import { IntList } from '../postings/int-list.js';
import { DESCRIPTION_SHIFT, FIELDS, FIELD_BITS, FIELD_MAX, FIELD_NAMES, fieldBits } from '../postings/packed-counts.js';
import { RecentPostings } from '../postings/recent-postings.js';
import { Slabs } from '../postings/slabs.js';
import { TermCounter } from '../postings/term-counter.js';
import { encodeIds, forEachId } from '../postings/varint-ids.js';
import { Vocabulary, writtenForm } from '../postings/vocabulary.js';
import { MIN_CONFIDENCE, confidenceOf } from '../scoring/confidence.js';
import { QueryDomain, queryWords } from '../scoring/query-domain.js';
import { specificWords } from '../scoring/specific-words.js';
import type { Held, SpecificWords } from '../scoring/specific-words.js';
import { FieldWeights, K1, averagesOf, idf, saturated, saturationBound } from '../scoring/bm25f.js';
import type { Scope } from '../scoring/bm25f.js';
import { compareText } from '../scoring/order.js';
import type { SearchDocument, SearchHit, SearchMatch, SearchOptions } from '../types.js';
import { countDocument } from './document-terms.js';
import type { AnalysedDocument, AnalysedTerms } from './document-terms.js';
import { checkState } from './state.js';
import type { IndexParts, IndexState } from './state.js';
import { NameIndex } from './names.js';
import { SearchView } from './search-view.js';
import { COVERAGE_MASK, OWN_BIT, clearStates, primeTake, take, walkAdmitting, walkRunning } from './walk.js';

export { BODY_CHARS, REFERENCE_CHARS, REFERENCE_WEIGHT } from './document-terms.js';
/**
 * The meaning channel (./word-vectors.ts): each of the lexical candidates (the best MEANING_DEPTH above the cut) gains
 * MEANING_WEIGHT × the best lexical score × its cosine with the query / the best cosine among them, so the closest
 * in meaning gains up to 0.4 of the leader's score. It only reorders what the words found: skills found by meaning
 * alone (the cosine's own top 50) never reached the top 10 on any set. Chosen on the seen sets and blind set 2's dev
 * part (ADR 0150, fourth round): 0.3-0.5 did alike; reciprocal-rank fusion lost queries on every set (the vectors
 * alone find the right skill first for 13 % of blind queries).
 */
const MEANING_WEIGHT = 0.4;
const MEANING_DEPTH = 50;
/**
 * Step 7 above. A reranking of the best MEANING_DEPTH fitted on the seen sets (a logistic model of "right answer" over
 * the log score ratio and this share gave it 0.47 of the log score's weight), then chosen on them: 0.3-1.0 all gained
 * at rank 5 (user-worded, 954 queries: +0.6 to +1.4 points), 0.7 most at rank 1; 1.5-2.0 lost at rank 1.
 */
const EXACT_BOOST = 0.7;
/**
 * The coverage factor's exponent (3. above): 0.5 until reference files were indexed (ADR 0204); with them, 0.3-0.4
 * found more of the user-worded seen queries at rank 5 (+0.8 points on 810) and lost none of the model-phrased ones.
 */
const COVERAGE_EXPONENT = 0.4;
/**
 * Results scoring below this share of the best result's score are cut, not padded out: on the three query sets, no
 * expected skill ranked 2-10 scored below 0.37 of the first, and what scores below a quarter of it matches little
 * of the request (one common word, or only through related words).
 */
const CUT_RATIO = 0.25;
const PHRASE_WEIGHT = 0.3;
/** Levels of the coverage factor's table in pruning bounds (see `search`). */
const COVERAGE_STEPS = 1024;
/** The name's, description's and headings' counts in a packed count (the body's are the top FIELD_BITS). */
const HEAD_FIELDS_MASK = 2 ** (3 * FIELD_BITS) - 1;
const EXACT_NAME_WEIGHT = 1;
const NAME_PREFIX_WEIGHT = 0.5;
// Bounds on work per query.
const MAX_QUERY_CHARS = 1000;
const DEFAULT_LIMIT = 10;

/** Postings merged into the compact lists once the recent ones reach this many (or MERGE_SHARE of the compact ones). */
const MIN_MERGE_ROWS = 65_536;
/**
 * Recent postings (8 bytes a row, chained) are merged into the compact ones (4 bytes, in place) once they reach this
 * share of them: the larger the share, the fewer merges (each a pass over every posting), the more memory the build
 * holds beyond the compact index.
 */
const MERGE_SHARE = 0.5;
/** Compact lists that outgrow their arrays get arrays this much larger than needed (pages never written are not resident). */
const POSTINGS_GROWTH = 2;

/**
 * The index. Documents are added, replaced (same id) and removed one at a time; a search always ranks exactly like
 * an index built at once from the current documents (same statistics: document count, average field lengths,
 * document frequencies; the same near matches), which the tests check after random sequences of changes.
 *
 * Layout (memory: nothing of the source text is kept but names, ids and description term sequences):
 * - terms: `vocabulary` (term → id) and `terms` (id → term), never removed (a term whose documents are all gone has
 *   a document frequency of 0 and is treated as unknown); `df` per term, counted over the live documents.
 * - documents by slot (a number; slots of removed documents are reused only after a merge renumbers them): id,
 *   name, word count per field, the distinct term ids (`forward`, to undo its counts on removal) and the
 *   description's term sequence (phrase bonus).
 * - postings of term t: the compact lists (`baseOffsets[t] .. baseOffsets[t + 1]` in `base`, slots
 *   ascending, built at the last merge) followed by the recent ones (`recent`: flat typed rows chained per term, for
 *   documents added since). Counts are packed occurrences per field (see TermCounter); the BM25F value is computed
 *   at query time from them and the scope's average lengths, so adding a document never rewrites other postings.
 *   Postings of removed documents stay until the next merge and are skipped (their slot is not live).
 * - merges rebuild the compact lists from the compact and recent ones (no text is analysed again) when the recent
 *   postings outgrow half the compact ones, or removed documents hold half of them: amortised, a change costs a
 *   constant number of posting copies.
 *
 * For a query-expansion step (e.g. issue 15's meaning module): `expansions` turns a query term into index terms
 * with factors; a source of related words plugs in through `SearchOptions.related` without touching the layout.
 */
export class SkillSearchIndex {
  private readonly analyzer = new Analyzer();
  private readonly expander: QueryExpander;
  /** A function: the vectors' loader, called on the first query (not at construction: a server builds its index at start). */
  private wordVectors: WordVectors | undefined | (() => WordVectors | undefined);
  /** Per slot, the text its meaning vector is made of (name and description), and the vector once made (lazily). */
  private meaningTexts: Array<string | undefined> = [];
  private meaningVectors: Array<Float32Array | null | undefined> = [];
  private readonly counter: TermCounter;
  // Terms.
  private readonly vocabulary = new Vocabulary();
  // Documents, by slot.
  private readonly slots = new Map<string, number>();
  private ids: string[] = [];
  private nameOf: string[] = [];
  private lengths = [new IntList(), new IntList(), new IntList(), new IntList()];
  private alive = new Uint8Array(16);
  /** Per slot, the document's distinct term ids, ascending, gap-encoded as varints (encodeIds): 1-2 bytes a term. */
  private forward: Array<Uint8Array | undefined> = [];
  private descriptions: Array<Int32Array | undefined> = [];
  /** Where `forward` and `descriptions` are copied to: views of shared slabs, not a backing store each (../postings/slabs.ts). */
  private forwardSlabs = newForwardSlabs();
  private descriptionSlabs = newDescriptionSlabs();
  private readonly totals = [0, 0, 0, 0];
  private live = 0;
  // Postings.
  private baseOffsets: Int32Array = new Int32Array(1);
  /** The compact postings, a 32-bit word each (slot and counts code, or wide: slot, counts beside): ../postings/compact-postings.ts. */
  private base: PostingLayout = { words: new Uint32Array(0), counts: new Uint32Array(0), shift: MAX_CODE_BITS, ...masksFor(MAX_CODE_BITS) };
  /** The compact layout's table of packed counts (unused once wide). */
  private codes = new CountCodes();
  /** Rows of the compact lists in use (the arrays may be longer). */
  private baseRows = 0;
  /** The compact arrays are not the index's own (fromState: views of a restored file): the next merge writes new ones. */
  private lentPostings = false;
  /** Exports of these arrays not yet written out (exportState until postingsWritten): a merge meanwhile writes new ones. */
  private writing: { words: Uint32Array; count: number } | undefined;
  /** Documents the index is told to expect (`expect`): the compact arrays are sized for them when they grow. */
  private expectedDocs = 0;
  /** Slots below this are in the compact lists; slots from it on are recent. */
  private baseSlots = 0;
  private deadRows = 0;
  /** The postings of documents added since the last merge (slots from baseSlots on): ./recent-postings.ts. */
  private recent = new RecentPostings();
  // Names.
  private readonly names = new NameIndex();
  /** Changes with every add, remove and merge: views recompute their bits and statistics when it moved. */
  private epoch = 0;
  /** Changes when a merge renumbers the terms: what an AnalysedTerms resolved is then resolved again. */
  private termEpoch = 0;
  /**
   * A query's working memory, reused: per-slot accumulators, and the slots a term hit and the slots scored, in typed
   * lists (as JS arrays they grew to a whole catalog per query term, and at 100,000 skills reallocating them took
   * most of a query's time).
   */
  private scratch:
    | {
        size: number;
        scores: Float64Array;
        covered: Float64Array;
        marked: Uint8Array;
        touched: IntList;
        declined: IntList;
        /** Per query term (by its place in the query), each slot's best value and coverage state. */
        terms: Array<{ best: Float64Array; state: Uint8Array }>;
        /** Per document in the running, its terms' sum and coverage (the final scoring, term by term). */
        sums: Float64Array;
        covers: Float64Array;
      }
    | undefined;
  /**
   * Pruning bounds (ADR 0203): per term, the largest tf (0.5 Σ counts × weight / normaliser) among its compact
   * postings at the averages of the last merge (`baseAverages`), and the field-wise largest counts among its recent
   * postings (bounded with the largest weight a field can have); both may exceed the live ones, never fall short.
   */
  private baseTf: Float64Array = new Float64Array(0);
  private baseAverages = [1, 1, 1, 1];
  private recentMax = new IntList();
  private readonly pruning: boolean | 'reference';
  /** @internal Searches that stopped admitting documents early (tests check that pruning happens at all). */
  prunedSearches = 0;
  /** @internal Work done by searches so far (benchmarks print it per query): postings walked, counts looked up, documents scored. */
  readonly work = { postings: 0, lookups: 0, scored: 0 };
  /** Per term, whether a document of the whole index holds it in its name, description or headings (Scope.topical), for an epoch. */
  private wholeTopical: { epoch: number; held: Map<number, boolean> } | undefined;
  /** The whole index's Scope.weights, for the epoch they were computed at. */
  private wholeWeights: { epoch: number; averages: number[]; weights: FieldWeights } | undefined;
  /**
   * A restored state's per-slot term lists and descriptions, read where they lie (offsets into its arrays) for the
   * slots below `count` that `forward`/`descriptions` hold nothing for: no view is made per slot at a restore. Copied
   * into per-slot arrays at the next merge.
   */
  private restoredViews:
    | { count: number; forwardOffsets: Int32Array; forward: Uint8Array; descriptionOffsets: Int32Array; descriptions: Int32Array }
    | undefined;
  private readonly minMergeRows: number;
  private readonly maxCodeBits: number;
  private readonly minConfidence: number;
  private queryDomain: QueryDomain | undefined | (() => QueryDomain | undefined);

  /** Documents with the same id: the last one wins. */
  constructor(documents: Iterable<SearchDocument> = [], options: SearchOptions = {}) {
    const wordnet = options.related === undefined ? WordNet.bundled() : undefined;
    const related = options.related === false ? undefined : (options.related ?? (wordnet === undefined ? undefined : (word: string) => wordnet.related(word)));
    this.expander = new QueryExpander(this.vocabulary, this.analyzer, related, options.situations === false ? undefined : (options.situations ?? null));
    this.wordVectors = options.wordVectors === false ? undefined : (options.wordVectors ?? (() => WordVectors.bundled()));
    this.minMergeRows = Math.max(1, options.minMergeRows ?? MIN_MERGE_ROWS);
    this.maxCodeBits = Math.max(0, Math.min(MAX_CODE_BITS, Math.floor(options.maxCodeBits ?? MAX_CODE_BITS)));
    this.minConfidence = options.minConfidence ?? MIN_CONFIDENCE;
    this.queryDomain = options.queryDomain === false ? undefined : (options.queryDomain ?? (() => QueryDomain.bundled()));
    this.pruning = options.pruning === 'reference' ? 'reference' : options.pruning !== false;
    this.counter = new TermCounter(this.analyzer, (term, written) => this.vocabulary.idOf(term, written));
    primeTake(); // once a process (./walk.ts): a cold start's first searches meet every branch of take primed too
    for (const document of documents) this.add(document, false);
    this.merge();
  }

  /** Documents indexed. */
  get size(): number {
    return this.live;
  }

  has(id: string): boolean {
    return this.slots.has(id);
  }

  /** Adds a document, or replaces the one with the same id. */
  add(source: SearchDocument, mergeWhenDue = true): void {
    const id = String(source?.id ?? '');
    this.remove(id, false);
    this.counter.begin();
    const description = new IntList(16);
    const lengths = countDocument(this.counter, source, description);
    this.place(id, String(source?.name ?? ''), String(source?.description ?? ''), lengths, description.toArray(), mergeWhenDue);
  }

  /**
   * Adds a document analysed elsewhere (a DocumentAnalyzer, in a worker thread), or replaces the one with the same id:
   * the index then holds exactly what `add` of the same document would have made. `terms` mirrors the analyser's table
   * (each batch's NewTerms learnt before its documents are inserted).
   */
  insert(document: { id: string; name: string; description: string }, analysed: AnalysedDocument, terms: AnalysedTerms, mergeWhenDue = true): void {
    const id = String(document.id);
    this.remove(id, false);
    if (terms.owner !== this || terms.epoch !== this.termEpoch) terms.reset(this, this.termEpoch);
    const resolved = terms.resolved.data;
    const vocabulary = this.vocabulary;
    // Resolved in the order the document first used its terms: new ones get the ids `add` would have given them.
    const ids = new Int32Array(analysed.terms.length);
    for (let at = 0; at < ids.length; at++) {
      const local = analysed.terms[at]!;
      let term = resolved[local]!;
      if (term < 0) {
        term = vocabulary.idOf(terms.terms[local]!, terms.written[local] || undefined);
        resolved[local] = term;
      }
      ids[at] = term;
    }
    for (const local of analysed.improved) vocabulary.idOf(terms.terms[local]!, terms.written[local] || undefined);
    const counter = this.counter;
    counter.begin();
    for (let at = 0; at < ids.length; at++) counter.put(ids[at]!, analysed.counts[at]!);
    const sequence = analysed.sequence.map((local) => resolved[local]!);
    this.place(id, String(document.name), String(document.description), Array.from(analysed.lengths), sequence, mergeWhenDue);
  }

  /** The rest of an add: the document's counted terms (in `counter`) become its postings, its slot its fields. */
  private place(id: string, name: string, descriptionText: string, lengths: number[], description: Int32Array, mergeWhenDue: boolean): void {
    const slot = this.ids.length;
    const counter = this.counter;
    const touched = Int32Array.from(counter.touched).sort();
    const df = this.vocabulary.df.data;
    const recentMax = this.recentMax;
    this.recent.addDocument(slot, touched, (term) => {
      df[term]!++;
      const packed = counter.take(term);
      recentMax.grow(term + 1);
      recentMax.data[term] = packedMax(recentMax.data[term]! >>> 0, packed);
      return packed;
    });
    this.slots.set(id, slot);
    this.ids.push(id);
    this.nameOf.push(name);
    for (let f = 0; f < FIELDS; f++) {
      this.lengths[f]!.push(lengths[f]!);
      this.totals[f]! += lengths[f]!;
    }
    if (slot >= this.alive.length) {
      const bigger = new Uint8Array(Math.max(16, slot * 2));
      bigger.set(this.alive);
      this.alive = bigger;
    }
    this.alive[slot] = 1;
    this.forward.push(this.forwardSlabs.copy(encodeIds(touched)));
    this.descriptions.push(this.descriptionSlabs.copy(description));
    this.meaningTexts.push(this.wordVectors === undefined ? undefined : `${name} ${descriptionText}`);
    this.meaningVectors.push(undefined);
    this.live++;
    this.names.add(name, slot);
    this.epoch++;
    if (mergeWhenDue) this.mergeIfDue();
  }

  /** Removes the document with this id; false when there is none. */
  remove(id: string, mergeWhenDue = true): boolean {
    const slot = this.slots.get(id);
    if (slot === undefined) return false;
    const df = this.vocabulary.df.data;
    const terms = forEachId(this.forwardOf(slot)!, (term) => df[term]!--);
    if (slot < this.baseSlots) this.deadRows += terms;
    this.slots.delete(id);
    this.alive[slot] = 0;
    this.forward[slot] = undefined;
    this.descriptions[slot] = undefined;
    this.meaningTexts[slot] = undefined;
    this.meaningVectors[slot] = undefined;
    for (let f = 0; f < FIELDS; f++) this.totals[f]! -= this.lengths[f]!.data[slot]!;
    this.live--;
    this.names.remove(this.nameOf[slot]!, slot);
    this.epoch++;
    if (mergeWhenDue) this.mergeIfDue();
    return true;
  }

  /** A view of the documents with these ids (others are ignored), to pass to `search`. */
  view(ids: Iterable<string>): SearchView {
    return new SearchView([...ids]);
  }

  /**
   * Says that about `documents` more documents are coming (a first build): when the compact lists outgrow their
   * arrays, the new ones are sized for all of them (at the rows per document so far), so that a large build
   * replaces them about once instead of at every other merge (each time holding the old and the new arrays at once).
   */
  expect(documents: number): void {
    this.expectedDocs = this.live + Math.max(0, Math.floor(documents));
  }

  /**
   * The kept documents' term lists and descriptions packed into new slabs when the slabs handed out hold more than
   * twice what is still in use (removed and replaced documents' views keep their slabs alive).
   */
  private repackSlabs(): void {
    let forwardLive = 0;
    let descriptionLive = 0;
    for (const ids of this.forward) forwardLive += ids?.length ?? 0;
    for (const sequence of this.descriptions) descriptionLive += sequence?.length ?? 0;
    if (this.forwardSlabs.handedOut > 2 * forwardLive + (1 << 16)) {
      const slabs = newForwardSlabs();
      this.forward = this.forward.map((ids) => (ids === undefined ? undefined : slabs.copy(ids)));
      this.forwardSlabs = slabs;
    }
    if (this.descriptionSlabs.handedOut > 2 * descriptionLive + (1 << 16)) {
      const slabs = newDescriptionSlabs();
      this.descriptions = this.descriptions.map((sequence) => (sequence === undefined ? undefined : slabs.copy(sequence)));
      this.descriptionSlabs = slabs;
    }
  }

  private mergeIfDue(): void {
    const due = Math.max(this.minMergeRows, this.baseRows * MERGE_SHARE);
    if (this.recent.rows > due || this.deadRows > Math.max(this.minMergeRows, this.baseRows / 2)) this.merge();
  }

  /**
   * Rebuilds the compact posting lists from the compact and recent ones, dropping removed documents and
   * renumbering slots (kept in order, so each list stays ascending: compact postings first, then recent ones).
   * Terms no live document holds any more are dropped from the vocabulary and the other terms renumbered (in
   * order), so words of removed skills do not stay until a restart; the analyses cache follows (renumbered, the
   * words of dropped terms forgotten).
   */
  private merge(): void {
    const slotCount = this.ids.length;
    const renumber = new Int32Array(slotCount);
    let next = 0;
    for (let slot = 0; slot < slotCount; slot++) renumber[slot] = this.alive[slot] === 1 ? next++ : -1;
    const termCount = this.vocabulary.size;
    const df = this.vocabulary.df.data;
    // Terms kept (held by a live document), renumbered in order: relative order, hence sorted lists, survive.
    const termMap = new Int32Array(termCount);
    let kept = 0;
    for (let term = 0; term < termCount; term++) termMap[term] = df[term]! > 0 ? kept++ : -1;
    this.mergePostings(renumber, termMap, kept, next);
    this.deadRows = 0;
    // Terms dropped: every term list and description is written again below, into new slabs, from what is here now.
    const renumbered = kept < termCount;
    const views = this.restoredViews;
    if (views !== undefined) {
      // Views into a restored file would keep the whole file alive beside the new postings: copied once (by the
      // renumbering below when there is one, which reads the views).
      const alive = this.alive;
      const own = (slot: number) => slot < views.count && alive[slot] === 1;
      const forwardSlabs = this.forwardSlabs;
      const descriptionSlabs = this.descriptionSlabs;
      this.forward = this.forward.map((ids, slot) => {
        if (ids !== undefined || !own(slot)) return ids;
        const view = views.forward.subarray(views.forwardOffsets[slot]!, views.forwardOffsets[slot + 1]!);
        return renumbered ? view : forwardSlabs.copy(view);
      });
      this.descriptions = this.descriptions.map((sequence, slot) => {
        if (sequence !== undefined || !own(slot)) return sequence;
        const view = views.descriptions.subarray(views.descriptionOffsets[slot]!, views.descriptionOffsets[slot + 1]!);
        return renumbered ? view : descriptionSlabs.copy(view);
      });
      this.restoredViews = undefined;
    }
    // Per-slot data, renumbered.
    const keep = <T>(values: T[]): T[] => values.filter((_, slot) => renumber[slot]! >= 0);
    this.ids = keep(this.ids);
    this.nameOf = keep(this.nameOf);
    this.forward = keep(this.forward);
    this.descriptions = keep(this.descriptions);
    this.meaningTexts = keep(this.meaningTexts);
    this.meaningVectors = keep(this.meaningVectors);
    if (!renumbered) this.repackSlabs();
    else {
      const forwardSlabs = newForwardSlabs();
      const descriptionSlabs = newDescriptionSlabs();
      this.forward = this.forward.map((ids) => {
        const mapped: number[] = [];
        forEachId(ids!, (term) => mapped.push(termMap[term]!));
        return forwardSlabs.copy(encodeIds(mapped));
      });
      this.descriptions = this.descriptions.map((sequence) => descriptionSlabs.copy(sequence!.map((term) => termMap[term]!)));
      this.forwardSlabs = forwardSlabs;
      this.descriptionSlabs = descriptionSlabs;
      const terms = this.vocabulary.terms.filter((_, term) => termMap[term]! >= 0);
      const written = this.vocabulary.written.filter((_, term) => termMap[term]! >= 0);
      const dfs = new IntList(kept);
      for (let term = 0; term < termCount; term++) if (termMap[term]! >= 0) dfs.push(df[term]!);
      this.vocabulary.rebuild(terms, dfs, written);
      this.analyzer.renumber(termMap);
      this.termEpoch++;
    }
    this.lengths = this.lengths.map((list) => {
      const kept = new IntList(next);
      for (let slot = 0; slot < slotCount; slot++) if (renumber[slot]! >= 0) kept.push(list.data[slot]!);
      return kept;
    });
    this.alive = new Uint8Array(Math.max(16, next)).fill(1, 0, next);
    this.baseSlots = next;
    this.recent.reset(next, Math.max(this.minMergeRows, this.baseRows * MERGE_SHARE) + 4096);
    this.slots.clear();
    this.ids.forEach((id, slot) => this.slots.set(id, slot));
    this.names.renumber(renumber);
    this.computeBounds();
    this.scratch = undefined;
    this.epoch++;
  }

  /**
   * The compact lists after a merge, in place where they can be (memory: a merge that wrote a new copy of every
   * posting beside the old ones, with the recent rows still held, peaked at about three times the index at 100,000
   * skills). First each term's live compact postings move down over the removed ones (renumbered; skipped when no
   * slot moves), then, from the last term to the first, each list moves up to its new place, its recent rows after
   * it: a list only moves up, so nothing is overwritten before it is read. The arrays are replaced (by larger ones,
   * their tail untouched, hence not resident) only when the postings outgrow them, are a restored file's (fromState),
   * or an export of them is still being written to a file (exportState until postingsWritten).
   */
  private mergePostings(renumber: Int32Array, termMap: Int32Array, kept: number, slots: number): void {
    const termCount = termMap.length;
    const baseTerms = this.baseOffsets.length - 1;
    const offsets = this.baseOffsets;
    const recent = this.recent;
    const alive = this.alive;
    const from = this.base;
    // Rows per kept term: its live recent ones (one pass over the recent rows; a live document's terms all have a
    // live document, itself, so termMap is >= 0 for its rows), and their counts' codes (new ones added to the table).
    const codes = this.codes;
    const recentRows = new Int32Array(kept);
    let recentLive = 0;
    // A recent document's term list (its rows' terms, in their order); none for a removed one, so its rows are skipped.
    const termsOf = (slot: number): Uint8Array | undefined => (alive[slot] === 1 ? this.forward[slot] : undefined);
    const coded = from.shift !== 0;
    recent.forEachRow(termsOf, (_slot, term, packed) => {
      recentRows[termMap[term]!]!++;
      recentLive++;
      if (coded) codes.code(packed);
    });
    // The layout after the merge: as many code bits as the slots leave, wide (for good) when the table outgrows them.
    let shift = from.shift === 0 ? 0 : shiftFor(slots, this.maxCodeBits);
    if (shift !== 0 && codes.size > 2 ** shift) shift = 0;
    const widened = shift === 0 && from.shift !== 0;
    // Live compact rows, and whether any slot below baseSlots moves (a removed document before it); a new shift
    // rewrites every word.
    let moved = this.deadRows > 0 || shift !== from.shift;
    for (let slot = 0; slot < this.baseSlots && !moved; slot++) moved = renumber[slot] !== slot;
    const total = this.baseRows - this.deadRows + recentLive;
    // Where each term's compact list starts now (baseTerms + 1 entries): where it was, unless removed rows are dropped.
    let starts = offsets;
    let words = from.words;
    let counts = shift === 0 ? from.counts : codes.values;
    if (this.lentPostings || this.writing?.words === words || total > words.length || widened) {
      const live = Math.max(1, this.live);
      const expected = this.expectedDocs > live ? Math.ceil((total / live) * this.expectedDocs * 1.125) : 0;
      const capacity = Math.max(Math.ceil(total * POSTINGS_GROWTH), expected);
      words = new Uint32Array(capacity);
      if (shift === 0) counts = new Uint32Array(capacity);
      if (moved) starts = this.compactBase(from, words, counts, shift, renumber, termMap);
      else {
        words.set(from.words.subarray(0, this.baseRows));
        if (shift === 0) counts.set(from.counts.subarray(0, this.baseRows));
      }
      this.lentPostings = false;
      // Exports still being written hold the old arrays themselves; these new ones were never lent.
      this.writing = undefined;
    } else if (moved) starts = this.compactBase(from, words, counts, shift, renumber, termMap);
    const next = new Int32Array(kept + 1);
    for (let term = 0, to = 0; term < termCount; term++) {
      if (termMap[term]! < 0) continue;
      const length = term < baseTerms ? starts[term + 1]! - starts[term]! : 0;
      next[to + 1] = next[to]! + length + recentRows[to]!;
      to++;
    }
    // From the last term down: its compact list to its new place (never below where it is), then room for its recent rows.
    const cursor = new Int32Array(kept);
    for (let term = termCount - 1; term >= 0; term--) {
      const to = termMap[term]!;
      if (to < 0) continue;
      const at = next[to]!;
      if (term < baseTerms) {
        const from = starts[term]!;
        const length = starts[term + 1]! - from;
        if (at !== from && length > 0) {
          words.copyWithin(at, from, from + length);
          if (shift === 0) counts.copyWithin(at, from, from + length);
        }
        cursor[to] = at + length;
      } else cursor[to] = at;
    }
    // Recent rows are in slot order, so each list stays ascending.
    const scale = 2 ** shift;
    recent.forEachRow(termsOf, (slot, term, packed) => {
      const to = cursor[termMap[term]!]!++;
      if (shift === 0) {
        words[to] = renumber[slot]!;
        counts[to] = packed;
      } else words[to] = renumber[slot]! * scale + codes.code(packed);
    });
    this.baseOffsets = next;
    this.base = { words, counts, shift, ...masksFor(shift) };
    this.baseRows = total;
  }

  /**
   * Writes the live compact postings of `from` into `words`/`counts` (the same arrays or new ones) from the start,
   * renumbered, in the layout of `shift` (the counts moved along only when wide); returns where each term's list
   * now starts (one entry per compact term, and the end). In place, a posting only moves down: nothing is
   * overwritten before it is read.
   */
  private compactBase(from: PostingLayout, words: Uint32Array, counts: Uint32Array, shift: number, renumber: Int32Array, termMap: Int32Array): Int32Array {
    const offsets = this.baseOffsets;
    const baseTerms = offsets.length - 1;
    const alive = this.alive;
    const starts = new Int32Array(baseTerms + 1);
    const { words: fromWords, counts: fromCounts, shift: fromShift, codeMask, positionMask } = from;
    const scale = 2 ** shift;
    let written = 0;
    for (let term = 0; term < baseTerms; term++) {
      starts[term] = written;
      // A term no live document holds has no live posting: its list comes out empty.
      if (termMap[term]! < 0) continue;
      for (let at = offsets[term]!, end = offsets[term + 1]!; at < end; at++) {
        const word = fromWords[at]!;
        const slot = word >>> fromShift;
        if (alive[slot] !== 1) continue;
        if (shift === 0) {
          counts[written] = fromCounts[(word & codeMask) | (at & positionMask)]!;
          words[written++] = renumber[slot]!;
        } else words[written++] = renumber[slot]! * scale + (word & codeMask);
      }
    }
    starts[baseTerms] = written;
    return starts;
  }

  /**
   * Folds recent postings and removed documents into the compact lists now (a merge, no text analysed again), and
   * drops the words no document holds: after a large batch of changes (the first build), so that the index holds
   * its compact form rather than the growable one. Costs a pass over the postings. Returns whether there was anything
   * to fold (false: the index was compact already).
   */
  compact(): boolean {
    let deadTerms = false;
    for (let term = 0; term < this.vocabulary.size && !deadTerms; term++) deadTerms = this.vocabulary.df.data[term] === 0;
    if (this.recent.rows === 0 && this.deadRows === 0 && !deadTerms) return false;
    this.merge();
    return true;
  }

  /**
   * The whole index as plain arrays (compacted first), for ./persist.ts: what a process needs to search without
   * analysing a single document again. The arrays are the index's own (not copies): write them, don't keep them.
   */
  exportState(): IndexState {
    this.compact();
    if (this.writing?.words === this.base.words) this.writing.count++;
    else this.writing = { words: this.base.words, count: 1 };
    const count = this.ids.length;
    const forwardOffsets = new Int32Array(count + 1);
    const descriptionOffsets = new Int32Array(count + 1);
    for (let slot = 0; slot < count; slot++) {
      forwardOffsets[slot + 1] = forwardOffsets[slot]! + this.forwardOf(slot)!.length;
      descriptionOffsets[slot + 1] = descriptionOffsets[slot]! + this.descriptionOf(slot)!.length;
    }
    const forward = new Uint8Array(forwardOffsets[count]!);
    const descriptions = new Int32Array(descriptionOffsets[count]!);
    for (let slot = 0; slot < count; slot++) {
      forward.set(this.forwardOf(slot)!, forwardOffsets[slot]!);
      descriptions.set(this.descriptionOf(slot)!, descriptionOffsets[slot]!);
    }
    return {
      terms: this.vocabulary.terms,
      written: this.vocabulary.written,
      df: this.vocabulary.df.data.subarray(0, this.vocabulary.size),
      ids: this.ids,
      names: this.nameOf,
      meaning: this.meaningTexts.map((text) => text ?? null),
      lengths: this.lengths.map((list) => list.data.subarray(0, count)),
      forwardOffsets,
      forward,
      descriptionOffsets,
      descriptions,
      postingOffsets: this.baseOffsets,
      postings: this.base.words.subarray(0, this.baseRows),
      postingShift: this.base.shift,
      postingCounts: this.base.shift === 0 ? this.base.counts.subarray(0, this.baseRows) : this.codes.values.subarray(0, this.codes.size),
      bounds: { tf: this.baseTf, averages: this.baseAverages },
    };
  }

  /**
   * What `exportState` gives, without joining the per-slot term lists and descriptions into new arrays (at 100,000
   * skills tens of MB, beside the strings of a save): the writer copies them out slot by slot, in chunks
   * (./persist.ts). The lists are snapshots (the arrays of the index now, not copies of their contents), the postings
   * as exportState's: the caller calls `postingsWritten` with it once written.
   */
  exportParts(): IndexParts {
    this.compact();
    if (this.writing?.words === this.base.words) this.writing.count++;
    else this.writing = { words: this.base.words, count: 1 };
    const count = this.ids.length;
    const forward = this.forward.slice(0, count);
    const descriptions = this.descriptions.slice(0, count);
    const views = this.restoredViews;
    const size = this.vocabulary.size;
    return {
      terms: this.vocabulary.terms.slice(0, size),
      written: this.vocabulary.written.slice(0, size),
      df: this.vocabulary.df.data.slice(0, size),
      ids: this.ids.slice(),
      names: this.nameOf.slice(),
      meaning: this.meaningTexts.map((text) => text ?? null),
      lengths: this.lengths.map((list) => list.data.subarray(0, count)),
      forwardOf: (slot) => forward[slot] ?? views!.forward.subarray(views!.forwardOffsets[slot]!, views!.forwardOffsets[slot + 1]!),
      descriptionOf: (slot) => descriptions[slot] ?? views!.descriptions.subarray(views!.descriptionOffsets[slot]!, views!.descriptionOffsets[slot + 1]!),
      postingOffsets: this.baseOffsets,
      postings: this.base.words.subarray(0, this.baseRows),
      postingShift: this.base.shift,
      postingCounts: this.base.shift === 0 ? this.base.counts.subarray(0, this.baseRows) : this.codes.values.subarray(0, this.codes.size),
      bounds: { tf: this.baseTf, averages: [...this.baseAverages] },
    };
  }

  /**
   * Says that a state exported earlier (`exportState`) has been written out: once no export of the current postings
   * is left unwritten, a merge works in place again. Without it the next merge wrote new arrays beside the old ones
   * (at 100,000 skills, a second copy of every posting after each save that followed a change).
   */
  postingsWritten(state: Pick<IndexState, 'postings'>): void {
    if (this.writing === undefined || state.postings.buffer !== this.writing.words.buffer) return;
    if (--this.writing.count <= 0) this.writing = undefined;
  }

  /**
   * An index holding exactly what `state` describes (from `exportState`, possibly of another process), searched
   * with these options. Throws when the arrays do not fit together (a damaged or foreign state): nothing half-built
   * is returned. The typed arrays are taken, not copied (a restore reads a file once and searches it as it is): the
   * caller must not write them afterwards. `state.bounds`, when given, must be the pruning bounds of these postings
   * (else they are computed, a pass over every posting). `walked`: as checkState's (./persist.ts, large files).
   */
  static fromState(state: IndexState, options: SearchOptions = {}, walked = false): SkillSearchIndex {
    checkState(state, walked);
    const index = new SkillSearchIndex([], options);
    const count = state.ids.length;
    const dfs = new IntList(state.terms.length);
    for (const df of state.df) dfs.push(df);
    index.vocabulary.rebuild(state.terms, dfs, state.written);
    index.ids = [...state.ids];
    index.nameOf = [...state.names];
    index.lengths = state.lengths.map((values) => {
      const list = new IntList(count);
      list.data.set(values);
      list.length = count;
      return list;
    });
    for (let f = 0; f < FIELDS; f++) index.totals[f] = state.lengths[f]!.reduce((sum, value) => sum + value, 0);
    index.alive = new Uint8Array(Math.max(16, count)).fill(1, 0, count);
    index.forward = new Array<Uint8Array | undefined>(count).fill(undefined);
    index.descriptions = new Array<Int32Array | undefined>(count).fill(undefined);
    const { forwardOffsets, forward, descriptionOffsets, descriptions } = state;
    index.restoredViews = { count, forwardOffsets, forward, descriptionOffsets, descriptions };
    index.meaningTexts = index.wordVectors === undefined ? state.meaning.map(() => undefined) : state.meaning.map((text) => text ?? undefined);
    index.meaningVectors = state.meaning.map(() => undefined);
    index.baseOffsets = state.postingOffsets;
    const shift = state.postingShift;
    index.base = { words: state.postings, counts: state.postingCounts, shift, ...masksFor(shift) };
    // The table is copied into the codes (a few thousand values): a merge appends to it.
    if (shift !== 0) {
      index.codes = new CountCodes(state.postingCounts.slice(), state.postingCounts.length);
      index.base.counts = index.codes.values;
    }
    index.baseRows = state.postings.length;
    index.lentPostings = true;
    index.baseSlots = count;
    index.recent.reset(count);
    index.live = count;
    state.ids.forEach((id, slot) => {
      index.slots.set(id, slot);
      index.names.add(state.names[slot]!, slot);
    });
    if (index.slots.size !== count) throw new Error('search index state: an id is listed twice');
    if (state.bounds !== undefined && state.bounds.tf.length === state.terms.length && state.bounds.averages.length === FIELDS) {
      index.baseTf = state.bounds.tf;
      index.baseAverages = [...state.bounds.averages];
      index.recentMax = new IntList();
    } else index.computeBounds();
    index.scratch = undefined;
    index.epoch++;
    return index;
  }

  /** Terms in the vocabulary (every one held by a live document right after a merge). */
  get vocabularySize(): number {
    return this.vocabulary.size;
  }

  /** The whole index, or a view brought up to date with the index. */
  private scope(view: SearchView | undefined): Scope {
    if (view === undefined) {
      if (this.wholeWeights?.epoch !== this.epoch) {
        const averages = averagesOf(this.totals, this.live);
        const weights = this.wholeWeights?.weights ?? new FieldWeights();
        weights.reset(this.ids.length, averages);
        this.wholeWeights = { epoch: this.epoch, averages, weights };
      }
      const { averages, weights } = this.wholeWeights;
      if (this.wholeTopical?.epoch !== this.epoch) this.wholeTopical = { epoch: this.epoch, held: new Map() };
      const held = this.wholeTopical.held;
      return {
        visible: this.alive,
        count: this.live,
        averages,
        weights,
        df: (id) => this.vocabulary.df.data[id]!,
        topical: (id) => this.topicalIn(id, this.alive, held),
      };
    }
    if (view.epoch !== this.epoch) {
      const visible = new Uint8Array(this.ids.length);
      const totals = [0, 0, 0, 0];
      let count = 0;
      for (const id of view.ids) {
        const slot = this.slots.get(id);
        if (slot === undefined || visible[slot] === 1) continue;
        visible[slot] = 1;
        count++;
        for (let f = 0; f < FIELDS; f++) totals[f]! += this.lengths[f]!.data[slot]!;
      }
      view.visible = visible;
      view.count = count;
      view.averages = averagesOf(totals, count);
      view.weights.reset(this.ids.length, view.averages);
      view.dfs = new Map();
      view.topical = new Map();
      view.epoch = this.epoch;
    }
    const { visible, dfs, topical } = view;
    return {
      topical: (id) => this.topicalIn(id, visible, topical),
      visible,
      count: view.count,
      averages: view.averages,
      weights: view.weights,
      df: (id) => {
        let df = dfs.get(id);
        if (df === undefined) {
          df = 0;
          this.forEachPosting(id, visible, () => df!++);
          dfs.set(id, df);
        }
        return df;
      },
    };
  }

  /** Calls `visit(slot, packed)` for each posting of term `id` whose document is visible. */
  private forEachPosting(id: number, visible: Uint8Array, visit: (slot: number, packed: number) => void): void {
    if (id < this.baseOffsets.length - 1) {
      for (let at = this.baseOffsets[id]!, end = this.baseOffsets[id + 1]!; at < end; at++) {
        const slot = this.slotAt(at);
        if (visible[slot] === 1) visit(slot, this.countsAt(at));
      }
    }
    this.recent.walk(id, (slot, packed) => {
      if (visible[slot] === 1) visit(slot, packed);
    });
  }

  /**
   * Whether a visible document holds term `id` in its name, description or headings (what a skill says it is about),
   * remembered in `held` until the index changes. Stops at the first such posting.
   */
  private topicalIn(id: number, visible: Uint8Array, held: Map<number, boolean>): boolean {
    let found = held.get(id);
    if (found !== undefined) return found;
    found = false;
    if (id < this.baseOffsets.length - 1) {
      for (let at = this.baseOffsets[id]!, end = this.baseOffsets[id + 1]!; at < end && !found; at++)
        found = visible[this.slotAt(at)] === 1 && (this.countsAt(at) & HEAD_FIELDS_MASK) !== 0;
    }
    if (!found) this.recent.walk(id, (slot, packed) => (found = visible[slot] === 1 && (packed & HEAD_FIELDS_MASK) !== 0));
    held.set(id, found);
    return found;
  }

  /** The packed counts of term `id` in document `slot`, or 0 when it does not hold the term. */
  private packedCount(id: number, slot: number): number {
    if (slot < this.baseSlots) {
      if (id >= this.baseOffsets.length - 1) return 0;
      let low = this.baseOffsets[id]!;
      const end = this.baseOffsets[id + 1]!;
      let high = end;
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (this.slotAt(middle) < slot) low = middle + 1;
        else high = middle;
      }
      return low < end && this.slotAt(low) === slot ? this.countsAt(low) : 0;
    }
    return this.recent.packedCount(id, slot, this.forward[slot]);
  }

  /**
   * Calls `found(slot, packed)` for each of `slots[0 .. length)` (ascending) that holds term `id`: in the compact
   * postings by galloping on from the previous slot's position (a few steps when the slots are dense in the list).
   */
  private lookUpSorted(id: number, slots: ArrayLike<number>, length: number, found: (slot: number, packed: number) => void): void {
    const { words, shift } = this.base;
    const inBase = id < this.baseOffsets.length - 1;
    let low = inBase ? this.baseOffsets[id]! : 0;
    const end = inBase ? this.baseOffsets[id + 1]! : 0;
    for (let next = 0; next < length; next++) {
      const slot = slots[next]!;
      if (slot >= this.baseSlots) {
        const packed = this.recent.packedCount(id, slot, this.forward[slot]);
        if (packed !== 0) found(slot, packed);
        continue;
      }
      if (low >= end) continue;
      // The first position at or after `low` whose slot is at least `slot`: doubling steps, then halving.
      if (words[low]! >>> shift < slot) {
        let step = 1;
        let before = low; // words[before]'s slot < slot
        while (before + step < end && words[before + step]! >>> shift < slot) {
          before += step;
          step *= 2;
        }
        let high = Math.min(end, before + step);
        low = before + 1;
        while (low < high) {
          const middle = (low + high) >>> 1;
          if (words[middle]! >>> shift < slot) low = middle + 1;
          else high = middle;
        }
      }
      if (low < end && words[low]! >>> shift === slot) found(slot, this.countsAt(low));
    }
  }

  /** The slot of compact posting `at`. */
  private slotAt(at: number): number {
    return this.base.words[at]! >>> this.base.shift;
  }

  /** The packed counts of compact posting `at`. */
  private countsAt(at: number): number {
    const { words, counts, codeMask, positionMask } = this.base;
    return counts[(words[at]! & codeMask) | (at & positionMask)]!;
  }

  /** The saturated BM25F value of packed counts in document `slot` (../scoring/bm25f.ts). */
  private saturated(packed: number, slot: number, fieldWeights: FieldWeights): number {
    return saturated(packed, slot, fieldWeights, this.lengths);
  }

  private idf(id: number, scope: Scope): number {
    return idf(scope.df(id), scope.count);
  }

  /**
   * Reads now the data the first search of a process would read (the word vectors, the situation map, the
   * query-domain weights, WordNet's indexes: ~0.2 s of CPU) and sorts the names a restore added: a restored index is
   * searched at once, and its first search, or a change searched for right after a warm restart, would otherwise wait.
   */
  prepare(): void {
    this.resolveWordVectors();
    if (typeof this.queryDomain === 'function') this.queryDomain = this.queryDomain();
    this.expander.prepare();
    this.vocabulary.prepare();
    this.names.prepare();
  }

  /** The word vectors, read on the first call when they are the bundled ones (undefined: ranked lexically). */
  private resolveWordVectors(): WordVectors | undefined {
    if (typeof this.wordVectors === 'function') {
      try {
        this.wordVectors = this.wordVectors();
      } catch {
        this.wordVectors = undefined; // ranked lexically, as without vectors
      }
      if (this.wordVectors === undefined) this.meaningTexts = this.meaningTexts.map(() => undefined);
    }
    return this.wordVectors;
  }

  /**
   * The typed terms of a query (stems) no skill of the index, or of `view`, is about (holds in its name, description or
   * headings): what the query domain's `remembered` input looks up (../scoring/remembered-words.ts).
   */
  untopicalTerms(query: string, view?: SearchView): string[] {
    const scope = this.scope(view);
    const text = typeof query === 'string' ? query.slice(0, MAX_QUERY_CHARS) : '';
    const { terms } = this.expander.queryTerms(text, scope);
    const found: string[] = [];
    for (const { term, weight } of terms) {
      if (weight !== 1) continue;
      if (untopical(this.expander.known(term, scope), scope)) found.push(term);
    }
    return found;
  }

  /** Searches the whole index, or only the documents of `view` (ranked as if they were the only ones). */
  search(query: string, limit: number = DEFAULT_LIMIT, view?: SearchView): SearchHit[] {
    const scope = this.scope(view);
    const wanted = typeof limit === 'number' && !Number.isNaN(limit) ? Math.max(0, Math.floor(Math.min(limit, scope.count))) : DEFAULT_LIMIT;
    const text = typeof query === 'string' ? query.slice(0, MAX_QUERY_CHARS) : '';
    if (wanted === 0) return [];
    const { terms, sequence } = this.expander.queryTerms(text, scope);
    if (terms.length === 0) return [];

    // Per-document accumulators, allocated once and left all-zero after each query (only touched slots are reset).
    const slotCount = this.ids.length;
    if (this.scratch === undefined || this.scratch.size < slotCount) {
      const size = Math.max(16, Math.ceil(slotCount * 1.25));
      this.scratch = {
        size,
        scores: new Float64Array(size),
        covered: new Float64Array(size),
        marked: new Uint8Array(size),
        touched: new IntList(size),
        declined: new IntList(1024),
        sums: new Float64Array(0),
        covers: new Float64Array(0),
        terms: [],
      };
    }
    const scratch = this.scratch;
    const { scores, covered, marked, touched } = scratch;
    touched.length = 0;
    const { visible, weights } = scope;
    const touch = (doc: number): void => {
      if (marked[doc] === 0) {
        marked[doc] = 1;
        touched.push(doc);
      }
    };

    // How much larger than at the last merge any field's weight over normaliser can be at this scope's averages.
    let stretch = 1;
    for (let f = 0; f < FIELDS; f++) stretch = Math.max(stretch, scope.averages[f]! / this.baseAverages[f]!);
    // The plan, in the query's order (sums of idf and what the hits are explained from do not depend on pruning).
    const { plan, expanded, idfSum, importanceSum } = this.plan(terms, scope, stretch);
    // Per query term, each document's best value so far and how it is covered (0 not, 1 through a mapped term only,
    // 2 by the word or a near or related one): a term counts once per document, by its best expansion, whichever
    // order its expansions are walked in.
    while (scratch.terms.length < plan.length) scratch.terms.push({ best: new Float64Array(scratch.size), state: new Uint8Array(scratch.size) });

    // Skills the query names get the name bonus: candidates from the start, whatever their words.
    const named: Array<[doc: number, bonus: number]> = [];
    if (idfSum > 0)
      this.names.forEachNamed(text, (doc, exact) => {
        if (visible[doc] !== 1) return;
        named.push([doc, (exact ? EXACT_NAME_WEIGHT : NAME_PREFIX_WEIGHT) * idfSum]);
        touch(doc);
      });
    const bonus = namedBonus(named);

    // Max-score pruning, exact (ADR 0203, per expansion: ADR 0207). Every expansion of every term is a posting list with
    // its own bound, and the lists are walked in the order of their bounds, most first: the rare words a prefix or a
    // typo reaches (short lists, high bounds) come before the common words and the related ones (long lists, low
    // factors). Once a document not yet seen could not reach the K-th best lower bound even with the most every term's
    // remaining lists can add, the phrase and no name bonus, no new document is admitted; the remaining lists are then
    // added only to the documents that still could, by looking their counts up when that is cheaper than the walk.
    // The K best (K: what the ranking reads, the meaning channel's depth included) are exactly those of scoring
    // every posting.
    const vectorsWanted = this.wordVectors !== undefined;
    const depth = vectorsWanted ? Math.max(wanted, MEANING_DEPTH) : wanted;
    const lists: Array<{ term: number; at: number; bound: number }> = [];
    plan.forEach(({ bounds }, term) => bounds.forEach((bound, at) => lists.push({ term, at, bound })));
    lists.sort((a, b) => b.bound - a.bound || a.term - b.term || a.at - b.at);
    // Before step s: the most the lists from s on can add to one document (per term, the largest bound among its
    // lists left, summed over terms), and the importance of the terms that still have lists.
    const remainingBound = new Float64Array(lists.length + 1);
    const remainingImportance = new Float64Array(lists.length + 1);
    // After step s: the largest bound among the later lists of step s's own term (0 when it has none).
    const sameTermAfter = new Float64Array(lists.length);
    {
      const largest = new Float64Array(plan.length).fill(-1);
      let sum = 0;
      let importance = 0;
      for (let step = lists.length - 1; step >= 0; step--) {
        const { term, bound } = lists[step]!;
        if (largest[term]! < 0) {
          importance += plan[term]!.importance;
          largest[term] = 0;
        }
        sameTermAfter[step] = largest[term]!;
        sum += bound - largest[term]!;
        largest[term] = bound;
        remainingBound[step] = sum;
        remainingImportance[step] = importance;
      }
    }
    // Postings in the lists from step s on (what a search still walks at most).
    const postingsLeft = new Float64Array(lists.length + 1);
    for (let step = lists.length - 1; step >= 0; step--) {
      const id = plan[lists[step]!.term]!.expansions[lists[step]!.at]![0];
      postingsLeft[step] = postingsLeft[step + 1]! + (id < this.baseOffsets.length - 1 ? this.baseOffsets[id + 1]! - this.baseOffsets[id]! : 0);
    }
    // The phrase bonus of a pair is at most PHRASE_WEIGHT × the smaller of what its two terms can earn; a document not
    // yet seen holds neither term of a pair one of whose terms' lists was walked, so only the other pairs count for it.
    const firstStep = new Map<number, number>(); // index term → the first step walking its list
    lists.forEach(({ term, at }, step) => {
      const id = plan[term]!.expansions[at]![0];
      if (!firstStep.has(id)) firstStep.set(id, step);
    });
    // Per pair term: the typed query term it is the word of, and the step walking that term's own list (a document
    // in the running then shows whether it holds the word: OWN_BIT), so a candidate's phrase bound can be its own.
    const ownTerm = (id: number): { term: number; step: number } => {
      const term = expanded.findIndex((entry, at) => entry.own === id && plan[at]!.weight === 1);
      if (term < 0) return { term: -1, step: Number.POSITIVE_INFINITY };
      const step = lists.findIndex((list) => list.term === term && list.at === 0);
      return { term, step: step < 0 ? Number.POSITIVE_INFINITY : step };
    };
    // A literal filled by a loop (one shape with or without pairs, as for the hits), summed by loops in the same order.
    const pairBounds: Array<{ bound: number; from: number; first: { term: number; step: number }; second: { term: number; step: number } }> = [];
    for (const [first, second] of this.phrasePairs(sequence, scope))
      pairBounds.push({
        bound: PHRASE_WEIGHT * Math.min(this.idf(first, scope) * this.termBound(first, stretch), this.idf(second, scope) * this.termBound(second, stretch)),
        from: Math.min(firstStep.get(first) ?? Number.POSITIVE_INFINITY, firstStep.get(second) ?? Number.POSITIVE_INFINITY),
        first: ownTerm(first),
        second: ownTerm(second),
      });
    let phraseBound = 0;
    for (let at = 0; at < pairBounds.length; at++) phraseBound += pairBounds[at]!.bound;
    const unseenPhrase = (step: number): number => {
      let sum = 0;
      for (let at = 0; at < pairBounds.length; at++) if (pairBounds[at]!.from >= step) sum += pairBounds[at]!.bound;
      return sum;
    };
    // The coverage factor, for bounds: Math.pow per candidate cost more than the walk (it is taken for every candidate
    // at every check), so bounds read it from a table at COVERAGE_STEPS levels, rounded up for upper bounds and down
    // for lower ones (the factor grows with coverage), a hair past the rounding. Final scores use Math.pow itself.
    // (FACTORS, factorAbove and factorBelow below the class.)
    const scaled = COVERAGE_EXPONENT > 0 && importanceSum > 0 ? COVERAGE_STEPS / importanceSum : 0;
    const multiplier = (cover: number): number => factorAbove(scaled, cover);
    // A bound is compared with the floor less a hair, so that rounding in the running sums never drops a document
    // that ties the K-th.
    const HAIR = 1 - 1e-9;
    // The name bonus per slot (named documents are few; most slots have none).
    const bonusOf = (doc: number): number => (bonus.size === 0 ? 0 : (bonus.get(doc) ?? 0));
    /** Per term, the largest bound among its lists from `step` on (0 when none is left). */
    const remainingByTerm = (step: number): Float64Array => {
      const out = new Float64Array(plan.length);
      for (let at = lists.length - 1; at >= step; at--) out[lists[at]!.term] = lists[at]!.bound; // descending: the first one wins
      return out;
    };
    /**
     * Keeps in `list` the documents that could still reach `floor`, each bounded by what it holds: per term, the most
     * the lists left could raise its best value and its coverage, and per pair the phrase bonus it could still earn
     * (none once a word's own list was walked without it, else at most its value there); the others leave the running.
     */
    /** The most a pair's word can bring its phrase bonus in `doc`: none once its own list was walked without it. */
    const pairReach = ({ term, step: own }: { term: number; step: number }, doc: number, step: number): number => {
      if (own >= step) return Number.POSITIVE_INFINITY; // not walked yet: the pair's own bound
      const { best, state } = scratch.terms[term]!;
      return (state[doc]! & OWN_BIT) === 0 ? 0 : PHRASE_WEIGHT * best[doc]!;
    };
    const keepReachable = (list: IntList, step: number, floor: number): void => {
      const left = remainingByTerm(step);
      const coverLeft = remainingImportance[step]!;
      const addLeft = remainingBound[step]!;
      // The document's own bound costs a visit per term and pair: taken only while that is small beside the walk left.
      const own = list.length * (plan.length + 2 * pairBounds.length) * 4 <= postingsLeft[step]!;
      let kept = 0;
      for (let at = 0; at < list.length; at++) {
        const doc = list.data[at]!;
        // First the bound every candidate shares (no per-term work), then the document's own. The coverage factor is
        // at most 1: a sum below the floor without it drops the document before the factor is looked up.
        const reach = scores[doc]! + addLeft;
        const extra = phraseBound + bonusOf(doc);
        if (reach + extra < floor || factorAbove(scaled, covered[doc]! + coverLeft) * reach + extra < floor) {
          marked[doc] = 2;
          continue;
        }
        if (!own) {
          list.data[kept++] = doc;
          continue;
        }
        let sum = scores[doc]!;
        let cover = covered[doc]!;
        for (let term = 0; term < plan.length; term++) {
          const most = left[term]!;
          if (most === 0) continue;
          const { best, state } = scratch.terms[term]!;
          const was = state[doc]! & COVERAGE_MASK;
          const have = was === 0 ? 0 : best[doc]!;
          if (most > have) sum += most - have;
          if (was !== 2) cover += was === 1 ? (1 - MAPPED_COVERAGE) * plan[term]!.importance : plan[term]!.importance;
        }
        let upper = multiplier(cover) * sum + bonusOf(doc);
        for (const { bound, first, second } of pairBounds) upper += Math.min(bound, pairReach(first, doc, step), pairReach(second, doc, step));
        if (upper >= floor) list.data[kept++] = doc;
        else marked[doc] = 2;
      }
      list.length = kept;
    };
    /** Adds list `step`'s value for a document in the running (idempotent: a term keeps its best value, once). */
    const takeValue = (step: number, doc: number, packed: number): void => {
      const { term, at } = lists[step]!;
      const { expansions, scales, importance } = plan[term]!;
      const [id, , kind] = expansions[at]!;
      const { best, state } = scratch.terms[term]!;
      const own = at === 0 && kind === 'exact' && id === expanded[term]!.own && plan[term]!.weight === 1;
      take(scores, covered, best, state, doc, scales[at]! * this.saturated(packed, doc, weights), kind === 'mapped', importance, own);
    };
    // The floor rises fastest when the best candidates so far are scored in full: their counts in every list left are
    // looked up now (the walk adds nothing to them again), so their lower bounds are their final scores.
    const completed = new Set<number>();
    const complete = (step: number, docs: number[]): void => {
      const chosen: number[] = [];
      for (const doc of docs) {
        if (completed.size >= 4 * depth) break;
        if (completed.has(doc) || marked[doc] !== 1) continue;
        completed.add(doc);
        chosen.push(doc);
      }
      if (chosen.length === 0) return;
      this.work.lookups += chosen.length * (lists.length - step);
      // In slot order, list by list: each lookup gallops on from the last one (a document still takes its lists in
      // list order, as it would one document at a time).
      chosen.sort((a, b) => a - b);
      for (let next = step; next < lists.length; next++) {
        const { term, at } = lists[next]!;
        const id = plan[term]!.expansions[at]![0];
        this.lookUpSorted(id, chosen, chosen.length, (doc, packed) => takeValue(next, doc, packed));
      }
    };
    let survivors: IntList | undefined;
    // Documents never admitted (marked 2 without a score): only their marks are reset.
    const declined = scratch.declined;
    declined.length = 0;
    // The floor: a lower bound of the K-th best final score (lower bounds only grow, so an old floor stays valid). It
    // costs a pass over the candidates: taken again when the candidates are few beside the next list, or once the
    // remaining bound has fallen by a third.
    let kthFloor = 0;
    let checkedAt = Number.POSITIVE_INFINITY;
    let touchedAtCheck = 0;
    let filteredAt = Number.POSITIVE_INFINITY;
    for (let step = 0; step < lists.length; step++) {
      const { term, at: position } = lists[step]!;
      const { expansions, scales, importance } = plan[term]!;
      const [id, , kind] = expansions[position]!;
      const listLength = id < this.baseOffsets.length - 1 ? this.baseOffsets[id + 1]! - this.baseOffsets[id]! : 0;
      const unseenPhraseNow = unseenPhrase(step);
      const unseenBound = multiplier(remainingImportance[step]!) * remainingBound[step]! + unseenPhraseNow;
      if (this.pruning === true && step > 0 && touched.length >= depth) {
        if (survivors === undefined) {
          if (unseenBound < (2 / 3) * checkedAt || touched.length >= 2 * touchedAtCheck || 2 * touched.length <= listLength) {
            checkedAt = unseenBound;
            touchedAtCheck = touched.length;
            // Scoring candidates in full costs a lookup per list left: done while that is small beside the walk left.
            if (completed.size < 4 * depth && depth * (lists.length - step) * 32 <= postingsLeft[step]!) {
              // The best candidates not yet scored in full, by their score so far.
              const holders: number[] = [];
              this.kthLowerBound(touched, depth, scores, covered, scaled, holders, completed);
              complete(step, holders);
            }
            kthFloor = Math.max(kthFloor, HAIR * this.kthLowerBound(touched, depth, scores, covered, scaled));
          }
          if (unseenBound < kthFloor) {
            // No document not yet seen can rank: from here on only the candidates that still could take values.
            this.prunedSearches++;
            // The candidates (every touched document is marked 1 until now) in slot order, which the filters keep:
            // passes over them read the per-slot arrays forwards, and lookups gallop along a list. A scan of the marks
            // costs less than sorting the touched list.
            survivors = new IntList(touched.length);
            for (let slot = 0; slot < slotCount; slot++) if (marked[slot] === 1) survivors.push(slot);
            keepReachable(survivors, step, kthFloor);
            filteredAt = remainingBound[step]!;
          }
        } else if (
          survivors.length > depth &&
          remainingBound[step]! < filteredAt &&
          (remainingBound[step]! < (2 / 3) * filteredAt || survivors.length * (plan.length + pairBounds.length) <= listLength)
        ) {
          // The lists left can add less now: drop the candidates that can no longer reach the floor (a pass that costs
          // about what walking this list would, or that the remaining bound fell by a third since the last one).
          kthFloor = Math.max(kthFloor, HAIR * this.kthLowerBound(survivors, depth, scores, covered, scaled));
          keepReachable(survivors, step, kthFloor);
          filteredAt = remainingBound[step]!;
        }
      }
      // While admitting: a document first met in this list is admitted only if it could reach the kthFloor, with the
      // most every term's later lists can add (it holds no term of an earlier list) and, for this list's own term, the
      // larger of this list's value and its later lists' bound (a term counts its best expansion once); one that
      // could not never ranks, whatever comes later.
      let admitBelow = Number.NEGATIVE_INFINITY;
      if (kthFloor > 0 && survivors === undefined) {
        const reach = multiplier(remainingImportance[step]!);
        admitBelow =
          reach > 0
            ? (kthFloor - unseenPhraseNow) / reach - remainingBound[step + 1]!
            : kthFloor > unseenPhraseNow
              ? Number.POSITIVE_INFINITY
              : Number.NEGATIVE_INFINITY;
        // Below 0 the term's later lists alone could lift it (max(value, later) ≥ later): every document is admitted.
        if (admitBelow > 0 && admitBelow < Number.POSITIVE_INFINITY) admitBelow += sameTermAfter[step]!;
      }
      const scale = scales[position]!;
      const { best, state } = scratch.terms[term]!;
      // Coverage: a mapped term earns part of the word's credit (MAPPED_COVERAGE), the word or a near or related one all.
      const mappedTerm = kind === 'mapped';
      // The word's own list (the exact term of a typed word): its candidates remember whether they hold it (phrase bounds).
      const ownList = position === 0 && kind === 'exact' && id === expanded[term]!.own && plan[term]!.weight === 1;
      const visit = (doc: number, packed: number): void => {
        const value = scale * this.saturated(packed, doc, weights);
        if (marked[doc] !== 1) {
          if (marked[doc] === 2) return;
          if (value < admitBelow) {
            marked[doc] = 2;
            declined.push(doc);
            return;
          }
          marked[doc] = 1;
          touched.push(doc);
        }
        take(scores, covered, best, state, doc, value, mappedTerm, importance, ownList);
      };
      if (survivors !== undefined && survivors.length * (6 + 2 * Math.log2(1 + listLength / Math.max(1, survivors.length))) < listLength) {
        // Only the documents that can still rank: their counts looked up (in slot order, each lookup galloping about
        // log2 of the gap between survivors in the list), never the whole list walked.
        this.work.lookups += survivors.length;
        this.lookUpSorted(id, survivors.data, survivors.length, visit);
        continue;
      }
      // Once documents are no longer admitted, only survivors (marked 1) take the list's values.
      const admitted = survivors === undefined ? undefined : marked;
      this.work.postings += listLength;
      if (id < this.baseOffsets.length - 1) {
        // The hot loop of a query, in ./walk.ts (compiled on its own, its value and accumulation inlined).
        const into = { scores, covered, marked };
        const value = { scale, mapped: mappedTerm, importance, own: ownList };
        const [start, end] = [this.baseOffsets[id]!, this.baseOffsets[id + 1]!];
        // Survivors only (all visible): one mark read a posting.
        if (admitted !== undefined) walkRunning(this.base, start, end, into, scratch.terms[term]!, value, weights, this.lengths);
        else walkAdmitting(this.base, start, end, visible, into, scratch.terms[term]!, value, weights, this.lengths, admitBelow, touched, declined);
      }
      this.recent.walk(id, (doc, packed) => {
        if (visible[doc] === 1 && (admitted === undefined || admitted[doc] === 1)) visit(doc, packed);
      });
    }
    // Each document still in the running has seen every list: its score is now computed as scoring in the query's
    // order computes it (the terms' best values and coverage summed in the query's order), so it is bit-for-bit the
    // same whatever order the lists were walked in and whatever the pruning. Documents out of the running score 0.
    this.work.scored += touched.length;
    const pairs = this.phrasePairs(sequence, scope);
    const reference = this.pruning === 'reference';
    for (let at = 0; at < touched.length; at++) {
      const doc = touched.data[at]!;
      if (marked[doc] !== 1) scores[doc] = 0;
      else if (reference) scores[doc] = this.rescore(doc, plan, importanceSum, pairs, bonus.get(doc), scope);
    }
    // Term by term over the documents in the running (a method of its own, compiled apart from the walks).
    if (!reference) this.finalScores(survivors ?? touched, plan, importanceSum);
    if (!reference) {
      this.addPhraseBonus(pairs, scores, marked, scope, survivors);
      for (const [doc, value] of bonus) if (marked[doc] === 1) scores[doc]! += value;
    }
    // Ranking, the meaning channel, the hits and the decision: a method of its own, so that the engine compiles it
    // apart from the walks (a change of shape there, e.g. no hits, then re-optimises it alone, not the whole search).
    const results = this.answer(text, wanted, scores, touched, expanded, scope);
    this.clearScratch(scratch, plan.length, slotCount);
    return results;
  }

  /** Each query term's expansions with their scales and bounds (`plan`), what the hits are explained from (`expanded`), and the sums of idf and importance over the typed terms. */
  private plan(
    terms: ReturnType<QueryExpander['queryTerms']>['terms'],
    scope: Scope,
    stretch: number,
  ): { plan: QueryPlan; expanded: ExpandedTerm[]; idfSum: number; importanceSum: number } {
    let idfSum = 0;
    let importanceSum = 0;
    const expanded: ExpandedTerm[] = [];
    // A literal filled by a loop: one array shape for every query (as the phrase pairs' bounds in search).
    const plan: QueryPlan = [];
    for (const { term, weight, word, mapped } of terms) {
      const own = this.expander.known(term, scope);
      const ownIdf = own !== undefined ? this.idf(own, scope) : Infinity;
      if (weight === 1 && own !== undefined) idfSum += ownIdf;
      const expansions = this.expander.expansions(term, word, mapped, scope);
      // How much matching this term matters: its idf, or for an unknown word its best stand-in's.
      let importance = own !== undefined ? ownIdf : 0;
      if (own === undefined) for (const [id] of expansions) importance = Math.max(importance, this.idf(id, scope));
      if (weight === 1) importanceSum += importance;
      // For evidence, a word no skill holds weighs as the rarest word can: no skill says it.
      expanded.push({ word: word ?? term, term, expansions, typed: weight === 1, own, weight: own !== undefined ? ownIdf : idf(0, scope.count) });
      // Typed arrays, not mapped arrays: one shape for every query (an empty mapped array has another), so the
      // optimised search is not thrown away when a term has no expansion.
      const scales = Float64Array.from(
        expansions,
        ([id, factor, kind]) => (kind === 'mapped' ? Math.min(this.idf(id, scope), ownIdf) : this.idf(id, scope)) * factor * weight,
      );
      // The most each expansion can add to any document's sum (../scoring/bm25f.ts, saturationBound).
      const bounds = Float64Array.from(expansions, ([id], at) => scales[at]! * this.termBound(id, stretch));
      plan.push({ expansions, scales, bounds, weight, importance: weight === 1 ? importance : 0 });
    }
    return { plan, expanded, idfSum, importanceSum };
  }

  /**
   * Scores the documents in the running (`live`: the survivors, in slot order, once pruned; else every touched one)
   * term by term: each term's arrays are read forwards, and each document still adds its terms in the query's order.
   */
  private finalScores(live: IntList, plan: ReadonlyArray<{ weight: number; importance: number }>, importanceSum: number): void {
    const scratch = this.scratch!;
    const { scores, marked } = scratch;
    if (scratch.sums.length < live.length) {
      scratch.sums = new Float64Array(scratch.size);
      scratch.covers = new Float64Array(scratch.size);
    }
    const { sums, covers } = scratch;
    sums.fill(0, 0, live.length);
    covers.fill(0, 0, live.length);
    for (let term = 0; term < plan.length; term++) {
      const { best, state } = scratch.terms[term]!;
      const typed = plan[term]!.weight === 1;
      const full = plan[term]!.importance;
      const part = MAPPED_COVERAGE * full;
      for (let at = 0; at < live.length; at++) {
        const doc = live.data[at]!;
        const was = state[doc]! & COVERAGE_MASK;
        if (was === 0) continue; // the term's value is not set for this document (only the states are cleared)
        sums[at]! += best[doc]!;
        if (typed) covers[at]! += was === 2 ? full : part;
      }
    }
    for (let at = 0; at < live.length; at++) {
      const doc = live.data[at]!;
      if (marked[doc] !== 1) continue;
      const sum = sums[at]!;
      scores[doc] = COVERAGE_EXPONENT > 0 && importanceSum > 0 ? sum * Math.pow(covers[at]! / importanceSum, COVERAGE_EXPONENT) : sum;
    }
  }

  /** Leaves the accumulators all-zero for the next query (only the slots this one touched or declined, and its terms' states). */
  private clearScratch(scratch: NonNullable<SkillSearchIndex['scratch']>, termCount: number, slotCount: number): void {
    const { scores, covered, marked, touched, declined } = scratch;
    for (let at = 0; at < touched.length; at++) {
      const doc = touched.data[at]!;
      scores[doc] = covered[doc] = 0;
      marked[doc] = 0;
    }
    for (let at = 0; at < declined.length; at++) marked[declined.data[at]!] = 0;
    declined.length = 0;
    clearStates(scratch.terms, termCount, touched, slotCount);
    touched.length = 0;
  }

  /** The hits of a scored query: its best `wanted` candidates ranked, with the meaning channel, evidence and decision. */
  private answer(text: string, wanted: number, scores: Float64Array, touched: IntList, expanded: ExpandedTerm[], scope: Scope): SearchHit[] {
    const vectors = this.resolveWordVectors();
    const depthNow = vectors === undefined ? wanted : Math.max(wanted, MEANING_DEPTH);
    const ranked = this.top(scores, touched, depthNow);
    // Very weak matches are cut rather than padded out (see CUT_RATIO).
    const floor = ranked.length > 0 ? CUT_RATIO * scores[ranked[0]!]! : 0;
    let kept = ranked.filter((doc) => scores[doc]! >= floor);
    const cosines = new Map<number, number>();
    const queryVector = vectors?.textVector(text);
    if (vectors !== undefined && queryVector !== undefined) kept = this.addMeaning(vectors, queryVector, kept, scores, cosines);
    // The candidates whose score the typed words themselves earn move up (EXACT_BOOST): a match made mostly of near,
    // related and mapped words is the likelier wrong one.
    // The confidence was fitted on the score before this step (../scoring/confidence.ts): it is judged on that one.
    const boosts = new Map<number, number>();
    if (kept.length > 1) {
      for (const doc of kept) {
        const boost = Math.exp(EXACT_BOOST * this.exactShare(doc, expanded, scope));
        boosts.set(doc, boost);
        scores[doc]! *= boost;
      }
      kept.sort((a, b) => (this.before(a, b, scores) ? -1 : 1));
    }
    kept = kept.slice(0, wanted);
    // A calibrated decision, not a fixed top-k (../scoring/confidence.ts): a hit must match some typed word itself (a
    // near, related or mapped word never makes a match alone), and the best one must be confident enough, else none.
    // minConfidence 0 ranks whatever the words reach, with no decision (what tests of the expansions look at).
    // The query's weight in words some skill of the scope is about (holds in its name, description or headings): a
    // task in words the catalog only uses in passing, in bodies, is most often one no skill serves.
    let topicalWeight = 0;
    for (const { typed, own, weight } of expanded) if (typed && own !== undefined && scope.topical(own)) topicalWeight += weight;
    // The query's words rare in English that the catalog lacks or holds only in bodies (../scoring/specific-words.ts).
    const specific =
      vectors === undefined || kept.length === 0
        ? { unknown: 0, untopical: 0, namedUnknown: 0, namedUntopical: 0 }
        : specificWords(
            text,
            (word) => vectors.position(word),
            (word) => this.heldWhere(word, scope),
          );
    // Pushed into a literal, not mapped: the array then has one shape whether or not there are hits.
    let results: SearchHit[] = [];
    for (const doc of kept)
      results.push(this.hit(doc, scores[doc]!, scores[doc]! / (boosts.get(doc) ?? 1), expanded, scope, cosines.get(doc) ?? 0, topicalWeight, specific));
    // What the whole query is about weighs in (../scoring/query-domain.ts): an everyday task reads unlike the catalog's.
    if (typeof this.queryDomain === 'function') this.queryDomain = this.queryDomain();
    const domain = this.queryDomain;
    if (domain !== undefined && queryVector !== undefined) {
      const words = queryWords(text);
      const neighbours = results.length > 0 ? domain.neighboursOf(queryVector) : 0;
      const remembered = results.length > 0 ? rememberedIn(domain, expanded, scope) : 0;
      for (const found of results) found.confidence = domain.adjust(found.confidence, queryVector, { ...found.evidence, words, neighbours, remembered });
    }
    if (this.minConfidence > 0) {
      results = results.filter((found) => found.evidence.exactWeight > 0);
      // Every typed word matched by the skill itself is a match in any catalog (no no-fit task of the dev sets did).
      const top = results[0];
      if (top !== undefined && top.confidence < this.minConfidence && top.evidence.exactWeight < top.evidence.queryWeight * (1 - 1e-9)) results = [];
    }
    return results;
  }

  /**
   * Adds the meaning channel's share to the candidates' scores (in `scores`) and returns them in ranking order.
   * A skill's vector is made the first time it is a candidate, from its own text only.
   */
  private addMeaning(vectors: WordVectors, query: Float32Array, candidates: number[], scores: Float64Array, cosineOf: Map<number, number>): number[] {
    if (candidates.length < 2) return candidates;
    const dimensions = vectors.dimensions;
    const cosines = candidates.map((doc) => {
      let vector = this.meaningVectors[doc];
      if (vector === undefined) {
        vector = vectors.textVector(this.meaningTexts[doc] ?? '') ?? null;
        this.meaningVectors[doc] = vector;
      }
      if (vector === null || vector.length !== dimensions) return 0;
      let dot = 0;
      for (let i = 0; i < dimensions; i++) dot += query[i]! * vector[i]!;
      return Math.max(0, dot);
    });
    candidates.forEach((doc, at) => cosineOf.set(doc, cosines[at]!));
    const bestCosine = Math.max(...cosines);
    if (!(bestCosine > 0)) return candidates;
    const top = scores[candidates[0]!]!;
    candidates.forEach((doc, at) => {
      scores[doc]! += (MEANING_WEIGHT * top * cosines[at]!) / bestCosine;
    });
    return candidates.sort((a, b) => (this.before(a, b, scores) ? -1 : 1));
  }

  /** The BM25F value of the typed words a document holds itself (same stem), over the query's weight: 0 to 1. */
  private exactShare(doc: number, expanded: ExpandedTerm[], scope: Scope): number {
    let exact = 0;
    let weight = 0;
    for (const { typed, own, weight: idf } of expanded) {
      if (!typed) continue;
      weight += idf;
      const packed = own === undefined ? 0 : this.packedCount(own, doc);
      if (packed !== 0) exact += idf * this.saturated(packed, doc, scope.weights);
    }
    return weight > 0 ? exact / weight : 0;
  }

  /** A result with what matched: per query word, its best-scoring match in this document and the fields holding it. */
  private hit(
    doc: number,
    score: number,
    judged: number,
    expanded: ExpandedTerm[],
    scope: Scope,
    cosine: number,
    topicalWeight: number,
    specific: SpecificWords,
  ): SearchHit {
    const matches: SearchMatch[] = [];
    const missed: string[] = [];
    const evidence = {
      exact: 0,
      exactWeight: 0,
      queryWeight: 0,
      cosine,
      unknownWeight: 0,
      topicalWeight,
      missedWeight: 0,
      rareUnknown: specific.unknown,
      rareUntopical: specific.untopical,
      namedUnknown: specific.namedUnknown,
      namedUntopical: specific.namedUntopical,
    };
    for (const { word, expansions, typed, own, weight } of expanded) {
      if (typed) {
        evidence.queryWeight += weight;
        if (own === undefined) evidence.unknownWeight += weight;
        const packed = own === undefined ? 0 : this.packedCount(own, doc);
        if (packed === 0) {
          evidence.missedWeight = Math.max(evidence.missedWeight, weight);
        } else {
          evidence.exactWeight += weight;
          evidence.exact += weight * this.saturated(packed, doc, scope.weights);
        }
      }
      let best: { id: number; kind: SearchMatch['kind']; value: number; fields: number } | undefined;
      for (const [id, factor, kind] of expansions) {
        const packed = this.packedCount(id, doc);
        // The word's own match (or a near or related one) is named when there is one, even if a mapped term scored
        // more: mapped terms come last, and stand in for the word only where it is missing.
        if (packed === 0 || (kind === 'mapped' && best !== undefined && best.kind !== 'mapped')) continue;
        const value = this.idf(id, scope) * factor * this.saturated(packed, doc, scope.weights);
        if (best === undefined || value > best.value) best = { id, kind, value, fields: fieldBits(packed) };
      }
      if (best === undefined) {
        if (typed) missed.push(word); // a compound the words were joined into is not worth naming
        continue;
      }
      const fields = FIELD_NAMES.filter((_, f) => (best.fields & (1 << f)) !== 0);
      matches.push({ word, term: this.vocabulary.terms[best.id]!, written: writtenForm(this.vocabulary, best.id), kind: best.kind, fields });
    }
    // Words as written, never stems: `fix (related: restore) in body`, not `fix (~restor)`.
    const described = matches.map(({ word, written, kind, fields }) => `${word}${kind === 'exact' ? '' : ` (${kind}: ${written})`} in ${fields.join('+')}`);
    const reason = `${described.join(', ')}${missed.length > 0 ? `${described.length > 0 ? '; ' : ''}not matched: ${missed.join(', ')}` : ''}` || 'name';
    return { id: this.ids[doc]!, score, matches, reason, evidence, confidence: confidenceOf(evidence, judged, idf(0, scope.count)) };
  }

  /** Where the scope holds a query word's terms (its stem, or its parts): the best of them; undefined for a stopword. */
  private heldWhere(word: string, scope: Scope): Held | undefined {
    const { term, parts } = this.analyzer.analyze(word, false);
    let where: Held | undefined;
    for (const each of parts === undefined ? [term] : [term, ...parts]) {
      if (each === undefined) continue;
      const id = this.expander.known(each, scope);
      if (id !== undefined && scope.topical(id)) return 'topical';
      if (id !== undefined) where = 'body';
      else where ??= 'none';
    }
    return where;
  }

  /** The distinct pairs of adjacent query terms the index holds, in the query's order (for the phrase bonus). */
  private phrasePairs(sequence: string[], scope: Scope): Array<[first: number, second: number]> {
    const seen = new Set<string>();
    const pairs: Array<[number, number]> = [];
    for (let at = 0; at + 1 < sequence.length; at++) {
      const first = this.expander.known(sequence[at]!, scope);
      const second = this.expander.known(sequence[at + 1]!, scope);
      if (first === undefined || second === undefined || first === second || seen.has(`${first} ${second}`)) continue;
      seen.add(`${first} ${second}`);
      pairs.push([first, second]);
    }
    return pairs;
  }

  /**
   * One document's score from scratch, in the query's order: its best match per term summed, times its coverage,
   * plus its phrase bonuses and name bonus, exactly as exhaustive scoring in query order adds them.
   */
  private rescore(
    doc: number,
    plan: ReadonlyArray<{ expansions: Expansion[]; scales: Float64Array; weight: number; importance: number }>,
    importanceSum: number,
    pairs: ReadonlyArray<[number, number]>,
    nameBonus: number | undefined,
    scope: Scope,
  ): number {
    let sum = 0;
    let covered = 0;
    for (const { expansions, scales, weight, importance } of plan) {
      let best = 0;
      let direct = false;
      expansions.forEach(([id, , kind], at) => {
        const packed = this.packedCount(id, doc);
        if (packed === 0) return;
        const value = scales[at]! * this.saturated(packed, doc, scope.weights);
        if (value > best) best = value;
        if (kind !== 'mapped') direct = true;
      });
      if (best === 0 && !direct) continue;
      sum += best;
      if (weight === 1) covered += direct ? importance : MAPPED_COVERAGE * importance;
    }
    let score = COVERAGE_EXPONENT > 0 && importanceSum > 0 ? sum * Math.pow(covered / importanceSum, COVERAGE_EXPONENT) : sum;
    for (const [first, second] of pairs) {
      if (this.describesPair(doc, first, second))
        score += PHRASE_WEIGHT * Math.min(this.contribution(first, doc, scope), this.contribution(second, doc, scope));
    }
    return nameBonus === undefined ? score : score + nameBonus;
  }

  private addPhraseBonus(pairs: ReadonlyArray<[number, number]>, scores: Float64Array, marked: Uint8Array, scope: Scope, survivors: IntList | undefined): void {
    for (const [first, second] of pairs) {
      const shorter = Math.min(scope.df(first), scope.df(second));
      if (survivors !== undefined && survivors.length < shorter) {
        // Pruned: only the documents still in the running can rank, so only theirs are looked at (in slot order, a
        // lookup each in the shorter list: a description without that term cannot hold the pair).
        const id = scope.df(first) <= scope.df(second) ? first : second;
        this.lookUpSorted(id, survivors.data, survivors.length, (doc, packed) => {
          if (((packed >>> DESCRIPTION_SHIFT) & FIELD_MAX) === 0) return;
          if (this.describesPair(doc, first, second))
            scores[doc]! += PHRASE_WEIGHT * Math.min(this.contribution(first, doc, scope), this.contribution(second, doc, scope));
        });
        continue;
      }
      // Walk the shorter posting list: the pair can only stand together where both terms occur.
      const id = scope.df(first) <= scope.df(second) ? first : second;
      this.forEachPosting(id, scope.visible, (doc, packed) => {
        // Most postings are of other fields (bodies): a term absent from the description cannot stand beside the
        // other one there (the description's term sequence holds a subset of its counted terms).
        // Only a scored document (under pruning, one that could not rank was never admitted).
        if (((packed >>> DESCRIPTION_SHIFT) & FIELD_MAX) === 0 || marked[doc] !== 1) return;
        if (!this.describesPair(doc, first, second)) return;
        // In proportion to what the two words already earn in this document: a phrase of strong words counts.
        scores[doc]! += PHRASE_WEIGHT * Math.min(this.contribution(first, doc, scope), this.contribution(second, doc, scope));
      });
    }
  }

  /** Whether `first` then `second` stand together in the description of `doc` (its own sequence, or a restored file's). */
  private describesPair(doc: number, first: number, second: number): boolean {
    const own = this.descriptions[doc];
    if (own !== undefined) return adjacent(own, 0, own.length, first, second);
    const views = this.restoredViews!;
    return adjacent(views.descriptions, views.descriptionOffsets[doc]!, views.descriptionOffsets[doc + 1]!, first, second);
  }

  /** The term list (encodeIds) of a live slot: its own, or a view of a restored file's; undefined for a removed one. */
  private forwardOf(slot: number): Uint8Array | undefined {
    const own = this.forward[slot];
    const views = this.restoredViews;
    if (own !== undefined || views === undefined || slot >= views.count || this.alive[slot] !== 1) return own;
    return views.forward.subarray(views.forwardOffsets[slot]!, views.forwardOffsets[slot + 1]!);
  }

  /** The description's term sequence of a live slot, as forwardOf. */
  private descriptionOf(slot: number): Int32Array | undefined {
    const own = this.descriptions[slot];
    const views = this.restoredViews;
    if (own !== undefined || views === undefined || slot >= views.count || this.alive[slot] !== 1) return own;
    return views.descriptions.subarray(views.descriptionOffsets[slot]!, views.descriptionOffsets[slot + 1]!);
  }

  /** The BM25F score of one term in one document. */
  private contribution(id: number, doc: number, scope: Scope): number {
    const packed = this.packedCount(id, doc);
    return packed === 0 ? 0 : this.idf(id, scope) * this.saturated(packed, doc, scope.weights);
  }

  /**
   * A lower bound of the K-th best final score among the candidates: each one's score so far times its coverage so
   * far (both only grow), the K-th largest (a min-heap of K); 0 when there are fewer than K. `holders`, when given,
   * receives the documents holding the K largest; documents in `skip` are left out.
   */
  private kthLowerBound(
    candidates: IntList,
    k: number,
    scores: Float64Array,
    covered: Float64Array,
    scaled: number,
    holders?: number[],
    skip?: Set<number>,
  ): number {
    if (candidates.length < k) return 0;
    const heap = new Float64Array(k);
    const docs = new Int32Array(k);
    let size = 0;
    for (let at = 0; at < candidates.length; at++) {
      const doc = candidates.data[at]!;
      // The coverage factor is at most 1: a score not above the K-th so far cannot enter, whatever its factor.
      if (size === k && !(scores[doc]! > heap[0]!)) continue;
      if (skip !== undefined && skip.has(doc)) continue;
      const lower = factorBelow(scaled, covered[doc]!) * scores[doc]!;
      if (size < k) {
        let child = size++;
        heap[child] = lower;
        docs[child] = doc;
        while (child > 0) {
          const parent = (child - 1) >> 1;
          if (heap[parent]! <= heap[child]!) break;
          [heap[parent], heap[child]] = [heap[child]!, heap[parent]!];
          [docs[parent], docs[child]] = [docs[child]!, docs[parent]!];
          child = parent;
        }
      } else if (lower > heap[0]!) {
        heap[0] = lower;
        docs[0] = doc;
        for (let parent = 0; ; ) {
          const left = 2 * parent + 1;
          if (left >= k) break;
          const child = left + 1 < k && heap[left + 1]! < heap[left]! ? left + 1 : left;
          if (heap[parent]! <= heap[child]!) break;
          [heap[parent], heap[child]] = [heap[child]!, heap[parent]!];
          [docs[parent], docs[child]] = [docs[child]!, docs[parent]!];
          parent = child;
        }
      }
    }
    if (holders !== undefined) holders.push(...docs.subarray(0, size));
    return size < k ? 0 : heap[0]!;
  }

  /** The most the saturated value of term `id` can be in any document of a scope whose averages stretch weights by `stretch`. */
  private termBound(id: number, stretch: number): number {
    const tf = stretch * (this.baseTf[id] ?? 0);
    return Math.max(tf / (K1 + tf), saturationBound(this.recentMax.data[id]! >>> 0));
  }

  /** The pruning bounds of the compact postings, at the live documents' averages (after a merge or a restore). */
  private computeBounds(): void {
    const averages = averagesOf(this.totals, this.live);
    const weights = new FieldWeights();
    weights.reset(this.ids.length, averages);
    const terms = this.baseOffsets.length - 1;
    const tfs = new Float64Array(terms);
    for (let term = 0; term < terms; term++) {
      let max = 0;
      for (let at = this.baseOffsets[term]!, end = this.baseOffsets[term + 1]!; at < end; at++) {
        const value = saturated(this.countsAt(at), this.slotAt(at), weights, this.lengths);
        if (value > max) max = value;
      }
      // saturated is tf / (k1 + tf): its inverse gives the largest tf back.
      tfs[term] = max >= 1 ? Number.POSITIVE_INFINITY : ((K1 * max) / (1 - max)) * (1 + 1e-9); // a hair above: rounding never undercuts
    }
    this.baseTf = tfs;
    this.baseAverages = averages;
    this.recentMax = new IntList();
  }

  /** The `limit` best of the touched documents, by insertion into a short sorted list. */
  private top(scores: Float64Array, touched: IntList, limit: number): number[] {
    const ranked: number[] = [];
    for (let index = 0; index < touched.length; index++) {
      const doc = touched.data[index]!;
      if (!(scores[doc]! > 0)) continue;
      if (ranked.length === limit && !this.before(doc, ranked[limit - 1]!, scores)) continue;
      let at = ranked.length === limit ? limit - 1 : ranked.length;
      while (at > 0 && this.before(doc, ranked[at - 1]!, scores)) {
        ranked[at] = ranked[at - 1]!;
        at--;
      }
      ranked[at] = doc;
    }
    return ranked;
  }

  /** Ranking order: higher score first, then name, then id (ids are unique). */
  private before(a: number, b: number, scores: Float64Array): boolean {
    if (scores[a] !== scores[b]) return scores[a]! > scores[b]!;
    return (compareText(this.nameOf[a]!, this.nameOf[b]!) || compareText(this.ids[a]!, this.ids[b]!) || a - b) < 0;
  }
}

/** The coverage factor at COVERAGE_STEPS + 1 levels, for bounds (see `search`). */
const FACTORS = Float64Array.from({ length: COVERAGE_STEPS + 1 }, (_, level) => Math.pow(level / COVERAGE_STEPS, COVERAGE_EXPONENT));

/** The coverage factor for an upper bound: coverage `cover` over the query's (× `scaled`), rounded up a level; 1 without coverage scaling (`scaled` 0). */
function factorAbove(scaled: number, cover: number): number {
  if (!(scaled > 0)) return 1;
  const level = Math.ceil(cover * scaled + 1e-6);
  return FACTORS[level > COVERAGE_STEPS ? COVERAGE_STEPS : level < 0 ? 0 : level]!;
}

/** The coverage factor for a lower bound, rounded down a level. */
function factorBelow(scaled: number, cover: number): number {
  if (!(scaled > 0)) return 1;
  const level = Math.floor(cover * scaled - 1e-6);
  return FACTORS[level > COVERAGE_STEPS ? COVERAGE_STEPS : level < 0 ? 0 : level]!;
}

/** Field-wise maximum of two packed counts. */
function packedMax(a: number, b: number): number {
  let out = 0;
  for (let f = 0; f < FIELDS; f++) {
    const shift = FIELD_BITS * f;
    out += Math.max((a >>> shift) & FIELD_MAX, (b >>> shift) & FIELD_MAX) * 2 ** shift;
  }
  return out;
}

/** The name bonus of each named document. */
function namedBonus(named: Array<[doc: number, bonus: number]>): Map<number, number> {
  const out = new Map<number, number>();
  for (const [doc, bonus] of named) out.set(doc, (out.get(doc) ?? 0) + bonus);
  return out;
}

/** Per query term, in the query's order: its expansions, each one's scale (idf × factor × weight) and bound, the term's weight and importance. */
type QueryPlan = Array<{ expansions: Expansion[]; scales: Float64Array; bounds: Float64Array; weight: number; importance: number }>;

/** A query term with its expansions, as the hits are explained from. */
interface ExpandedTerm {
  word: string;
  /** The query term (a stem, or a compound of two). */
  term: string;
  expansions: Expansion[];
  /** A word the user typed (or a part of one), not a compound of two. */
  typed: boolean;
  /** The term's own id, when the scope holds it. */
  own: number | undefined;
  /** Its idf, or the idf of a term no document holds when the scope has none. */
  weight: number;
}

/**
 * The query domain's `remembered` input (QueryDomain.rememberedOf of the typed terms no document of the scope holds in
 * its name, description or headings), with the topical test made only for remembered terms; 0 when no tree uses it.
 */
function rememberedIn(domain: QueryDomain, expanded: readonly ExpandedTerm[], scope: Scope): number {
  const memory = domain.usesRemembered ? domain.remembered : undefined;
  if (memory === undefined) return 0;
  let sum = 0;
  for (const { typed, own, term } of expanded) {
    if (!typed) continue;
    const weight = memory.weight(term);
    if (weight > 0 && untopical(own, scope)) sum += weight;
  }
  return sum;
}

/** A typed term's own word (undefined: no skill holds it) is one no skill of the scope is about: remembered words count. */
function untopical(own: number | undefined, scope: Scope): boolean {
  return own === undefined || !scope.topical(own);
}

/** Whether `first` is directly followed by `second` in `terms[start .. end]`. */
function adjacent(terms: Int32Array, start: number, end: number, first: number, second: number): boolean {
  for (let at = start; at + 1 < end; at++) if (terms[at] === first && terms[at + 1] === second) return true;
  return false;
}

function newForwardSlabs(): Slabs<Uint8Array> {
  return new Slabs((length) => new Uint8Array(length));
}

function newDescriptionSlabs(): Slabs<Int32Array> {
  return new Slabs((length) => new Int32Array(length));
}
