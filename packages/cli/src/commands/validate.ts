import { basename, dirname, join, relative, sep } from 'node:path';
import { statSync } from 'node:fs';
import type { Command } from 'commander';
import { discoverSkills, escapeControls, inspectSkillArchive, inspectSkillFolder, refusedAtPublish, resolveLimits } from '@skillport/core';
import type { FolderProblem, SkillLimits } from '@skillport/core';
import { arg, repeatable } from '../kit.js';
import type { ExitCode } from '../kit.js';
import { paint, parsePositiveInt, parseSize, plural } from '../output.js';
import { userSettings } from '../user-config.js';

interface ValidateOptions {
  json?: boolean;
  strict?: boolean;
  quiet?: boolean;
  allowField: string[];
  maxFiles: number;
  maxBytes: number;
  /** --no-scan: leave out the scanner's findings. */
  scan: boolean;
}

interface SkillReport {
  path: string;
  name?: string;
  /** No error (with --strict: no problem at all). */
  valid: boolean;
  /** Would `serve` serve it (leniently)? */
  servable: boolean;
  problems: Array<{ severity: 'error' | 'warning'; message: string; file?: string; line?: number }>;
}

export function registerValidate(program: Command, exit: ExitCode): void {
  program
    .command('validate')
    .description('Check skills against the Agent Skills specification and the serving rules.')
    .argument('<paths...>', 'a skill folder, its SKILL.md, a folder holding skills at any depth, or a skill archive (.skill, .zip, .tar.gz)')
    .option('--strict', 'treat warnings as errors (exit 1 on any problem), as a registry with strict: true does')
    .option('--allow-field <name>', 'accept this frontmatter field without a warning; repeatable (also allowFields in the user config)', repeatable(), [])
    .option('-q, --quiet', 'print only the problems and the summary line')
    .option('--json', 'print one JSON report on stdout')
    .option('--no-scan', "leave out the scanner's findings (skillport scan has the details)")
    .option('--max-files <n>', 'files per skill', arg(parsePositiveInt('--max-files')), 512)
    .option('--max-bytes <size>', 'bytes per skill (e.g. 16MiB)', arg(parseSize), 16 * 1024 * 1024)
    .addHelpText(
      'after',
      `
Every problem is one line on stderr, then one summary line:
  warning: <path>: <message>     the skill is served and published as it is
  error: <path>: <message>       the skill is refused
  12 skills checked: 11 valid (2 with warnings), 1 invalid
Messages follow the reference validator (skills-ref) where it has one. Fields clients document (Claude Code's
argument-hint, model, context…) and fields real skills commonly carry (version, requires, triggers…) are accepted
and kept verbatim; other fields are a warning. The scanner's findings (skillport scan) are warnings too, one line
each: \`warning: <path>/<file>:<line>: scan: <severity> <rule>: <title>\` (--no-scan leaves them out). Exit 0 when no skill has an error (with --strict: no problem),
1 otherwise (or when a path holds no skill), 2 on a usage error.`,
    )
    .action(async (paths: string[], options: ValidateOptions) => {
      exit.set(await validate(paths, options));
    });
}

async function validate(paths: string[], options: ValidateOptions): Promise<number> {
  const limits = resolveLimits({ maxFiles: options.maxFiles, maxBytes: options.maxBytes });
  const allowFields = [...options.allowField, ...userSettings().allowFields];
  const reports: SkillReport[] = [];
  // Places the search passed over beside the skills it found (not skills themselves: not counted as skills).
  const places = new WeakSet<SkillReport>();
  for (const given of paths) {
    if (isArchive(given)) {
      reports.push(await validateArchive(given, limits, allowFields, options.scan));
      continue;
    }
    const target = skillTarget(given);
    const found = discoverSkills(target);
    if (found.skills.length === 0) {
      const problems = found.problems.length > 0 ? found.problems : [{ severity: 'error' as const, message: 'Missing required file: SKILL.md', path: target }];
      reports.push({ path: given, valid: false, servable: false, problems: problems.map((problem) => toReportProblem(problem, target)) });
      continue;
    }
    // What the search itself found beside the skills (a SKILL.md that is a folder, folders too deep to search):
    // one entry per place, so that nothing is passed over without a word.
    for (const problem of found.problems) {
      const place = basename(problem.path) === 'SKILL.md' || basename(problem.path) === 'skill.md' ? dirname(problem.path) : problem.path;
      const report: SkillReport = { path: place, valid: problem.severity !== 'error', servable: false, problems: [toReportProblem(problem, place)] };
      places.add(report);
      reports.push(report);
    }
    for (const skill of found.skills) {
      const inspection = inspectSkillFolder(skill.dir, { limits, allowFields, servedRoot: target });
      const findings = options.scan ? await scanFindings(skill.dir) : [];
      const shown = skill.segments.length === 0 ? given : join(target, ...skill.segments);
      const report: SkillReport = {
        path: shown,
        valid:
          inspection.skill !== undefined &&
          refusedAtPublish(
            inspection.problems,
            inspection.skill.files.map((file) => file.path),
          ).length === 0,
        servable: inspection.skill !== undefined,
        problems: [...publishSeverities(inspection.problems, inspection.skill?.files).map((problem) => toReportProblem(problem, skill.dir)), ...findings],
      };
      if (inspection.skill) report.name = inspection.skill.name;
      reports.push(report);
    }
  }
  // --strict: a warning refuses the skill as an error would (what a strict registry does at publish).
  if (options.strict) {
    for (const report of reports) {
      if (report.problems.length === 0) continue;
      report.valid = false;
      for (const problem of report.problems) problem.severity = 'error';
    }
  }

  const counts = tally(reports);
  if (options.json) {
    const summary = { checked: reports.length, valid: counts.valid, invalid: counts.invalid, warned: counts.warned, servable: counts.servable };
    process.stdout.write(`${JSON.stringify({ valid: counts.invalid === 0, strict: options.strict === true, summary, skills: reports }, null, 2)}\n`);
    return counts.invalid === 0 ? 0 : 1;
  }
  const err = paint(process.stderr);
  for (const report of reports) {
    for (const problem of report.problems) {
      // Paths, names and messages come from the folders checked: control characters are escaped (one line each).
      const label = problem.severity === 'error' ? err.red('error') : err.yellow('warning');
      const where = `${problem.file ? `${report.path}${isArchive(report.path) ? '!' : sep}${problem.file}` : report.path}${problem.line ? `:${problem.line}` : ''}`;
      process.stderr.write(`${label}: ${escapeControls(where)}: ${escapeControls(problem.message)}\n`);
    }
  }
  const passed = reports.filter((report) => places.has(report));
  const skillCounts = tally(reports.filter((report) => !places.has(report)));
  const over = passed.length > 0 ? `; ${plural(passed.length, 'folder')} passed over (see above)` : '';
  process.stderr.write(`${summaryLine(skillCounts)}${over}\n`);
  if (!options.quiet && counts.warned > 0 && !options.strict)
    process.stderr.write(`${err.dim('note: --strict treats warnings as errors; --allow-field NAME accepts a field')}\n`);
  return counts.invalid === 0 ? 0 : 1;
}

interface Counts {
  checked: number;
  valid: number;
  invalid: number;
  /** Valid skills with warnings. */
  warned: number;
  servable: number;
}

function tally(reports: SkillReport[]): Counts {
  const valid = reports.filter((report) => report.valid);
  return {
    checked: reports.length,
    valid: valid.length,
    invalid: reports.length - valid.length,
    warned: valid.filter((report) => report.problems.length > 0).length,
    servable: reports.filter((report) => report.servable).length,
  };
}

/** "3 skills checked: 2 valid (1 with warnings), 1 invalid", or for one skill "1 skill checked: valid". */
function summaryLine(counts: Counts): string {
  const warned = counts.warned > 0 ? ` (${counts.warned} with warnings)` : '';
  if (counts.checked === 1) return `1 skill checked: ${counts.valid === 1 ? `valid${counts.warned ? ', with warnings' : ''}` : 'invalid'}`;
  return `${plural(counts.checked, 'skill')} checked: ${counts.valid} valid${warned}, ${counts.invalid} invalid`;
}

/** The problems as validate reports them: what refuses a skill at publish is an error here too. */
function publishSeverities<P extends FolderProblem | { severity: 'error' | 'warning'; message: string; path: string }>(
  problems: P[],
  files: ReadonlyArray<{ path: string }> | undefined,
): P[] {
  const refused = new Set(
    refusedAtPublish(
      problems,
      (files ?? []).map((file) => file.path),
    ),
  );
  return problems.map((problem) => (refused.has(problem) ? { ...problem, severity: 'error' } : problem));
}

/** A regular file other than a SKILL.md is taken for an archive (its format is read from its bytes). */
function isArchive(path: string): boolean {
  try {
    return statSync(path).isFile() && basename(path).toLowerCase() !== 'skill.md';
  } catch {
    return false;
  }
}

/** The same checks `serve` makes of an archive: the archive's safety (ADR 0010), then the skill rules. */
async function validateArchive(path: string, limits: SkillLimits, allowFields: string[], scan: boolean): Promise<SkillReport> {
  const inspected = await inspectSkillArchive(path, {
    limits: { maxArchiveBytes: limits.maxBytes, maxUncompressedBytes: limits.maxBytes, maxEntries: Math.max(1024, 2 * limits.maxFiles) },
    skillLimits: limits,
    allowFields,
  });
  const report: SkillReport = {
    path,
    valid:
      inspected.skill !== undefined &&
      refusedAtPublish(
        inspected.problems,
        inspected.skill.files.map((file) => file.path),
      ).length === 0,
    servable: inspected.skill !== undefined,
    // Inside an archive, a problem's path is the file it is about (SKILL.md problems are printed bare).
    problems: publishSeverities(inspected.problems, inspected.skill?.files).map((problem) =>
      problem.path && problem.path !== 'SKILL.md'
        ? { severity: problem.severity, message: problem.message, file: problem.path }
        : { severity: problem.severity, message: problem.message },
    ),
  };
  if (inspected.skill) report.name = inspected.skill.name;
  if (scan && inspected.files.length > 0) report.problems.push(...(await scanFindings(inspected.files)));
  return report;
}

/**
 * The scanner's findings (packages/scan, loaded on first use) as warnings: `<file>:<line>: scan: <severity> <rule>:
 * <title>`, the note after a dash. `--strict` makes them errors, as it does every warning.
 */
async function scanFindings(source: string | ReadonlyArray<{ path: string; bytes: Uint8Array }>): Promise<SkillReport['problems']> {
  const scan = await import('@skillport/scan');
  const files = typeof source === 'string' ? scan.readSkillFolderFiles(source).files : source;
  return scan.scanSkill(files).findings.map((finding) => ({
    severity: 'warning' as const,
    message: `scan: ${finding.severity} ${finding.rule}: ${finding.title}${finding.note ? ` (${finding.note})` : ''}`,
    file: finding.file,
    ...(finding.line > 0 ? { line: finding.line } : {}),
  }));
}

/** A SKILL.md path means its folder, as skills-ref does. */
function skillTarget(path: string): string {
  try {
    if (statSync(path).isFile() && basename(path).toLowerCase() === 'skill.md') return dirname(path);
  } catch {
    // reported by discovery
  }
  return path;
}

function toReportProblem(problem: FolderProblem, skillDir: string): SkillReport['problems'][number] {
  const rel = problem.path ? relative(skillDir, problem.path) : '';
  // Frontmatter problems are about SKILL.md itself: skills-ref prints them bare.
  const file = rel === '' || rel === 'SKILL.md' || rel === '..' || rel.startsWith(`..${sep}`) ? undefined : rel;
  return file === undefined ? { severity: problem.severity, message: problem.message } : { severity: problem.severity, message: problem.message, file };
}
