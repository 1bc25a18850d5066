import type { FolderProblem, FolderProblemCode } from '@skillport/core';
import { originText } from './folder-scan.js';
import { changesOf, diff } from './live-catalog.js';
import type { CatalogChanges, LiveCatalog } from './live-catalog.js';
import type { CatalogSkill } from './model.js';
import { CatalogSnapshot } from './snapshot.js';
import type { SnapshotDelta, UnlistedResolver } from './snapshot.js';

/**
 * A source of skills other than the served folders: a registry, archives, a remote HTTP host. It hands over finished
 * catalog skills (URIs assigned, origins that can read their bytes) and says when they change.
 */
export interface SkillProvider {
  /** Short label for messages (`registry`, `archives`, `https://host`). */
  readonly label: string;
  /** The skills it serves now. */
  skills(): readonly CatalogSkill[];
  /**
   * Called after its skills changed, with what changed when the provider knows (its listing's added or replaced
   * skills, and URIs it no longer lists): the catalog then applies just that (ADR 0130); without it, the catalog
   * merges every source again. Returns a function that unsubscribes.
   */
  onChange(listener: (delta?: ProviderDelta) => void): () => void;
  /**
   * A skill it serves without listing it (an exact registry version, say), found by the URI of any of its files or
   * folders; or why that skill is refused (a revoked version). Undefined: not one of its URIs.
   */
  lookup?(uri: string): SkillLookup | undefined;
  /**
   * Another version of the skill served at `skillUri` (listed or not, by this provider or, for a URI a folder won,
   * the provider's skill of the same name): by version or tag, or by package digest. Undefined: it has none.
   */
  version?(skillUri: string, selector: VersionSelector): SkillLookup | undefined;
  /**
   * The listed URI a skill of this name would have, when the provider knows the name but lists nothing for it now
   * (a registry skill whose every version is yanked or revoked), so that calls by name can say why, and reach the
   * versions still readable. Undefined: not a name of its own.
   */
  unlistedName?(name: string): string | undefined;
  /** Starts following its source for changes (when the server is told to watch). */
  watch?(): void;
  close?(): void | Promise<void>;
}

/**
 * What changed in a provider's listing, and the names whose unlisted versions changed (a version published untagged,
 * yanked, revoked): a listed skill of that name elsewhere may now be shadowed by an exact version's URI, or freed.
 */
export interface ProviderDelta extends SnapshotDelta {
  names?: readonly string[];
}

/** A skill found by a provider, or the one-line reason it is refused. */
export type SkillLookup = { skill: CatalogSkill } | { refused: string };

export interface VersionSelector {
  /** An exact version or a tag. */
  version?: string;
  /** A package digest (`sha256:<hex>`). */
  digest?: string;
}

type Listener = (changes: CatalogChanges, snapshot: CatalogSnapshot, delta?: SnapshotDelta) => void;

/**
 * The served catalog: the live folder catalog merged with every provider into one immutable snapshot, rebuilt
 * whenever any part changes. With no providers it is the folder catalog's own snapshot (no copy, no cost).
 *
 * Two skills at one URI: the folders win, then the providers in the order given; the loser is reported once
 * (not served), so every URI names exactly one skill.
 */
export class CompositeCatalog {
  #snapshot: CatalogSnapshot;
  #listeners = new Set<Listener>();
  #unsubscribe: Array<() => void> = [];
  #generation = 0;
  #reported = new Set<string>();
  /** Each provider's listing by URI, as of its last change (the incremental merge reads these). */
  #listings: Array<Map<string, CatalogSkill>> = [];

  constructor(
    readonly live: LiveCatalog,
    readonly providers: readonly SkillProvider[],
    readonly onProblem: (problem: FolderProblem) => void = () => {},
  ) {
    this.#snapshot = this.#build();
    this.#unsubscribe.push(
      live.onChange((_changes, _snapshot, delta) => (delta === undefined || this.providers.length === 0 ? this.#rebuild() : this.#apply(touchedBy(delta)))),
    );
    providers.forEach((provider, index) => {
      this.#unsubscribe.push(
        provider.onChange((delta) => {
          if (delta === undefined) return this.#rebuild();
          const listing = this.#listings[index]!;
          for (const uri of delta.remove) listing.delete(uri);
          for (const skill of delta.upsert) listing.set(skill.uri, skill);
          // A listed skill of a changed name may now be claimed (or freed) by an exact version's URI: decide it again.
          const touched = new Set(touchedBy(delta));
          const names = new Set(delta.names ?? []);
          for (const skill of delta.upsert) names.add(skill.name);
          for (const uri of delta.remove) {
            const name = this.#snapshot.listed(uri)?.name;
            if (name !== undefined) names.add(name);
          }
          for (const name of names) {
            for (const skill of this.live.snapshot.named(name)) touched.add(skill.uri);
            for (const skill of this.#snapshot.named(name)) touched.add(skill.uri);
          }
          this.#apply(touched);
        }),
      );
    });
  }

  get snapshot(): CatalogSnapshot {
    return this.#snapshot;
  }

  onChange(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async close(): Promise<void> {
    for (const unsubscribe of this.#unsubscribe) unsubscribe();
    this.#unsubscribe = [];
    this.live.close();
    await Promise.all(this.providers.map((provider) => provider.close?.()));
  }

  #rebuild(): void {
    const previous = this.#snapshot;
    const next = this.#build();
    const changes = diff(previous, next);
    // Same bytes can come with new metadata (a provider's _meta: tags, review status), so identity counts too.
    const same = next.size === previous.size && next.skills.every((skill, index) => skill === previous.skills[index]);
    if (changes.added.length + changes.removed.length + changes.changed.length === 0 && same) return;
    this.#snapshot = next;
    for (const listener of this.#listeners) listener(changes, next);
  }

  /**
   * Re-decides only the URIs a change touched, by the same rules as a full merge (folders first, then providers in
   * order; a provider's unlisted URI is its own), and derives the next snapshot from the current one.
   */
  #apply(touched: Iterable<string>): void {
    if (this.providers.length === 0) {
      this.#rebuild();
      return;
    }
    const previous = this.#snapshot;
    const resolver = previous.unlisted;
    const upsert: CatalogSkill[] = [];
    const remove: string[] = [];
    for (const uri of touched) {
      let winner = this.live.snapshot.listed(uri);
      for (const listing of this.#listings) {
        const skill = listing.get(uri);
        if (skill === undefined) continue;
        if (winner === undefined) winner = skill;
        else this.#reportOnce(`two skills at ${uri}: ${originText(winner)} and ${originText(skill)}; serving the first`, originText(skill), 'uri-conflict');
      }
      if (winner !== undefined && resolver !== undefined && this.#claimed(resolver, uri, winner)) winner = undefined;
      const before = previous.listed(uri);
      if (winner === before) continue;
      if (winner === undefined) remove.push(uri);
      else upsert.push(winner);
    }
    if (upsert.length + remove.length === 0) return;
    const delta = { upsert, remove };
    const next = previous.withChanges(delta, ++this.#generation, resolver);
    const changes = changesOf(previous, delta);
    this.#snapshot = next;
    for (const listener of this.#listeners) listener(changes, next, delta);
  }

  /** A URI a provider answers for an unlisted skill of its own (an exact version) is not served to another skill. */
  #claimed(resolver: UnlistedResolver, uri: string, skill: CatalogSkill): boolean {
    const claimed = resolver.lookup(uri);
    if (claimed === undefined || !('skill' in claimed) || claimed.skill === skill) return false;
    this.#reportOnce(
      `${originText(skill)} is served at ${uri}, which names ${originText(claimed.skill)}'s exact version; not served (use --prefix)`,
      originText(skill),
    );
    return true;
  }

  #build(): CatalogSnapshot {
    if (this.providers.length === 0) return this.live.snapshot;
    const byUri = new Map<string, CatalogSkill>();
    for (const skill of this.live.snapshot.skills) byUri.set(skill.uri, skill);
    this.#listings = this.providers.map(() => new Map());
    for (const [index, provider] of this.providers.entries()) {
      let skills: readonly CatalogSkill[];
      try {
        skills = provider.skills();
      } catch (error) {
        this.#reportOnce(`${provider.label}: could not list skills (${(error as Error).message}); its skills are not served`, provider.label);
        continue;
      }
      const listing = this.#listings[index]!;
      for (const skill of skills) listing.set(skill.uri, skill);
      for (const skill of skills) {
        const existing = byUri.get(skill.uri);
        if (existing === undefined) byUri.set(skill.uri, skill);
        else
          this.#reportOnce(
            `two skills at ${skill.uri}: ${originText(existing)} and ${originText(skill)}; serving the first`,
            originText(skill),
            'uri-conflict',
          );
      }
    }
    const resolvers = this.providers.filter(
      (provider) => provider.lookup !== undefined || provider.version !== undefined || provider.unlistedName !== undefined,
    );
    const resolver = resolvers.length === 0 ? undefined : providerResolver(resolvers);
    if (resolver !== undefined) {
      // A URI a provider answers for an unlisted skill of its own (a registry's exact version) is that provider's:
      // a listed skill at the same spot (a folder named like a version) would shadow it, so it is not served.
      for (const [uri, skill] of byUri) if (this.#claimed(resolver, uri, skill)) byUri.delete(uri);
    }
    return new CatalogSnapshot([...byUri.values()], ++this.#generation, resolver);
  }

  #reportOnce(message: string, path: string, code?: FolderProblemCode): void {
    if (this.#reported.has(message)) return;
    this.#reported.add(message);
    this.onProblem({ severity: 'error', message, path, ...(code !== undefined ? { code } : {}) });
  }
}

function touchedBy(delta: SnapshotDelta): string[] {
  return [...delta.upsert.map((skill) => skill.uri), ...delta.remove];
}

/** Asks each provider in turn for unlisted skills and versions; the first answer wins. */
function providerResolver(providers: readonly SkillProvider[]): UnlistedResolver {
  const first = (ask: (provider: SkillProvider) => SkillLookup | undefined): SkillLookup | undefined => {
    for (const provider of providers) {
      try {
        const found = ask(provider);
        if (found !== undefined) return found;
      } catch {
        // A failing provider must not take the others down; its skills are simply not found.
      }
    }
    return undefined;
  };
  return {
    lookup: (uri) => first((provider) => provider.lookup?.(uri)),
    version: (skillUri, selector) => first((provider) => provider.version?.(skillUri, selector)),
    unlistedName: (name) => {
      for (const provider of providers) {
        try {
          const uri = provider.unlistedName?.(name);
          if (uri !== undefined) return uri;
        } catch {
          // As above: a failing provider knows no names.
        }
      }
      return undefined;
    },
  };
}
