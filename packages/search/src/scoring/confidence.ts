import type { SearchHit } from '../types.js';

/**
 * Whether a hit is a real match: a logistic decision over what the hit says about itself (ADRs 0202, 0257), fitted on
 * queries that have a skill (bench/search-queries*.json, blind sets 1-3, both parts of blind set 4) against tasks no
 * skill serves (blind set 4's no-fit tasks, both parts, and bench/no-fit/seen.json), with both classes weighted
 * equally, on features standardised for the fit; blind set 5 (its queries and no-fit tasks) was kept aside to check it:
 * - unknown: the share of the query's weight (idf) in words no skill holds at all (`sourdough`, `faucet`): the
 *   strongest sign of a task outside the catalog;
 * - topical: the share of the query's weight in words some skill holds in its name, description or headings, i.e.
 *   what skills are about, not words they use in passing in a body (`wire`, `race`, `dance`): the same for every hit;
 * - missed: the largest idf of a typed word this skill does not hold, over the rarest idf: the one word that names a
 *   task's subject (`Pulumi`, `Stata`) is often the one the nearest skill lacks;
 * - coverage: the share of the query's weight this skill matches with the words themselves (same stem);
 * - cosine: the meaning channel's cosine of the query and the skill's name and description;
 * - exact: the BM25F value of those matches; score: the hit's score.
 * z = BIAS + Σ weight · feature, confidence = 1 / (1 + e^−z). Near, related and mapped matches enter only through
 * the score, so they can raise a real match but never make one. A hit that matches every typed word itself is
 * answered whatever its confidence (a catalog of three skills has idfs too small for the fitted weights).
 * With word vectors, this lexical confidence is the first input of ./query-domain.ts (ADR 0271), which decides.
 */
const BIAS = -1.748;
const WEIGHTS = { unknown: -2.2205, topical: 2.2868, missed: -1.3111, coverage: 0.1722, cosine: 0.5217, exact: 0.0763, score: 0.2746 };
/**
 * idf, hence scores, grow with the catalog (a term in one skill of 3 has idf 1.6, of 725 skills 6.6): `exact` and
 * `score` are taken relative to the catalog's largest idf (a term no skill holds), times the corpus's (725 skills,
 * where the weights were fitted), so a catalog of three skills is judged like one of a thousand.
 */
const FITTED_MAX_IDF = Math.log(1 + 725.5 / 0.5);
/**
 * The operating point: a search whose best hit is less confident than this answers nothing (docs/benchmarks.md has
 * the trade-off at other thresholds). The highest that keeps at least 96 % of the fitting sets' positive queries
 * (user-worded and model-phrased, pooled) answered, a point above the target so that a new set lands above it.
 */
export const MIN_CONFIDENCE = 0.2375;

/** `maxIdf`: the idf of a term no document of the searched scope holds (ln(1 + (N + 0.5) / 0.5)). */
export function confidenceOf(evidence: SearchHit['evidence'], score: number, maxIdf: number): number {
  const weight = evidence.queryWeight > 0 ? evidence.queryWeight : 1;
  const scale = maxIdf > 0 ? FITTED_MAX_IDF / maxIdf : 1;
  const z =
    BIAS +
    WEIGHTS.unknown * (evidence.unknownWeight / weight) +
    WEIGHTS.topical * (evidence.topicalWeight / weight) +
    WEIGHTS.missed * (maxIdf > 0 ? evidence.missedWeight / maxIdf : 0) +
    WEIGHTS.coverage * (evidence.exactWeight / weight) +
    WEIGHTS.cosine * evidence.cosine +
    WEIGHTS.exact * evidence.exact * scale +
    WEIGHTS.score * score * scale;
  return 1 / (1 + Math.exp(-z));
}
