import { collisionWarnings } from './path-collisions.js';
import type { Problem } from './rules.js';

/**
 * Which of a skill's problems refuse it at publish (ADR 0210): its errors; file names that collide by case or
 * Unicode normalisation, which are only warnings for serving but would lose a file when installed on macOS or
 * Windows; and with `strict`, every problem. `validate` applies the same rule, so that exit 0 means it publishes.
 */
export function refusedAtPublish<P extends Problem>(problems: readonly P[], paths: Iterable<string>, strict = false): P[] {
  if (strict) return [...problems];
  const collisions = new Set(collisionWarnings(paths).map((collision) => collision.message));
  return problems.filter((problem) => problem.severity === 'error' || collisions.has(problem.message));
}
