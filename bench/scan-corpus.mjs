#!/usr/bin/env node
// The scanner over the real corpus (../shared/corpus): every high finding listed (rule, skill, file:line, excerpt),
// counts per severity and rule, and the time per skill. Usage: node bench/scan-corpus.mjs [CORPUS] [--json]
// docs/security.md, "Measured", says for every high finding whether it is right or wrong.
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { discoverSkills } from '@skillport/core';
import { readSkillFolderFiles, scanSkill, defaultRules } from '@skillport/scan';

const args = process.argv.slice(2);
const root = args.find((arg) => !arg.startsWith('--')) ?? join(import.meta.dirname, '../../shared/corpus/skills');
if (!existsSync(root)) {
  console.error(`no corpus at ${root}`);
  process.exit(1);
}
const rules = defaultRules();
const found = discoverSkills(root).skills;
const bySeverity = { low: 0, medium: 0, high: 0 };
const byRule = new Map();
const highs = [];
const skillsWith = { low: new Set(), medium: new Set(), high: new Set() };
const started = process.hrtime.bigint();
let bytes = 0;
for (const skill of found) {
  const { files } = readSkillFolderFiles(skill.dir);
  for (const file of files) bytes += file.bytes.byteLength;
  const report = scanSkill(files, { rules });
  const id = relative(root, skill.dir);
  for (const finding of report.findings) {
    bySeverity[finding.severity]++;
    skillsWith[finding.severity].add(id);
    const key = `${finding.severity} ${finding.rule}`;
    byRule.set(key, (byRule.get(key) ?? 0) + 1);
    if (finding.severity === 'high') highs.push({ skill: id, ...finding });
  }
}
const ms = Number(process.hrtime.bigint() - started) / 1e6;
if (args.includes('--json')) {
  console.log(JSON.stringify({ skills: found.length, bySeverity, skillsWithHigh: skillsWith.high.size, highs }, null, 2));
} else {
  console.log(
    `skills: ${found.length}, bytes: ${(bytes / 1048576).toFixed(1)} MiB, scan: ${ms.toFixed(0)} ms (${(ms / found.length).toFixed(2)} ms per skill)`,
  );
  console.log(`findings: high ${bySeverity.high}, medium ${bySeverity.medium}, low ${bySeverity.low}`);
  console.log(
    `skills with a finding: high ${skillsWith.high.size} (${((100 * skillsWith.high.size) / found.length).toFixed(1)} %), medium ${skillsWith.medium.size}, low ${skillsWith.low.size}`,
  );
  for (const [key, count] of [...byRule].sort((a, b) => b[1] - a[1])) console.log(`  ${String(count).padStart(4)}  ${key}`);
  console.log('\nhigh findings:');
  for (const high of highs)
    console.log(`- ${high.rule}  ${high.skill}/${high.file}:${high.line}  ${high.excerpt.slice(0, 150)}${high.note ? `  [${high.note}]` : ''}`);
}
