// The search benchmarks' documents, built one way for all of them (bench/search.mjs, bench/blind/score.mjs,
// bench/meaning-candidates.mjs): one per corpus skill, id = its folder path, the served name and description when it
// passes validation, otherwise the raw frontmatter (a skill skillport would refuse still counts), its headings, body
// and reference files (picked as the server picks them: @skillport/search's referenceFiles).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, sep } from 'node:path';
import { discoverSkills, inspectSkillFolder, markdownHeadings, parseSkillMarkdown } from '../packages/core/dist/src/index.js';
import { MAX_REFERENCE_BYTES, referenceFiles } from '../packages/search/dist/src/index.js';

/** `{docs, lenient}`: `lenient` lists the ids indexed from raw frontmatter (not servable as they are). */
export function loadCorpusDocs(root) {
  const docs = [];
  const lenient = [];
  for (const { dir, segments } of discoverSkills(root).skills) {
    const id = segments.join('/');
    let parsed;
    try {
      parsed = parseSkillMarkdown(readFileSync(join(dir, 'SKILL.md'), 'utf8'));
    } catch {
      continue; // unreadable, or no frontmatter at all: nothing to index
    }
    const inspected = inspectSkillFolder(dir).skill;
    if (inspected === undefined) lenient.push(id);
    const name = inspected?.name ?? String(parsed.frontmatter.name ?? segments.at(-1));
    const description = inspected?.description ?? String(parsed.frontmatter.description ?? '');
    const paths = readdirSync(dir, { recursive: true }).map((path) => String(path).split(sep).join('/'));
    const references = referenceFiles(paths)
      .filter((path) => statSync(join(dir, path)).size <= MAX_REFERENCE_BYTES)
      .map((path) => readFileSync(join(dir, path), 'utf8'));
    docs.push({ id, name, description, headings: markdownHeadings(parsed.body), body: parsed.body, references });
  }
  return { docs, lenient };
}

// A `count`-document catalog made of corpus copies under distinct ids. Plain copies would share every word with the
// corpus (an index caches per-word work, so that would flatter it); instead, in each copy after the first, 3 in 10
// words of 4+ letters get a suffix of their own (`deploy` → `deploybc`), so the vocabulary grows as in a catalog of
// distinct skills (the corpus: ~10,000 terms; 10,000 documents: ~55,000).
export function scaledCatalog(docs, count) {
  let counter = 0;
  const vary = (text, copy) =>
    copy === 0
      ? text
      : text.replace(/[A-Za-z]{4,}/g, (word) =>
          ((counter++ * 2654435761) >>> 0) % 10 < 3 ? `${word}${String.fromCharCode(97 + (copy % 26), 97 + Math.floor(copy / 26))}` : word,
        );
  const out = [];
  for (let copy = 0; out.length < count; copy++) {
    for (const doc of docs) {
      if (out.length >= count) break;
      out.push({
        id: `copy${copy}/${doc.id}`,
        name: doc.name,
        description: vary(doc.description, copy),
        headings: doc.headings.map((heading) => vary(heading, copy)),
        body: vary(doc.body, copy),
      });
    }
  }
  return out;
}
