import type { FolderProblem, FolderProblemCode } from '@skillport/core';
import { originText } from './folder-scan.js';
import { diff } from './live-catalog.js';
import type { CatalogChanges, LiveCatalog } from './live-catalog.js';
import type { CatalogSkill } from './model.js';
import { CatalogSnapshot } from './snapshot.js';
import type { UnlistedResolver } from './snapshot.js';

/**
 * A source of skills other than the served folders: a registry, archives, a remote HTTP host. It hands over finished
 * catalog skills (URIs assigned, origins that can read their bytes) and says when they change.
 */
export interface SkillProvider {
  /** Short label for messages (`registry`, `archives`, `https://host`). */
  readonly label: string;
  /** The skills it serves now. */
  skills(): readonly CatalogSkill[];
  /** Called after its skills changed. Returns a function that unsubscribes. */
  onChange(listener: () => void): () => void;
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

/** A skill found by a provider, or the one-line reason it is refused. */
export type SkillLookup = { skill: CatalogSkill } | { refused: string };

export interface VersionSelector {
  /** An exact version or a tag. */
  version?: string;
  /** A package digest (`sha256:<hex>`). */
  digest?: string;
}

type Listener = (changes: CatalogChanges, snapshot: CatalogSnapshot) => void;

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

  constructor(readonly live: LiveCatalog, readonly providers: readonly SkillProvider[], readonly onProblem: (problem: FolderProblem) => void = () => {}) {
    this.#snapshot = this.#build();
    this.#unsubscribe.push(live.onChange(() => this.#rebuild()));
    for (const provider of providers) this.#unsubscribe.push(provider.onChange(() => this.#rebuild()));
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

  #build(): CatalogSnapshot {
    if (this.providers.length === 0) return this.live.snapshot;
    const byUri = new Map<string, CatalogSkill>();
    for (const skill of this.live.snapshot.skills) byUri.set(skill.uri, skill);
    for (const provider of this.providers) {
      let skills: readonly CatalogSkill[];
      try {
        skills = provider.skills();
      } catch (error) {
        this.#reportOnce(`${provider.label}: could not list skills (${(error as Error).message}); its skills are not served`, provider.label);
        continue;
      }
      for (const skill of skills) {
        const existing = byUri.get(skill.uri);
        if (existing === undefined) byUri.set(skill.uri, skill);
        else this.#reportOnce(`two skills at ${skill.uri}: ${originText(existing)} and ${originText(skill)}; serving the first`, originText(skill), 'uri-conflict');
      }
    }
    const resolvers = this.providers.filter((provider) => provider.lookup !== undefined || provider.version !== undefined || provider.unlistedName !== undefined);
    const resolver = resolvers.length === 0 ? undefined : providerResolver(resolvers);
    if (resolver !== undefined) {
      // A URI a provider answers for an unlisted skill of its own (a registry's exact version) is that provider's:
      // a listed skill at the same spot (a folder named like a version) would shadow it, so it is not served.
      for (const [uri, skill] of byUri) {
        const claimed = resolver.lookup(uri);
        if (claimed !== undefined && 'skill' in claimed && claimed.skill !== skill) {
          byUri.delete(uri);
          this.#reportOnce(`${originText(skill)} is served at ${uri}, which names ${originText(claimed.skill)}'s exact version; not served (use --prefix)`, originText(skill));
        }
      }
    }
    return new CatalogSnapshot([...byUri.values()], ++this.#generation, resolver);
  }

  #reportOnce(message: string, path: string, code?: FolderProblemCode): void {
    if (this.#reported.has(message)) return;
    this.#reported.add(message);
    this.onProblem({ severity: 'error', message, path, ...(code !== undefined ? { code } : {}) });
  }
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
