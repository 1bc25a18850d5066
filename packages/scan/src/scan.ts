import { parseSkillMarkdown } from '@skillport/core';
import { SEVERITIES, severityRank } from './model.js';
import type { Finding, ScanReport, Severity } from './model.js';
import { defaultRules } from './rules.js';
import type { Rule, RuleSet } from './rules.js';
import { entropy, excerptAt, filesIn, inCodeFence, lineOf, linesText, lowerFor, readFile, test, visible } from './files.js';
import type { ScannedFile, SkillContext, SkillFile } from './files.js';
import {
  detectAllowedTools,
  detectBinary,
  detectCommands,
  detectBlob,
  detectChars,
  detectDecoded,
  detectFlow,
  detectMinified,
  detectMixedScript,
} from './detectors.js';
import { decodeLayers } from './decode.js';
import { frontmatterLayers } from './frontmatter-layers.js';
import type { Layer } from './decode.js';

/**
 * Scans one skill's files with a rule set (rules.ts). Never throws for what a skill holds: a file that is not
 * UTF-8, a SKILL.md whose frontmatter does not parse, a huge line: each is read as far as it can be, and a file past
 * the size limit is reported as skipped. Patterns run over a normalised copy of each text (NFKC, invisible format
 * characters removed, look-alike letters folded to Latin), so `ig\u200bnore previous instructions` or a Cyrillic `о`
 * cannot slip past them; line numbers are those of the file, and excerpts are taken from the original text.
 */
export interface ScanOptions {
  rules?: RuleSet;
  /** At most this many findings of one rule in one file (the rest are counted in the last one's note). Default 5. */
  perFile?: number;
}

export function scanSkill(files: readonly SkillFile[], options: ScanOptions = {}): ScanReport {
  const rules = options.rules ?? defaultRules();
  const perFile = options.perFile ?? 5;
  const skipped: ScanReport['skipped'] = [];
  const scanned: ScannedFile[] = [];
  for (const file of files) {
    if (file.bytes.byteLength > rules.maxFileBytes) {
      skipped.push({ file: file.path, reason: `larger than ${rules.maxFileBytes} bytes: not scanned` });
      continue;
    }
    scanned.push(readFile(file, rules));
  }
  const skillMd = scanned.find((file) => file.isSkillMd);
  let frontmatter: Record<string, unknown> = {};
  if (skillMd !== undefined) {
    try {
      // Values holding control characters too: serving refuses such a skill, but the rest of its values are still read.
      frontmatter = parseSkillMarkdown(skillMd.text, undefined, undefined, { keepControls: true }).frontmatter;
    } catch {
      // A SKILL.md that does not parse is still scanned as text; validation reports why it does not parse.
    }
  }
  const context: SkillContext = { files: scanned, ...(skillMd ? { skillMd } : {}), frontmatter, rules };
  // Encoded runs decoded (decode.ts): the text rules read them as they read the files, reported where the run is.
  const layers = decodeLayers(scanned, rules);
  // Frontmatter values as parsed (YAML escapes decoded): served to agents as such, so read as such, characters too.
  const values = skillMd === undefined ? [] : frontmatterLayers(skillMd, frontmatter, rules);
  const findings: Finding[] = [];
  for (const rule of rules.rules) {
    const own = runRule(rule, context);
    const inLayers = READS_LAYERS.has(rule.detect)
      ? layers.flatMap((layer) => runRule(rule, { ...context, files: [layer] }).map((found) => fromLayer(found, layer)))
      : [];
    const inValues =
      READS_LAYERS.has(rule.detect) || rule.detect === 'chars'
        ? values.flatMap((layer) => runRule(rule, { ...context, files: [layer] }).map((found) => fromLayer(found, layer)))
        : [];
    findings.push(...limitPerFile(dedupe([...own, ...inLayers, ...inValues]), perFile));
  }
  findings.sort(
    (a, b) => severityRank(b.severity) - severityRank(a.severity) || a.file.localeCompare(b.file) || a.line - b.line || a.rule.localeCompare(b.rule),
  );
  const counts: Record<Severity, number> = { low: 0, medium: 0, high: 0 };
  for (const finding of findings) counts[finding.severity]++;
  const highest = [...SEVERITIES].reverse().find((severity) => counts[severity] > 0);
  return { findings, counts, ...(highest ? { highest } : {}), files: scanned.length, skipped };
}

/** The detectors that read decoded layers: those of text; characters, blobs and file types are the files' own. */
const READS_LAYERS = new Set<Rule['detect']>(['pattern', 'flow', 'decoded']);

/** A finding in a layer, moved to the place of the encoded run it came from, saying what the run decodes to. */
function fromLayer(plain: Finding, layer: Layer): Finding {
  const { file, line, column, encoding } = layer.origin;
  const shown = visible(layer.text.replace(/\s+/g, ' ').trim().slice(0, 120));
  return {
    ...plain,
    file: file.path,
    line,
    column,
    excerpt: excerptAt(file, line, column),
    note: `in ${encoding}-decoded text: "${shown}"${plain.note ? `; ${plain.note}` : ''}`,
  };
}

/** One finding of a rule per file and line (a layer and its file can both say the same). */
function dedupe(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((found) => {
    const key = `${found.rule}|${found.file}|${found.line}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function runRule(rule: Rule, context: SkillContext): Finding[] {
  switch (rule.detect) {
    case 'pattern':
      return filesIn(rule.in, context).flatMap((file) => detectPattern(rule, file, context));
    case 'flow':
      return filesIn(rule.in, context).flatMap((file) => detectFlow(rule, file, context));
    case 'decoded':
      return filesIn(rule.in, context).flatMap((file) => detectDecoded(rule, file, context));
    case 'chars':
      return filesIn(rule.in, context).flatMap((file) => detectChars(rule, file, context));
    case 'mixed-script':
      return detectMixedScript(rule, context);
    case 'blob':
      return filesIn(rule.in, context).flatMap((file) => detectBlob(rule, file, context));
    case 'minified':
      return filesIn(rule.in, context).flatMap((file) => detectMinified(rule, file));
    case 'allowed-tools':
      return detectAllowedTools(rule, context);
    case 'binary':
      return detectBinary(rule, context);
    case 'commands':
      return filesIn(rule.in, context).flatMap((file) => detectCommands(rule, file, context));
  }
}

function detectPattern(rule: Rule, file: ScannedFile, context: SkillContext): Finding[] {
  const found: Finding[] = [];
  const seenLines = new Set<number>();
  const minEntropy = typeof rule.params['entropy'] === 'number' ? rule.params['entropy'] : undefined;
  // Markup inside a fenced code block is shown as code, so it hides nothing.
  const outsideCode = rule.params['outside-code'] === true;
  for (const pattern of rule.patterns) {
    pattern.lastIndex = 0;
    for (let match = pattern.exec(file.normal); match !== null; match = pattern.exec(file.normal)) {
      if (match[0] === '') {
        pattern.lastIndex++;
        continue;
      }
      // A match that opens on whitespace (a pattern's leading `(^|\s)`) is reported where its text starts.
      const start = match.index + (match[0].length - match[0].trimStart().length);
      const line = lineOf(file, start);
      if (seenLines.has(line) || (outsideCode && inCodeFence(file, line))) continue;
      const endLine = lineOf(file, Math.max(start, match.index + match[0].length - 1));
      const around = linesText(file, line, endLine);
      if (rule.unless.some((unless) => test(unless, around))) continue;
      const secret = match.groups?.['secret'] ?? match[0];
      if (rule.mask && context.rules.placeholders.some((placeholder) => test(placeholder, secret))) continue;
      if (minEntropy !== undefined && entropy(secret) < minEntropy) continue;
      seenLines.add(line);
      const column = start - file.lineStarts[line - 1]! + 1;
      const lowered = lowerFor(rule, file, line, context) ?? quoted(rule, file, start, match.index + match[0].length - start, context);
      found.push({
        rule: rule.id,
        category: rule.category,
        severity: lowered?.to ?? rule.severity,
        title: rule.title,
        why: rule.why,
        file: file.path,
        line,
        column,
        excerpt: excerptAt(file, line, column, rule.mask ? secret : undefined),
        ...(lowered ? { note: lowered.note } : {}),
      });
    }
  }
  return found;
}

/**
 * A phrase quoted inline ("…", “…”, `…`) is being talked about, not said: lowered like a discussion. A quote must
 * open within three characters before the match and close within three after it.
 */
function quoted(rule: Rule, file: ScannedFile, start: number, length: number, context: SkillContext): { to: Severity; note: string } | undefined {
  const to = context.rules.discussion.to;
  // Prose quotes phrases; code quotes strings, which says nothing about intent.
  if (!rule.discussion || file.kind !== 'markdown' || severityRank(to) >= severityRank(rule.severity)) return undefined;
  if (file.normal.slice(start, start + length).includes('\n')) return undefined;
  const before = file.normal.slice(Math.max(0, start - 3), start);
  const after = file.normal.slice(start + length, start + length + 3);
  const open = /["“'`]/.exec(before)?.[0];
  // A code fence (```) opens a block of code, not a quotation.
  if (open === undefined || before.endsWith('```') || before.includes('\n')) return undefined;
  const close = open === '“' ? '”' : open;
  return after.includes(close) ? { to, note: 'lowered to medium: the phrase is quoted, as an example' } : undefined;
}

function limitPerFile(findings: Finding[], perFile: number): Finding[] {
  const byFile = new Map<string, Finding[]>();
  for (const finding of findings) {
    const key = `${finding.file}|${finding.severity}`;
    const list = byFile.get(key) ?? [];
    list.push(finding);
    byFile.set(key, list);
  }
  const out: Finding[] = [];
  for (const list of byFile.values()) {
    list.sort((a, b) => a.line - b.line);
    const kept = list.slice(0, perFile);
    if (list.length > perFile) {
      const last = kept.at(-1)!;
      kept[kept.length - 1] = { ...last, note: `${last.note ? `${last.note}; ` : ''}${list.length - perFile} more in this file` };
    }
    out.push(...kept);
  }
  return out;
}
