/**
 * What a scan reports. A finding names the rule that fired, how much it matters, where (file and 1-based line and
 * column), the excerpt (made safe for a terminal: control, format and invisible characters shown as escapes) and
 * why it matters, in words a reviewer acts on.
 */
export const SEVERITIES = ['low', 'medium', 'high'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const CATEGORIES = [
  'hidden-text',
  'host-injection',
  'exfiltration',
  'dangerous-script',
  'obfuscation',
  'secret',
  'broad-tools',
  'undeclared-binary',
] as const;
export type Category = (typeof CATEGORIES)[number];

export interface Finding {
  rule: string;
  category: Category;
  severity: Severity;
  title: string;
  why: string;
  /** `/`-separated path inside the skill ('' for the skill as a whole). */
  file: string;
  /** 1-based; 0 when the finding is about a whole file. */
  line: number;
  column: number;
  /** The line (or the part of it around the match), escaped for a terminal; secrets masked. */
  excerpt: string;
  /** Why the severity was lowered, or a count of further matches. */
  note?: string;
}

export interface ScanReport {
  findings: Finding[];
  counts: Record<Severity, number>;
  /** The highest severity found, if any. */
  highest?: Severity;
  /** Files looked at. */
  files: number;
  /** Files not scanned, with the reason (too large). */
  skipped: Array<{ file: string; reason: string }>;
}

export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity);
}

export function atLeast(severity: Severity, floor: Severity): boolean {
  return severityRank(severity) >= severityRank(floor);
}

export function isSeverity(value: unknown): value is Severity {
  return typeof value === 'string' && (SEVERITIES as readonly string[]).includes(value);
}

/** A compact summary of a report: counts by severity and the rules that fired, highest first. */
export interface FindingsSummary {
  counts: Record<Severity, number>;
  highest?: Severity;
  /** Distinct rules, highest severity first, each with how often it fired. */
  rules: Array<{ rule: string; severity: Severity; title: string; count: number }>;
}

export function summarize(findings: readonly Finding[]): FindingsSummary {
  const counts: Record<Severity, number> = { low: 0, medium: 0, high: 0 };
  const rules = new Map<string, { rule: string; severity: Severity; title: string; count: number }>();
  for (const finding of findings) {
    counts[finding.severity]++;
    const key = `${finding.rule}|${finding.severity}`;
    const entry = rules.get(key);
    if (entry) entry.count++;
    else rules.set(key, { rule: finding.rule, severity: finding.severity, title: finding.title, count: 1 });
  }
  const highest = [...SEVERITIES].reverse().find((severity) => counts[severity] > 0);
  return {
    counts,
    ...(highest ? { highest } : {}),
    rules: [...rules.values()].sort((a, b) => severityRank(b.severity) - severityRank(a.severity) || b.count - a.count || a.rule.localeCompare(b.rule)),
  };
}
