import { SkillError, describeError } from './errors.js';
import type { CatalogSkill, SkillDescriptor, SkillTemplate } from './model.js';
import { skillKey } from './model.js';
import { SkillSession } from './session.js';
import type { SessionCatalog, SessionOptions, SessionState } from './session.js';
import type { SkillSource, WarningHandler } from './sources/source.js';

export type { CatalogSkill } from './model.js';

export interface SkillSetOptions {
  /** Keep only the skills this returns true for (applied before deduplication). */
  filter?: (skill: SkillDescriptor) => boolean;
  /**
   * - `none` (default): every skill stays; names served by several origins become `name@origin`.
   * - `name`: the first source (in the order given) wins a name, as Agent Framework's provider does.
   * - `digest`: skills with the same package digest (the same bytes) are shown once, the first source winning.
   */
  dedupe?: 'none' | 'name' | 'digest';
  /** A source that fails to list rejects `skills()` instead of being reported and left out. */
  failOnSourceError?: boolean;
  onWarning?: WarningHandler;
}

/**
 * Several sources composed into one catalog: listed in parallel, filtered, deduplicated, each skill named
 * uniquely for the model while its identity stays (origin, uri). A source that fails to list is reported and left
 * out; the others still serve. Listing reads no skill file.
 */
export class SkillSet implements SessionCatalog {
  private catalog: CatalogSkill[] | undefined;
  private readonly byOrigin = new Map<string, SkillSource>();

  constructor(
    readonly sources: readonly SkillSource[],
    private readonly options: SkillSetOptions = {},
  ) {
    for (const source of sources) {
      if (this.byOrigin.has(source.origin)) throw new SkillError('invalid', `two sources share the origin '${source.origin}'; give one of them another origin`);
      this.byOrigin.set(source.origin, source);
    }
  }

  source(origin: string): SkillSource | undefined {
    return this.byOrigin.get(origin);
  }

  get origins(): string[] {
    return [...this.byOrigin.keys()];
  }

  async skills(): Promise<CatalogSkill[]> {
    return this.catalog ?? this.refresh();
  }

  /** Lists every source again. */
  async refresh(): Promise<CatalogSkill[]> {
    const listed = await Promise.all(
      this.sources.map((source) =>
        source.list().catch((error: unknown) => {
          if (this.options.failOnSourceError) throw error;
          this.options.onWarning?.(`${source.origin}: ${describeError(error)}`);
          return [] as SkillDescriptor[];
        }),
      ),
    );
    this.catalog = nameSkills(
      dedupe(
        listed.flat().filter((skill) => this.options.filter?.(skill) ?? true),
        this.options.dedupe ?? 'none',
      ),
    );
    return this.catalog;
  }

  /** Catalog skills plus extra ones (template-resolved), named together. */
  async withExtra(extra: readonly SkillDescriptor[]): Promise<CatalogSkill[]> {
    if (extra.length === 0) return this.skills();
    const base = await this.skills();
    const keys = new Set(base.map(skillKey));
    return nameSkills([...base, ...extra.filter((skill) => !keys.has(skillKey(skill)))]);
  }

  async templates(): Promise<SkillTemplate[]> {
    const all = await Promise.all(
      this.sources.map((source) =>
        (source.templates?.() ?? Promise.resolve([])).catch((error: unknown) => {
          this.options.onWarning?.(`${source.origin}: templates: ${describeError(error)}`);
          return [] as SkillTemplate[];
        }),
      ),
    );
    return all.flat();
  }

  /** A conversation's view of the set: instructions, tools, activations (restored from `state` when given). */
  session(options: SessionOptions = {}, state?: SessionState | string): SkillSession {
    return state === undefined ? new SkillSession(this, options) : SkillSession.fromJSON(this, state, options);
  }

  async close(): Promise<void> {
    await Promise.all(this.sources.map((source) => source.close?.().catch(() => undefined)));
  }
}

function dedupe(skills: SkillDescriptor[], mode: 'none' | 'name' | 'digest'): SkillDescriptor[] {
  if (mode === 'none') return skills;
  const seen = new Set<string>();
  return skills.filter((skill) => {
    const key = mode === 'name' ? skill.name : (skill.packageDigest ?? skillKey(skill));
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Unique model-facing names; identical (origin, uri) pairs are kept once. */
export function nameSkills(skills: readonly SkillDescriptor[]): CatalogSkill[] {
  const unique = new Map<string, SkillDescriptor>();
  for (const skill of skills) if (!unique.has(skillKey(skill))) unique.set(skillKey(skill), skill);
  const counts = new Map<string, number>();
  for (const skill of unique.values()) counts.set(skill.name, (counts.get(skill.name) ?? 0) + 1);
  const named = [...unique.values()].map((skill) => ({ ...skill, id: counts.get(skill.name)! > 1 ? `${skill.name}@${skill.origin}` : skill.name }));
  // Two skills of one origin with the same name (different prefixes): the URI tells them apart.
  const ids = new Map<string, number>();
  for (const skill of named) ids.set(skill.id, (ids.get(skill.id) ?? 0) + 1);
  return named.map((skill) =>
    ids.get(skill.id)! > 1 ? { ...skill, id: `${skill.name}@${skill.origin}${skill.uri.replace(/^skill:\/\//, '/').replace(/\/SKILL\.md$/, '')}` } : skill,
  );
}
