// Stemming: agent nouns lose -er/-or only above this stem length (see lightStem).
const MIN_AGENT_STEM = 5;
const VOWEL = /[aeiouy]/;
const DOUBLED = /([b-df-hj-km-np-rtv-z])\1$/; // a doubled consonant other than l and s: `runn` → `run`, `call` stays

/**
 * A light English stemmer: a few suffix rules for lowercase a-z words of 4+ letters (any other word is returned
 * as it is). It conflates the inflections a request and a description most often disagree on and leaves the rest
 * to the index's prefix and truncation matches. In order:
 *
 * 1. plurals and 3rd person: `-ies` → `-y` (`queries` → `query`), `-sses` → `-ss`, `-ches`/`-shes`/`-xes`/`-zes`
 *    lose `-es` (`batches` → `batch`), otherwise a final `-s` goes unless the word ends in `-ss`, `-us` or `-is`
 *    (`tests` → `test`; `class`, `status`, `analysis` stay);
 * 2. one of: `-ied` → `-y`; `-ing`, or `-ed` but not `-eed` (`speed`, `need`), dropped when 3+ letters with a vowel
 *    remain, and a doubled final consonant then undone (`running` → `run`, `debugged` → `debug`); `-ly` dropped
 *    when 4+ letters remain (`weekly` → `week`);
 * 3. agent nouns: `-er`/`-or` dropped when 5+ letters remain (`builder` → `build`, `scanner` → `scan`,
 *    `monitoring` → `monitor` → `monit`; `poster`, `docker`, `server` are too short and stay);
 * 4. a final silent `-e` dropped when 3+ letters remain, so `create`, `creates`, `created`, `creating` and
 *    `creator` all become `creat`.
 */
export function lightStem(word: string): string {
  if (word.length < 4 || !/^[a-z]+$/.test(word)) return word;
  let stem = word;
  if (stem.endsWith('ies') && stem.length > 4) stem = `${stem.slice(0, -3)}y`;
  else if (stem.endsWith('sses')) stem = stem.slice(0, -2);
  else if (/(?:ch|sh|x|z)es$/.test(stem)) stem = stem.slice(0, -2);
  else if (stem.endsWith('s') && !/(?:ss|us|is)$/.test(stem)) stem = stem.slice(0, -1);

  if (stem.endsWith('ied') && stem.length > 4) stem = `${stem.slice(0, -3)}y`;
  else if (stem.endsWith('ing') && hasVowelStem(stem.slice(0, -3))) stem = undouble(stem.slice(0, -3));
  else if (stem.endsWith('ed') && !stem.endsWith('eed') && hasVowelStem(stem.slice(0, -2))) stem = undouble(stem.slice(0, -2));
  else if (stem.endsWith('ly') && stem.length - 2 >= 4) stem = stem.slice(0, -2);

  if (/(?:er|or)$/.test(stem) && stem.length - 2 >= MIN_AGENT_STEM) stem = undouble(stem.slice(0, -2));
  if (stem.endsWith('e') && stem.length - 1 >= 3) stem = stem.slice(0, -1);
  return stem;
}

function hasVowelStem(stem: string): boolean {
  return stem.length >= 3 && VOWEL.test(stem);
}

function undouble(stem: string): string {
  return DOUBLED.test(stem) ? stem.slice(0, -1) : stem;
}
