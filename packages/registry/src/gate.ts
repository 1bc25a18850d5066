import { SimilarityIndex, atLeast, scanSkill } from '@skillport/scan';
import type { ScanReport } from '@skillport/scan';
import type { GateSettings } from '@skillport/server';
import type { SkillFileEntry } from '@skillport/core';
import { RegistryError } from './model.js';
import type { GateRecord } from './model.js';

/**
 * The publish gate (ADR 0230): every version is scanned (packages/scan) before its blobs are written; the publisher's
 * gate settings (the policy's `gate:`) then refuse it (`block` at a severity, `scripts: refuse`, `duplicates:
 * refuse`), hold it for review (`review` at a severity or `always`, `scripts: review`), or let it through. What was
 * found and decided is kept with the version (GateRecord).
 */
export const DEFAULT_SETTINGS: GateSettings = { block: 'none', review: 'none', scripts: 'allow', duplicates: 'warn' };

/** Findings kept per version (the counts count all of them). */
const KEPT_FINDINGS = 200;
/** Near-duplicates named per publish. */
const KEPT_DUPLICATES = 5;

export interface Neighbour {
  name: string;
  description: string;
}

export interface GateVerdict {
  record: GateRecord;
  held: boolean;
  /** Lines for the publisher (findings summarised, near-duplicates named). */
  warnings: string[];
}

/** A script: a file under scripts/, a file with a script's extension, or one that starts with `#!`. */
export function scriptFiles(files: readonly SkillFileEntry[]): string[] {
  return files
    .filter(
      (file) =>
        /^scripts\//.test(file.path) ||
        /\.(sh|bash|zsh|fish|ps1|psm1|bat|cmd|py|js|mjs|cjs|ts|rb|pl|php|lua)$/i.test(file.path) ||
        (file.bytes[0] === 0x23 && file.bytes[1] === 0x21),
    )
    .map((file) => file.path);
}

export function judge(
  skill: { name: string; description: string; files: readonly SkillFileEntry[] },
  settings: GateSettings,
  neighbours: readonly Neighbour[],
  now: string,
): GateVerdict {
  const report: ScanReport = scanSkill(skill.files);
  const reasons: string[] = [];
  const warnings: string[] = [];
  const top = (floor: 'low' | 'medium' | 'high') =>
    report.findings
      .filter((finding) => atLeast(finding.severity, floor))
      .slice(0, 5)
      .map((finding) => `${finding.severity} ${finding.rule} at ${finding.file}${finding.line > 0 ? `:${finding.line}` : ''} (${finding.title})`)
      .join('; ');
  if (settings.block !== 'none' && report.highest !== undefined && atLeast(report.highest, settings.block)) {
    throw new RegistryError(
      422,
      'blocked_by_scan',
      `${skill.name} was not published: this registry refuses skills with ${settings.block} findings or worse (skillport scan shows them all): ${top(settings.block)}`,
    );
  }
  const scripts = scriptFiles(skill.files);
  if (scripts.length > 0 && settings.scripts === 'refuse')
    throw new RegistryError(
      422,
      'scripts_refused',
      `${skill.name} was not published: this registry takes no skills with scripts (${scripts.slice(0, 5).join(', ')})`,
    );

  const duplicates = neighbours.length === 0 || settings.duplicates === 'off' ? [] : nearDuplicates(skill, neighbours);
  if (duplicates.length > 0) {
    const named = duplicates.map((d) => `${d.name} (${d.similarity.toFixed(2)} by ${d.reason})`).join(', ');
    if (settings.duplicates === 'refuse')
      throw new RegistryError(
        409,
        'near_duplicate',
        `${skill.name} was not published: it is very close to ${named}; make the name and description say how it differs`,
      );
    warnings.push(`${skill.name} is very close to ${named}: agents may pick the wrong one; say in the description how it differs`);
  }

  let held = false;
  if (settings.review === 'always') {
    held = true;
    reasons.push('this registry reviews every version');
  } else if (settings.review !== 'none' && report.highest !== undefined && atLeast(report.highest, settings.review)) {
    held = true;
    reasons.push(`${settings.review} findings or worse: ${top(settings.review)}`);
  }
  if (scripts.length > 0 && settings.scripts === 'review') {
    held = true;
    reasons.push(`it ships scripts (${scripts.slice(0, 5).join(', ')}) and this registry reviews scripts`);
  }
  const counted = (['high', 'medium', 'low'] as const).filter((s) => report.counts[s] > 0).map((s) => `${report.counts[s]} ${s}`);
  if (counted.length > 0) warnings.push(`scan: ${counted.join(', ')} (${top('low')}${report.findings.length > 5 ? '; …' : ''})`);
  return {
    held,
    warnings,
    record: {
      scannedAt: now,
      counts: report.counts,
      findings: report.findings.slice(0, KEPT_FINDINGS),
      ...(duplicates.length > 0 ? { duplicates } : {}),
      decision: held ? 'held' : 'allowed',
      reasons,
    },
  };
}

function nearDuplicates(skill: { name: string; description: string }, neighbours: readonly Neighbour[]): NonNullable<GateRecord['duplicates']> {
  const index = new SimilarityIndex(neighbours.filter((n) => n.name !== skill.name).map((n) => ({ id: n.name, ...n })));
  return index
    .similarTo({ id: skill.name, name: skill.name, description: skill.description }, { limit: KEPT_DUPLICATES })
    .map((pair) => ({ name: pair.b, similarity: pair.similarity, reason: pair.reason }));
}
