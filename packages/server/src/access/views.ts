import { createHash } from 'node:crypto';
import { canonicalSkillUri } from '@skillport/core';
import type { CatalogSkill } from '../catalog/model.js';
import { CatalogSnapshot } from '../catalog/snapshot.js';
import type { UnlistedResolver } from '../catalog/snapshot.js';
import { OPEN_POLICY, globToRegExp } from './policy.js';
import type { PolicyDocument } from './policy.js';
import { subjectsOf, viewKey } from './principal.js';
import type { Principal, SubjectKind } from './principal.js';

/**
 * Per-principal views. A view is an ordinary `CatalogSnapshot` holding only the skills the principal may see, so
 * every surface that answers from a snapshot (the extension, tools, prompts, completions, the index, the HTTP fast
 * path) answers from the view without knowing about identity: a hidden skill is simply absent, and so answers
 * exactly like one that does not exist. Views are built on first use and cached per (snapshot, policy, subjects).
 */
export interface SessionCatalog {
  required: readonly CatalogSkill[];
  pinned: readonly CatalogSkill[];
}

/** A filtered snapshot whose name lookups follow the policy's precedence. */
export class ViewSnapshot extends CatalogSnapshot {
  readonly #rank: ReadonlyMap<string, number>;
  session: SessionCatalog | undefined;

  /** `base`: the catalog snapshot this view was filtered from (a shared search index follows it, not the view). */
  constructor(skills: CatalogSkill[], generation: number, rank: ReadonlyMap<string, number>, unlisted?: UnlistedResolver, readonly base?: CatalogSnapshot) {
    super(skills, generation, unlisted);
    this.#rank = rank;
  }

  /** The best-ranked skills of that name (several only when they tie): what a name-based call means. */
  override named(name: string): readonly CatalogSkill[] {
    const all = super.named(name);
    if (all.length < 2) return all;
    let best = Infinity;
    for (const skill of all) best = Math.min(best, this.#rank.get(skill.uri) ?? Infinity);
    return all.filter((skill) => (this.#rank.get(skill.uri) ?? Infinity) === best);
  }

  /** Every visible skill of that name, whatever its rank (each stays reachable by its URI). */
  allNamed(name: string): readonly CatalogSkill[] {
    return super.named(name);
  }
}

/** The session catalog of a snapshot when it is a view with one. */
export function sessionCatalog(snapshot: CatalogSnapshot): SessionCatalog | undefined {
  return snapshot instanceof ViewSnapshot ? snapshot.session : undefined;
}

interface Compiled {
  policy: PolicyDocument;
  /** For each skill of the snapshot (same order): the indexes of the rules that match it. */
  matches: Map<string, number[]>;
}

export class ViewCache {
  #policy: PolicyDocument = OPEN_POLICY;
  #compiled = new WeakMap<CatalogSnapshot, Compiled>();
  #views = new WeakMap<CatalogSnapshot, Map<string, CatalogSnapshot>>();
  #fingerprints = new WeakMap<CatalogSnapshot, string>();
  #regexps: RegExp[][] = [];

  constructor(readonly maxViewsPerSnapshot = 1000) {}

  get policy(): PolicyDocument {
    return this.#policy;
  }

  /** Swaps the policy in; views are rebuilt from it on their next use. */
  setPolicy(policy: PolicyDocument): void {
    this.#policy = policy;
    this.#regexps = policy.rules.map((rule) => rule.skills.map(globToRegExp));
    this.#compiled = new WeakMap();
    this.#views = new WeakMap();
  }

  /** True when every skill is visible to everyone and nothing is session-specific (the view is the snapshot). */
  get open(): boolean {
    return this.#policy.rules.length === 0 && this.#policy.default === 'public' && this.#policy.sessions.length === 0;
  }

  view(snapshot: CatalogSnapshot, principal: Principal): CatalogSnapshot {
    if (this.open) return snapshot;
    const key = viewKey(principal);
    let perSnapshot = this.#views.get(snapshot);
    if (perSnapshot === undefined) {
      perSnapshot = new Map();
      this.#views.set(snapshot, perSnapshot);
    }
    let view = perSnapshot.get(key);
    if (view === undefined) {
      view = this.#build(snapshot, principal);
      if (perSnapshot.size >= this.maxViewsPerSnapshot) perSnapshot.delete(perSnapshot.keys().next().value!);
      perSnapshot.set(key, view);
    }
    return view;
  }

  /** Whether one skill is visible to the principal (and through which subject kind's rank). */
  rankOf(snapshot: CatalogSnapshot, skill: CatalogSkill, subjects: ReadonlySet<string>): number | undefined {
    return this.#rank(this.#compile(snapshot).matches.get(skill.uri) ?? [], subjects);
  }

  /**
   * Whether a skill of this name at this URI is visible to the principal, for skills no snapshot lists (an exact
   * registry version asked for by URI or version, a registry API read): the rules are matched on the spot.
   */
  allows(principal: Principal, name: string, uri: string): boolean {
    if (this.open) return true;
    const matching: number[] = [];
    this.#policy.rules.forEach((rule, index) => {
      if (this.#regexps[index]!.some((re) => re.test(name)) || rule.uris.some((prefix) => uri.startsWith(prefix))) matching.push(index);
    });
    return this.#rank(matching, new Set(subjectsOf(principal))) !== undefined;
  }

  #rank(matching: readonly number[], subjects: ReadonlySet<string>): number | undefined {
    const policy = this.#policy;
    if (matching.length === 0) return policy.default === 'public' ? policy.precedence.indexOf('public') : undefined;
    let rank: number | undefined;
    for (const index of matching) {
      const rule = policy.rules[index]!;
      for (const subject of rule.deny) if (subject === 'public' || subjects.has(subject)) return undefined;
      for (const subject of rule.allow) {
        if (subject !== 'public' && !subjects.has(subject)) continue;
        const kind = (subject === 'public' ? 'public' : subject.slice(0, subject.indexOf(':'))) as SubjectKind;
        const value = policy.precedence.indexOf(kind);
        rank = rank === undefined ? value : Math.min(rank, value);
      }
    }
    return rank;
  }

  /** A digest of what the principal sees: a change means its sessions must be told (list_changed). */
  fingerprint(view: CatalogSnapshot): string {
    let value = this.#fingerprints.get(view);
    if (value === undefined) {
      const hash = createHash('sha256');
      for (const skill of view.skills) hash.update(`${skill.uri} ${skill.packageDigest}\n`);
      const session = sessionCatalog(view);
      if (session) hash.update(`required ${session.required.map((s) => s.uri).join(' ')}\npinned ${session.pinned.map((s) => s.uri).join(' ')}\n`);
      value = hash.digest('base64url');
      this.#fingerprints.set(view, value);
    }
    return value;
  }

  #compile(snapshot: CatalogSnapshot): Compiled {
    let compiled = this.#compiled.get(snapshot);
    if (compiled === undefined || compiled.policy !== this.#policy) {
      const matches = new Map<string, number[]>();
      const rules = this.#policy.rules;
      for (const skill of snapshot.skills) {
        const hits: number[] = [];
        rules.forEach((rule, index) => {
          if (this.#regexps[index]!.some((re) => re.test(skill.name)) || rule.uris.some((prefix) => skill.uri.startsWith(prefix))) hits.push(index);
        });
        if (hits.length > 0) matches.set(skill.uri, hits);
      }
      compiled = { policy: this.#policy, matches };
      this.#compiled.set(snapshot, compiled);
    }
    return compiled;
  }

  #build(snapshot: CatalogSnapshot, principal: Principal): ViewSnapshot {
    const subjects = new Set(subjectsOf(principal));
    const visible: CatalogSkill[] = [];
    const ranks = new Map<string, number>();
    for (const skill of snapshot.skills) {
      const rank = this.rankOf(snapshot, skill, subjects);
      if (rank === undefined) continue;
      visible.push(skill);
      ranks.set(skill.uri, rank);
    }
    let view: ViewSnapshot | undefined;
    const base = snapshot.unlisted;
    // A name known to a provider but listed by no one (every version yanked or revoked): reachable, like a listed
    // skill, when the policy lets the principal see that name at that URI. Otherwise it does not exist.
    const ghost = (name: string): string | undefined => {
      const uri = base?.unlistedName?.(name);
      return uri !== undefined && this.allows(principal, name, uri) ? uri : undefined;
    };
    const ghostUri = (uri: string): boolean => {
      const name = safeDecode(uri.replace(/\/SKILL\.md$/, '').split('/').at(-1) ?? '');
      return name !== '' && ghost(name) === uri;
    };
    const unlisted: UnlistedResolver | undefined = base && {
      // An unlisted skill (an exact registry version) is reachable when the principal sees a listed skill of the same
      // name from the same source, and the policy allows its name and URI; a refusal (a revoked version) is shown
      // only when the principal sees a skill of that source whose name is a segment of the URI. Otherwise: not found.
      lookup: (uri) => {
        const found = base.lookup(uri);
        if (found === undefined || view === undefined) return undefined;
        if ('skill' in found) return sameSource(view, found.skill) && this.allows(principal, found.skill.name, found.skill.uri) ? found : undefined;
        const segments = uri.slice('skill://'.length).split('/').map((segment) => safeDecode(segment));
        return segments.some((segment) => view!.allNamed(segment).some((skill) => skill.origin.kind === 'stored')) || ghostUri(uri) ? found : undefined;
      },
      // Other versions of a skill the principal sees (same name, same source): the caller already holds its URI.
      version: (skillUri, selector) => (view !== undefined && (view.skill(skillUri) !== undefined || ghostUri(skillUri)) ? base.version(skillUri, selector) : undefined),
      unlistedName: ghost,
    };
    view = new ViewSnapshot(visible, snapshot.generation, ranks, unlisted, snapshot);
    const sessions = this.#policy.sessions.filter((session) => subjects.has(session.for));
    if (sessions.length > 0) {
      const pick = (refs: string[], taken: Set<string>): CatalogSkill[] => {
        const out: CatalogSkill[] = [];
        for (const ref of refs) {
          for (const skill of resolveRef(view, ref)) {
            if (taken.has(skill.uri)) continue;
            taken.add(skill.uri);
            out.push(skill);
          }
        }
        return out;
      };
      const taken = new Set<string>();
      const required = pick(sessions.flatMap((session) => session.required), taken);
      const pinned = pick(sessions.flatMap((session) => session.pinned), taken);
      view.session = { required, pinned };
    }
    return view;
  }
}

function sameSource(view: ViewSnapshot, skill: CatalogSkill): boolean {
  const origin = skill.origin;
  return view.allNamed(skill.name).some((listed) => listed.origin.kind === origin.kind && (origin.kind !== 'stored' || (listed.origin.kind === 'stored' && listed.origin.source === origin.source)));
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** A session entry: a URI names one skill, a name the best-ranked visible skill(s) of that name. Hidden: nothing. */
function resolveRef(view: ViewSnapshot, ref: string): readonly CatalogSkill[] {
  if (ref.startsWith('skill://')) {
    const canonical = canonicalSkillUri(ref);
    const skill = canonical === undefined ? undefined : view.skill(canonical) ?? view.skill(`${canonical.replace(/\/$/, '')}/SKILL.md`);
    return skill ? [skill] : [];
  }
  return view.named(ref);
}
