import { readDataFile } from '../data.js';
import { DecisionTrees, type TreeInput } from './decision-trees.js';
import { QueryNeighbours } from './query-neighbours.js';
import { RememberedWords } from './remembered-words.js';

/**
 * Whether a query reads like a task of the catalog's kind at all (ADR 0271): a linear direction in the word-vector
 * space (../expansion/word-vectors.ts) that separates the queries of the seen sets that have a skill from the tasks
 * no skill serves (cooking, pets, home repair, a tool the catalog lacks), fitted with the lexical confidence
 * (./confidence.ts) as one more input. The lexical features judge the words a hit matches; this judges what the whole
 * query is about, which is what an everyday task in words skills also use ("stack", "wire", "race") gives away.
 * The weights are data (query-domain.txt, written by bench/blind/fit-domain.mjs), folded so that the decision
 * threshold stays MIN_CONFIDENCE: z = LEXICAL × logit(lexical confidence) + Σ weight_i · query vector_i + BIAS,
 * + Σ SPECIFIC_k · [some rare word of kind k] (./specific-words.ts: the tool a near-miss names), the kinds being: written
 * as a name and held by no skill; otherwise written, held by none; as a name, held only in bodies; otherwise, only in
 * bodies. Those weights are the file's `specific` line (none: they weigh nothing). Optional `tree` lines (with their
 * `inputs` line: ./decision-trees.ts) add small boosted trees over that linear margin and the deciding hit's lexical
 * evidence, and `offset` then moves the decision threshold to MIN_CONFIDENCE: z = margin + Σ trees + OFFSET.
 * Trees that split on `neighbours` need the fitting queries' vectors (./query-neighbours.ts), trees that split on
 * `remembered` the remembered words (./remembered-words.ts).
 */
export const QUERY_DOMAIN_FILE = 'query-domain.txt';

/** The rare-word counts of a hit's evidence (./specific-words.ts). */
export interface RareWords {
  rareUnknown: number;
  rareUntopical: number;
  namedUnknown: number;
  namedUntopical: number;
}

/** The lexical evidence a hit brings to the trees (a SearchHit's `evidence`); missing fields count as 0. */
export interface DecisionEvidence extends RareWords {
  exactWeight?: number;
  queryWeight?: number;
  unknownWeight?: number;
  topicalWeight?: number;
  missedWeight?: number;
  cosine?: number;
  /** The query's word count (queryWords); 0 when not given. */
  words?: number;
  /** The query's best cosine with a spent no-fit task (QueryDomain.neighboursOf); 0 when not given. */
  neighbours?: number;
  /** The remembered weights of the query's terms no skill of the scope is about, summed (QueryDomain.rememberedOf); 0 when not given. */
  remembered?: number;
}

/**
 * The query's words as the trees count them: letters and digits, two or more characters (the same split as
 * bench/blind/fit-domain.mjs). Stopwords count too: how a task is phrased, not only its subject, tells a search from
 * a chatty everyday request.
 */
export function queryWords(text: string): number {
  let count = 0;
  for (const word of text.normalize('NFKC').split(/[^\p{L}\p{N}]+/u)) if (word.length >= 2) count++;
  return count;
}

/** The four indicators the `specific` weights apply to, in their order (what bench/blind/fit-domain.mjs fits). */
export function rareKinds(rare: RareWords): [boolean, boolean, boolean, boolean] {
  return [rare.namedUnknown > 0, rare.rareUnknown > rare.namedUnknown, rare.namedUntopical > 0, rare.rareUntopical > rare.namedUntopical];
}

export class QueryDomain {
  constructor(
    readonly lexical: number,
    readonly bias: number,
    readonly weights: Float64Array,
    readonly specific: readonly [namedUnknown: number, otherUnknown: number, namedUntopical: number, otherUntopical: number] = [0, 0, 0, 0],
    readonly trees?: DecisionTrees,
    readonly offset = 0,
    readonly neighbours?: QueryNeighbours,
    readonly remembered?: RememberedWords,
  ) {}

  /** Whether the trees split on the query's neighbours (then a search computes them once: neighboursOf). */
  get usesNeighbours(): boolean {
    return this.trees?.inputs.includes('neighbours') ?? false;
  }

  /** The `neighbours` input for a query vector, once per search; 0 when the trees do not use it. */
  neighboursOf(queryVector: Float32Array): number {
    return this.usesNeighbours && this.neighbours !== undefined ? this.neighbours.nearest(queryVector) : 0;
  }

  /** Whether the trees split on the query's remembered words (then a search looks them up once: rememberedOf). */
  get usesRemembered(): boolean {
    return this.trees?.inputs.includes('remembered') ?? false;
  }

  /**
   * The `remembered` input, once per search, from the query's typed terms no skill of the searched scope is about
   * (SkillSearchIndex.untopicalTerms); 0 when the trees do not use it.
   */
  rememberedOf(untopicalTerms: Iterable<string>): number {
    return this.usesRemembered && this.remembered !== undefined ? this.remembered.sum(untopicalTerms) : 0;
  }

  /**
   * The confidence once the query vector's direction and the query's rare words (`rare`: a hit's evidence, the same
   * for every hit) are weighed in; `confidence` unchanged for a vector of another size.
   */
  adjust(confidence: number, queryVector: Float32Array, evidence?: DecisionEvidence): number {
    if (queryVector.length !== this.weights.length) return confidence;
    const clamped = Math.min(1 - 1e-12, Math.max(1e-12, confidence));
    const lexical = Math.log(clamped / (1 - clamped));
    let z = this.lexical * lexical + this.bias;
    for (let i = 0; i < this.weights.length; i++) z += this.weights[i]! * queryVector[i]!;
    const kinds = evidence === undefined ? undefined : rareKinds(evidence);
    if (kinds !== undefined) for (const [at, present] of kinds.entries()) if (present) z += this.specific[at]!;
    if (this.trees !== undefined) z += this.trees.sum(this.trees.inputs.map((name) => treeInput(name, z, lexical, kinds, evidence)));
    return 1 / (1 + Math.exp(-(z + this.offset)));
  }

  /**
   * Reads `lexical X`, `bias X`, `weights X X …` and, optionally, `specific X X X X`, `inputs NAME …`, `tree …` and
   * `offset X` lines (`#` starts a comment); throws, naming the line, on anything else.
   */
  static parse(text: string, neighbours?: QueryNeighbours, remembered?: RememberedWords): QueryDomain {
    let lexical: number | undefined;
    let bias: number | undefined;
    let weights: number[] | undefined;
    let specific: [number, number, number, number] | undefined;
    let inputs: string[] | undefined;
    let offset = 0;
    const trees: string[][] = [];
    for (const [at, raw] of text.split('\n').entries()) {
      const line = raw.replace(/#.*/, '').trim();
      if (line === '') continue;
      const [key, ...values] = line.split(/\s+/);
      if (key === 'inputs' && values.length > 0 && inputs === undefined) {
        inputs = values;
        continue;
      }
      if (key === 'tree') {
        trees.push(values);
        continue;
      }
      const numbers = values.map(Number);
      if (numbers.length === 0 || numbers.some((n) => !Number.isFinite(n))) throw new Error(`query domain: line ${at + 1} has no numbers, or a bad one`);
      if (key === 'lexical' && numbers.length === 1) lexical = numbers[0];
      else if (key === 'bias' && numbers.length === 1) bias = numbers[0];
      else if (key === 'weights') weights = numbers;
      else if (key === 'specific' && numbers.length === 4) specific = [numbers[0]!, numbers[1]!, numbers[2]!, numbers[3]!];
      else if (key === 'offset' && numbers.length === 1) offset = numbers[0]!;
      else throw new Error(`query domain: line ${at + 1}: unknown key ${key}`);
    }
    if (lexical === undefined || bias === undefined || weights === undefined) throw new Error('query domain: lexical, bias and weights are all needed');
    if (trees.length > 0 && inputs === undefined) throw new Error('query domain: tree lines need an inputs line');
    const forest = trees.length > 0 ? DecisionTrees.parse(inputs!, trees) : undefined;
    if (forest?.inputs.includes('neighbours') && neighbours === undefined)
      throw new Error('query domain: the trees split on neighbours, and no no-fit vectors are given');
    if (forest?.inputs.includes('remembered') && remembered === undefined)
      throw new Error('query domain: the trees split on remembered, and no remembered words are given');
    return new QueryDomain(lexical, bias, Float64Array.from(weights), specific, forest, offset, neighbours, remembered);
  }

  private static shipped: QueryDomain | null | undefined;

  /**
   * The shipped weights, read once; undefined when the file is missing or damaged, or its trees need the query vectors
   * or the remembered words and those are missing or damaged (then the lexical confidence decides, as before).
   */
  static bundled(): QueryDomain | undefined {
    if (QueryDomain.shipped === undefined) {
      try {
        QueryDomain.shipped = QueryDomain.parse(readDataFile(QUERY_DOMAIN_FILE), QueryNeighbours.bundled(), RememberedWords.bundled());
      } catch {
        QueryDomain.shipped = null;
      }
    }
    return QueryDomain.shipped ?? undefined;
  }
}

/** One tree input's value: the linear margin so far, the lexical logit, a rare-word indicator or an evidence share. */
function treeInput(name: TreeInput, margin: number, lexical: number, kinds: readonly boolean[] | undefined, evidence: DecisionEvidence | undefined): number {
  const query = evidence?.queryWeight || 1;
  switch (name) {
    case 'margin':
      return margin;
    case 'lexical':
      return lexical;
    case 'namedUnknown':
      return kinds?.[0] ? 1 : 0;
    case 'otherUnknown':
      return kinds?.[1] ? 1 : 0;
    case 'namedUntopical':
      return kinds?.[2] ? 1 : 0;
    case 'otherUntopical':
      return kinds?.[3] ? 1 : 0;
    case 'exactShare':
      return (evidence?.exactWeight ?? 0) / query;
    case 'unknownShare':
      return (evidence?.unknownWeight ?? 0) / query;
    case 'topicalShare':
      return (evidence?.topicalWeight ?? 0) / query;
    case 'missed':
      return evidence?.missedWeight ?? 0;
    case 'cosine':
      return evidence?.cosine ?? 0;
    case 'words':
      return evidence?.words ?? 0;
    case 'neighbours':
      return evidence?.neighbours ?? 0;
    case 'remembered':
      return evidence?.remembered ?? 0;
  }
}
