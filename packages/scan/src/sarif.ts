import type { Finding, Severity } from './model.js';
import type { RuleSet } from './rules.js';

/**
 * SARIF 2.1.0 (OASIS) for code-scanning UIs: one run, the rules that exist as `tool.driver.rules` (id, name, short
 * and full description, default level, `security-severity` as GitHub reads it), one result per finding with its
 * physical location (the artifact's URI relative to the scanned root, `uriBaseId` `%SRCROOT%`; a region only when
 * the finding has a line, since SARIF regions start at line 1). `root`, a file: URL, is where `%SRCROOT%` points.
 */
export const SARIF_SCHEMA = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

const LEVEL: Record<Severity, 'note' | 'warning' | 'error'> = { low: 'note', medium: 'warning', high: 'error' };
/** GitHub code scanning reads `security-severity` (0-10): low < 4, medium 4-6.9, high 7-8.9. */
const SECURITY_SEVERITY: Record<Severity, string> = { low: '3.0', medium: '5.5', high: '8.0' };

export interface SarifTarget {
  /** Where the skill's files are, relative to the scanned root (`''` for a single skill). */
  base: string;
  findings: readonly Finding[];
}

export function toSarif(
  targets: readonly SarifTarget[],
  rules: RuleSet,
  tool: { name: string; version: string; informationUri?: string; root?: string },
): Record<string, unknown> {
  const index = new Map(rules.rules.map((rule, i) => [rule.id, i]));
  const results = targets.flatMap((target) =>
    target.findings.map((finding) => {
      const uri = [target.base, finding.file].filter((part) => part !== '').join('/') || 'SKILL.md';
      const physicalLocation: Record<string, unknown> = { artifactLocation: { uri: encodeURI(uri), uriBaseId: '%SRCROOT%' } };
      if (finding.line > 0)
        physicalLocation['region'] = {
          startLine: finding.line,
          ...(finding.column > 0 ? { startColumn: finding.column } : {}),
          snippet: { text: finding.excerpt },
        };
      return {
        ruleId: finding.rule,
        ...(index.has(finding.rule) ? { ruleIndex: index.get(finding.rule) } : {}),
        level: LEVEL[finding.severity],
        message: { text: `${finding.title}: ${finding.why}${finding.note ? ` (${finding.note})` : ''}` },
        locations: [{ physicalLocation }],
        properties: { severity: finding.severity, category: finding.category, 'security-severity': SECURITY_SEVERITY[finding.severity] },
      };
    }),
  );
  return {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: tool.name,
            version: tool.version,
            ...(tool.informationUri ? { informationUri: tool.informationUri } : {}),
            rules: rules.rules.map((rule) => ({
              id: rule.id,
              name: rule.id
                .split('-')
                .map((part) => part[0]!.toUpperCase() + part.slice(1))
                .join(''),
              shortDescription: { text: rule.title },
              fullDescription: { text: rule.why },
              defaultConfiguration: { level: LEVEL[rule.severity] },
              properties: { category: rule.category, tags: ['security', rule.category], 'security-severity': SECURITY_SEVERITY[rule.severity] },
            })),
          },
        },
        ...(tool.root ? { originalUriBaseIds: { '%SRCROOT%': { uri: tool.root.endsWith('/') ? tool.root : `${tool.root}/` } } } : {}),
        results,
      },
    ],
  };
}
