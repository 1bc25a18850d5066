import { DEFAULT_LIMITS, formatBytes, inspectSkillFiles, MAX_DISCOVERY_DEPTH } from '@skillport/core';
import type { FolderProblem, SkillLimits } from '@skillport/core';
import type { CatalogSkill } from '../../catalog/model.js';
import { storedCatalogSkill } from '../stored-skill.js';
import { MARKETPLACE_FILE, pluginsOf } from './marketplace.js';
import type { PluginInfo } from './marketplace.js';
import type { Tree, TreeEntry } from './tree.js';

export type { Tree, TreeEntry } from './tree.js';

/**
 * One tree of files (a git commit's tree, a folder read whole) turned into served skills: every folder holding a
 * SKILL.md is a skill (a nested one is also a file of the skill around it, as on disk), or, when the tree holds
 * `.claude-plugin/marketplace.json`, the skills of the plugins it lists (marketplace.ts). Each skill is keyed by the
 * identity of its folder's content (a git tree id): a skill whose folder did not change keeps its object, so a new
 * commit rebuilds only what changed and the catalog gets a delta of just that.
 */
export interface TreeSkillOptions {
  /** URI prefix segments before each skill's path. */
  prefix: readonly string[];
  limits?: SkillLimits;
  /** Added to every skill's `_meta` (provenance). */
  meta: Record<string, unknown>;
  /** For the stored origin's label (`git:<url>`). */
  source: string;
}

export interface TreeSkills {
  /** By URI. */
  skills: Map<string, CatalogSkill>;
  /** Content key of each served skill, by URI: what decides whether the next tree rebuilds it. */
  keys: Map<string, string>;
  problems: FolderProblem[];
}

interface Candidate {
  root: string;
  /** URI segments between the prefix and the skill's name. */
  dirs: string[];
  plugin?: PluginInfo;
}

const SKIPPED = new Set(['.git', 'node_modules']);

export async function treeSkills(tree: Tree, options: TreeSkillOptions, previous?: TreeSkills): Promise<TreeSkills> {
  const limits = options.limits ?? DEFAULT_LIMITS;
  const problems: FolderProblem[] = [];
  const byPath = new Map(tree.entries.map((entry) => [entry.path, entry]));
  const idOf = (folder: string) => (folder === '' ? tree.rootId : byPath.get(folder)?.id);
  const candidates: Candidate[] = [];
  const marketplace = byPath.get(MARKETPLACE_FILE);
  if (marketplace !== undefined && marketplace.kind === 'file') {
    const read = await tree.read([marketplace.id]);
    const plugins = await pluginsOf(read.get(marketplace.id)!, byPath, tree, problems);
    for (const plugin of plugins) {
      const seen = new Set<string>();
      for (const searchRoot of plugin.skillRoots) {
        for (const root of skillRoots(tree.entries, searchRoot))
          if (!seen.has(root) && seen.add(root)) candidates.push({ root, dirs: [plugin.name, ...relative(searchRoot, root).slice(0, -1)], plugin });
      }
    }
  } else {
    for (const root of skillRoots(tree.entries, '')) candidates.push({ root, dirs: relative('', root).slice(0, -1) });
  }
  const files = tree.entries.filter((entry) => entry.kind !== 'folder');
  const skills = new Map<string, CatalogSkill>();
  const keys = new Map<string, string>();
  const reused = new Map<string, CatalogSkill>();
  for (const [uri, skill] of previous?.skills ?? []) reused.set(`${previous!.keys.get(uri)}`, skill);
  const toBuild: Array<{ candidate: Candidate; key: string; entries: TreeEntry[] }> = [];
  for (const candidate of candidates) {
    const key = `${idOf(candidate.root)}\0${candidate.root}\0${candidate.dirs.join('/')}\0${JSON.stringify(candidate.plugin?.meta ?? null)}\0${options.prefix.join('/')}`;
    const old = reused.get(key);
    if (old !== undefined) {
      claim(skills, keys, old, key, problems);
      continue;
    }
    const under = candidate.root === '' ? files : files.filter((entry) => entry.path.startsWith(`${candidate.root}/`));
    const served: TreeEntry[] = [];
    for (const entry of under) {
      if (
        inside(candidate.root, entry.path)
          .split('/')
          .some((segment) => SKIPPED.has(segment))
      )
        continue;
      if (entry.kind === 'symlink') problems.push({ severity: 'warning', message: 'symbolic link in a repository skill: not served', path: entry.path });
      else if (entry.kind === 'submodule')
        problems.push({ severity: 'warning', message: 'submodule in a repository skill: not fetched, not served', path: entry.path });
      else served.push(entry);
    }
    const total = served.reduce((sum, entry) => sum + entry.size, 0);
    if (served.length > limits.maxFiles) {
      problems.push({ severity: 'error', message: `skill has more than ${limits.maxFiles} files (the limit); not served`, path: candidate.root || '.' });
      continue;
    }
    if (total > limits.maxBytes) {
      // Decided from the tree's sizes, before any byte is read: a huge file costs nothing.
      problems.push({
        severity: 'error',
        message: `skill is larger than ${formatBytes(limits.maxBytes)} (the limit); not served`,
        path: candidate.root || '.',
      });
      continue;
    }
    toBuild.push({ candidate, key, entries: served });
  }
  const bytes = await tree.read([...new Set(toBuild.flatMap((item) => item.entries.map((entry) => entry.id)))]);
  for (const { candidate, key, entries } of toBuild) {
    const at = (path: string) => (candidate.root === '' ? path : `${candidate.root}/${path}`);
    const inspected = inspectSkillFiles(
      entries.map((entry) => ({ path: inside(candidate.root, entry.path), bytes: bytes.get(entry.id)! })),
      { ...(candidate.root !== '' ? { folderName: candidate.root.split('/').at(-1)! } : {}), limits },
    );
    for (const problem of inspected.problems) problems.push({ severity: problem.severity, message: problem.message, path: at(problem.path) || '.' });
    if (!inspected.skill) continue;
    const path = [...options.prefix, ...candidate.dirs, inspected.skill.name];
    const meta = { ...options.meta, ...(candidate.plugin ? candidate.plugin.meta : {}) };
    const provenance = meta['dev.skillport/provenance'];
    if (provenance !== null && typeof provenance === 'object') meta['dev.skillport/provenance'] = { ...(provenance as object), path: candidate.root };
    const built = storedCatalogSkill(
      inspected.skill,
      entries.map((entry) => ({ path: inside(candidate.root, entry.path), bytes: bytes.get(entry.id)! })),
      path,
      options.source,
      undefined,
      meta,
    );
    if (typeof built === 'string') {
      problems.push({ severity: 'error', message: built, path: candidate.root || '.' });
      continue;
    }
    claim(skills, keys, built, key, problems);
  }
  return { skills, keys, problems };
}

function claim(skills: Map<string, CatalogSkill>, keys: Map<string, string>, skill: CatalogSkill, key: string, problems: FolderProblem[]): void {
  if (skills.has(skill.uri)) {
    problems.push({ severity: 'error', code: 'uri-conflict', message: `two skills at ${skill.uri}; serving the first`, path: skill.uri });
    return;
  }
  skills.set(skill.uri, skill);
  keys.set(skill.uri, key);
}

/** Folders at or below `searchRoot` holding a SKILL.md, at most MAX_DISCOVERY_DEPTH below it. */
function skillRoots(entries: readonly TreeEntry[], searchRoot: string): string[] {
  const roots: string[] = [];
  for (const entry of entries) {
    if (entry.kind !== 'file' && entry.kind !== 'symlink') continue;
    const slash = entry.path.lastIndexOf('/');
    const name = entry.path.slice(slash + 1);
    if (name !== 'SKILL.md' && name !== 'skill.md') continue;
    const folder = slash < 0 ? '' : entry.path.slice(0, slash);
    if (searchRoot !== '' && folder !== searchRoot && !folder.startsWith(`${searchRoot}/`)) continue;
    const rel = relative(searchRoot, folder);
    if (rel.length > MAX_DISCOVERY_DEPTH || rel.some((segment) => SKIPPED.has(segment))) continue;
    if (!roots.includes(folder)) roots.push(folder);
  }
  return roots.sort();
}

function inside(root: string, path: string): string {
  return root === '' ? path : path.slice(root.length + 1);
}

function relative(from: string, to: string): string[] {
  const rest = from === '' ? to : to === from ? '' : to.slice(from.length + 1);
  return rest === '' ? [] : rest.split('/');
}

/** What changed from one listing to the next: skills added or rebuilt (new objects), and URIs gone. */
export function listingDelta(before: TreeSkills, after: TreeSkills): { upsert: CatalogSkill[]; remove: string[] } {
  const upsert: CatalogSkill[] = [];
  const remove: string[] = [];
  for (const [uri, skill] of after.skills) if (before.skills.get(uri) !== skill) upsert.push(skill);
  for (const uri of before.skills.keys()) if (!after.skills.has(uri)) remove.push(uri);
  return { upsert, remove };
}
