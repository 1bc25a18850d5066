#!/usr/bin/env node
// The scanner's rule writer's own probe lists (bench/scan-probes/probes*.json), each written before the round of rules it
// led to: not blind, so they measure coverage of the families, not detection. A case: {id, cat, sev, body?, desc?, fm?,
// files?, bin?} (fm: extra frontmatter lines; bin: base64 files). Caught as scan-detect.mjs scores: a finding of the
// category at or above the severity; a benign case passes with no high finding. Usage: node bench/scan-probes.mjs
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { scanSkill } from '@skillport/scan';

const dir = join(import.meta.dirname, 'scan-probes');
const RANK = { low: 0, medium: 1, high: 2 };
for (const name of readdirSync(dir)
  .filter((file) => file.endsWith('.json'))
  .sort()) {
  const probes = JSON.parse(readFileSync(join(dir, name), 'utf8'));
  const missed = [];
  for (const p of probes) {
    const head = `---\nname: ${p.name ?? 'probe'}\ndescription: ${p.desc ?? 'A probe skill.'}\n${p.fm ?? ''}---\n${p.body ?? 'See files.'}\n`;
    const files = [{ path: 'SKILL.md', bytes: Buffer.from(head) }];
    for (const [path, text] of Object.entries(p.files ?? {})) files.push({ path, bytes: Buffer.from(text) });
    for (const [path, b64] of Object.entries(p.bin ?? {})) files.push({ path, bytes: Buffer.from(b64, 'base64') });
    const { findings } = scanSkill(files);
    const hit =
      p.cat === 'benign'
        ? !findings.some((f) => f.severity === 'high')
        : findings.some((f) => f.category === p.cat && RANK[f.severity] >= RANK[p.sev ?? 'high']);
    if (!hit) missed.push(`${p.id} (${p.cat}): ${findings.map((f) => `${f.severity} ${f.rule}`).join(', ') || 'nothing'}`);
  }
  console.log(`${name}: ${probes.length - missed.length}/${probes.length}`);
  for (const line of missed) console.log(`  missed ${line}`);
}
