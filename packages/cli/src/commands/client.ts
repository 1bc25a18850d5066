import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { CatalogSkill, McpSkillSource, SkillDescriptor, SkillSet } from '@skillport/client';
import type { ExitCode } from '../kit.js';
import { action } from '../kit.js';
import { paint } from '../output.js';

/**
 * `ls`, `show`, `cat`, `install`: the client library on the command line. SERVER is an http(s):// URL or
 * `stdio:COMMAND ARGS`. Every byte printed or written was verified against the server's listing; a failed
 * verification stops that skill with the reason on stderr and a non-zero exit.
 */
interface ClientOptions {
  json?: boolean;
  cacheDir?: string;
  offline?: boolean;
  origin?: string;
}

/** The client library, loaded by these commands only (serve and validate never pay for the MCP client). */
let lib: typeof import('@skillport/client');
const fail = (code: 'invalid' | 'not-found' | 'digest' | 'unavailable', message: string) => new lib.SkillError(code, message);

const SERVER_HELP = 'an http(s):// URL (Streamable HTTP) or stdio:COMMAND ARGS (quoted as one argument)';

function withClientOptions(command: Command): Command {
  return command
    .option('--cache-dir <dir>', 'keep verified files and listings here (reused while fresh, and offline)')
    .option('--offline', 'answer from --cache-dir only; never connect');
}

export function registerClientCommands(program: Command, exit: ExitCode): void {
  withClientOptions(
    program
      .command('ls')
      .description("List a server's skills (reads no skill file).")
      .argument('<server>', SERVER_HELP)
      .option('--json', 'print JSON for scripts'),
  )
    .addHelpText('after', '\nExample:\n  skillport ls http://127.0.0.1:3333/mcp\n  skillport ls "stdio:npx skillport serve ./skills" --json')
    .action(run(exit, async (server: string, options: ClientOptions) => {
      const { set, source } = open(server, options);
      try {
        const skills = await set.skills();
        if (options.json) {
          print(JSON.stringify({ server: source.id, mode: source.mode, skills: skills.map(summary) }, null, 2));
        } else if (skills.length === 0) {
          process.stderr.write(`skillport: ${source.id} serves no skills\n`);
        } else {
          const width = Math.min(40, Math.max(...skills.map((skill) => skill.id.length)));
          for (const skill of skills) print(`${skill.id.padEnd(width)}  ${truncate(skill.description, 100)}`);
        }
        return 0;
      } finally {
        await set.close();
      }
    }));

  withClientOptions(
    program
      .command('show')
      .description("Show one skill's entry: frontmatter, files, digests (reads no skill file).")
      .argument('<server>', SERVER_HELP)
      .argument('<name>', 'the skill name')
      .option('--json', 'print JSON for scripts'),
  ).action(run(exit, async (server: string, name: string, options: ClientOptions) => {
    const { set } = open(server, options);
    try {
      const skill = await findSkill(set, name);
      if (options.json) {
        print(JSON.stringify({ ...summary(skill), frontmatter: skill.frontmatter, files: skill.files ?? null }, null, 2));
        return 0;
      }
      print(`name:         ${skill.name}`);
      print(`description:  ${skill.description}`);
      print(`origin:       ${skill.origin}`);
      print(`uri:          ${skill.uri}`);
      if (skill.packageDigest) print(`digest:       ${skill.packageDigest}`);
      print(`verification: ${skill.verification}`);
      for (const [key, value] of Object.entries(skill.frontmatter)) {
        if (key !== 'name' && key !== 'description') print(`${`${key}: `.padEnd(14)}${typeof value === 'string' ? value : JSON.stringify(value)}`);
      }
      if (skill.files) {
        print(`files (${skill.files.length}):`);
        for (const file of skill.files) print(`  ${file.path}  ${file.size ?? '?'} bytes  ${file.digest ?? ''}`);
      } else {
        print('files:        not listed by this server');
      }
      return 0;
    } finally {
      await set.close();
    }
  }));

  withClientOptions(
    program
      .command('cat')
      .description('Print one verified file of a skill (SKILL.md by default).')
      .argument('<server>', SERVER_HELP)
      .argument('<name>', 'the skill name')
      .argument('[path]', 'a file path inside the skill', 'SKILL.md'),
  ).action(run(exit, async (server: string, name: string, path: string, options: ClientOptions) => {
    const { set, source } = open(server, options);
    try {
      const skill = await findSkill(set, name);
      const file = path === 'SKILL.md' ? (await source.load(skill)).file : await source.readFile(skill, path);
      if (!file.verified) process.stderr.write(`skillport: warning: ${source.id} gives no digest for ${file.uri}; printed unverified\n`);
      process.stdout.write(file.bytes);
      return 0;
    } finally {
      await set.close();
    }
  }));

  withClientOptions(
    program
      .command('install')
      .description('Write verified skills into a local agent folder, with a lockfile of digests.')
      .argument('<server>', SERVER_HELP)
      .argument('[names...]', 'skills to install (default: every skill, or with --frozen every skill in the lockfile)')
      .requiredOption('--to <dir>', 'the agent skills folder, e.g. .claude/skills or .agents/skills')
      .option('--lockfile <file>', 'lockfile path (default: <dir>/skillport.lock.json)')
      .option('--frozen', 'install exactly what the lockfile pins; fail on any drift')
      .option('--json', 'print a JSON report for scripts'),
  )
    .addHelpText(
      'after',
      `
Each skill is written to <dir>/<name>/ (replacing an earlier install of it) only when every file passed
verification (size and sha256 against the server's listing, SKILL.md frontmatter against the entry).
The lockfile records the server, URI, package digest and every file digest. With --frozen, a skill whose
listing differs from the lockfile in any digest is refused. Exit 0 when every skill installed, 1 otherwise.`,
    )
    .action(run(exit, async (server: string, names: string[], options: ClientOptions & { to: string; lockfile?: string; frozen?: boolean }) => install(server, names, options)));
}

function open(server: string, options: ClientOptions): { set: SkillSet; source: McpSkillSource } {
  const cache = options.cacheDir ? new lib.SkillCache({ dir: options.cacheDir }) : undefined;
  const warnings = paint(process.stderr);
  const source = new lib.McpSkillSource(server, {
    ...(cache ? { cache } : {}),
    ...(options.offline ? { offline: true } : {}),
    ...(options.origin ? { origin: options.origin } : {}),
    connect: { stderr: 'ignore' },
    onWarning: (message) => process.stderr.write(`skillport: ${warnings.yellow('warning')}: ${message}\n`),
  });
  if (options.offline && !cache) throw fail('invalid', '--offline needs --cache-dir');
  // A single source: a failed listing is an error here, not a warning.
  const set = new lib.SkillSet([source], { failOnSourceError: true });
  return { set, source };
}

async function findSkill(set: SkillSet, name: string): Promise<CatalogSkill> {
  const skills = await listOrThrow(set);
  const found = skills.find((skill) => skill.id === name) ?? skills.find((skill) => skill.name === name);
  if (!found) {
    const close = skills.filter((skill) => skill.name.includes(name) || name.includes(skill.name)).map((skill) => skill.id);
    throw fail('not-found', `no skill '${name}' on ${set.origins[0]}${close.length ? `; did you mean ${close.slice(0, 5).join(', ')}?` : ''}`);
  }
  return found;
}

async function listOrThrow(set: SkillSet): Promise<CatalogSkill[]> {
  return set.skills();
}

function summary(skill: CatalogSkill) {
  return {
    name: skill.id,
    description: skill.description,
    uri: skill.uri,
    origin: skill.origin,
    ...(skill.packageDigest ? { digest: skill.packageDigest } : {}),
    files: skill.files?.length ?? null,
    verification: skill.verification,
  };
}

interface Lockfile {
  version: 1;
  skills: Record<string, LockedSkill>;
}

interface LockedSkill {
  source: string;
  uri: string;
  packageDigest?: string;
  files: Record<string, string>;
}

async function install(server: string, names: string[], options: ClientOptions & { to: string; lockfile?: string; frozen?: boolean }): Promise<number> {
  const target = resolve(options.to);
  const lockPath = resolve(options.lockfile ?? join(target, 'skillport.lock.json'));
  const colors = paint(process.stderr);
  let lock: Lockfile = { version: 1, skills: {} };
  if (existsSync(lockPath)) {
    try {
      lock = JSON.parse(readFileSync(lockPath, 'utf8')) as Lockfile;
      if (lock.version !== 1 || typeof lock.skills !== 'object' || lock.skills === null) throw new Error('not a version 1 lockfile');
    } catch (error) {
      throw fail('invalid', `${lockPath}: ${lib.describeError(error)}`);
    }
  } else if (options.frozen) {
    throw fail('invalid', `--frozen needs a lockfile and ${lockPath} does not exist; run install without --frozen first`);
  }
  const { set, source } = open(server, options);
  const results: Array<{ name: string; ok: boolean; message: string; files?: number }> = [];
  try {
    const skills = await listOrThrow(set);
    const wanted = names.length > 0 ? names : options.frozen ? Object.keys(lock.skills) : skills.map((skill) => skill.id);
    if (wanted.length === 0) throw fail('not-found', `${source.id} serves no skills`);
    mkdirSync(target, { recursive: true });
    for (const name of wanted) {
      try {
        const skill = skills.find((candidate) => candidate.id === name) ?? skills.find((candidate) => candidate.name === name);
        if (!skill) throw fail('not-found', `no skill '${name}' on ${source.id}`);
        const locked = lockEntry(source.id, skill);
        if (options.frozen) {
          const pinned = lock.skills[skill.name];
          if (!pinned) throw fail('invalid', `'${skill.name}' is not in the lockfile (--frozen)`);
          const drift = lockDrift(pinned, locked);
          if (drift) throw fail('digest', `'${skill.name}' drifted from the lockfile: ${drift} (--frozen)`);
        }
        const count = await installSkill(source, skill, target);
        lock.skills[skill.name] = locked;
        results.push({ name: skill.name, ok: true, message: `installed ${skill.name} (${count} files)`, files: count });
        if (!options.json) process.stderr.write(`skillport: ${colors.green('installed')} ${skill.name} (${count} file${count === 1 ? '' : 's'}) into ${join(options.to, skill.name)}\n`);
      } catch (error) {
        const message = lib.describeError(error);
        results.push({ name, ok: false, message });
        if (!options.json) process.stderr.write(`skillport: ${colors.red('error')}: ${name}: ${message}\n`);
      }
    }
  } finally {
    await set.close();
  }
  if (!options.frozen && results.some((result) => result.ok)) {
    mkdirSync(dirname(lockPath), { recursive: true });
    const sorted: Lockfile = { version: 1, skills: Object.fromEntries(Object.entries(lock.skills).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) };
    const temp = `${lockPath}.tmp-${process.pid}`;
    writeFileSync(temp, `${JSON.stringify(sorted, null, 2)}\n`);
    renameSync(temp, lockPath);
  }
  if (options.json) print(JSON.stringify({ to: target, lockfile: lockPath, results }, null, 2));
  return results.every((result) => result.ok) ? 0 : 1;
}

function lockEntry(server: string, skill: SkillDescriptor): LockedSkill {
  if (skill.verification !== 'digest' || !skill.files) {
    throw fail('invalid', `${skill.uri} comes without a digest for every file (this server predates the Skills extension); install needs a verifiable file list`);
  }
  return {
    source: server,
    uri: skill.uri,
    ...(skill.packageDigest ? { packageDigest: skill.packageDigest } : {}),
    files: Object.fromEntries(skill.files.map((file) => [file.path, file.digest!])),
  };
}

function lockDrift(pinned: LockedSkill, now: LockedSkill): string | undefined {
  if (pinned.uri !== now.uri) return `URI ${pinned.uri} is now ${now.uri}`;
  const paths = new Set([...Object.keys(pinned.files), ...Object.keys(now.files)]);
  for (const path of [...paths].sort()) {
    if (pinned.files[path] === undefined) return `${path} was added`;
    if (now.files[path] === undefined) return `${path} was removed`;
    if (pinned.files[path] !== now.files[path]) return `${path} changed (${pinned.files[path]!.slice(0, 19)}… locked, ${now.files[path]!.slice(0, 19)}… served)`;
  }
  return undefined;
}

/** Reads and verifies every file first, then swaps the skill folder in whole: nothing half-written is left. */
async function installSkill(source: McpSkillSource, skill: SkillDescriptor, target: string): Promise<number> {
  lib.checkRelativePath(skill.name);
  if (skill.name.includes('/')) throw fail('invalid', `'${skill.name}' is not a usable folder name`);
  await source.load(skill); // SKILL.md: bytes and frontmatter
  const files: Array<{ path: string; bytes: Uint8Array }> = [];
  for (const entry of skill.files!) {
    const path = lib.checkRelativePath(entry.path);
    const file = await source.readFile(skill, path);
    if (!file.verified) throw fail('invalid', `${file.uri} could not be verified`);
    files.push({ path, bytes: file.bytes });
  }
  const staging = join(target, `.skillport-staging-${process.pid}-${skill.name}`);
  const final = join(target, skill.name);
  const old = join(target, `.skillport-old-${process.pid}-${skill.name}`);
  rmSync(staging, { recursive: true, force: true });
  try {
    for (const file of files) {
      const destination = join(staging, ...file.path.split('/'));
      mkdirSync(dirname(destination), { recursive: true });
      writeFileSync(destination, file.bytes);
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

/** The kit's action wrapper, with the client library loaded first and its errors described in one line. */
function run<A extends unknown[]>(exit: ExitCode, work: (...args: A) => Promise<number>): (...args: A) => Promise<void> {
  return action(
    exit,
    async (...args: A) => {
      lib ??= await import('@skillport/client');
      return work(...args);
    },
    (error) => (lib ? lib.describeError(error) : String(error)),
  );
}

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

function truncate(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
