import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import type { SkillDescriptor, SkillSource } from '@skillport/client';
import type { ExitCode } from '../kit.js';
import { CliError, action, arg } from '../kit.js';
import { displayPath, plural } from '../output.js';
import { mcpEndpoint } from '../server-url.js';
import { tokenFor } from '../user-config.js';

/**
 * `skillport export --marketplace DIR SERVER`: the skills a server (a registry's too) or a folder serves, written as
 * a Claude Code plugin marketplace (`.claude-plugin/marketplace.json` listing `plugins/<plugin>/`, each with its
 * `.claude-plugin/plugin.json` and `skills/<skill>/`), every file verified against the server's digests first. Served
 * back by `skillport serve DIR` (or added in Claude Code with `/plugin marketplace add DIR`), it gives the same skills:
 * the same names and package digests; skills that came from a marketplace keep their plugin, description and version.
 */
interface ExportOptions {
  marketplace: string;
  pluginPer: 'folder' | 'skill';
  name?: string;
  owner: string;
  token?: string;
  force?: boolean;
  json?: boolean;
}

const PLUGIN_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export function registerExport(program: Command, exit: ExitCode): void {
  program
    .command('export')
    .description("Write a server's (or a folder's) skills as a Claude Code plugin marketplace.")
    .argument('<server>', 'an http(s):// server URL (a registry server too) or a folder of skills')
    .requiredOption('--marketplace <dir>', 'the folder to write the marketplace into (created; must be empty unless --force)')
    .option('--plugin-per <unit>', 'one plugin per skill, or per top folder of the skills (a marketplace source keeps its plugins)', arg(parseUnit), 'folder')
    .option('--name <name>', "the marketplace's name (default: the folder's name)")
    .option('--owner <name>', "the marketplace's owner", 'skillport')
    .option('--token <token>', 'bearer token for the server (default: SKILLPORT_TOKEN or a stored login)')
    .option('-f, --force', 'replace what the folder holds')
    .option('--json', 'print what was written as JSON')
    .addHelpText(
      'after',
      `
Examples:
  skillport export http://127.0.0.1:3333 --marketplace ./acme-marketplace
  skillport export ./skills --marketplace ./out --plugin-per skill --name acme-tools

Claude Code: /plugin marketplace add ./acme-marketplace (or the git repository it is pushed to). docs/git.md`,
    )
    .action(action(exit, (server: string, options: ExportOptions) => exportMarketplace(server, options)));
}

function parseUnit(text: string): 'folder' | 'skill' {
  if (text !== 'folder' && text !== 'skill') throw new Error(`--plugin-per takes folder or skill (got ${JSON.stringify(text)})`);
  return text;
}

interface Plugin {
  name: string;
  description?: string;
  version?: string;
  skills: Array<{ skill: SkillDescriptor; folder: string[] }>;
}

async function exportMarketplace(server: string, options: ExportOptions): Promise<number> {
  const lib = await import('@skillport/client');
  const target = resolve(options.marketplace);
  if (existsSync(target) && (!statSync(target).isDirectory() || (readdirSync(target).length > 0 && options.force !== true)))
    throw new CliError(`${displayPath(target)} is not an empty folder; use --force to replace it`);
  let source: SkillSource;
  if (!/^https?:\/\//i.test(server) && existsSync(server)) source = new lib.FolderSkillSource(server, { origin: 'local' });
  else if (/^https?:\/\//i.test(server)) {
    const url = await mcpEndpoint(server.trim());
    const { token } = tokenFor(url, options.token);
    source = new lib.McpSkillSource(lib.parseServerSpec(url), { connect: token ? { headers: { authorization: `Bearer ${token}` } } : {} });
  } else throw new CliError(`'${server}' is not a server URL or a folder`, 2);
  try {
    const skills = await source.list();
    if (skills.length === 0) throw new CliError(`${server} serves no skills`);
    const plugins = group(skills, options.pluginPer);
    const staging = `${target}.skillport-export-${process.pid}`;
    rmSync(staging, { recursive: true, force: true });
    const entries: Array<Record<string, unknown>> = [];
    for (const plugin of plugins.values()) {
      const root = join(staging, 'plugins', plugin.name);
      for (const { skill, folder } of plugin.skills) {
        for (const segment of folder) lib.checkRelativePath(segment);
        await source.load(skill);
        for (const file of skill.files ?? [{ path: 'SKILL.md' }]) {
          lib.checkRelativePath(file.path);
          const read = await source.readFile(skill, file.path);
          if (!read.verified) throw new CliError(`${read.uri} could not be verified against the server's digest`);
          const path = join(root, 'skills', ...folder, ...file.path.split('/'));
          mkdirSync(dirname(path), { recursive: true });
          writeFileSync(path, read.bytes);
        }
      }
      const manifest = {
        name: plugin.name,
        ...(plugin.description !== undefined ? { description: plugin.description } : {}),
        ...(plugin.version !== undefined ? { version: plugin.version } : {}),
      };
      mkdirSync(join(root, '.claude-plugin'), { recursive: true });
      writeFileSync(join(root, '.claude-plugin', 'plugin.json'), `${JSON.stringify(manifest, null, 2)}\n`);
      entries.push({ ...manifest, source: `./${plugin.name}` });
    }
    const marketplace = {
      name: options.name ?? pluginName(basename(target)),
      owner: { name: options.owner },
      metadata: { pluginRoot: './plugins', description: `Skills exported from ${server} by skillport` },
      plugins: entries,
    };
    mkdirSync(join(staging, '.claude-plugin'), { recursive: true });
    writeFileSync(join(staging, '.claude-plugin', 'marketplace.json'), `${JSON.stringify(marketplace, null, 2)}\n`);
    rmSync(target, { recursive: true, force: true });
    renameSync(staging, target);
    if (options.json)
      process.stdout.write(`${JSON.stringify({ marketplace: target, plugins: entries.map((entry) => entry['name']), skills: skills.length }, null, 2)}\n`);
    else process.stdout.write(`wrote ${plural(skills.length, 'skill')} in ${plural(plugins.size, 'plugin')} to ${displayPath(target)}\n`);
    return 0;
  } finally {
    await source.close?.();
  }
}

/**
 * Plugins from skills: a skill read from a marketplace keeps its plugin (`_meta` dev.skillport/plugin); otherwise one
 * plugin per skill, or per the first folder of its URI (`skill://docs/writer/SKILL.md` → plugin `docs`, skill `writer`).
 */
function group(skills: readonly SkillDescriptor[], per: 'folder' | 'skill'): Map<string, Plugin> {
  const plugins = new Map<string, Plugin>();
  for (const skill of skills) {
    const meta = skill.meta?.['dev.skillport/plugin'] as Record<string, unknown> | undefined;
    const segments = uriSegments(skill.uri);
    let name: string;
    let folder: string[];
    if (typeof meta?.['name'] === 'string' && per === 'folder') {
      name = pluginName(meta['name']);
      folder = segments[0] === meta['name'] && segments.length > 1 ? segments.slice(1) : [skill.name];
    } else if (per === 'folder' && segments.length > 1) {
      name = pluginName(segments[0]!);
      folder = segments.slice(1);
    } else {
      name = pluginName(skill.name);
      folder = [skill.name];
    }
    const plugin = plugins.get(name) ?? { name, skills: [] };
    if (typeof meta?.['description'] === 'string') plugin.description = meta['description'];
    if (typeof meta?.['version'] === 'string') plugin.version = meta['version'];
    plugin.skills.push({ skill, folder });
    plugins.set(name, plugin);
  }
  for (const plugin of plugins.values()) {
    if (plugin.description === undefined)
      plugin.description =
        plugin.skills.length === 1
          ? plugin.skills[0]!.skill.description
          : `${plugin.skills.length} skills: ${plugin.skills.map((s) => s.skill.name).join(', ')}`;
    const version = plugin.skills.length === 1 ? plugin.skills[0]!.skill.meta?.['dev.skillport/version'] : undefined;
    if (plugin.version === undefined && typeof version === 'string') plugin.version = version;
  }
  return plugins;
}

/** The path segments of a `skill://…/SKILL.md` URI (or a folder's `file://` one: just the skill's folder name). */
function uriSegments(uri: string): string[] {
  if (!uri.startsWith('skill://')) return [];
  return uri
    .slice('skill://'.length)
    .split('/')
    .slice(0, -1)
    .map((segment) => decodeURIComponent(segment));
}

function pluginName(text: string): string {
  const name = text
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .slice(0, 64);
  return PLUGIN_NAME.test(name) ? name : 'skills';
}
