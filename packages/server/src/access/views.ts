import { createHash, randomBytes } from 'node:crypto';
import { canonicalSkillUri } from '@skillport/core';
import type { AvailableCapabilities } from '@skillport/core';
import type { CatalogSkill } from '../catalog/model.js';
import { CatalogSnapshot } from '../catalog/snapshot.js';
import type { SnapshotDelta, SnapshotState, UnlistedResolver } from '../catalog/snapshot.js';
import { OPEN_POLICY, globToRegExp } from './policy.js';
import type { PolicyDocument } from './policy.js';
import { subjectsOf, viewKey } from './principal.js';
import { versionOf } from '../tools/versions.js';
import type { Principal, SubjectKind } from './principal.js';

/**
 * Per-principal views. A view is an ordinary `CatalogSnapshot` holding only the skills the principal may see, so
 * every surface that answers from a snapshot (the extension, tools, prompts, completions, the index, the HTTP fast
 * path) answers from the view without knowing about identity: a hidden skill is simply absent, and so answers
 * exactly like one that does not exist. Views are built on first use and cached per (snapshot, policy, subjects).
 */
/**
 * Skills a plugin serves to some principals only, beside their views (a registry's versions held for review: to
 * their publishers and reviewers). Each is a skill no snapshot lists; whoever is not given it finds nothing there.
 */
export interface PrivateSkills {
  /** Grows whenever what any principal is given may have changed. */
  generation(): number;
  /** The skills given to `principal` (already judged by the policy's visibility), in any order. */
  for(principal: Principal): readonly CatalogSkill[];
  /** Called after `generation` grew. */
  onChange?(listener: () => void): () => void;
}

/** The rank of a private skill in name lookups: after every skill the view lists (a served version wins its name). */
const PRIVATE_RANK = Number.MAX_SAFE_INTEGER;

export interface SessionCatalog {
  required: readonly CatalogSkill[];
  pinned: readonly CatalogSkill[];
}

/** A filtered snapshot whose name lookups follow the policy's precedence. */
export class ViewSnapshot extends CatalogSnapshot {
  readonly #rank: (skill: CatalogSkill) => number | undefined;
  session: SessionCatalog | undefined;
  /** The private skills this view holds beside the catalog's (search indexes them apart). */
  privates: readonly CatalogSkill[] = [];

  /** `base`: the catalog snapshot this view was filtered from (a shared search index follows it, not the view). */
  constructor(
    skills: readonly CatalogSkill[],
    generation: number,
    rank: (skill: CatalogSkill) => number | undefined,
    unlisted?: UnlistedResolver,
    readonly base?: CatalogSnapshot,
    state?: SnapshotState,
  ) {
    super(skills, generation, unlisted, state);
    this.#rank = rank;
  }

  /** The view after `delta` (already filtered to what the principal sees), sharing this view's maps (ADR 0130). */
  derive(delta: SnapshotDelta, base: CatalogSnapshot, unlisted: UnlistedResolver | undefined): ViewSnapshot {
    const view = new ViewSnapshot([], base.generation, this.#rank, unlisted, base, this.changedState(delta));
    view.privates = this.privates;
    return view;
  }

  /** The best-ranked skills of that name (several only when they tie): what a name-based call means. */
  override named(name: string): readonly CatalogSkill[] {
    const all = super.named(name);
    if (all.length < 2) return all;
    let best = Infinity;
    for (const skill of all) best = Math.min(best, this.#rank(skill) ?? Infinity);
    return all.filter((skill) => (this.#rank(skill) ?? Infinity) === best);
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

export class ViewCache {
  #policy: PolicyDocument = OPEN_POLICY;
  /** For each skill: the indexes of the policy's rules that match it (per skill, so a change costs its skills only). */
  #matches = new WeakMap<CatalogSkill, readonly number[]>();
  /** Sums of per-skill hashes (4 lanes), so a fingerprint follows a delta instead of hashing the whole view. */
  #sums = new WeakMap<CatalogSnapshot, Uint32Array>();
  #views = new WeakMap<CatalogSnapshot, Map<string, CatalogSnapshot>>();
  #fingerprints = new WeakMap<CatalogSnapshot, string>();
  #regexps: RegExp[][] = [];
  #private: PrivateSkills[] = [];
  /** What each principal is given beside its view, kept while no source's generation nor the policy moved. */
  #extras = new WeakMap<Principal, { stamps: number[]; policy: PolicyDocument; skills: readonly CatalogSkill[]; key: string; viewKey: string }>();

  constructor(readonly maxViewsPerSnapshot = 1000) {}

  /** Adds a source of private skills (a plugin's); views then hold what it gives each principal. */
  addPrivate(source: PrivateSkills): void {
    this.#private.push(source);
  }

  /**
   * The private skills `principal` is given (none for almost every caller) and the key they add to its view's: a
   * view holding them is cached apart, so nothing built for it (pages, search views) is ever another's.
   */
  #extrasFor(principal: Principal): { skills: readonly CatalogSkill[]; key: string; viewKey?: string } {
    const sources = this.#private;
    if (sources.length === 0) return NONE;
    const known = this.#extras.get(principal);
    // Asked at every lookup: the generations are compared in place, nothing is made unless one moved.
    if (known !== undefined && known.policy === this.#policy) {
      let same = true;
      for (let at = 0; at < sources.length && same; at++) same = sources[at]!.generation() === known.stamps[at];
      if (same) return known;
    }
    const stamps = sources.map((source) => source.generation());
    const subjects = new Set(subjectsOf(principal));
    const skills = this.#private.flatMap((source) => source.for(principal)).filter((skill) => this.#scopesMet(skill, subjects));
    const key =
      skills.length === 0
        ? ''
        : `\n\u0000private ${createHash('sha256')
            .update(
              skills
                .map((skill) => `${skill.uri} ${skill.packageDigest}`)
                .sort()
                .join('\n'),
            )
            .digest('base64url')}`;
    const found = { stamps, policy: this.#policy, skills: skills.length === 0 ? [] : skills, key, viewKey: viewKey(principal) + key };
    this.#extras.set(principal, found);
    return found;
  }

  get policy(): PolicyDocument {
    return this.#policy;
  }

  /** Swaps the policy in; views are rebuilt from it on their next use. */
  setPolicy(policy: PolicyDocument): void {
    this.#policy = policy;
    this.#regexps = policy.rules.map((rule) => rule.skills.map(globToRegExp));
    this.#matches = new WeakMap();
    this.#views = new WeakMap();
    this.#granted = new Map();
  }

  /**
   * True when every skill is visible to everyone and nothing is session-specific (the view is the snapshot). A policy
   * with grants is never open: a skill requiring a scope is then shown only to principals granted it (ADR 0220).
   */
  get open(): boolean {
    const policy = this.#policy;
    return policy.rules.length === 0 && policy.default === 'public' && policy.sessions.length === 0 && policy.grants.length === 0;
  }

  #granted = new Map<string, AvailableCapabilities>();

  /**
   * What the policy's grants give the principal (the union over its subjects): the server's side of availability.
   * Undefined when the policy declares no grants at all (then only the host can say what it has).
   */
  granted(principal: Principal): AvailableCapabilities | undefined {
    const grants = this.#policy.grants;
    if (grants.length === 0) return undefined;
    const key = viewKey(principal);
    let found = this.#granted.get(key);
    if (found === undefined) {
      const subjects = new Set(subjectsOf(principal));
      const mine = grants.filter((grant) => grant.for === 'public' || subjects.has(grant.for));
      found = {
        mcpServers: [...new Set(mine.flatMap((grant) => grant.connections))],
        tools: [...new Set(mine.flatMap((grant) => grant.tools))],
        scopes: [...new Set(mine.flatMap((grant) => grant.scopes))],
      };
      if (this.#granted.size >= this.maxViewsPerSnapshot) this.#granted.delete(this.#granted.keys().next().value!);
      this.#granted.set(key, found);
    }
    return found;
  }

  /** Whether the principal holds every scope the skill requires (always, with an open policy). */
  scopesAllow(principal: Principal, skill: CatalogSkill): boolean {
    return this.open || this.#scopesMet(skill, new Set(subjectsOf(principal)));
  }

  /** A skill requiring scopes is visible only when every one is granted (names compared without case). */
  #scopesMet(skill: CatalogSkill, subjects: ReadonlySet<string>): boolean {
    const wanted = skill.requirements?.scopes;
    if (wanted === undefined || wanted.length === 0) return true;
    const have = new Set<string>();
    for (const grant of this.#policy.grants)
      if (grant.for === 'public' || subjects.has(grant.for)) for (const scope of grant.scopes) have.add(scope.toLowerCase());
    return wanted.every((scope) => have.has(scope.toLowerCase()));
  }

  view(snapshot: CatalogSnapshot, principal: Principal): CatalogSnapshot {
    const extras = this.#extrasFor(principal);
    if (this.open && extras.skills.length === 0) return snapshot;
    const key = extras.viewKey ?? viewKey(principal);
    let perSnapshot = this.#views.get(snapshot);
    if (perSnapshot === undefined) {
      perSnapshot = new Map();
      this.#views.set(snapshot, perSnapshot);
    }
    let view = perSnapshot.get(key);
    if (view === undefined) {
      view = this.#derive(snapshot, principal, key) ?? this.#build(snapshot, principal, extras.skills);
      if (perSnapshot.size >= this.maxViewsPerSnapshot) perSnapshot.delete(perSnapshot.keys().next().value!);
      perSnapshot.set(key, view);
    }
    return view;
  }

  /** Whether one skill is visible to the principal (and through which subject kind's rank). */
  rankOf(snapshot: CatalogSnapshot, skill: CatalogSkill, subjects: ReadonlySet<string>): number | undefined {
    if (!this.#scopesMet(skill, subjects)) return undefined;
    const rank = this.#rank(this.#matchesOf(skill), subjects);
    if (rank === undefined) return undefined;
    // A nested skill's files are files of the skill around it too, at the same URIs (ADR 0003): the outer skill is
    // shown only to those who may see every skill inside it, or its listing and reads would give a hidden one away.
    for (const inner of skillsInside(snapshot, skill)) if (this.rankOf(snapshot, inner, subjects) === undefined) return undefined;
    return rank;
  }

  /**
   * Whether a skill of this name at this URI is visible to the principal, for skills no snapshot lists (an exact
   * registry version asked for by URI or version, a registry API read): the rules are matched on the spot.
   */
  allows(principal: Principal, name: string, uri: string): boolean {
    if (this.open) return true;
    return this.#rank(this.#matching(name, uri), new Set(subjectsOf(principal))) !== undefined;
  }

  /**
   * What the policy lets the principal write under this name (ADR 0180), scopes aside: `publish` (publish, tag,
   * yank) needs the name visible to it and, where a matching rule names publish subjects, one of them; `revoke`
   * (revoke, review) needs the name visible and a matching rule naming one of its subjects under `revoke`.
   */
  writeGrants(principal: Principal, name: string, uri: string): { publish: boolean; revoke: boolean } {
    if (this.open) return { publish: true, revoke: false };
    const matching = this.#matching(name, uri);
    const subjects = new Set(subjectsOf(principal));
    if (this.#rank(matching, subjects) === undefined) return { publish: false, revoke: false };
    const held = (list: readonly string[]) => list.some((subject) => subject === 'public' || subjects.has(subject));
    const rules = matching.map((index) => this.#policy.rules[index]!);
    const limited = rules.filter((rule) => rule.publish.length > 0);
    return {
      publish: limited.length === 0 || limited.some((rule) => held(rule.publish)),
      revoke: rules.some((rule) => held(rule.revoke)),
    };
  }

  #matching(name: string, uri: string): number[] {
    const matching: number[] = [];
    this.#policy.rules.forEach((rule, index) => {
      if (this.#regexps[index]!.some((re) => re.test(name)) || rule.uris.some((prefix) => uri.startsWith(prefix))) matching.push(index);
    });
    return matching;
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

  /**
   * A digest of what the principal sees: a change means its sessions must be told (list_changed). It is the sum
   * of one hash per visible skill (URI and package digest), in four 32-bit lanes, so a view derived by a delta gets
   * its fingerprint from its parent's in time proportional to the delta.
   */
  fingerprint(view: CatalogSnapshot): string {
    let value = this.#fingerprints.get(view);
    if (value === undefined) {
      const sums = this.#sumsOf(view);
      const hash = createHash('sha256');
      hash.update(`${view.size} ${Buffer.from(sums.buffer, sums.byteOffset, sums.byteLength).toString('hex')}\n`);
      const session = sessionCatalog(view);
      if (session) hash.update(`required ${session.required.map((s) => s.uri).join(' ')}\npinned ${session.pinned.map((s) => s.uri).join(' ')}\n`);
      value = hash.digest('base64url');
      this.#fingerprints.set(view, value);
    }
    return value;
  }

  #sumsOf(view: CatalogSnapshot): Uint32Array {
    let sums = this.#sums.get(view);
    if (sums !== undefined) return sums;
    const parent = view.parent?.deref();
    const parentSums = parent === undefined ? undefined : this.#sums.get(parent);
    if (parent !== undefined && parentSums !== undefined && view.delta !== undefined) {
      sums = parentSums.slice();
      for (const uri of view.delta.remove) {
        const old = parent.listed(uri);
        if (old !== undefined) addHash(sums, old, -1);
      }
      for (const skill of view.delta.upsert) {
        const old = parent.listed(skill.uri);
        if (old !== undefined) addHash(sums, old, -1);
        addHash(sums, skill, 1);
      }
    } else {
      sums = new Uint32Array(4);
      for (const skill of view.skills) addHash(sums, skill, 1);
    }
    this.#sums.set(view, sums);
    return sums;
  }

  #matchesOf(skill: CatalogSkill): readonly number[] {
    let hits = this.#matches.get(skill);
    if (hits === undefined) {
      hits = this.#matching(skill.name, skill.uri);
      this.#matches.set(skill, hits);
    }
    return hits;
  }

  /**
   * The principal's view of a snapshot derived by a delta, from its view of the parent snapshot when that is still
   * cached: the delta filtered to what the principal sees, applied to the parent view (ADR 0130). Undefined: build.
   */
  #derive(snapshot: CatalogSnapshot, principal: Principal, key: string): ViewSnapshot | undefined {
    const parent = snapshot.parent?.deref();
    const delta = snapshot.delta;
    if (parent === undefined || delta === undefined) return undefined;
    const before = this.#views.get(parent)?.get(key);
    if (!(before instanceof ViewSnapshot)) return undefined;
    // A skill added or removed inside another decides whether that other one is shown (rankOf): built again whole.
    if (delta.upsert.some((skill) => heldByAnother(snapshot, skill.uri)) || delta.remove.some((uri) => heldByAnother(parent, uri))) return undefined;
    const subjects = new Set(subjectsOf(principal));
    const upsert: CatalogSkill[] = [];
    const remove: string[] = [];
    for (const skill of delta.upsert) {
      if (this.rankOf(snapshot, skill, subjects) !== undefined) upsert.push(skill);
      else if (before.listed(skill.uri) !== undefined) remove.push(skill.uri);
    }
    for (const uri of delta.remove) if (before.listed(uri) !== undefined) remove.push(uri);
    let view: ViewSnapshot | undefined;
    view = before.derive(
      { upsert, remove },
      snapshot,
      this.#resolver(snapshot, principal, () => view),
    );
    this.#addSession(view, subjects);
    return view;
  }

  #build(snapshot: CatalogSnapshot, principal: Principal, extras: readonly CatalogSkill[] = []): ViewSnapshot {
    const subjects = new Set(subjectsOf(principal));
    // A private skill never takes a URI the catalog serves: it is an exact version, at a URI of its own.
    const added = new Set<CatalogSkill>();
    for (const skill of extras) {
      if (snapshot.skill(skill.uri) !== undefined || added.has(skill)) continue;
      added.add(skill);
    }
    const rank = (skill: CatalogSkill) => (added.has(skill) ? PRIVATE_RANK : this.rankOf(snapshot, skill, subjects));
    let view: ViewSnapshot | undefined;
    if (added.size > 0) {
      // The view the principal has without them (the snapshot itself with an open policy), plus an overlay of them:
      // its maps are shared, so each publisher's or reviewer's view costs its sorted array and its private skills.
      const plain = this.open ? snapshot : this.#plainView(snapshot, principal);
      view = new ViewSnapshot(
        [],
        snapshot.generation,
        rank,
        this.#resolver(snapshot, principal, () => view),
        snapshot,
        plain.changedState({ upsert: [...added], remove: [] }),
      );
    } else {
      const visible: CatalogSkill[] = [];
      for (const skill of snapshot.skills) if (this.rankOf(snapshot, skill, subjects) !== undefined) visible.push(skill);
      view = new ViewSnapshot(
        visible,
        snapshot.generation,
        rank,
        this.#resolver(snapshot, principal, () => view),
        snapshot,
      );
    }
    view.privates = [...added];
    this.#addSession(view, subjects);
    return view;
  }

  /** The principal's view without private skills, cached under its subjects' key as any such view is. */
  #plainView(snapshot: CatalogSnapshot, principal: Principal): ViewSnapshot {
    const key = viewKey(principal);
    const perSnapshot = this.#views.get(snapshot);
    const known = perSnapshot?.get(key);
    if (known instanceof ViewSnapshot) return known;
    const plain = this.#derive(snapshot, principal, key) ?? this.#build(snapshot, principal);
    if (perSnapshot !== undefined) {
      if (perSnapshot.size >= this.maxViewsPerSnapshot) perSnapshot.delete(perSnapshot.keys().next().value!);
      perSnapshot.set(key, plain);
    }
    return plain;
  }

  /** The unlisted skills (exact registry versions) a principal may reach through its view. */
  #resolver(snapshot: CatalogSnapshot, principal: Principal, current: () => ViewSnapshot | undefined): UnlistedResolver | undefined {
    // With private skills about, a view answers versions of its own even when no provider resolves any.
    const base = snapshot.unlisted ?? (this.#private.length > 0 ? NO_UNLISTED : undefined);
    // A name known to a provider but listed by no one (every version yanked or revoked): reachable, like a listed
    // skill, when the policy lets the principal see that name at that URI. Otherwise it does not exist.
    const ghost = (name: string): string | undefined => {
      const uri = base?.unlistedName?.(name);
      return uri !== undefined && this.allows(principal, name, uri) ? uri : undefined;
    };
    const ghostUri = (uri: string): boolean => {
      const name = safeDecode(
        uri
          .replace(/\/SKILL\.md$/, '')
          .split('/')
          .at(-1) ?? '',
      );
      return name !== '' && ghost(name) === uri;
    };
    const unlisted: UnlistedResolver | undefined = base && {
      // An unlisted skill (an exact registry version) is reachable when the principal sees a listed skill of the same
      // name from the same source, and the policy allows its name and URI; a refusal (a revoked version) is shown
      // only when the principal sees a skill of that source whose name is a segment of the URI. Otherwise: not found.
      lookup: (uri) => {
        const found = base.lookup(uri);
        const view = current();
        if (found === undefined || view === undefined) return undefined;
        if ('skill' in found) {
          const visible = sameSource(view, found.skill) && this.allows(principal, found.skill.name, found.skill.uri);
          return visible && this.#scopesMet(found.skill, new Set(subjectsOf(principal))) ? found : undefined;
        }
        const segments = uri
          .slice('skill://'.length)
          .split('/')
          .map((segment) => safeDecode(segment));
        return segments.some((segment) => view!.allNamed(segment).some((skill) => skill.origin.kind === 'stored')) || ghostUri(uri) ? found : undefined;
      },
      // Other versions of a skill the principal sees (same name, same source): the caller already holds its URI.
      version: (skillUri, selector) => {
        const view = current();
        if (view === undefined || (view.skill(skillUri) === undefined && !ghostUri(skillUri))) return undefined;
        const own = privateVersion(this.#extrasFor(principal).skills, view.skill(skillUri)?.name, selector);
        if (own !== undefined && view.skill(own.uri) === own) return { skill: own };
        const found = base.version(skillUri, selector);
        // Another version may require a scope this one does not: it answers as if it did not exist.
        return found !== undefined && 'skill' in found && !this.#scopesMet(found.skill, new Set(subjectsOf(principal))) ? undefined : found;
      },
      unlistedName: ghost,
    };
    return unlisted;
  }

  /** The session catalog (required and pinned skills) of the principal's policy sessions, from its view. */
  #addSession(view: ViewSnapshot, subjects: ReadonlySet<string>): void {
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
      const required = pick(
        sessions.flatMap((session) => session.required),
        taken,
      );
      const pinned = pick(
        sessions.flatMap((session) => session.pinned),
        taken,
      );
      view.session = { required, pinned };
    }
  }
}

/** The private skill of that name a version selector names (exact version, or package digest), if one is given. */
function privateVersion(extras: readonly CatalogSkill[], name: string | undefined, selector: { version?: string; digest?: string }): CatalogSkill | undefined {
  if (name === undefined || extras.length === 0) return undefined;
  const version = selector.version?.trim();
  return extras.find(
    (skill) => skill.name === name && (version !== undefined && version !== '' ? versionOf(skill) === version : skill.packageDigest === selector.digest),
  );
}

const NO_UNLISTED: UnlistedResolver = { lookup: () => undefined, version: () => undefined };

const NONE = { skills: [] as readonly CatalogSkill[], key: '' };

/** Adds (or takes away, sign -1) one skill's hash to a view's fingerprint sums: four lanes of its sha256. */
/**
 * Seeds of the per-skill hash, drawn per process: a fingerprint never leaves the process, and without them nobody can
 * aim a skill's URI or content at a collision (which would keep a view's sessions from being told of a change).
 */
const SEEDS = new Uint32Array(randomBytes(16).buffer.slice(0));

function addHash(sums: Uint32Array, skill: CatalogSkill, sign: 1 | -1): void {
  // Four seeded 32-bit lanes over the URI and the package digest, each mixed to the end: a sha256 per skill was
  // ~0.4 s of the first request after a 100,000-skill warm restart (the first view's fingerprint).
  let a = SEEDS[0]!;
  let b = SEEDS[1]!;
  let c = SEEDS[2]!;
  let d = SEEDS[3]!;
  const mix = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      a = Math.imul(a ^ code, 0x01000193);
      b = Math.imul(b ^ code, 0x85ebca6b);
      c = Math.imul(c ^ code, 0xc2b2ae35);
      d = Math.imul(d ^ code, 0x27d4eb2f);
    }
  };
  mix(skill.uri);
  a = Math.imul(a ^ 0x20, 0x01000193);
  b = Math.imul(b ^ 0x20, 0x85ebca6b);
  c = Math.imul(c ^ 0x20, 0xc2b2ae35);
  d = Math.imul(d ^ 0x20, 0x27d4eb2f);
  mix(skill.packageDigest);
  sums[0] = (sums[0]! + sign * finish(a, b)) >>> 0;
  sums[1] = (sums[1]! + sign * finish(b, c)) >>> 0;
  sums[2] = (sums[2]! + sign * finish(c, d)) >>> 0;
  sums[3] = (sums[3]! + sign * finish(d, a)) >>> 0;
}

/** Murmur3's finaliser over one lane and a neighbour: every input bit reaches every output bit. */
function finish(lane: number, other: number): number {
  let h = (lane ^ Math.imul(other, 0x9e3779b1)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function sameSource(view: ViewSnapshot, skill: CatalogSkill): boolean {
  const origin = skill.origin;
  return view
    .allNamed(skill.name)
    .some(
      (listed) =>
        listed.origin.kind === origin.kind && (origin.kind !== 'stored' || (listed.origin.kind === 'stored' && listed.origin.source === origin.source)),
    );
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
    const skill = canonical === undefined ? undefined : (view.skill(canonical) ?? view.skill(`${canonical.replace(/\/$/, '')}/SKILL.md`));
    return skill ? [skill] : [];
  }
  return view.named(ref);
}

/**
 * The skills listed inside `skill`'s folder (nested skills): their URIs start with its root's, so they are the run of
 * the snapshot's URI-sorted skills right after that prefix (found by a binary search; none for almost every skill).
 */
export function skillsInside(snapshot: CatalogSnapshot, skill: CatalogSkill): CatalogSkill[] {
  const prefix = `${skill.rootUri}/`;
  const skills = snapshot.skills;
  let low = 0;
  let high = skills.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (skills[middle]!.uri < prefix) low = middle + 1;
    else high = middle;
  }
  const inside: CatalogSkill[] = [];
  for (let at = low; at < skills.length && skills[at]!.uri.startsWith(prefix); at++) if (skills[at] !== skill) inside.push(skills[at]!);
  return inside;
}

/** Whether a skill other than the one at `uri` (a SKILL.md URI) is listed in a folder above it. */
function heldByAnother(snapshot: CatalogSnapshot, uri: string): boolean {
  const start = 'skill://'.length;
  let slash = uri.lastIndexOf('/');
  slash = uri.lastIndexOf('/', slash - 1);
  while (slash > start) {
    if (snapshot.listed(`${uri.slice(0, slash)}/SKILL.md`) !== undefined) return true;
    slash = uri.lastIndexOf('/', slash - 1);
  }
  return false;
}
