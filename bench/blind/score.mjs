#!/usr/bin/env node
// bench/blind/score: the aggregate score of the built search index (packages/core, SkillSearchIndex) on a blind query
// set whose answers are skill NAMES (bench/blind/queries-*.json). Prints recall@1, recall@5 and MRR only: no query
// text, no misses, so that scoring the held-out set teaches nobody anything about it. Use it on
// queries-holdout.json once before the ranking changes and once at the end; tune on queries-dev.json with
// bench/search.mjs (which lists misses).
// Usage: npm run build --silent && node bench/blind/score.mjs bench/blind/queries-holdout.json [--corpus DIR] [--json]
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SkillSearchIndex, discoverSkills, inspectSkillFolder, markdownHeadings, parseSkillMarkdown } from '../../packages/core/dist/src/index.js';

const repo = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const args = process.argv.slice(2);
const flag = (name) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
};
const file = args.find((arg, at) => !arg.startsWith('--') && !(at > 0 && args[at - 1].startsWith('--') && args[at - 1] !== '--json'));
if (file === undefined) {
  process.stderr.write('usage: node bench/blind/score.mjs QUERIES.json [--corpus DIR] [--json]\n');
  process.exit(2);
}
const corpus = resolve(flag('corpus') ?? join(repo, '../shared/corpus/skills'));
const queries = JSON.parse(readFileSync(resolve(file), 'utf8'));

// The catalog as served: name and description of every skill that passes validation (the raw frontmatter for one
// that does not), its headings and its body; the same documents bench/search.mjs indexes.
const docs = [];
for (const { dir, segments } of discoverSkills(corpus).skills) {
  let parsed;
  try {
    parsed = parseSkillMarkdown(readFileSync(join(dir, 'SKILL.md'), 'utf8'));
  } catch {
    continue;
  }
  const inspected = inspectSkillFolder(dir).skill;
  const name = inspected?.name ?? String(parsed.frontmatter.name ?? segments.at(-1));
  const description = inspected?.description ?? String(parsed.frontmatter.description ?? '');
  docs.push({ id: segments.join('/'), name, description, headings: markdownHeadings(parsed.body), body: parsed.body });
}
const nameOf = new Map(docs.map((doc) => [doc.id, doc.name]));
const index = new SkillSearchIndex(docs);

let top1 = 0;
let top5 = 0;
let reciprocal = 0;
for (const { query, expected } of queries) {
  const hits = index.search(query, 10);
  const rank = hits.findIndex((hit) => expected.includes(nameOf.get(hit.id)));
  if (rank === 0) top1++;
  if (rank >= 0 && rank < 5) top5++;
  if (rank >= 0) reciprocal += 1 / (rank + 1);
}
const n = queries.length;
const result = { queries: n, recallAt1: top1 / n, recallAt5: top5 / n, mrr: reciprocal / n };
if (args.includes('--json')) console.log(JSON.stringify(result));
else console.log(`${file}: ${n} queries, recall@1 ${(100 * result.recallAt1).toFixed(1)} %, recall@5 ${(100 * result.recallAt5).toFixed(1)} %, MRR ${result.mrr.toFixed(3)}`);
