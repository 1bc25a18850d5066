import type { FolderProblem } from '@skillport/core';
import type { Tree, TreeEntry } from './tree.js';

/**
 * Claude Code's plugin marketplace layout, read as a source of skills: `.claude-plugin/marketplace.json` names the
 * marketplace and lists its plugins (`name`, `source`: a `./` path from the marketplace's root, under
 * `metadata.pluginRoot` when given; `description`, `version`, optional `skills` paths). Each listed plugin's skills are
 * those under its `skills/` folder (and the extra paths its entry or its `.claude-plugin/plugin.json` name), served
 * under the plugin's name; a plugin's description and version travel in `_meta["dev.skillport/plugin"]`. Plugins the
 * file does not list are not served, nor are plugins that come from elsewhere (a `source` object: github, url, npm).
 */
export const MARKETPLACE_FILE = '.claude-plugin/marketplace.json';
export const PLUGIN_FILE = '.claude-plugin/plugin.json';
export const META_PLUGIN = 'dev.skillport/plugin';

export interface PluginInfo {
  name: string;
  /** Folders (from the tree's root) searched for skills. */
  skillRoots: string[];
  meta: Record<string, unknown>;
}

/** A plugin name as Claude Code takes them, which is also one plain URI segment. */
const PLUGIN_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/i;

export async function pluginsOf(bytes: Uint8Array, byPath: ReadonlyMap<string, TreeEntry>, tree: Tree, problems: FolderProblem[]): Promise<PluginInfo[]> {
  const fail = (message: string): PluginInfo[] => {
    problems.push({ severity: 'error', message: `${message}; no plugin is served`, path: MARKETPLACE_FILE });
    return [];
  };
  let doc: unknown;
  try {
    doc = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    return fail(`not JSON (${(error as Error).message})`);
  }
  if (!isObject(doc) || !Array.isArray(doc['plugins'])) return fail('a marketplace needs a "plugins" list');
  const marketplace = typeof doc['name'] === 'string' ? doc['name'] : undefined;
  const metadata = isObject(doc['metadata']) ? doc['metadata'] : {};
  const pluginRoot = typeof metadata['pluginRoot'] === 'string' ? metadata['pluginRoot'] : '.';
  const plugins: PluginInfo[] = [];
  const names = new Set<string>();
  const manifests = new Map<string, Record<string, unknown>>();
  const listed = (doc['plugins'] as unknown[]).filter(isObject);
  // plugin.json files are read in one go (strict plugins merge their own description and version).
  const wanted: TreeEntry[] = [];
  for (const entry of listed) {
    const dir = typeof entry['source'] === 'string' ? resolvePath(pluginRoot, entry['source']) : undefined;
    const file = dir === undefined ? undefined : byPath.get(join(dir, PLUGIN_FILE));
    if (file?.kind === 'file' && file.size <= 64 * 1024) wanted.push(file);
  }
  const read = await tree.read(wanted.map((entry) => entry.id));
  for (const file of wanted) {
    try {
      const parsed = JSON.parse(new TextDecoder().decode(read.get(file.id)!)) as unknown;
      if (isObject(parsed)) manifests.set(file.path, parsed);
    } catch {
      problems.push({ severity: 'warning', message: 'plugin.json is not JSON; the marketplace entry alone describes the plugin', path: file.path });
    }
  }
  for (const entry of listed) {
    const name = entry['name'];
    if (typeof name !== 'string' || !PLUGIN_NAME.test(name)) {
      problems.push({ severity: 'error', message: `plugin name ${JSON.stringify(name)} is not a plain name; not served`, path: MARKETPLACE_FILE });
      continue;
    }
    if (names.has(name)) {
      problems.push({ severity: 'error', message: `plugin ${name} is listed twice; serving the first`, path: MARKETPLACE_FILE });
      continue;
    }
    names.add(name);
    const source = entry['source'];
    if (typeof source !== 'string') {
      problems.push({
        severity: 'warning',
        message: `plugin ${name} comes from another source (${isObject(source) ? String(source['source']) : typeof source}); not served`,
        path: MARKETPLACE_FILE,
      });
      continue;
    }
    const dir = resolvePath(pluginRoot, source);
    if (dir === undefined || (dir !== '' && byPath.get(dir)?.kind !== 'folder')) {
      problems.push({
        severity: 'error',
        message: `plugin ${name}: its source ${JSON.stringify(source)} is not a folder of the marketplace; not served`,
        path: MARKETPLACE_FILE,
      });
      continue;
    }
    const manifest = manifests.get(join(dir, PLUGIN_FILE)) ?? {};
    const strict = entry['strict'] !== false;
    const pick = (key: string) => (typeof entry[key] === 'string' ? entry[key] : strict && typeof manifest[key] === 'string' ? manifest[key] : undefined);
    const roots = [join(dir, 'skills')];
    for (const extra of [...pathList(entry['skills']), ...(strict ? pathList(manifest['skills']) : [])]) {
      const at = resolvePath(dir, extra);
      if (at === undefined)
        problems.push({
          severity: 'warning',
          message: `plugin ${name}: skills path ${JSON.stringify(extra)} leaves the plugin; ignored`,
          path: MARKETPLACE_FILE,
        });
      else roots.push(at);
    }
    const meta: Record<string, unknown> = { name };
    if (marketplace !== undefined) meta['marketplace'] = marketplace;
    const description = pick('description');
    const version = pick('version');
    if (description !== undefined) meta['description'] = description;
    if (version !== undefined) meta['version'] = version;
    plugins.push({ name, skillRoots: roots, meta: { [META_PLUGIN]: meta } });
  }
  return plugins;
}

function pathList(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

/** `./x/y` against a base folder, or undefined when it climbs out of the tree. */
function resolvePath(base: string, path: string): string | undefined {
  const parts: string[] = base.split('/').filter((part) => part !== '' && part !== '.');
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (parts.length === 0) return undefined;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join('/');
}

function join(dir: string, path: string): string {
  return dir === '' ? path : `${dir}/${path}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
