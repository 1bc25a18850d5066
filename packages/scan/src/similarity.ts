import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parse } from 'yaml';

/**
 * Near-duplicate skills: a name spelled nearly the same (normalised edit distance) or a description saying nearly
 * the same thing (cosine of TF-IDF word vectors, idf from the skills compared). The measure and its thresholds are in
 * `rules/similarity.yaml`; measured on the corpus in docs/security.md.
 */
export interface SimilaritySettings {
  nameThreshold: number;
  descriptionThreshold: number;
  /** The mean of both figures, when each reaches `floor`. */
  combinedThreshold: number;
  floor: number;
  stopwords: ReadonlySet<string>;
}

export interface SkillText {
  /** How the pair is reported (a name, a path, a URI). */
  id: string;
  name: string;
  description: string;
}

export interface SimilarPair {
  a: string;
  b: string;
  /** The larger of the two figures (their mean for a `combined` pair), 0-1. */
  similarity: number;
  name: number;
  description: number;
  /** Which figure passed its threshold. */
  reason: 'name' | 'description' | 'both' | 'combined';
}

let settings: SimilaritySettings | undefined;

export function defaultSimilarity(): SimilaritySettings {
  if (settings !== undefined) return settings;
  const require = createRequire(import.meta.url);
  const file = join(dirname(require.resolve('@skillport/scan/package.json')), 'rules', 'similarity.yaml');
  const doc = parse(readFileSync(file, 'utf8')) as { thresholds: { name: number; description: number; combined: number; floor: number }; stopwords: string };
  settings = {
    nameThreshold: doc.thresholds.name,
    descriptionThreshold: doc.thresholds.description,
    combinedThreshold: doc.thresholds.combined,
    floor: doc.thresholds.floor,
    stopwords: new Set(doc.stopwords.split(/\s+/).filter((word) => word !== '')),
  };
  return settings;
}

/** 1 - edit distance / longer length, over the names lowercased with `-`, `_`, `.` and spaces removed. */
export function nameSimilarity(a: string, b: string): number {
  const s = squash(a);
  const t = squash(b);
  const longest = Math.max(s.length, t.length);
  if (longest === 0) return 1;
  return 1 - levenshtein(s, t) / longest;
}

function squash(name: string): string {
  return name.toLowerCase().replace(/[-_.\s]+/g, '');
}

function levenshtein(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    previous = row;
  }
  return previous[b.length]!;
}

export function words(text: string, stopwords: ReadonlySet<string>): string[] {
  return (
    text
      .toLowerCase()
      .normalize('NFKC')
      .match(/[\p{L}\p{N}]+/gu) ?? []
  )
    .map((word) => (word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word))
    .filter((word) => word.length > 1 && !stopwords.has(word));
}

/**
 * Skills indexed for comparison: each description becomes a unit TF-IDF vector (idf over the indexed skills), so a
 * pair's cosine is a dot product. Built once per set of skills; `pairs` compares all of them, `similarTo` one skill
 * (indexed or not) with the indexed ones.
 */
export class SimilarityIndex {
  readonly #skills: SkillText[] = [];
  readonly #terms: Array<Map<string, number>> = [];
  #vectors: Array<Map<string, number>> | undefined;
  #idf = new Map<string, number>();
  readonly settings: SimilaritySettings;

  constructor(skills: readonly SkillText[] = [], options: Partial<SimilaritySettings> = {}) {
    this.settings = { ...defaultSimilarity(), ...options };
    for (const skill of skills) this.add(skill);
  }

  add(skill: SkillText): void {
    this.#skills.push(skill);
    this.#terms.push(termCounts(words(skill.description, this.settings.stopwords)));
    this.#vectors = undefined;
  }

  get size(): number {
    return this.#skills.length;
  }

  #build(): Array<Map<string, number>> {
    if (this.#vectors !== undefined) return this.#vectors;
    const df = new Map<string, number>();
    for (const terms of this.#terms) for (const term of terms.keys()) df.set(term, (df.get(term) ?? 0) + 1);
    const n = this.#terms.length;
    this.#idf = new Map([...df].map(([term, count]) => [term, Math.log((1 + n) / (1 + count)) + 1]));
    this.#vectors = this.#terms.map((terms) => this.#vector(terms));
    return this.#vectors;
  }

  #vector(terms: ReadonlyMap<string, number>): Map<string, number> {
    const n = this.#terms.length;
    const unseen = Math.log(1 + n) + 1;
    const vector = new Map<string, number>();
    let norm = 0;
    for (const [term, count] of terms) {
      const weight = (1 + Math.log(count)) * (this.#idf.get(term) ?? unseen);
      vector.set(term, weight);
      norm += weight * weight;
    }
    norm = Math.sqrt(norm);
    if (norm > 0) for (const [term, weight] of vector) vector.set(term, weight / norm);
    return vector;
  }

  /** Every pair over a threshold, most similar first. */
  pairs(): SimilarPair[] {
    const vectors = this.#build();
    const out: SimilarPair[] = [];
    for (let i = 0; i < this.#skills.length; i++) {
      for (let j = i + 1; j < this.#skills.length; j++) {
        const pair = this.#judge(this.#skills[i]!, vectors[i]!, this.#skills[j]!, vectors[j]!);
        if (pair) out.push(pair);
      }
    }
    return out.sort((x, y) => y.similarity - x.similarity || x.a.localeCompare(y.a) || x.b.localeCompare(y.b));
  }

  /** The indexed skills close to `skill` (skills with the same id are skipped), most similar first. */
  similarTo(skill: SkillText, options: { limit?: number; all?: boolean } = {}): SimilarPair[] {
    const vectors = this.#build();
    const vector = this.#vector(termCounts(words(skill.description, this.settings.stopwords)));
    const out: SimilarPair[] = [];
    this.#skills.forEach((other, index) => {
      if (other.id === skill.id) return;
      const pair = this.#judge(skill, vector, other, vectors[index]!, options.all === true);
      if (pair) out.push(pair);
    });
    out.sort((x, y) => y.similarity - x.similarity || x.b.localeCompare(y.b));
    return options.limit === undefined ? out : out.slice(0, options.limit);
  }

  #judge(a: SkillText, va: Map<string, number>, b: SkillText, vb: Map<string, number>, all = false): SimilarPair | undefined {
    const name = nameSimilarity(a.name, b.name);
    const description = cosine(va, vb);
    const byName = name >= this.settings.nameThreshold;
    const byDescription = description >= this.settings.descriptionThreshold;
    const combined = Math.min(name, description) >= this.settings.floor && (name + description) / 2 >= this.settings.combinedThreshold;
    if (!all && !byName && !byDescription && !combined) return undefined;
    if (all && name < 0.5 && description < 0.3) return undefined;
    return {
      a: a.id,
      b: b.id,
      similarity: round(byName || byDescription ? Math.max(name, description) : (name + description) / 2),
      name: round(name),
      description: round(description),
      reason: byName && byDescription ? 'both' : byName ? 'name' : byDescription ? 'description' : 'combined',
    };
  }
}

function termCounts(list: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const word of list) counts.set(word, (counts.get(word) ?? 0) + 1);
  return counts;
}

function cosine(a: ReadonlyMap<string, number>, b: ReadonlyMap<string, number>): number {
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let dot = 0;
  for (const [term, weight] of small) dot += weight * (large.get(term) ?? 0);
  return Math.min(1, dot);
}

function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}
