import { basename, dirname, join, relative, sep } from 'node:path';
import { statSync } from 'node:fs';
import type { Command } from 'commander';
import { discoverSkills, escapeControls, inspectSkillArchive, inspectSkillFolder, resolveLimits } from '@skillport/core';
import type { FolderProblem, SkillLimits } from '@skillport/core';
import { arg } from '../kit.js';
import type { ExitCode } from '../kit.js';
import { paint, parsePositiveInt, parseSize } from '../output.js';

interface ValidateOptions {
  json?: boolean;
  maxFiles: number;
  maxBytes: number;
}

interface SkillReport {
  path: string;
  name?: string;
  valid: boolean;
  /** Would `serve` serve it (leniently)? */
  servable: boolean;
  problems: Array<{ severity: 'error' | 'warning'; message: string; file?: string }>;
}

export function registerValidate(program: Command, exit: ExitCode): void {
  program
    .command('validate')
    .description('Check skills against the Agent Skills specification and the serving rules.')
    .argument('<paths...>', 'a skill folder, its SKILL.md, a folder holding skills at any depth, or a skill archive (.skill, .zip, .tar.gz)')
    .option('--json', 'print one JSON report on stdout')
    .option('--max-files <n>', 'files per skill', arg(parsePositiveInt('--max-files')), 512)
    .option('--max-bytes <size>', 'bytes per skill (e.g. 16MiB)', arg(parseSize), 16 * 1024 * 1024)
    .addHelpText(
      'after',
      `
Messages follow the reference validator (skills-ref) where it has one. Exit 0 when every skill is valid,
1 when any is not (or a path holds no skill), 2 on a usage error. Output per skill:
  Valid skill: <path>
  Validation failed for <path>:
    - <problem>`,
    )
    .action(async (paths: string[], options: ValidateOptions) => {
      exit.set(await validate(paths, options));
    });
}

async function validate(paths: string[], options: ValidateOptions): Promise<number> {
  const limits = resolveLimits({ maxFiles: options.maxFiles, maxBytes: options.maxBytes });
  const reports: SkillReport[] = [];
  // Entries about folders that are not skills (found while searching): their warnings are not "served leniently".
  const notSkills = new WeakSet<SkillReport>();
  for (const given of paths) {
    if (isArchive(given)) {
      reports.push(await validateArchive(given, limits));
      continue;
    }
    const target = skillTarget(given);
    const found = discoverSkills(target);
    if (found.skills.length === 0) {
      const problems = found.problems.length > 0 ? found.problems : [{ severity: 'error' as const, message: 'Missing required file: SKILL.md', path: target }];
      const report: SkillReport = { path: given, valid: false, servable: false, problems: problems.map((problem) => toReportProblem(problem, target)) };
      notSkills.add(report);
      reports.push(report);
      continue;
    }
    // What the search itself found beside the skills (a SKILL.md that is a folder, folders too deep to search):
    // one entry per place, so that nothing is passed over without a word.
    for (const problem of found.problems) {
      const place = basename(problem.path) === 'SKILL.md' || basename(problem.path) === 'skill.md' ? dirname(problem.path) : problem.path;
      const report: SkillReport = { path: place, valid: false, servable: false, problems: [toReportProblem(problem, place)] };
      notSkills.add(report);
      reports.push(report);
    }
    for (const skill of found.skills) {
      const inspection = inspectSkillFolder(skill.dir, { limits });
      const shown = skill.segments.length === 0 ? given : join(target, ...skill.segments);
      const report: SkillReport = {
        path: shown,
        valid: inspection.problems.length === 0,
        servable: inspection.skill !== undefined,
        problems: inspection.problems.map((problem) => toReportProblem(problem, skill.dir)),
      };
      if (inspection.skill) report.name = inspection.skill.name;
      reports.push(report);
    }
  }

  const allValid = reports.every((report) => report.valid);
  const failed = reports.filter((report) => !report.valid).length;
  if (options.json) {
    const summary = { checked: reports.length, valid: reports.length - failed, invalid: failed, servable: reports.filter((report) => report.servable).length };
    process.stdout.write(`${JSON.stringify({ valid: allValid, summary, skills: reports }, null, 2)}\n`);
  } else {
    const out = paint(process.stdout);
    const err = paint(process.stderr);
    for (const report of reports) {
      // Paths, names and messages come from the folders checked: control characters are escaped (one line each).
      if (report.valid) {
        process.stdout.write(`${out.green('Valid skill')}: ${escapeControls(report.path)}\n`);
        continue;
      }
      const lenient = notSkills.has(report) ? '' : err.dim(' (warning: served leniently)');
      const lines = report.problems.map(
        (problem) =>
          `  - ${escapeControls(problem.file ? `${problem.file}: ` : '')}${escapeControls(problem.message)}${problem.severity === 'warning' ? lenient : ''}`,
      );
      process.stderr.write(`${err.red('Validation failed for')} ${escapeControls(report.path)}:\n${lines.join('\n')}\n`);
    }
    if (reports.length > 1) {
      process.stderr.write(`${reports.length} skills checked: ${reports.length - failed} valid, ${failed} invalid\n`);
    }
  }
  return allValid ? 0 : 1;
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
async function validateArchive(path: string, limits: SkillLimits): Promise<SkillReport> {
  const inspected = await inspectSkillArchive(path, {
    limits: { maxArchiveBytes: limits.maxBytes, maxUncompressedBytes: limits.maxBytes, maxEntries: Math.max(1024, 2 * limits.maxFiles) },
    skillLimits: limits,
  });
  const report: SkillReport = {
    path,
    valid: inspected.problems.length === 0,
    servable: inspected.skill !== undefined,
    // Inside an archive, a problem's path is the file it is about (SKILL.md problems are printed bare).
    problems: inspected.problems.map((problem) =>
      problem.path && problem.path !== 'SKILL.md'
        ? { severity: problem.severity, message: problem.message, file: problem.path }
        : { severity: problem.severity, message: problem.message },
    ),
  };
  if (inspected.skill) report.name = inspected.skill.name;
  return report;
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
