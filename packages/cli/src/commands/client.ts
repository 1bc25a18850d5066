import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { availabilitySummary, escapeControls, judgeAvailability, readRequirements, requirementsFromWire, requirementsSummary } from '@skillport/core';
import type { Availability, AvailableCapabilities } from '@skillport/core';
import type { CatalogSkill, SkillDescriptor, SkillSet, SkillSource } from '@skillport/client';
import type { McpSkillSource } from '@skillport/client';
import type { ExitCode } from '../kit.js';
import { action, arg } from '../kit.js';
import { displayPath, paint, plural } from '../output.js';
import { environment } from '../environment.js';
import { mcpEndpoint, withoutHtml } from '../server-url.js';
import { tokenFor } from '../user-config.js';
import { GIT_SPEC, gitSpecLabel, openGitSkills } from '../git-skills.js';

/**
 * `ls`, `show`, `cat`, `install`: the client library on the command line. SERVER is an http(s):// URL,
 * `stdio:COMMAND ARGS` or a local folder of skills. Every byte printed or written was verified against the
 * server's listing; a failed verification stops that skill with the reason on stderr and a non-zero exit.
 */
export interface ClientOptions {
  json?: boolean;
  cacheDir?: string;
  offline?: boolean;
  origin?: string;
  token?: string;
  version?: string;
  available?: AvailableCapabilities;
}

/** The client library, loaded by these commands only (serve and validate never pay for the MCP client). */
export let lib: typeof import('@skillport/client');
export const fail = (code: 'invalid' | 'not-found' | 'digest' | 'unavailable', message: string) => new lib.SkillError(code, message);

export const SERVER_HELP =
  "a server's URL (a skillport server's base URL or its /mcp endpoint), stdio:COMMAND ARGS (quoted as one argument), or a local folder of skills";
const TOKEN_HELP = 'bearer token for a server run with --auth tokens|jwt (default: $SKILLPORT_TOKEN, else the one skillport login stored; never printed)';
export const VERSION_HELP = 'a version (or the served tag) of a registry skill; also NAME@VERSION';

/** The last of a stdio server's stderr, shown when the command fails (why it exited is usually there). */
let stderrTail = '';
/** The server spec of the command, for error messages. */
let serverKind: 'http' | 'stdio' | 'folder' | 'git' | undefined;
let serverUrl: string | undefined;

export function withClientOptions(command: Command): Command {
  return command
    .option('--token <token>', TOKEN_HELP)
    .option('--cache-dir <dir>', 'keep verified files and listings here (reused while fresh, and offline)')
    .option('--offline', 'answer from --cache-dir only; never connect');
}

export function registerClientCommands(program: Command, exit: ExitCode): void {
  withClientOptions(
    program
      .command('ls')
      .description("List a server's (or a folder's) skills (reads no skill file).")
      .argument('<server>', SERVER_HELP)
      .option('--json', 'print JSON for scripts'),
  )
    .addHelpText(
      'after',
      '\nExample:\n  skillport ls http://127.0.0.1:3333/mcp\n  skillport ls "stdio:npx skillport serve ./skills" --json\n  skillport ls ./skills',
    )
    .action(
      run(exit, async (server: string, options: ClientOptions) => {
        const opened = await open(server, options);
        try {
          const skills = await opened.set.skills();
          if (options.json) {
            printJson({ server: opened.id, mode: opened.mode(), skills: skills.map(summary) });
          } else if (skills.length === 0) {
            process.stderr.write(`skillport: ${opened.id} serves no skills\n`);
          } else {
            const width = Math.min(40, Math.max(...skills.map((skill) => skill.id.length)));
            for (const skill of skills) print(`${skill.id.padEnd(width)}  ${truncate(skill.description, 100)}`);
          }
          return 0;
        } finally {
          await opened.set.close();
        }
      }),
    );

  withClientOptions(
    program
      .command('search')
      .description("Find skills for a request on a server, best first (the server's own ranking: its list_skills tool).")
      .argument('<server>', SERVER_HELP)
      .argument('<query...>', 'what you want done, in your words')
      .option('-n, --limit <n>', 'how many results', (text: string) => Math.max(1, Math.min(200, Number(text) || 10)), 10)
      .option('--json', 'print JSON for scripts'),
  )
    .addHelpText('after', '\nExample:\n  skillport search http://127.0.0.1:3333 clean up a messy csv file')
    .action(
      run(exit, async (server: string, words: string[], options: ClientOptions & { limit: number }) => {
        const query = words.join(' ');
        const opened = await open(server, options);
        try {
          let found = opened.mcp ? await opened.mcp.search(query, options.limit) : undefined;
          // Without the tool (a folder, another server): the listing, filtered by the query's words.
          if (found === undefined) {
            const terms = query
              .toLowerCase()
              .split(/\W+/)
              .filter((term) => term.length > 2);
            found = (await opened.set.skills())
              .map((skill) => ({ skill, hits: terms.filter((term) => `${skill.name} ${skill.description}`.toLowerCase().includes(term)).length }))
              .filter((entry) => entry.hits > 0)
              .sort((a, b) => b.hits - a.hits)
              .slice(0, options.limit)
              .map(({ skill }) => ({ name: skill.id, description: skill.description, uri: skill.uri }));
          }
          if (options.json) printJson({ server: opened.id, query, skills: found });
          else if (found.length === 0) process.stderr.write(`skillport: no skill on ${opened.id} matches "${escapeControls(query)}"\n`);
          else {
            const width = Math.min(40, Math.max(...found.map((skill) => skill.name.length)));
            for (const skill of found) print(`${skill.name.padEnd(width)}  ${truncate(skill.description, 100)}`);
          }
          return 0;
        } finally {
          await opened.set.close();
        }
      }),
    );

  withClientOptions(
    program
      .command('show')
      .description("Show one skill's entry: frontmatter, files, digests, and a registry's version, tags and provenance (reads no skill file).")
      .argument('<server>', SERVER_HELP)
      .argument('<name>', 'the skill name, or NAME@VERSION')
      .option('--version <version>', VERSION_HELP)
      .option(
        '--available <list>',
        'what the host has, to judge readiness: kind:name items (mcp:rube tool:Bash agent:codex), separated by spaces or commas',
        arg(parseAvailable),
      )
      .option('--json', 'print JSON for scripts'),
  ).action(
    run(exit, async (server: string, name: string, options: ClientOptions) => {
      const opened = await open(server, options);
      try {
        const skill = await findSkill(opened, name, options.version);
        const registry = registryMeta(skill);
        // An exact version's entry carries no tags: the registry API says which point at it.
        if (registry?.version !== undefined && registry.tags.length === 0) {
          const tags = await registryTags(opened, skill.name);
          registry.tags = Object.entries(tags ?? {})
            .filter(([, version]) => version === registry.version)
            .map(([tag]) => tag);
        }
        const requirements =
          skill.meta?.['dev.skillport/requirements'] !== undefined
            ? requirementsFromWire(skill.meta['dev.skillport/requirements'])
            : readRequirements(skill.frontmatter).requirements;
        const availability = readiness(skill, requirements, options.available);
        if (options.json) {
          const git = gitMeta(skill);
          printJson({
            ...summary(skill),
            ...(registry ? { registry } : {}),
            ...(git ? { source: git } : {}),
            frontmatter: skill.frontmatter,
            files: skill.files ?? null,
            requirements: requirements ?? null,
            availability,
          });
          return 0;
        }
        print(`name:         ${skill.name}`);
        print(`description:  ${skill.description}`);
        if (requirements !== undefined) print(`requires:     ${requirementsSummary(requirements) || 'nothing judged'}`);
        print(
          `availability: ${availabilitySummary(availability)}${options.available === undefined && availability.status !== 'ready' ? ' (say what the host has with --available)' : ''}`,
        );
        if (registry) {
          if (registry.version) print(`version:      ${registry.version}`);
          if (registry.tags.length) print(`tags:         ${registry.tags.join(', ')}`);
          if (registry.publishedAt || registry.publisher)
            print(`published:    ${[registry.publishedAt, registry.publisher ? `by ${registry.publisher}` : ''].filter(Boolean).join(' ')}`);
          print(
            `signature:    ${registry.signatures.length ? registry.signatures.map((s) => `${s.keyId}${s.trusted ? ' (trusted)' : ' (not trusted here)'}`).join(', ') : 'unsigned'}`,
          );
          if (registry.review) print(`review:       ${registry.review}`);
          if (registry.repository) print(`source:       ${registry.repository}${registry.commit ? ` at ${registry.commit}` : ''}`);
          if (registry.yankedAt) print(`yanked:       ${registry.yankedAt}`);
        }
        const git = gitMeta(skill);
        if (git && !registry) print(`source:       ${git.repository} ${git.ref} at ${git.commit}${git.path ? ` (${git.path}/)` : ''}`);
        if (git?.plugin)
          print(
            `plugin:       ${[git.plugin['name'], git.plugin['version']].filter(Boolean).join(' ')}${git.plugin['description'] ? ` - ${String(git.plugin['description'])}` : ''}`,
          );
        print(`origin:       ${skill.origin}`);
        print(`uri:          ${skill.uri}`);
        if (skill.packageDigest) print(`digest:       ${skill.packageDigest}`);
        print(`verification: ${skill.verification}`);
        for (const [key, value] of Object.entries(skill.frontmatter)) {
          if (key !== 'name' && key !== 'description') print(`${`${key}: `.padEnd(14)}${typeof value === 'string' ? value : JSON.stringify(value)}`);
        }
        if (skill.files) {
          print(`files (${skill.files.length}):`);
          for (const file of skill.files) print(`  ${file.path}  ${file.size === undefined ? '?' : plural(file.size, 'byte')}  ${file.digest ?? ''}`);
        } else {
          print('files:        not listed by this server');
        }
        return 0;
      } finally {
        await opened.set.close();
      }
    }),
  );

  withClientOptions(
    program
      .command('cat')
      .description('Print one verified file of a skill (SKILL.md by default).')
      .argument('<server>', SERVER_HELP)
      .argument('<name>', 'the skill name, or NAME@VERSION')
      .argument('[path]', 'a file path inside the skill', 'SKILL.md')
      .option('--version <version>', VERSION_HELP),
  ).action(
    run(exit, async (server: string, name: string, path: string, options: ClientOptions) => {
      const opened = await open(server, options);
      try {
        const skill = await findSkill(opened, name, options.version);
        const file = path === 'SKILL.md' ? (await opened.source.load(skill)).file : await opened.source.readFile(skill, path);
        if (!file.verified) process.stderr.write(`skillport: warning: ${opened.id} gives no digest for ${file.uri}; printed unverified\n`);
        process.stdout.write(file.bytes);
        return 0;
      } finally {
        await opened.set.close();
      }
    }),
  );
}

export interface Opened {
  set: SkillSet;
  source: SkillSource;
  /** The MCP source, when SERVER is a server (not a folder). */
  mcp?: McpSkillSource;
  id: string;
  mode(): string | undefined;
  /** The options it was opened with, the token resolved from the environment. */
  options: ClientOptions;
}

/** Whether SERVER names a server (URL or stdio:) rather than a folder. */
export const isServerSpec = (text: string) => /^(https?:\/\/|stdio:)/i.test(text.trim());

export async function open(server: string, options: ClientOptions): Promise<Opened> {
  const warnings = paint(process.stderr);
  const onWarning = (message: string) => process.stderr.write(`skillport: ${warnings.yellow('warning')}: ${escapeControls(message)}\n`);
  if (GIT_SPEC.test(server)) {
    // A repository at a ref (docs/git.md): fetched by the git source, pinned by commit in the lockfile.
    serverKind = 'git';
    lib ??= await import('@skillport/client');
    let source;
    try {
      source = await openGitSkills(server, options.cacheDir);
    } catch (error) {
      throw fail('unavailable', (error as Error).message);
    }
    const set = new lib.SkillSet([source], { failOnSourceError: true });
    return { set, source, id: gitSpecLabel(server), mode: () => 'git', options };
  }
  if (!isServerSpec(server) && existsSync(server)) {
    serverKind = 'folder';
    if (!statSync(server).isDirectory())
      throw fail('invalid', `${server} is a file: give the folder that holds the skill (or a folder of skills), an http(s):// URL or stdio:COMMAND ARGS`);
    if (options.offline || options.cacheDir || options.token) onWarning('--token, --cache-dir and --offline apply to servers; a folder is read directly');
    const source = new lib.FolderSkillSource(server, { origin: options.origin ?? 'local', onWarning });
    const set = new lib.SkillSet([source], { failOnSourceError: true });
    return { set, source, id: displayPath(resolve(server)), mode: () => 'folder', options };
  }
  if (!isServerSpec(server) && !/^[a-z]+:/i.test(server)) {
    throw fail('invalid', `'${server}' is not a server or a folder: no such folder; use an http(s):// URL, stdio:COMMAND ARGS or a folder of skills`);
  }
  // A skillport server's base URL stands for its MCP endpoint (server-url.ts).
  if (/^https?:\/\//i.test(server.trim())) server = await mcpEndpoint(server.trim());
  serverUrl = server;
  const spec = lib.parseServerSpec(server);
  serverKind = spec.kind;
  const { token } = spec.kind === 'http' ? tokenFor(server, options.token) : { token: options.token ?? environment().token };
  if (options.token && spec.kind === 'stdio') onWarning('--token is sent to http(s) servers only; a stdio server gets SKILLPORT_TOKEN from the environment');
  // Listings a server marks private are kept per token, so one token's skills never answer for another's.
  const partition = token ? createHash('sha256').update(token).digest('hex').slice(0, 16) : undefined;
  const cache = options.cacheDir ? new lib.SkillCache({ dir: options.cacheDir, ...(partition ? { partition } : {}) }) : undefined;
  const source = new lib.McpSkillSource(spec, {
    ...(cache ? { cache } : {}),
    ...(options.offline ? { offline: true } : {}),
    ...(options.origin ? { origin: options.origin } : {}),
    connect: {
      onStderr: (text) => (stderrTail = (stderrTail + text).slice(-4000)),
      ...(token && spec.kind === 'http' ? { headers: { authorization: `Bearer ${token}` } } : {}),
    },
    onWarning,
  });
  if (options.offline && !cache) throw fail('invalid', '--offline needs --cache-dir');
  // A single source: a failed listing is an error here, not a warning.
  const set = new lib.SkillSet([source], { failOnSourceError: true });
  return { set, source, mcp: source, id: source.id, mode: () => source.mode, options: { ...options, ...(token ? { token } : {}) } };
}

/** `name@1.2.0` -> parts (skill names never hold '@'); --version applies when the name has none. */
export function splitRef(text: string, version?: string): { name: string; version?: string } {
  const at = text.indexOf('@');
  if (at > 0) {
    if (version !== undefined) throw fail('invalid', `give the version once: ${text} or --version ${version}`);
    const pinned = text.slice(at + 1);
    if (pinned === '') throw fail('invalid', `'${text}' has no version after '@'`);
    return { name: text.slice(0, at), version: pinned };
  }
  return { name: text, ...(version !== undefined ? { version } : {}) };
}

export async function findSkill(opened: Opened, ref: string, versionOption?: string): Promise<CatalogSkill> {
  const { name, version } = splitRef(ref, versionOption);
  const skills = await opened.set.skills();
  const found = skills.find((skill) => skill.id === name) ?? skills.find((skill) => skill.name === name);
  if (version !== undefined) return { ...(await resolveVersion(opened, name, version, found)), id: name };
  if (!found) {
    const close = skills.filter((skill) => skill.name.includes(name) || name.includes(skill.name)).map((skill) => skill.id);
    throw fail('not-found', `no skill '${name}' on ${opened.id}${close.length ? `; did you mean ${close.slice(0, 5).join(', ')}?` : ''}`);
  }
  return found;
}

/**
 * One version of a registry skill: the listed entry when it is that version (or carries that tag), else the exact
 * URI `skill://[prefix/]<version>/<name>/SKILL.md` through skills/get (docs/api.md), which also reaches yanked
 * versions and answers a revoked one with its reason.
 */
async function resolveVersion(opened: Opened, name: string, version: string, listed: SkillDescriptor | undefined): Promise<SkillDescriptor> {
  const meta = listed ? registryMeta(listed) : undefined;
  if (listed && meta && (meta.version === version || meta.tags.includes(version))) return listed;
  if (!opened.mcp) throw fail('invalid', `${opened.id} is a folder: its skills have no versions`);
  if (listed && !meta) throw fail('invalid', `'${name}' on ${opened.id} is not a registry skill: it has no versions`);
  if (!SEMVER.test(version)) {
    // A tag other than the served one: a skillport registry's API on the same origin says which version it names.
    const tagged = await tagVersion(opened, name, version);
    if (tagged !== undefined) return resolveVersion(opened, name, tagged, listed);
    throw fail(
      'not-found',
      `'${version}' is not a version of '${name}'${meta ? ` (served: ${meta.version}${meta.tags.length ? `, tags ${meta.tags.join(', ')}` : ''})` : ''}; give an exact version (skillport versions ${name})`,
    );
  }
  // The base of exact URIs: the served entry's URI without `<name>/SKILL.md` (it carries serve --prefix).
  const exactUri = meta?.versionUri;
  const base =
    exactUri && meta.version && exactUri.endsWith(`/${meta.version}/${name}/SKILL.md`)
      ? exactUri.slice(0, exactUri.length - `${meta.version}/${name}/SKILL.md`.length)
      : listed
        ? listed.uri.slice(0, listed.uri.length - `${name}/SKILL.md`.length)
        : 'skill://';
  try {
    return await opened.mcp.getSkill(`${base}${version}/${name}/SKILL.md`);
  } catch (error) {
    const message = lib.describeError(error);
    if (/revoked/.test(message)) throw fail('not-found', message.replace(/^.*?has no skill at \S+: /, ''));
    throw fail('not-found', `no version ${version} of '${name}' on ${opened.id}`);
  }
}

export const SEMVER = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*)?$/;

/** A registry skill's tags (tag -> version), from the registry API beside an HTTP server (docs/api.md); undefined when unknown. */
async function registryTags(opened: Opened, name: string): Promise<Record<string, string> | undefined> {
  if (serverKind !== 'http' || opened.options.offline) return undefined;
  try {
    const url = new URL(`/api/v1/skills/${encodeURIComponent(name)}`, opened.id);
    const answer = await fetch(url, {
      headers: opened.options.token ? { authorization: `Bearer ${opened.options.token}` } : {},
      signal: AbortSignal.timeout(10_000),
    });
    if (!answer.ok) return undefined;
    const body = (await answer.json()) as { tags?: Record<string, unknown> };
    return Object.fromEntries(Object.entries(body.tags ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
  } catch {
    return undefined;
  }
}

/** The version a tag names, from the registry API; undefined when unknown. */
export async function tagVersion(opened: Opened, name: string, tag: string): Promise<string | undefined> {
  const version = (await registryTags(opened, name))?.[tag];
  return version !== undefined && SEMVER.test(version) ? version : undefined;
}

interface RegistryMeta {
  version?: string;
  versionUri?: string;
  tags: string[];
  publishedAt?: string;
  publisher?: string;
  signatures: Array<{ keyId: string; trusted: boolean }>;
  review?: string;
  repository?: string;
  commit?: string;
  yankedAt?: string;
}

/** Where a skill served from a git repository came from (`_meta` provenance with a commit, no registry version). */
function gitMeta(skill: SkillDescriptor): { repository: string; ref: string; commit: string; path?: string; plugin?: Record<string, unknown> } | undefined {
  const meta = skill.meta;
  const provenance = meta?.['dev.skillport/provenance'] as Record<string, unknown> | undefined;
  if (!provenance || typeof provenance['commit'] !== 'string' || typeof provenance['ref'] !== 'string' || typeof provenance['repository'] !== 'string')
    return undefined;
  const plugin = meta?.['dev.skillport/plugin'];
  return {
    repository: provenance['repository'],
    ref: provenance['ref'],
    commit: provenance['commit'],
    ...(typeof provenance['path'] === 'string' && provenance['path'] !== '' ? { path: provenance['path'] } : {}),
    ...(plugin !== null && typeof plugin === 'object' ? { plugin: plugin as Record<string, unknown> } : {}),
  };
}

/** What a skillport registry says of an entry in its `_meta` (docs/api.md); undefined for other entries. */
export function registryMeta(skill: SkillDescriptor): RegistryMeta | undefined {
  const meta = skill.meta;
  const version = meta?.['dev.skillport/version'];
  if (!meta || typeof version !== 'string') return undefined;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const provenance = (meta['dev.skillport/provenance'] ?? {}) as Record<string, unknown>;
  const tags = Array.isArray(meta['dev.skillport/tags'])
    ? (meta['dev.skillport/tags'] as unknown[]).filter((tag): tag is string => typeof tag === 'string')
    : [];
  const signatures = Array.isArray(provenance['signatures'])
    ? (provenance['signatures'] as Array<Record<string, unknown>>)
        .filter((s) => typeof s?.['keyId'] === 'string')
        .map((s) => ({ keyId: s['keyId'] as string, trusted: s['trusted'] === true }))
    : [];
  const out: RegistryMeta = { version, tags, signatures };
  const fields = {
    versionUri: meta['dev.skillport/versionUri'],
    publishedAt: provenance['publishedAt'],
    publisher: provenance['publisher'],
    review: provenance['review'],
    repository: provenance['repository'],
    commit: provenance['commit'],
    yankedAt: provenance['yankedAt'],
  };
  for (const [key, value] of Object.entries(fields)) if (text(value)) (out as unknown as Record<string, string>)[key] = text(value)!;
  return out;
}

function summary(skill: CatalogSkill | SkillDescriptor) {
  const version = registryMeta(skill)?.version;
  return {
    name: 'id' in skill ? skill.id : skill.name,
    description: skill.description,
    ...(version ? { version } : {}),
    uri: skill.uri,
    origin: skill.origin,
    ...(skill.packageDigest ? { digest: skill.packageDigest } : {}),
    files: skill.files?.length ?? null,
    verification: skill.verification,
  };
}

/** The kit's action wrapper, with the client library loaded first and its errors described in one line. */
export function run<A extends unknown[]>(exit: ExitCode, work: (...args: A) => Promise<number>): (...args: A) => Promise<void> {
  return action(
    exit,
    async (...args: A) => {
      lib ??= await import('@skillport/client');
      return work(...args);
    },
    (error) => {
      let message = withoutHtml(lib ? lib.describeError(error) : String(error), serverKind === 'http' ? serverUrl : undefined);
      if (serverKind === 'stdio') message = message.replace(/: Connection closed$/, ': the server process exited');
      if (serverKind === 'http' && /\(HTTP 401\)/.test(message)) message += '; pass it with --token or SKILLPORT_TOKEN, or run skillport login';
      // A stdio server that failed usually said why on its stderr: show its last lines.
      const tail = stderrTail.trimEnd().split('\n').slice(-10);
      if (serverKind === 'stdio' && tail.join('') !== '')
        message += `\nskillport: the server's stderr ended with:\n${tail.map((line) => `  | ${line}`).join('\n')}`;
      return message;
    },
  );
}

/** A JSON report, exact (JSON escapes what it must). */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** One line of a listing: names and descriptions come from the server, so control characters are escaped. */
export function print(line: string): void {
  process.stdout.write(`${escapeControls(line)}\n`);
}

export function truncate(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** `--available "mcp:rube tool:Bash agent:codex"`: what the host has, in the skill metadata's kind:name form. */
function parseAvailable(text: string): AvailableCapabilities {
  const out: { mcpServers: string[]; tools: string[]; agent?: string } = { mcpServers: [], tools: [] };
  for (const token of text.split(/[\s,]+/).filter((part) => part !== '')) {
    const colon = token.indexOf(':');
    const kind = token.slice(0, Math.max(colon, 0));
    const value = token.slice(colon + 1);
    if (colon <= 0 || value === '' || !['mcp', 'tool', 'agent'].includes(kind)) throw new Error(`"${token}" is not mcp:NAME, tool:NAME or agent:NAME`);
    if (kind === 'mcp') out.mcpServers.push(value);
    else if (kind === 'tool') out.tools.push(value);
    else out.agent = value;
  }
  return out;
}

/** The skill's readiness: judged here against --available, else what the server said for this caller, else unknown. */
function readiness(skill: SkillDescriptor, requirements: Parameters<typeof judgeAvailability>[0], available: AvailableCapabilities | undefined): Availability {
  const server = skill.meta?.['dev.skillport/availability'] as Availability | undefined;
  const local = judgeAvailability(requirements, available ?? {});
  if (server !== undefined && typeof server === 'object' && server.status === 'ready') return server;
  if (available === undefined && server !== undefined && typeof server === 'object' && server.status === 'needs') return server;
  return local;
}
