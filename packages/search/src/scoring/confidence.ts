import type { SearchHit } from '../types.js';

/**
 * Whether a hit is a real match: a logistic decision over what the hit says about itself (ADR 0202), fitted on
 * queries that have a skill (every seen positive set: bench/search-queries*.json, blind sets 1-3, blind set 4's dev
 * part) against tasks no skill serves (blind set 4's dev no-fit tasks and bench/no-fit/seen.json), with both classes
 * weighted equally, on features standardised for the fit (ADR 0204):
 * - unknown: the share of the query's weight (idf) in words no skill holds at all (`sourdough`, `faucet`): the
 *   strongest sign of a task outside the catalog;
 * - coverage: the share of the query's weight this skill matches with the words themselves (same stem);
 * - cosine: the meaning channel's cosine of the query and the skill's name and description;
 * - exact: the BM25F value of those matches; score: the hit's score.
 * z = BIAS + Σ weight · feature, confidence = 1 / (1 + e^−z). Near, related and mapped matches enter only through
 * the score, so they can raise a real match but never make one. A hit that matches every typed word itself is
 * answered whatever its confidence (no no-fit task of the dev sets did; a catalog of three skills has idfs too small
 * for the fitted weights).
 */
const BIAS = -3.6851;
const WEIGHTS = { unknown: -2.4185, coverage: 2.4406, cosine: 1.8247, exact: 0.0787, score: 0.4929 };
/**
 * idf, hence scores, grow with the catalog (a term in one skill of 3 has idf 1.6, of 725 skills 6.6): `exact` and
 * `score` are taken relative to the catalog's largest idf (a term no skill holds), times the corpus's (725 skills,
 * where the weights were fitted), so a catalog of three skills is judged like one of a thousand.
 */
const FITTED_MAX_IDF = Math.log(1 + 725.5 / 0.5);
/**
 * The operating point: a search whose best hit is less confident than this answers nothing (docs/benchmarks.md has
 * the trade-off at other thresholds). The highest that keeps at least 95 % of the blind sets' seen positive queries
 * (sets 1-3 and set 4's dev part, user-worded and model-phrased, pooled) answered: chosen on one set alone (set 4's
 * dev part), the threshold answered only 78-86 % of the others.
 */
export const MIN_CONFIDENCE = 0.21;

/** `maxIdf`: the idf of a term no document of the searched scope holds (ln(1 + (N + 0.5) / 0.5)). */
export function confidenceOf(evidence: SearchHit['evidence'], score: number, maxIdf: number): number {
  const weight = evidence.queryWeight > 0 ? evidence.queryWeight : 1;
  const scale = maxIdf > 0 ? FITTED_MAX_IDF / maxIdf : 1;
  const z =
    BIAS +
    WEIGHTS.unknown * (evidence.unknownWeight / weight) +
    WEIGHTS.coverage * (evidence.exactWeight / weight) +
    WEIGHTS.cosine * evidence.cosine +
    WEIGHTS.exact * evidence.exact * scale +
    WEIGHTS.score * score * scale;
  return 1 / (1 + Math.exp(-z));
}
