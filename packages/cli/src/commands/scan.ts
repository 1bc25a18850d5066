import { environment } from '../environment.js';
import { statSync } from 'node:fs';
import { basename, dirname, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { discoverSkills, escapeControls, parseSkillMarkdown, readSkillArchive } from '@skillport/core';
import type { Finding, ScanReport, Severity, SimilarPair, SkillFile } from '@skillport/scan';
import { CliError, action } from '../kit.js';
import type { ExitCode } from '../kit.js';
import { displayPath, displayUrl, paint, plural } from '../output.js';

/**
 * `skillport scan PATH|ARCHIVE|URL…`: the scanner's findings (packages/scan) for every skill found, as text, JSON
 * or SARIF 2.1.0; `--duplicates` lists near-duplicate pairs instead. A folder is searched for skills at any depth, an
 * archive (.skill, .zip, .tar.gz) is read safely, an http(s) URL is an archive to download unless it names an MCP
 * server (`…/mcp`, or `stdio:COMMAND`), whose catalog is read through the client library (every file verified).
 */
interface ScanOptions {
  json?: boolean;
  sarif?: boolean;
  duplicates?: boolean;
  failOn: string;
  minSeverity: Severity;
  token?: string;
}

export interface ScannedSkill {
  /** Where it is, as shown (a path, an archive, a URI). */
  place: string;
  name?: string;
  description?: string;
  report: ScanReport;
  /** Where its files are relative to the working folder, for SARIF (a folder); '' when not on disk. */
  base: string;
}

const SEVERITY_CHOICES = ['low', 'medium', 'high'];
const MAX_DOWNLOAD = 64 * 1024 * 1024;

export function registerScan(program: Command, exit: ExitCode, version: string): void {
  program
    .command('scan')
    .description(
      'Scan skills for hidden text, instructions aimed at the agent, exfiltration, dangerous scripts, obfuscation, secrets, broad tools and binaries.',
    )
    .argument(
      '<sources...>',
      'skill folders (searched at any depth), SKILL.md files, archives (.skill, .zip, .tar.gz), http(s) URLs of archives, or MCP servers (http(s)://…/mcp, stdio:COMMAND)',
    )
    .option('--json', 'print one JSON report on stdout')
    .option('--sarif', 'print SARIF 2.1.0 on stdout (for code-scanning UIs)')
    .option('--duplicates', 'list pairs of near-duplicate skills (name or description) with their similarity instead of findings')
    .option('--fail-on <severity>', 'exit 1 when a finding is at least this severe: low, medium, high or none', 'high')
    .option('--min-severity <severity>', 'show findings at least this severe: low, medium or high', 'low')
    .option('--token <token>', 'bearer token for an http(s) MCP server (else SKILLPORT_TOKEN)')
    .addHelpText(
      'after',
      `
Each finding names its rule, severity, file and line, the excerpt (control and invisible characters shown as
escapes, secrets masked) and why it matters. The rules are data: packages/scan/rules/rules.yaml (docs/security.md).
Exit 0 when nothing reaches --fail-on, 1 when something does, 2 on a usage error.`,
    )
    .action(
      action(exit, async (sources: string[], options: ScanOptions) => {
        if (![...SEVERITY_CHOICES, 'none'].includes(options.failOn))
          throw new CliError(`--fail-on must be one of low, medium, high, none (got ${options.failOn})`, 2);
        if (!SEVERITY_CHOICES.includes(options.minSeverity))
          throw new CliError(`--min-severity must be one of low, medium, high (got ${options.minSeverity})`, 2);
        if (options.json && options.sarif) throw new CliError('give --json or --sarif, not both', 2);
        return scan(sources, options, version);
      }),
    );
}

async function scan(sources: string[], options: ScanOptions, version: string): Promise<number> {
  const lib = await import('@skillport/scan');
  const rules = lib.defaultRules();
  const skills: ScannedSkill[] = [];
  const problems: string[] = [];
  const progress = process.stderr.isTTY === true && !options.json && !options.sarif;
  for (const source of sources) {
    const found = await readSource(source, problems, options.token);
    for (const [index, skill] of found.entries()) {
      if (progress && found.length > 20 && index % 25 === 0) process.stderr.write(`\rscanning ${source}: ${index}/${found.length} skills…`);
      const frontmatter = frontmatterOf(skill.files);
      skills.push({
        place: skill.place,
        ...(typeof frontmatter['name'] === 'string' ? { name: frontmatter['name'] } : {}),
        ...(typeof frontmatter['description'] === 'string' ? { description: frontmatter['description'] } : {}),
        report: lib.scanSkill(skill.files, { rules }),
        base: skill.base,
      });
    }
    if (progress && found.length > 20) process.stderr.write('\r\u001b[K');
  }
  for (const problem of problems) process.stderr.write(`skillport: ${paint(process.stderr).yellow('warning')}: ${escapeControls(problem)}\n`);
  if (skills.length === 0) throw new CliError(`no skill found in ${sources.map((source) => escapeControls(source)).join(', ')}`);

  if (options.duplicates) {
    const index = new lib.SimilarityIndex(
      skills.map((skill) => ({ id: skill.place, name: skill.name ?? basename(skill.place), description: skill.description ?? '' })),
    );
    const pairs = index.pairs();
    if (options.json) process.stdout.write(`${JSON.stringify({ skills: skills.length, pairs }, null, 2)}\n`);
    else printPairs(pairs, skills.length);
    return 0;
  }

  const floor = lib.SEVERITIES.indexOf(options.minSeverity);
  const shown = (findings: readonly Finding[]) => findings.filter((finding) => lib.SEVERITIES.indexOf(finding.severity) >= floor);
  if (options.sarif) {
    const sarif = lib.toSarif(
      skills.map((skill) => ({ base: skill.base, findings: shown(skill.report.findings) })),
      rules,
      { name: 'skillport scan', version, root: pathToFileURL(process.cwd()).href },
    );
    process.stdout.write(`${JSON.stringify(sarif, null, 2)}\n`);
  } else if (options.json) {
    const out = skills.map((skill) => ({
      skill: skill.place,
      ...(skill.name !== undefined ? { name: skill.name } : {}),
      counts: skill.report.counts,
      ...(skill.report.highest ? { highest: skill.report.highest } : {}),
      findings: shown(skill.report.findings),
      ...(skill.report.skipped.length > 0 ? { skipped: skill.report.skipped } : {}),
    }));
    process.stdout.write(`${JSON.stringify({ skills: out }, null, 2)}\n`);
  } else {
    printText(skills, shown);
  }
  if (options.failOn === 'none') return 0;
  const fail = lib.SEVERITIES.indexOf(options.failOn as Severity);
  return skills.some((skill) => skill.report.findings.some((finding) => lib.SEVERITIES.indexOf(finding.severity) >= fail)) ? 1 : 0;
}

function printText(skills: readonly ScannedSkill[], shown: (findings: readonly Finding[]) => Finding[]): void {
  const colors = paint(process.stdout);
  const label = (severity: Severity) => (severity === 'high' ? colors.red('high  ') : severity === 'medium' ? colors.yellow('medium') : colors.dim('low   '));
  const lines: string[] = [];
  const totals = { low: 0, medium: 0, high: 0 };
  let withHigh = 0;
  for (const skill of skills) {
    const findings = shown(skill.report.findings);
    if (skill.report.counts.high > 0) withHigh++;
    for (const severity of ['low', 'medium', 'high'] as const) totals[severity] += skill.report.counts[severity];
    if (findings.length === 0 && skill.report.skipped.length === 0) continue;
    const counts = (['high', 'medium', 'low'] as const).filter((s) => skill.report.counts[s] > 0).map((s) => `${skill.report.counts[s]} ${s}`);
    lines.push(`${colors.bold(escapeControls(skill.place))}${skill.name ? ` (${escapeControls(skill.name)})` : ''}: ${counts.join(', ') || 'no findings'}`);
    for (const finding of findings) {
      const where = `${escapeControls(finding.file || '(skill)')}${finding.line > 0 ? `:${finding.line}:${finding.column}` : ''}`;
      lines.push(`  ${label(finding.severity)} ${finding.rule}  ${where}`);
      lines.push(`         ${finding.title}`);
      if (finding.excerpt) lines.push(`         ${colors.dim('>')} ${finding.excerpt}`);
      lines.push(`         ${colors.dim(`why: ${finding.why}`)}`);
      if (finding.note) lines.push(`         ${colors.dim(`note: ${escapeControls(finding.note)}`)}`);
    }
    for (const skipped of skill.report.skipped) lines.push(`  ${colors.dim('skipped')} ${escapeControls(skipped.file)}: ${skipped.reason}`);
  }
  lines.push(
    `scanned ${plural(skills.length, 'skill')}: ${plural(totals.high, 'high finding')} (${withHigh} ${withHigh === 1 ? 'skill' : 'skills'}), ${totals.medium} medium, ${totals.low} low`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

function printPairs(pairs: readonly SimilarPair[], count: number): void {
  const lines = pairs.map(
    (pair) =>
      `${pair.similarity.toFixed(2)}  ${escapeControls(pair.a)}  ${escapeControls(pair.b)}  (name ${pair.name.toFixed(2)}, description ${pair.description.toFixed(2)})`,
  );
  lines.push(`${plural(pairs.length, 'near-duplicate pair')} among ${plural(count, 'skill')}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

function frontmatterOf(files: readonly SkillFile[]): Record<string, unknown> {
  const skillMd = files.find((file) => file.path === 'SKILL.md');
  if (skillMd === undefined) return {};
  try {
    return parseSkillMarkdown(Buffer.from(skillMd.bytes).toString('utf8')).frontmatter;
  } catch {
    return {};
  }
}

interface SourceSkill {
  place: string;
  files: SkillFile[];
  base: string;
}

async function readSource(source: string, problems: string[], token: string | undefined): Promise<SourceSkill[]> {
  if (/^stdio:/i.test(source) || (/^https?:\/\//i.test(source) && /\/mcp\/?$/.test(new URL(source).pathname))) return readServer(source, problems, token);
  if (/^https?:\/\//i.test(source)) return [await readUrl(source)];
  let info;
  try {
    info = statSync(source);
  } catch {
    throw new CliError(`${source}: no such file or folder`);
  }
  const lib = await import('@skillport/scan');
  if (info.isFile() && basename(source).toLowerCase() === 'skill.md') source = dirname(source);
  else if (info.isFile()) return [await readArchive(source, source)];
  const found = discoverSkills(source);
  for (const problem of found.problems) problems.push(`${displayPath(problem.path)}: ${problem.message}`);
  return found.skills.map((skill) => {
    const { files, notes } = lib.readSkillFolderFiles(skill.dir);
    for (const note of notes) problems.push(`${displayPath(skill.dir)}: ${note}`);
    const place = displayPath(resolve(skill.dir));
    return { place, files, base: relative(process.cwd(), resolve(skill.dir)).split('\\').join('/') };
  });
}

async function readArchive(place: string, source: string | Uint8Array): Promise<SourceSkill> {
  const contents = await readSkillArchive(source);
  const error = contents.problems.find((problem) => problem.severity === 'error');
  if (error !== undefined) throw new CliError(`${typeof source === 'string' ? displayPath(place) : place}: ${error.message}`);
  return { place: typeof source === 'string' ? displayPath(place) : place, files: contents.files, base: '' };
}

async function readUrl(url: string): Promise<SourceSkill> {
  const shown = displayUrl(url);
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(60_000), redirect: 'follow' });
  } catch (error) {
    throw new CliError(`${shown}: ${(error as Error).message}`);
  }
  if (!response.ok) throw new CliError(`${shown}: HTTP ${response.status}`);
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > MAX_DOWNLOAD) throw new CliError(`${shown}: larger than ${MAX_DOWNLOAD} bytes`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    if (size > MAX_DOWNLOAD) throw new CliError(`${shown}: larger than ${MAX_DOWNLOAD} bytes`);
    chunks.push(chunk);
  }
  return readArchive(shown, Buffer.concat(chunks));
}

/** Every skill a server lists, each file read and verified through the client library. */
async function readServer(spec: string, problems: string[], given: string | undefined): Promise<SourceSkill[]> {
  const client = await import('@skillport/client');
  const token = given ?? environment().token;
  const parsed = client.parseServerSpec(spec);
  const source = new client.McpSkillSource(parsed, {
    connect: token && parsed.kind === 'http' ? { headers: { authorization: `Bearer ${token}` } } : {},
    onWarning: (message) => problems.push(message),
  });
  try {
    const out: SourceSkill[] = [];
    for (const skill of await source.list()) {
      try {
        const loaded = await source.load(skill);
        const files: SkillFile[] = [{ path: 'SKILL.md', bytes: loaded.file.bytes }];
        for (const entry of skill.files ?? []) {
          if (entry.path === 'SKILL.md') continue;
          const file = await source.readFile(skill, entry.path);
          files.push({ path: entry.path, bytes: file.bytes });
        }
        out.push({ place: skill.uri, files, base: '' });
      } catch (error) {
        problems.push(`${skill.uri}: not scanned: ${(error as Error).message}`);
      }
    }
    return out;
  } catch (error) {
    throw new CliError(`${displayUrl(spec)}: ${(error as Error).message}`);
  } finally {
    await source.close();
  }
}
