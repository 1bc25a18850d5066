import { searchSkills } from '@skillport/server';
import type { CatalogSkill, CatalogSnapshot, SkillsService } from '@skillport/server';

/**
 * What the home page lists: the caller's view of the catalog, searched with the same index and ranking as
 * list_skills (one per view snapshot, shared with MCP), filtered by origin, folder and tag, cut into pages.
 * Facets (tags, origins, folders with their counts) are computed once per view snapshot and dropped with it.
 */
export type OriginKind = 'folder' | 'registry' | 'archive' | 'git' | 'remote';

export interface Facets {
  tags: Array<[string, number]>;
  origins: Array<[OriginKind, number]>;
  folders: Array<[string, number]>;
  /** Per skill URI: its tags (lower case) and top folder, for filtering without recomputing. */
  bySkill: Map<string, { tags: string[]; folder: string | undefined; origin: OriginKind }>;
}

export interface Filters {
  q: string;
  tag: string;
  origin: string;
  folder: string;
  page: number;
}

export interface ListResult {
  skills: CatalogSkill[];
  total: number;
  page: number;
  pages: number;
  /** Ranked by the search index (a query was given). */
  ranked: boolean;
}

const facetsCache = new WeakMap<CatalogSnapshot, Facets>();
/** Search hits cap: enough pages of results for a person; the ranking puts the useful ones first. */
const MAX_HITS = 1000;

export function originKind(skill: CatalogSkill): OriginKind {
  if (skill.origin.kind === 'folder') return 'folder';
  const source = skill.origin.source;
  if (source.startsWith('registry')) return 'registry';
  if (source.startsWith('archive:')) return 'archive';
  if (source.startsWith('git:')) return 'git';
  return 'remote';
}

/** Tags a skill declares: frontmatter `tags`/`keywords`/`category`, or the same under `metadata`. */
export function tagsOf(skill: CatalogSkill): string[] {
  const found = new Set<string>();
  const take = (value: unknown) => {
    const items = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
    for (const item of items) {
      if (typeof item !== 'string') continue;
      const tag = item.trim().toLowerCase();
      if (tag !== '' && tag.length <= 40 && /^[\p{L}\p{N}][\p{L}\p{N} ._/+-]*$/u.test(tag)) found.add(tag);
    }
  };
  const metadata = skill.frontmatter['metadata'];
  for (const source of [skill.frontmatter, metadata !== null && typeof metadata === 'object' ? (metadata as Record<string, unknown>) : {}]) {
    take(source['tags']);
    take(source['keywords']);
    take(source['category']);
  }
  return [...found].slice(0, 20);
}

/** The skill's first URI segment when it sits below one (skill://team/x/SKILL.md → team). */
export function folderOf(skill: CatalogSkill): string | undefined {
  const path = skill.uri.slice('skill://'.length).split('/');
  return path.length > 2 ? decodeURIComponent(path[0]!) : undefined;
}

export function facets(snapshot: CatalogSnapshot): Facets {
  let found = facetsCache.get(snapshot);
  if (found !== undefined) return found;
  const tags = new Map<string, number>();
  const origins = new Map<OriginKind, number>();
  const folders = new Map<string, number>();
  const bySkill = new Map<string, { tags: string[]; folder: string | undefined; origin: OriginKind }>();
  for (const skill of snapshot.skills) {
    const skillTags = tagsOf(skill);
    const folder = folderOf(skill);
    const origin = originKind(skill);
    bySkill.set(skill.uri, { tags: skillTags, folder, origin });
    for (const tag of skillTags) tags.set(tag, (tags.get(tag) ?? 0) + 1);
    origins.set(origin, (origins.get(origin) ?? 0) + 1);
    if (folder !== undefined) folders.set(folder, (folders.get(folder) ?? 0) + 1);
  }
  const byCount = <K extends string>(map: Map<K, number>) => [...map].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  found = { tags: byCount(tags), origins: byCount(origins), folders: byCount(folders), bySkill };
  facetsCache.set(snapshot, found);
  return found;
}

export function parseFilters(query: URLSearchParams): Filters {
  const text = (name: string, max: number) => (query.get(name) ?? '').trim().slice(0, max);
  const page = Number(query.get('page') ?? '1');
  return {
    q: text('q', 500),
    tag: text('tag', 40).toLowerCase(),
    origin: text('origin', 16),
    folder: text('folder', 200),
    page: Number.isInteger(page) && page >= 1 && page <= 1_000_000 ? page : 1,
  };
}

export async function listSkills(snapshot: CatalogSnapshot, service: SkillsService, filters: Filters, pageSize: number): Promise<ListResult> {
  const filtered = filters.tag !== '' || filters.origin !== '' || filters.folder !== '';
  const info = filtered ? facets(snapshot).bySkill : undefined;
  const keep = (skill: CatalogSkill): boolean => {
    if (info === undefined) return true;
    const about = info.get(skill.uri);
    if (about === undefined) return false;
    return (
      (filters.tag === '' || about.tags.includes(filters.tag)) &&
      (filters.origin === '' || about.origin === filters.origin) &&
      (filters.folder === '' || about.folder === filters.folder)
    );
  };
  let all: readonly CatalogSkill[];
  let ranked = false;
  if (filters.q !== '') {
    const answer = await searchSkills(service, snapshot, filters.q, MAX_HITS);
    all = answer.hits.map((hit) => snapshot.skill(hit.id)).filter((skill): skill is CatalogSkill => skill !== undefined && keep(skill));
    ranked = true;
  } else {
    all = filtered ? snapshot.skills.filter(keep) : snapshot.skills;
  }
  const pages = Math.max(1, Math.ceil(all.length / pageSize));
  const page = Math.min(filters.page, pages);
  return { skills: all.slice((page - 1) * pageSize, page * pageSize), total: all.length, page, pages, ranked };
}
