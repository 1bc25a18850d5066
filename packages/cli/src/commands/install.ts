import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Command } from 'commander';
import { Option } from 'commander';
import { escapeControls, sha256Digest } from '@skillport/core';
import type { SkillDescriptor, SkillSource } from '@skillport/client';
import type { ExitCode } from '../kit.js';
import { CliError, repeatable } from '../kit.js';
import { AGENTS, agentById, agentFolder, isInside, scannedFolders } from '../agents.js';
import type { Scope } from '../agents.js';
import { lockfilePath, readLock, targetDir, targetPath, writeLock } from '../lockfile.js';
import { GIT_SPEC, pinnedAt } from '../git-skills.js';
import type { LockTarget, LockedSkill, OpenedLock } from '../lockfile.js';
import { displayPath, paint, plural } from '../output.js';
import type { ClientOptions, Opened } from './client.js';
import {
  SEMVER,
  SERVER_HELP,
  VERSION_HELP,
  fail,
  findSkill,
  isServerSpec,
  lib,
  open,
  print,
  printJson,
  registryMeta,
  run,
  splitRef,
  withClientOptions,
} from './client.js';

/**
 * The package manager's verbs over the client library: `install`, `update`, `outdated`, `uninstall`, `agents`.
 * A skill is written whole into each target folder (an agent's skill folder or --to DIR) only when every file
 * was verified, and recorded in the lockfile (lockfile.ts) with what was asked for, so `update` stays within it.
 */
interface TargetOptions {
  to?: string;
  agent?: string[];
  scope: Scope;
  lockfile?: string;
}

interface InstallOptions extends ClientOptions, TargetOptions {
  frozen?: boolean;
  force?: boolean;
}

interface Result {
  name: string;
  ok: boolean;
  /** added, updated, unchanged (up to date), removed; absent on failure. */
  change?: 'added' | 'updated' | 'unchanged' | 'removed';
  from?: string;
  to?: string;
  targets?: string[];
  message: string;
}

const TARGET_HELP = {
  to: 'a skills folder to write into (e.g. ./skills); with --agent, beside the agents’ folders',
  agent: `an agent whose skill folder to write into; repeatable (${AGENTS.map((agent) => agent.id).join(', ')}; skillport agents lists the folders)`,
  scope: 'project: the folders under the working folder; user: the ones under your home folder',
  lockfile: 'the lockfile (default: ./skillport-lock.json; with --scope user, in the user config folder)',
};

const lockfileOption = () => new Option('--lockfile <file>', TARGET_HELP.lockfile);
const scopeOption = () =>
  new Option('--scope <scope>', 'which lockfile: project (./skillport-lock.json) or user').choices(['project', 'user']).default('project');

function withTargetOptions(command: Command): Command {
  return command
    .option('--to <dir>', TARGET_HELP.to)
    .option('-a, --agent <agent>', TARGET_HELP.agent, repeatable())
    .addOption(new Option('--scope <scope>', TARGET_HELP.scope).choices(['project', 'user']).default('project'))
    .option('--lockfile <file>', TARGET_HELP.lockfile);
}

export function registerInstallCommands(program: Command, exit: ExitCode): void {
  withTargetOptions(
    withClientOptions(
      program
        .command('install')
        .description("Write verified skills into agents' skill folders (or --to DIR), recorded in a lockfile of digests.")
        .argument('[server]', `${SERVER_HELP}; with --frozen, default: the servers the lockfile names`)
        .argument('[names...]', 'skills to install: NAME, NAME@VERSION, NAME@TAG or NAME@RANGE (^1.2); default: every skill (--frozen: every locked one)')
        .option('--frozen', 'install exactly what the lockfile pins, where it says, from the server it names; fail on any drift')
        .option('--version <version>', `${VERSION_HELP} (with one NAME)`)
        .option('-f, --force', 'write the skills again, even over files edited locally')
        .option('--json', 'print a JSON report for scripts'),
    ),
  )
    .addHelpText(
      'after',
      `
Each skill is written to <folder>/<name>/ only when every file passed verification (size and sha256 against the
server's listing, SKILL.md frontmatter against the entry). A skill whose files were edited locally since, or a
folder the lockfile does not know, is not replaced without --force. Each skill prints what changed:
  added pdf-tools 0.2.0 → .claude/skills/pdf-tools     pdf-tools 0.2.0 → 0.3.0     pdf-tools 0.3.0 up to date
The lockfile (./skillport-lock.json; the old <dir>/skillport.lock.json is still read) records the server, URI,
version, what was asked for, the package digest, every file digest and the folders. --frozen installs exactly that.
Exit 0 when every skill installed, 1 otherwise.

Examples:
  skillport install http://127.0.0.1:3333 pdf-tools --agent claude-code --agent codex
  skillport install http://127.0.0.1:3333 pdf-tools@^1.2 --agent cursor --scope user
  skillport install --frozen`,
    )
    .action(run(exit, async (server: string | undefined, names: string[], options: InstallOptions) => install(server, names, options)));

  withClientOptions(
    program
      .command('update')
      .description('Update installed skills to the newest version within what the lockfile asked for (a tag, a range), and say what changed.')
      .argument('[names...]', 'skills to update (default: every skill in the lockfile)')
      .addOption(lockfileOption())
      .addOption(scopeOption())
      .option('-f, --force', 'replace skills even where their files were edited locally')
      .option('--json', 'print a JSON report for scripts'),
  ).action(run(exit, async (names: string[], options: InstallOptions) => update(names, options)));

  withClientOptions(
    program
      .command('outdated')
      .description('List installed skills whose server has a newer version (or other bytes) than the lockfile pins.')
      .argument('[names...]', 'skills to check (default: every skill in the lockfile)')
      .addOption(lockfileOption())
      .addOption(scopeOption())
      .option('--json', 'print JSON for scripts'),
  )
    .addHelpText(
      'after',
      '\nColumns: installed, wanted (the newest within what was asked for), latest. Exit 0 when all are current, 1 when any is outdated (as npm outdated).',
    )
    .action(run(exit, async (names: string[], options: InstallOptions) => outdated(names, options)));

  program
    .command('uninstall')
    .description('Remove installed skills from every folder the lockfile names, and from the lockfile.')
    .argument('<names...>', 'skills to remove')
    .addOption(lockfileOption())
    .addOption(scopeOption())
    .option('-f, --force', 'remove skills even where their files were edited locally')
    .option('--json', 'print a JSON report for scripts')
    .action(run(exit, async (names: string[], options: InstallOptions) => uninstall(names, options)));

  program
    .command('agents')
    .description('List the agents install --agent knows, and the folders each reads skills from.')
    .option('--json', 'print JSON for scripts')
    .action(
      run(exit, async (options: { json?: boolean }) => {
        const rows = AGENTS.map((agent) => ({ ...agent, projectPath: agentFolder(agent, 'project'), userPath: agentFolder(agent, 'user') }));
        if (options.json) printJson({ agents: rows });
        else {
          const width = Math.max(...AGENTS.map((agent) => agent.id.length));
          const projectWidth = Math.max(...AGENTS.map((agent) => agent.project.length));
          print(`${'AGENT'.padEnd(width)}  ${'PROJECT'.padEnd(projectWidth)}  USER`);
          for (const agent of AGENTS) print(`${agent.id.padEnd(width)}  ${agent.project.padEnd(projectWidth)}  ~/${agent.user}`);
        }
        return 0;
      }),
    );
}

/** The folders to write into: --to and each --agent's folder in --scope; none given means none (the caller decides). */
function targetsFrom(options: TargetOptions, lockPath: string): LockTarget[] {
  const targets: LockTarget[] = [];
  if (options.to !== undefined) targets.push({ dir: targetDir(options.to, lockPath) });
  for (const id of options.agent ?? []) {
    let agent;
    try {
      agent = agentById(id);
    } catch (error) {
      throw fail('invalid', (error as Error).message);
    }
    const dir = targetDir(agentFolder(agent, options.scope), lockPath);
    if (!targets.some((target) => target.dir === dir)) targets.push({ dir, agent: agent.id });
    else targets.find((target) => target.dir === dir)!.agent ??= agent.id;
  }
  return targets;
}

/** SEP-2640's host rule: what the client caches is never where an agent would read it as a skill. */
function checkCacheDir(options: ClientOptions, folders: string[]): void {
  if (options.cacheDir === undefined) return;
  for (const folder of [...folders, ...scannedFolders()])
    if (isInside(options.cacheDir, folder) || isInside(folder, options.cacheDir))
      throw fail(
        'invalid',
        `--cache-dir ${options.cacheDir} is in (or holds) ${displayPath(folder)}, a folder agents read skills from: keep the cache elsewhere`,
      );
}

function openLock(options: InstallOptions): OpenedLock {
  return readLock(lockfilePath(options));
}

/** The version of a ref: exact, a tag, a range, or none (the served one). */
function isRange(semver: typeof import('semver'), text: string | undefined): text is string {
  return text !== undefined && !SEMVER.test(text) && semver.validRange(text) !== null && /[\^~<>=*xX| ]|\d\.x/.test(text);
}

/** A registry skill's published versions, from the API beside an HTTP server (docs/api.md). */
async function publishedVersions(opened: Opened, name: string): Promise<string[]> {
  const base = opened.id.replace(/\/mcp$/, '');
  const answer = await fetch(`${base}/api/v1/skills/${encodeURIComponent(name)}`, {
    headers: opened.options.token ? { authorization: `Bearer ${opened.options.token}` } : {},
    signal: AbortSignal.timeout(10_000),
  }).catch(() => undefined);
  if (!answer?.ok) throw fail('not-found', `${opened.id} does not list the versions of '${name}' (a range needs a skillport registry)`);
  const body = (await answer.json()) as { versions?: Array<{ version?: string; yankedAt?: string; revoked?: unknown }> };
  return (body.versions ?? []).filter((v) => typeof v.version === 'string' && !v.yankedAt && !v.revoked).map((v) => v.version!);
}

/** The skill a wanted version resolves to now: a range's newest match, else the exact version or tag, else what is served. */
async function resolveWanted(opened: Opened, name: string, wanted: string | undefined): Promise<SkillDescriptor> {
  // semver loaded here, not at the top: this module is imported by the CLI's command table, which serve's start shares.
  const { default: semver } = await import('semver');
  if (isRange(semver, wanted)) {
    const best = semver.maxSatisfying(await publishedVersions(opened, name), wanted);
    if (best === null) throw fail('not-found', `no published version of '${name}' satisfies ${wanted}`);
    return findSkill(opened, `${name}@${best}`);
  }
  return findSkill(opened, wanted === undefined ? name : `${name}@${wanted}`);
}

/** How a locked skill is named in messages: its version, else its digest's start. */
function label(entry: { version?: string; commit?: string; packageDigest?: string } | undefined): string {
  if (entry === undefined) return '';
  return entry.version ?? (entry.commit ? entry.commit.slice(0, 12) : entry.packageDigest ? entry.packageDigest.slice(0, 19) : '(no digest)');
}

async function install(server: string | undefined, names: string[], options: InstallOptions): Promise<number> {
  // With --frozen the server is optional: a first argument that is not a server or folder is a skill name.
  if (server !== undefined && options.frozen && !isServerSpec(server) && !GIT_SPEC.test(server) && !existsSync(server)) {
    names = [server, ...names];
    server = undefined;
  }
  if (server === undefined && !options.frozen)
    throw fail('invalid', 'give the server to install from (or --frozen to install what the lockfile pins, from the servers it names)');
  if (options.version !== undefined && names.length !== 1) throw fail('invalid', '--version needs exactly one skill name');
  const opened = openLock(options);
  const given = targetsFrom(options, opened.path);
  const results: Result[] = [];
  if (options.frozen) {
    if (Object.keys(opened.lock.skills).length === 0 && !existsSync(opened.path) && opened.legacy === undefined)
      throw fail('invalid', `--frozen needs a lockfile and ${displayPath(opened.path)} does not exist; run install without --frozen first`);
    const wanted = names.length > 0 ? names.map((name) => splitRef(name).name) : Object.keys(opened.lock.skills);
    if (wanted.length === 0) throw fail('not-found', `${displayPath(opened.path)} pins no skills`);
    const groups = new Map<string, string[]>();
    for (const name of wanted) {
      const pinned = opened.lock.skills[name];
      if (!pinned) {
        report(results, options, { name, ok: false, message: `'${name}' is not in the lockfile (--frozen)` });
        continue;
      }
      // A skill from a git repository is installed at the commit the lockfile pins, wherever the branch is now.
      const from = server ?? (pinned.commit !== undefined && GIT_SPEC.test(pinned.source) ? pinnedAt(pinned.source, pinned.commit) : pinned.source);
      groups.set(from, [...(groups.get(from) ?? []), name]);
    }
    for (const [from, group] of groups) {
      await eachSkill(from, options, group, results, async (source, name) => {
        const pinned = opened.lock.skills[name]!;
        const skills = await source.set.skills();
        let skill: SkillDescriptor | undefined = skills.find((candidate) => candidate.uri === pinned.uri);
        if (!skill && source.mcp && source.mode() === 'extension') skill = await source.mcp.getSkill(pinned.uri).catch(() => undefined);
        if (!skill) throw fail('not-found', `'${name}' is no longer served at ${pinned.uri} by ${source.id} (--frozen)`);
        const drift = lockDrift(pinned, lockEntry(source.id, skill, pinned.wanted));
        if (drift) throw fail('digest', `'${name}' drifted from the lockfile: ${drift} (--frozen)`);
        const targets = given.length > 0 ? given : (pinned.targets ?? []);
        if (targets.length === 0) throw fail('invalid', `the lockfile names no folder for '${name}': give --to DIR or --agent NAME`);
        checkCacheDir(
          options,
          targets.map((target) => targetPath(target.dir, opened.path)),
        );
        return writeTargets(source.source, skill, targets, pinned, pinned, opened.path, options.force === true);
      });
    }
    if (options.json) printJson({ lockfile: opened.path, results });
    return results.every((result) => result.ok) ? 0 : 1;
  }
  // Where to write: the folders given, else (for skills installed before) the ones the lockfile names.
  if (given.length === 0 && (names.length === 0 || names.some((ref) => !opened.lock.skills[splitRef(ref).name]?.targets?.length)))
    throw new CliError('give the folder to install into: --agent NAME (skillport agents lists them) or --to DIR', 2);
  await eachSkill(server!, options, names, results, async (source, ref) => {
    const { name, version } = splitRef(ref, options.version);
    const previous = opened.lock.skills[name];
    const targets = given.length > 0 ? given : (previous?.targets ?? []);
    checkCacheDir(
      options,
      targets.map((target) => targetPath(target.dir, opened.path)),
    );
    const skill = await resolveWanted(source, name, version);
    // What was asked for, so update stays within it: the given version, tag or range; else the served tag.
    const wanted = version ?? (registryMeta(skill) ? 'latest' : undefined);
    const entry = lockEntry(source.id, skill, wanted);
    const result = await writeTargets(source.source, skill, targets, entry, previous, opened.path, options.force === true);
    const known = new Map((previous?.targets ?? []).map((target) => [target.dir, target]));
    for (const target of targets) known.set(target.dir, target);
    opened.lock.skills[skill.name] = { ...entry, targets: [...known.values()] };
    return result;
  });
  if (results.some((result) => result.ok)) writeLock(opened);
  if (options.json) printJson({ lockfile: opened.path, results });
  return results.every((result) => result.ok) ? 0 : 1;
}

/** One result of writing a skill into its folders. */
type Written = Omit<Result, 'name' | 'ok'>;

/** Opens one server and runs `each` for `names` (every listed skill when none), reporting each; closes it. */
async function eachSkill(
  server: string,
  options: ClientOptions & { json?: boolean },
  names: string[],
  results: Result[],
  each: (source: Opened, name: string) => Promise<Written>,
): Promise<void> {
  const source = await open(server, options);
  try {
    const wanted = names.length > 0 ? names : (await source.set.skills()).map((skill) => skill.id);
    if (wanted.length === 0) throw fail('not-found', `${source.id} serves no skills`);
    for (const name of wanted) {
      try {
        report(results, options, { name: splitRef(name).name, ok: true, ...(await each(source, name)) });
      } catch (error) {
        report(results, options, { name, ok: false, message: lib.describeError(error) });
      }
    }
  } finally {
    await source.set.close();
  }
}

function report(results: Result[], options: { json?: boolean }, result: Result): void {
  results.push(result);
  if (options.json) return;
  if (result.ok) print(result.message);
  else process.stderr.write(`skillport: ${paint(process.stderr).red('error')}: ${escapeControls(named(result))}\n`);
}

/** A failure's line, prefixed with the skill unless the message already starts with it (`pdf-tools@0.1.0 was revoked…`). */
function named(result: Result): string {
  const name = splitRef(result.name).name;
  return result.message.startsWith(result.name) || result.message.startsWith(`${name}@`) ? result.message : `${result.name}: ${result.message}`;
}

/**
 * Writes the skill into every target folder that does not already hold exactly it, and says what changed:
 * `added NAME V → folders`, `NAME A → B`, or `NAME V up to date`.
 */
async function writeTargets(
  source: SkillSource,
  skill: SkillDescriptor,
  targets: LockTarget[],
  entry: LockedSkill,
  previous: LockedSkill | undefined,
  lockPath: string,
  force: boolean,
): Promise<Written> {
  const folders = targets.map((target) => join(targetPath(target.dir, lockPath), skill.name));
  // --force writes again what is already there (and over local edits); otherwise an exact copy is left alone.
  const current = folders.map(
    (folder) => !force && existsSync(folder) && previous !== undefined && previous.packageDigest === entry.packageDigest && sameFiles(folder, entry),
  );
  const shown = folders.map((folder) => displayPath(folder));
  if (current.every(Boolean)) return { change: 'unchanged', to: label(entry), targets: shown, message: `${skill.name} ${label(entry)} up to date` };
  let files = 0;
  for (const [index, folder] of folders.entries()) {
    if (current[index]) continue;
    files = await installSkill(source, skill, folder, previous, force);
  }
  const written = shown.filter((_, index) => !current[index]);
  if (previous === undefined || previous.packageDigest === entry.packageDigest)
    return {
      change: 'added',
      to: label(entry),
      targets: shown,
      message: `added ${skill.name} ${label(entry)} (${plural(files, 'file')}) → ${written.join(', ')}`,
    };
  return {
    change: 'updated',
    from: label(previous),
    to: label(entry),
    targets: shown,
    message: `${skill.name} ${label(previous)} → ${label(entry)} (${written.join(', ')})`,
  };
}

/** The folder holds exactly the locked files (nothing edited, added or missing). */
function sameFiles(folder: string, entry: LockedSkill): boolean {
  const paths = walkFiles(folder);
  if (paths.length !== Object.keys(entry.files).length) return false;
  return paths.every((path) => entry.files[path] !== undefined && sha256Digest(readFileSync(join(folder, ...path.split('/')))) === entry.files[path]);
}

async function update(names: string[], options: InstallOptions): Promise<number> {
  const opened = openLock(options);
  const wanted = names.length > 0 ? names : Object.keys(opened.lock.skills);
  if (wanted.length === 0) throw fail('not-found', `${displayPath(opened.path)} lists no skills: install some first`);
  const results: Result[] = [];
  for (const [server, group] of bySource(opened, wanted, results, options)) {
    await eachSkill(server, options, group, results, async (source, name) => {
      const pinned = opened.lock.skills[name]!;
      const skill = await resolveWanted(source, name, pinned.wanted);
      const entry = lockEntry(source.id, skill, pinned.wanted);
      const targets = pinned.targets ?? [];
      if (targets.length === 0) throw fail('invalid', `the lockfile names no folder for '${name}'; install it again with --agent or --to`);
      const result = await writeTargets(source.source, skill, targets, entry, pinned, opened.path, options.force === true);
      opened.lock.skills[name] = { ...entry, targets };
      return result;
    });
  }
  if (results.some((result) => result.ok && result.change !== 'unchanged')) writeLock(opened);
  if (options.json) printJson({ lockfile: opened.path, results });
  return results.every((result) => result.ok) ? 0 : 1;
}

/** The locked skills grouped by the server each came from; names not in the lockfile are reported. */
function bySource(opened: OpenedLock, names: string[], results: Result[], options: { json?: boolean }): Map<string, string[]> {
  const groups = new Map<string, string[]>();
  for (const name of names) {
    const pinned = opened.lock.skills[name];
    if (!pinned) {
      report(results, options, { name, ok: false, message: `'${name}' is not installed (not in ${displayPath(opened.path)})` });
      continue;
    }
    groups.set(pinned.source, [...(groups.get(pinned.source) ?? []), name]);
  }
  return groups;
}

async function outdated(names: string[], options: InstallOptions): Promise<number> {
  const opened = openLock(options);
  const wanted = names.length > 0 ? names : Object.keys(opened.lock.skills);
  const rows: Array<{ name: string; current: string; wanted: string; latest: string; outdated: boolean; source: string }> = [];
  const failures: Result[] = [];
  for (const [server, group] of bySource(opened, wanted, failures, options)) {
    await eachSkill(server, { ...options, json: true }, group, failures, async (source, name) => {
      const pinned = opened.lock.skills[name]!;
      const within = lockEntry(source.id, await resolveWanted(source, name, pinned.wanted), pinned.wanted);
      const newest = lockEntry(source.id, await resolveWanted(source, name, undefined), pinned.wanted);
      const stale = within.packageDigest !== pinned.packageDigest || newest.packageDigest !== pinned.packageDigest;
      rows.push({ name, current: label(pinned), wanted: label(within), latest: label(newest), outdated: stale, source: source.id });
      return { message: '' };
    });
  }
  for (const failure of failures.filter((result) => !result.ok))
    process.stderr.write(`skillport: ${paint(process.stderr).red('error')}: ${escapeControls(named(failure))}\n`);
  const stale = rows.filter((row) => row.outdated);
  if (options.json) printJson({ lockfile: opened.path, skills: rows });
  else if (stale.length === 0) process.stderr.write(`skillport: ${plural(rows.length, 'skill')} up to date\n`);
  else {
    const head = { name: 'SKILL', current: 'INSTALLED', wanted: 'WANTED', latest: 'LATEST' };
    const width = (key: keyof typeof head) => Math.max(head[key].length, ...stale.map((row) => row[key].length));
    for (const row of [head, ...stale])
      print(`${row.name.padEnd(width('name'))}  ${row.current.padEnd(width('current'))}  ${row.wanted.padEnd(width('wanted'))}  ${row.latest}`);
  }
  if (failures.some((result) => !result.ok)) return 1;
  return stale.length > 0 ? 1 : 0;
}

async function uninstall(names: string[], options: InstallOptions): Promise<number> {
  const opened = openLock(options);
  const results: Result[] = [];
  for (const name of names) {
    const pinned = opened.lock.skills[name];
    if (!pinned) {
      report(results, options, { name, ok: false, message: `'${name}' is not installed (not in ${displayPath(opened.path)})` });
      continue;
    }
    const folders = (pinned.targets ?? []).map((target) => join(targetPath(target.dir, opened.path), name));
    const edited = options.force ? [] : folders.flatMap((folder) => localEdits(folder, pinned).map((edit) => `${displayPath(folder)}/${edit}`));
    if (edited.length > 0) {
      report(results, options, { name, ok: false, message: `local changes would be lost: ${edited.slice(0, 10).join(', ')}; use --force to remove them` });
      continue;
    }
    for (const folder of folders) rmSync(folder, { recursive: true, force: true });
    delete opened.lock.skills[name];
    report(results, options, {
      name,
      ok: true,
      change: 'removed',
      targets: folders.map(displayPath),
      message: `removed ${name} (${folders.map(displayPath).join(', ') || 'no folder'})`,
    });
  }
  if (results.some((result) => result.ok)) writeLock(opened);
  if (options.json) printJson({ lockfile: opened.path, results });
  return results.every((result) => result.ok) ? 0 : 1;
}

function lockEntry(server: string, skill: SkillDescriptor, wanted: string | undefined): LockedSkill {
  if (skill.verification !== 'digest' || !skill.files) {
    throw fail(
      'invalid',
      `${skill.uri} comes without a digest for every file (this server predates the Skills extension); install needs a verifiable file list`,
    );
  }
  const meta = registryMeta(skill);
  const version = meta?.version;
  // A git source's skill carries the commit it was read at: the lockfile pins it beside the digests.
  const provenance = skill.meta?.['dev.skillport/provenance'] as { commit?: unknown } | undefined;
  const commit = GIT_SPEC.test(server) && typeof provenance?.commit === 'string' ? provenance.commit : undefined;
  return {
    source: server,
    // A registry skill is locked at its exact version's URI: --frozen installs that version after newer ones.
    uri: meta?.versionUri ?? skill.uri,
    ...(version ? { version } : {}),
    ...(wanted ? { wanted } : {}),
    ...(skill.packageDigest ? { packageDigest: skill.packageDigest } : {}),
    ...(commit ? { commit } : {}),
    files: Object.fromEntries(skill.files.map((file) => [file.path, file.digest!])),
  };
}

function lockDrift(pinned: LockedSkill, now: LockedSkill): string | undefined {
  if (pinned.uri !== now.uri) return `URI ${pinned.uri} is now ${now.uri}`;
  const paths = new Set([...Object.keys(pinned.files), ...Object.keys(now.files)]);
  for (const path of [...paths].sort()) {
    if (pinned.files[path] === undefined) return `${path} was added`;
    if (now.files[path] === undefined) return `${path} was removed`;
    if (pinned.files[path] !== now.files[path])
      return `${path} changed (${pinned.files[path]!.slice(0, 19)}… locked, ${now.files[path]!.slice(0, 19)}… served)`;
  }
  return undefined;
}

/** Every file under `dir`, as `/`-separated paths (symbolic links listed, not followed). */
function walkFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...walkFiles(join(dir, entry.name), path));
    else out.push(path);
  }
  return out.sort();
}

/**
 * What the user changed in an installed skill folder since it was installed (`pinned`): files edited or added.
 * A folder the lockfile does not know counts as wholly local. Files deleted locally are not a loss: not listed.
 */
function localEdits(folder: string, pinned: LockedSkill | undefined): string[] {
  if (!existsSync(folder)) return [];
  if (!pinned) return walkFiles(folder).map((path) => `${path} (not installed by skillport)`);
  const edits: string[] = [];
  for (const path of walkFiles(folder)) {
    const locked = pinned.files[path];
    if (locked === undefined) edits.push(`${path} (added)`);
    else if (sha256Digest(readFileSync(join(folder, ...path.split('/')))) !== locked) edits.push(`${path} (modified)`);
  }
  return edits;
}

/** Reads and verifies every file first, then swaps the skill folder in whole: nothing half-written is left. */
async function installSkill(source: SkillSource, skill: SkillDescriptor, final: string, pinned: LockedSkill | undefined, force: boolean): Promise<number> {
  lib.checkRelativePath(skill.name);
  if (skill.name.includes('/')) throw fail('invalid', `'${skill.name}' is not a usable folder name`);
  const target = dirname(final);
  mkdirSync(target, { recursive: true });
  if (!force) {
    const edits = localEdits(final, pinned);
    if (edits.length > 0) {
      const shown = edits.slice(0, 10).join(', ') + (edits.length > 10 ? `, and ${edits.length - 10} more` : '');
      throw fail('invalid', `${displayPath(final)} has local changes that installing would overwrite: ${shown}; use --force to replace them`);
    }
  }
  await source.load(skill); // SKILL.md: bytes and frontmatter
  const files: Array<{ path: string; bytes: Uint8Array }> = [];
  for (const entry of skill.files!) {
    const path = diskPath(entry.path);
    const file = await source.readFile(skill, path);
    if (!file.verified) throw fail('invalid', `${file.uri} could not be verified`);
    files.push({ path, bytes: file.bytes });
  }
  const staging = join(target, `.skillport-staging-${process.pid}-${skill.name}`);
  const old = join(target, `.skillport-old-${process.pid}-${skill.name}`);
  rmSync(staging, { recursive: true, force: true });
  try {
    for (const file of files) {
      const destination = join(staging, ...file.path.split('/'));
      mkdirSync(dirname(destination), { recursive: true });
      writeFileSync(destination, file.bytes);
      // MCP carries no file modes: a script (#!) is made runnable, and a file the user made executable stays so.
      if (isScript(file.bytes) || wasExecutable(join(final, ...file.path.split('/')))) chmodSync(destination, 0o755);
    }
    if (existsSync(final)) renameSync(final, old);
    renameSync(staging, final);
    rmSync(old, { recursive: true, force: true });
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!existsSync(final) && existsSync(old)) renameSync(old, final);
    throw error;
  }
  return files.length;
}

const isScript = (bytes: Uint8Array) => bytes[0] === 0x23 && bytes[1] === 0x21;

function wasExecutable(path: string): boolean {
  try {
    return (statSync(path).mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/**
 * A listed path as a place under the install folder: plain segments only (no empty, `.` or `..` segment, backslash
 * or NUL; not absolute), whatever the server listed. A colon or a `%` is an ordinary file name character on disk
 * (`notes:v2.md`), and the file is read by its listed URI.
 */
function diskPath(path: string): string {
  const segments = path.split('/');
  if (path.startsWith('/') || /[\\\0]/.test(path) || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
    throw fail('invalid', `'${escapeControls(path)}' is not a safe path inside a skill folder: not installed`);
  }
  return path;
}
