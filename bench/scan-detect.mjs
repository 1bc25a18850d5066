#!/usr/bin/env node
// Detection on a hostile set written by someone who does not write the rules (bench/hostile-skills/, its README
// says how). Format: a folder per case (a SKILL.md and files) and cases.json
// [{id, folder, expected_rule_category, expected_severity}], categories hidden-text | host-injection |
// exfiltration | dangerous-script | obfuscation | secret | broad-tools | undeclared-binary | benign.
// As the set's README scores it: a hostile case is caught when the scan has a finding of the expected category at
// or above the expected severity ("critical" read as high, the scanner's top); a benign case passes when the scan has
// no high finding. Also printed: caught at exactly the expected severity, and in the category at any severity. Usage: node bench/scan-detect.mjs [SET] [--json]
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { readSkillFolderFiles, scanSkill } from '@skillport/scan';

const args = process.argv.slice(2);
const set = resolve(args.find((arg) => !arg.startsWith('--')) ?? join(import.meta.dirname, 'hostile-skills'));
const cases = JSON.parse(readFileSync(join(set, 'cases.json'), 'utf8'));
const RANK = { low: 0, medium: 1, high: 2 };
const norm = (severity) => (String(severity).toLowerCase() === 'critical' ? 'high' : String(severity).toLowerCase());
const rows = [];
for (const c of cases) {
  const { files } = readSkillFolderFiles(join(set, c.folder));
  const report = scanSkill(files);
  const expected = norm(c.expected_severity);
  if (c.expected_rule_category === 'benign') {
    const highs = report.findings.filter((f) => f.severity === 'high');
    rows.push({
      id: c.id,
      category: 'benign',
      expected: 'no high',
      exact: highs.length === 0,
      atLeast: highs.length === 0,
      inCategory: highs.length === 0,
      found: highs.map((f) => `${f.rule}@${f.file}:${f.line}`),
    });
    continue;
  }
  const inCategory = report.findings.filter((f) => f.category === c.expected_rule_category);
  rows.push({
    id: c.id,
    category: c.expected_rule_category,
    expected,
    exact: inCategory.some((f) => f.severity === expected),
    atLeast: inCategory.some((f) => RANK[f.severity] >= (RANK[expected] ?? 0)),
    inCategory: inCategory.length > 0,
    found: report.findings.map((f) => `${f.severity} ${f.rule}`),
  });
}
const pct = (n) => `${((100 * n) / rows.length).toFixed(1)} %`;
const count = (key) => rows.filter((row) => row[key]).length;
const hostile = rows.filter((row) => row.category !== 'benign');
const benign = rows.filter((row) => row.category === 'benign');
if (args.includes('--json')) {
  console.log(JSON.stringify({ cases: rows.length, exact: count('exact'), atLeast: count('atLeast'), inCategory: count('inCategory'), rows }, null, 2));
} else {
  console.log(`cases: ${rows.length} (${hostile.length} hostile, ${benign.length} benign)`);
  const caught = hostile.filter((r) => r.atLeast).length;
  console.log(
    `hostile caught (expected category, at or above the expected severity): ${caught}/${hostile.length} = ${((100 * caught) / hostile.length).toFixed(1)} %`,
  );
  console.log(`benign with a high finding: ${benign.filter((r) => !r.atLeast).length}/${benign.length}`);
  console.log(`all cases right, at exactly the expected severity: ${count('exact')}/${rows.length} = ${pct(count('exact'))}`);
  console.log(`caught in the expected category at any severity: ${count('inCategory')}/${rows.length} = ${pct(count('inCategory'))}`);
  console.log(
    `hostile caught exactly: ${hostile.filter((r) => r.exact).length}/${hostile.length}; benign without a high finding: ${benign.filter((r) => r.exact).length}/${benign.length}`,
  );
  const byCategory = new Map();
  for (const row of rows) {
    const entry = byCategory.get(row.category) ?? { cases: 0, exact: 0 };
    entry.cases++;
    if (row.atLeast) entry.exact++;
    byCategory.set(row.category, entry);
  }
  for (const [category, entry] of byCategory) console.log(`  ${category.padEnd(18)} ${entry.exact}/${entry.cases}`);
  console.log('\nmissed (or benign with a high finding):');
  for (const row of rows.filter((r) => !r.atLeast))
    console.log(`- ${row.id} (${row.category}, expected ${row.expected}): found ${row.found.join(', ') || 'nothing'}`);
}
