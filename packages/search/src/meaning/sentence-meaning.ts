/**
 * Sentence-level meaning for the ranking (ADR 0280): a sentence encoder's vectors of whole texts (a skill's name and
 * description, the query), compared by cosine, reorder the lexical candidates. The lexical index stays the only thing
 * that finds skills and decides whether any fits: this only moves what it found.
 */

/**
 * The closest candidate in meaning gains this share of the best lexical score (see rerankByMeaning). Chosen on every
 * spent set (ADR 0280): 0.3-0.5 gained alike on user-worded queries and lost no model-phrased one at rank 5; 0.6 and
 * up lost more at rank 1 than they gained.
 */
export const SENTENCE_WEIGHT = 0.4;

/** What a skill's vector is made of: its name (separators as spaces) and description. */
export function skillSentence(name: string, description: string): string {
  return `${name.replace(/[-_]+/g, ' ')}. ${description}`;
}

/** Dot product: the cosine of two unit vectors; 0 when their lengths differ. */
export function cosine(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return 0;
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
}

/** A copy scaled to unit length; undefined for an empty, zero or non-finite vector. */
export function unit(vector: ArrayLike<number>): Float32Array | undefined {
  let norm = 0;
  for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
  norm = Math.sqrt(norm);
  if (!(norm > 0) || !Number.isFinite(norm)) return undefined;
  const out = new Float32Array(vector.length);
  for (let i = 0; i < vector.length; i++) out[i] = vector[i]! / norm;
  return out;
}

/**
 * Lexical hits (best first) reordered by meaning: each gains weight × the best hit's score × (its cosine with the
 * query − the lowest) / (the highest − the lowest), so only how the candidates differ in meaning counts, whatever
 * the encoder's cosines' range. Every hit needs a vector (undefined from `vectorOf`: the hits are returned as they
 * are, so a ranking never depends on how far the encoder has got); ties keep the lexical order. The scores returned
 * are the fused ones.
 */
export function rerankByMeaning<Hit extends { id: string; score: number }>(
  hits: readonly Hit[],
  query: Float32Array,
  vectorOf: (id: string) => Float32Array | undefined,
  weight: number = SENTENCE_WEIGHT,
): Hit[] {
  if (hits.length < 2 || !(weight > 0)) return [...hits];
  const cosines: number[] = [];
  for (const hit of hits) {
    const vector = vectorOf(hit.id);
    if (vector === undefined) return [...hits];
    cosines.push(cosine(query, vector));
  }
  const low = Math.min(...cosines);
  const high = Math.max(...cosines);
  if (!(high > low)) return [...hits];
  const top = Math.max(...hits.map((hit) => hit.score));
  return hits
    .map((hit, at) => ({ hit, at, score: hit.score + (weight * top * (cosines[at]! - low)) / (high - low) }))
    .sort((a, b) => b.score - a.score || a.at - b.at)
    .map(({ hit, score }) => ({ ...hit, score }));
}
