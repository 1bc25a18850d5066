import type { KeyObject } from 'node:crypto';
import semver from 'semver';
import { joinSkillUri, mimeTypeFor, parseSkillUri } from '@skillport/core';
import type { SkillManifest } from '@skillport/core';
import { META_PENDING, META_PROVENANCE, META_VERSION, buildCatalogSkill } from '@skillport/server';
import type { BlobSource, CatalogSkill, SkillLookup, ProviderDelta, SkillProvider, StoredOrigin, VersionSelector } from '@skillport/server';
import { LATEST, isHeld } from './model.js';
import type { GateRecord, VersionRecord } from './model.js';
import type { RegistryStore } from './store.js';

/**
 * Serves published versions into the catalog (docs/api.md, "Versions as URIs"):
 *
 * - the version the served tag names (`latest` by default) is listed at `skill://[<prefix>/]<name>/SKILL.md`;
 * - every version is reachable, unlisted, at `skill://[<prefix>/]<version>/<name>/SKILL.md` (a version always holds a
 *   dot and a skill name never does, so the two forms cannot collide), and through `version()` by version, tag or
 *   package digest: that is how tools resolve `version` and how sessions stay pinned;
 * - yanked versions leave tags and the listing but stay readable at their exact URI; revoked versions are refused
 *   everywhere with their reason; with `requireSignatures`, so are versions no trusted key signed.
 *
 * It keeps every version's metadata in memory (a manifest per version, no file bytes) and follows the store by its
 * revision: at once after a change made through this process's service, and by polling for changes made by others.
 */
export const META_TAGS = 'dev.skillport/tags';
export const META_VERSION_URI = 'dev.skillport/versionUri';
/** What a version held for review tells its publisher and reviewers, and their agents (META_PENDING). */
export const PENDING_NOTE = 'pending review, not approved: served only to its publisher and the reviewers of its name until a reviewer approves it';

export interface RegistryProviderOptions {
  store: RegistryStore;
  /** Serve under `skill://<prefix>/`. */
  prefix?: string;
  /** The tag whose version is listed (default `latest`). */
  tag?: string;
  trustedKeys?: ReadonlyMap<string, KeyObject>;
  requireSignatures?: boolean;
  /** How often to look for changes made by other processes, in ms (0: never). Default 1000. */
  pollMs?: number;
  onProblem?: (message: string) => void;
}

export class RegistryProvider implements SkillProvider {
  readonly label = 'registry';
  readonly #store: RegistryStore;
  readonly #prefix: string[];
  readonly #tag: string;
  readonly #origin: StoredOrigin;
  #versions = new Map<string, Map<string, VersionRecord>>();
  #tags = new Map<string, Map<string, string>>();
  #revision = -1;
  #listed: CatalogSkill[] = [];
  /** The listing by URI, and the names in it: what a change is compared with, and unlistedName's answer. */
  #listedByUri = new Map<string, CatalogSkill>();
  #listedNames = new Set<string>();
  #built = new Map<string, { key: string; skill: CatalogSkill }>();
  #listeners = new Set<(delta?: ProviderDelta) => void>();
  #refreshing: Promise<void> = Promise.resolve();
  #timer: NodeJS.Timeout | undefined;
  #unwatch: (() => void) | undefined;
  #watching: boolean | undefined;
  #lastError: string | undefined;
  #reported = new Set<string>();
  /** Versions waiting for review (never a rejected one), and a count that grows whenever any version changed. */
  #pending: VersionRecord[] = [];
  #pendingGeneration = 0;

  private constructor(readonly options: RegistryProviderOptions) {
    this.#store = options.store;
    this.#prefix = (options.prefix ?? '').split('/').filter((segment) => segment !== '');
    this.#tag = options.tag ?? LATEST;
    const blobs: BlobSource = { read: (digest, size) => this.#store.readBlob(digest, size) };
    this.#origin = { kind: 'stored', source: `registry ${this.#store.location}`, blobs };
  }

  static async open(options: RegistryProviderOptions): Promise<RegistryProvider> {
    const provider = new RegistryProvider(options);
    await provider.refresh();
    // A store that can announce changes (PostgreSQL's NOTIFY) wakes the provider at once; polling stays as the
    // safety net and catches up whatever a lost notification left behind.
    if (options.store.watch !== undefined) {
      provider.#watching = false;
      provider.#unwatch = options.store.watch(
        () => void provider.refresh(),
        (connected) => {
          provider.#watching = connected;
        },
      );
    }
    const pollMs = options.pollMs ?? 1000;
    if (pollMs > 0) {
      provider.#timer = setInterval(() => void provider.#poll(), pollMs);
      provider.#timer.unref();
    }
    return provider;
  }

  skills(): readonly CatalogSkill[] {
    return this.#listed;
  }

  onChange(listener: (delta?: ProviderDelta) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Reads what changed in the store since the last refresh; announces it when anything did. Serialised. */
  refresh(): Promise<void> {
    this.#refreshing = this.#refreshing
      .then(() => this.#refresh())
      .then(
        () => {
          this.#lastError = undefined;
        },
        (error: unknown) => {
          this.#lastError = (error as Error).message;
          this.#report(`registry: could not read the store (${(error as Error).message}); serving what was read before`);
        },
      );
    return this.#refreshing;
  }

  async #poll(): Promise<void> {
    try {
      if ((await this.#store.revision()) !== this.#revision) await this.refresh();
    } catch {
      // The store is busy or gone for a moment; the next poll tries again.
    }
  }

  async #refresh(): Promise<void> {
    const changes = await this.#store.changesSince(this.#revision);
    if (changes.revision === this.#revision) return;
    // A revision that changed no version nor tag (access data shares the revision on PostgreSQL: a token revoked,
    // the policy edited) is taken note of, and nothing is rebuilt or announced.
    if (changes.versions.length === 0 && this.#revision >= 0 && sameTags(this.#tags, changes.tags)) {
      this.#revision = changes.revision;
      return;
    }
    for (const record of changes.versions) {
      let byVersion = this.#versions.get(record.name);
      if (byVersion === undefined) this.#versions.set(record.name, (byVersion = new Map()));
      byVersion.set(record.version, record);
    }
    const tags = new Map<string, Map<string, string>>();
    for (const tag of changes.tags) {
      let byTag = tags.get(tag.name);
      if (byTag === undefined) tags.set(tag.name, (byTag = new Map()));
      byTag.set(tag.tag, tag.version);
    }
    this.#tags = tags;
    this.#revision = changes.revision;
    if (changes.versions.length > 0) {
      this.#pending = [...this.#versions.values()].flatMap((byVersion) =>
        [...byVersion.values()].filter((record) => record.review === 'pending' && record.revoked === undefined),
      );
      this.#pendingGeneration++;
    }
    this.#listed = this.#buildListed();
    // Built skills are reused while their record and tags are unchanged (#build), so what changed is what is not
    // the same object: the catalog applies just that (ADR 0130).
    const byUri = new Map<string, CatalogSkill>();
    const upsert: CatalogSkill[] = [];
    for (const skill of this.#listed) {
      byUri.set(skill.uri, skill);
      if (this.#listedByUri.get(skill.uri) !== skill) upsert.push(skill);
    }
    const remove: string[] = [];
    for (const uri of this.#listedByUri.keys()) if (!byUri.has(uri)) remove.push(uri);
    this.#listedByUri = byUri;
    this.#listedNames = new Set(this.#listed.map((skill) => skill.name));
    // What is listed is what gets read: a store with remote blobs keeps their bytes at hand.
    this.#store.warm?.(this.#listed.flatMap((skill) => skill.files));
    const delta: ProviderDelta = { upsert, remove, names: [...new Set(changes.versions.map((record) => record.name))] };
    for (const listener of this.#listeners) listener(delta);
  }

  #buildListed(): CatalogSkill[] {
    const listed: CatalogSkill[] = [];
    for (const [name, byTag] of this.#tags) {
      const version = byTag.get(this.#tag);
      const record = version === undefined ? undefined : this.#versions.get(name)?.get(version);
      if (record === undefined || this.#refusal(record) !== undefined) {
        if (record !== undefined) this.#report(`registry: ${name}@${record.version} (tag ${this.#tag}) is not served: ${this.#refusal(record)}`);
        continue;
      }
      const tagsOn = [...byTag]
        .filter(([, v]) => v === record.version)
        .map(([tag]) => tag)
        .sort();
      const skill = this.#build(record, [...this.#prefix, name], { [META_TAGS]: tagsOn, [META_VERSION_URI]: this.exactUri(name, record.version) });
      if (skill !== undefined) listed.push(skill);
    }
    return listed;
  }

  /** Grows whenever the versions changed (what `pendingFor` answers may have). */
  get pendingGeneration(): number {
    return this.#pendingGeneration;
  }

  /**
   * The versions waiting for review that `shown` lets through, as catalog skills at their exact URIs, marked
   * pending (META_PENDING, and `review: pending` in the provenance): served to those principals only (ADR 0235).
   * A rejected version is never among them.
   */
  pendingFor(shown: (record: VersionRecord) => boolean): CatalogSkill[] {
    const out: CatalogSkill[] = [];
    for (const record of this.#pending) {
      if (!shown(record)) continue;
      const skill = this.#build(record, [...this.#prefix, record.version, record.name], { [META_PENDING]: PENDING_NOTE });
      if (skill !== undefined) out.push(skill);
    }
    return out;
  }

  /** The URI of a version's SKILL.md. */
  exactUri(name: string, version: string): string {
    const skill = this.#buildExact(this.#versions.get(name)?.get(version));
    return skill?.uri ?? '';
  }

  lookup(uri: string): SkillLookup | undefined {
    const rest = this.#segments(uri);
    if (rest === undefined || rest.length < 1) return undefined;
    if (rest.length >= 2 && isVersion(rest[0]!)) {
      const record = this.#versions.get(rest[1]!)?.get(rest[0]!);
      // A version held for review is served to no one: as far as any reader can tell it does not exist.
      if (record === undefined || isHeld(record)) return undefined;
      return this.#answer(record);
    }
    // A skill of ours whose tag names nothing served any more: say why rather than "not found".
    const shown = this.#shownVersions(rest[0]!);
    if (shown.length > 0 && rest.length === 2 && rest[1] === 'SKILL.md') {
      return {
        refused: `every version of '${rest[0]}' is yanked or revoked; nothing is tagged ${this.#tag}. Ask for an exact version: ${shown.slice(-5).join(', ')}`,
      };
    }
    return undefined;
  }

  /** The versions of `name` a reader may know of (not held for review), in publish order. */
  #shownVersions(name: string): string[] {
    return [...(this.#versions.get(name)?.values() ?? [])].filter((record) => !isHeld(record)).map((record) => record.version);
  }

  unlistedName(name: string): string | undefined {
    if (this.#shownVersions(name).length === 0 || this.#listedNames.has(name)) return undefined;
    return `${joinSkillUri([...this.#prefix, name])}/SKILL.md`;
  }

  version(skillUri: string, selector: VersionSelector): SkillLookup | undefined {
    // Ours: the listed URI (<prefix>/<name>/SKILL.md, also when a folder won it) or an exact one.
    const rest = this.#segments(skillUri);
    let name: string;
    if (rest?.length === 2 && rest[1] === 'SKILL.md') name = rest[0]!;
    else if (rest?.length === 3 && rest[2] === 'SKILL.md' && isVersion(rest[0]!)) name = rest[1]!;
    else return undefined;
    const all = this.#versions.get(name);
    if (all === undefined) return undefined;
    // Versions held for review do not exist for readers: not by version, tag or digest, nor in the lists below.
    const byVersion = new Map([...all].filter(([, record]) => !isHeld(record)));
    if (byVersion.size === 0) return undefined;
    if (selector.version !== undefined) {
      const wanted = selector.version.trim();
      const version = this.#tags.get(name)?.get(wanted) ?? wanted;
      const record = byVersion.get(version);
      if (record === undefined) {
        const live = [...byVersion.values()]
          .filter((r) => r.revoked === undefined && r.yankedAt === undefined && r.review !== 'rejected')
          .map((r) => r.version)
          .sort(semver.compare);
        const tags = [...(this.#tags.get(name) ?? [])].map(([tag, v]) => `${tag} -> ${v}`).join(', ');
        return {
          refused: `Skill '${name}' has no version or tag '${wanted.slice(0, 100)}'. Versions: ${live.slice(-10).join(', ') || 'none served'}${tags ? `; tags: ${tags}` : ''}.`,
        };
      }
      return this.#answer(record);
    }
    if (selector.digest !== undefined) {
      const matches = [...byVersion.values()].filter((record) => record.packageDigest === selector.digest);
      if (matches.length === 0) return undefined;
      const tagged = this.#tags.get(name)?.get(this.#tag);
      const record = matches.find((r) => r.version === tagged) ?? matches.sort((a, b) => semver.compare(a.version, b.version)).at(-1)!;
      return this.#answer(record);
    }
    return undefined;
  }

  #answer(record: VersionRecord): SkillLookup {
    const refused = this.#refusal(record);
    if (refused !== undefined) return { refused: `${record.name}@${record.version} ${refused}` };
    const skill = this.#buildExact(record);
    return skill === undefined ? { refused: `${record.name}@${record.version} cannot be served under a skill:// URI` } : { skill };
  }

  /** Why a version is not served, or undefined. */
  #refusal(record: VersionRecord): string | undefined {
    if (record.revoked !== undefined) return `was revoked on ${record.revoked.at}: ${record.revoked.reason}`;
    if (record.review === 'rejected') return `was rejected in review${record.gate?.reviewReason ? `: ${record.gate.reviewReason}` : ''}`;
    if (record.review === 'pending') return 'is waiting for review';
    if (this.options.requireSignatures && !record.signatures.some((signature) => this.options.trustedKeys?.has(signature.keyId))) {
      return 'is not signed by a trusted key, and this server requires signatures';
    }
    return undefined;
  }

  #buildExact(record: VersionRecord | undefined): CatalogSkill | undefined {
    if (record === undefined) return undefined;
    return this.#build(record, [...this.#prefix, record.version, record.name], {});
  }

  /** Builds (or reuses, while the record and its tags are unchanged) the catalog skill of a version at `path`. */
  #build(record: VersionRecord, path: string[], extra: Record<string, unknown>): CatalogSkill | undefined {
    const id = path.join('/');
    const key = `${record.revision}|${JSON.stringify(extra)}`;
    const cached = this.#built.get(id);
    if (cached !== undefined && cached.key === key) return cached.skill;
    const manifest: SkillManifest = {
      name: record.name,
      description: record.manifest.description,
      frontmatter: record.manifest.frontmatter,
      headings: record.manifest.headings,
      files: record.manifest.files.map((file) => ({ ...file, mimeType: mimeTypeFor(file.path) })),
      totalBytes: record.manifest.totalBytes,
      packageDigest: record.packageDigest,
    };
    if (record.manifest.requirements !== undefined) manifest.requirements = record.manifest.requirements;
    const provenance: Record<string, unknown> = {
      publishedAt: record.publishedAt,
      publisher: record.publisher,
      signatures: record.signatures.map((signature) => ({ keyId: signature.keyId, trusted: this.options.trustedKeys?.has(signature.keyId) === true })),
      review: record.review,
      ...record.provenance,
    };
    // What the gate's scan found, summarised: the activation tells the model of it for versions not reviewed.
    if (record.gate !== undefined) provenance['scan'] = scanSummary(record.gate);
    if (record.yankedAt !== undefined) provenance['yankedAt'] = record.yankedAt;
    const built = buildCatalogSkill(manifest, path, this.#origin, { [META_VERSION]: record.version, [META_PROVENANCE]: provenance, ...extra });
    if (typeof built === 'string') {
      this.#report(`registry: ${record.name}@${record.version}: ${built}`);
      return undefined;
    }
    this.#built.set(id, { key, skill: built });
    return built;
  }

  /** Path segments after the prefix, decoded; undefined when the URI is not under it. */
  #segments(uri: string): string[] | undefined {
    const parsed = parseSkillUri(uri);
    if (typeof parsed === 'string') return undefined;
    const segments = parsed.segments;
    for (let i = 0; i < this.#prefix.length; i++) if (segments[i] !== this.#prefix[i]) return undefined;
    return segments.slice(this.#prefix.length);
  }

  #report(message: string): void {
    if (this.#reported.has(message)) return;
    this.#reported.add(message);
    this.options.onProblem?.(message);
  }

  /** Registry figures for /healthz. */
  stats(): { names: number; versions: number; revision: number; storeError?: string } {
    let versions = 0;
    for (const byVersion of this.#versions.values()) versions += byVersion.size;
    return { names: this.#versions.size, versions, revision: this.#revision, ...(this.#lastError !== undefined ? { storeError: this.#lastError } : {}) };
  }

  /**
   * Whether this replica is caught up with the store (for /readyz): it asks the store for its revision and compares
   * it with the last one applied; behind, it starts catching up and says so.
   */
  async readiness(): Promise<{ ready: boolean; revision: number; storeRevision?: number; reason?: string }> {
    let storeRevision: number;
    try {
      storeRevision = await this.#store.revision();
    } catch (error) {
      return { ready: false, revision: this.#revision, reason: `the store is unreachable (${(error as Error).message}); serving from memory` };
    }
    if (storeRevision !== this.#revision) {
      void this.refresh();
      return { ready: false, revision: this.#revision, storeRevision, reason: 'catching up with the store' };
    }
    if (this.#watching === false) return { ready: false, revision: this.#revision, storeRevision, reason: 'the change listener is reconnecting' };
    return { ready: true, revision: this.#revision, storeRevision };
  }

  close(): void {
    this.#unwatch?.();
    this.#unwatch = undefined;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#listeners.clear();
  }
}

/** Counts, and the distinct rules that fired (highest severity first, at most 8), as `_meta` carries them. */
function scanSummary(gate: GateRecord): Record<string, unknown> {
  const rules = new Map<string, { rule: string; severity: string; title: string; count: number }>();
  for (const finding of gate.findings) {
    const entry = rules.get(finding.rule);
    if (entry) entry.count++;
    else rules.set(finding.rule, { rule: finding.rule, severity: finding.severity, title: finding.title, count: 1 });
  }
  const rank = { high: 0, medium: 1, low: 2 } as Record<string, number>;
  return {
    counts: gate.counts,
    rules: [...rules.values()].sort((a, b) => (rank[a.severity] ?? 3) - (rank[b.severity] ?? 3) || b.count - a.count).slice(0, 8),
    ...(gate.reviewedBy !== undefined ? { reviewedBy: gate.reviewedBy, reviewedAt: gate.reviewedAt } : {}),
  };
}

function isVersion(segment: string): boolean {
  return segment.includes('.') && semver.valid(segment) === segment;
}

function sameTags(known: ReadonlyMap<string, ReadonlyMap<string, string>>, tags: ReadonlyArray<{ name: string; tag: string; version: string }>): boolean {
  let count = 0;
  for (const byTag of known.values()) count += byTag.size;
  return count === tags.length && tags.every((tag) => known.get(tag.name)?.get(tag.tag) === tag.version);
}
