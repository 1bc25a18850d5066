import { createHash } from 'node:crypto';
import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { FolderProblem, SkillLimits } from '@skillport/core';
import type { ProviderDelta, SkillProvider } from '../catalog/composite-catalog.js';
import type { CatalogSkill } from '../catalog/model.js';
import { MAX_TREE_ENTRIES } from './git/git-tree.js';
import { listingDelta, treeSkills } from './git/tree-skills.js';
import { ProblemLog } from './stored-skill.js';
import type { TreeSkills } from './git/tree-skills.js';
import type { Tree, TreeEntry } from './git/tree.js';

/**
 * A folder holding `.claude-plugin/marketplace.json` (Claude Code's plugin marketplace), served as the skills of the
 * plugins it lists (git/marketplace.ts): read whole as a tree, files identified by size, mtime and inode and folders
 * by a digest of their entries, so a change re-reads only the skill folders it touched and the catalog gets a delta.
 * Symbolic links are not served (as in a git source). Watched recursively; a change is read after a short quiet time.
 */
export interface MarketplaceProviderOptions {
  dir: string;
  prefix?: string;
  limits?: SkillLimits;
  onProblem?: (problem: FolderProblem) => void;
  debounceMs?: number;
}

export class MarketplaceProvider implements SkillProvider {
  readonly label: string;
  readonly #options: MarketplaceProviderOptions;
  readonly #dir: string;
  readonly #listeners = new Set<(delta?: ProviderDelta) => void>();
  #listing: TreeSkills = { skills: new Map(), keys: new Map(), problems: [] };
  #skills: readonly CatalogSkill[] = [];
  #watcher: FSWatcher | undefined;
  #timer: NodeJS.Timeout | undefined;
  #loading: Promise<void> = Promise.resolve();
  #closed = false;
  readonly #problems: ProblemLog;

  private constructor(options: MarketplaceProviderOptions) {
    this.#options = options;
    this.#problems = new ProblemLog(options.onProblem);
    this.#dir = resolve(options.dir);
    this.label = `marketplace ${this.#dir}`;
  }

  static async open(options: MarketplaceProviderOptions): Promise<MarketplaceProvider> {
    const provider = new MarketplaceProvider(options);
    await provider.reload();
    provider.#problems.starting = false;
    return provider;
  }

  /** Problems found by the first load (what `--strict` looks at). */
  get startupProblems(): readonly FolderProblem[] {
    return this.#problems.startup;
  }

  skills(): readonly CatalogSkill[] {
    return this.#skills;
  }

  onChange(listener: (delta?: ProviderDelta) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Reads the folder again and publishes what changed (one reload at a time, in order). */
  reload(): Promise<void> {
    this.#loading = this.#loading
      .then(async () => {
        if (this.#closed) return;
        const tree = await folderTree(this.#dir);
        const next = await treeSkills(
          tree,
          {
            prefix: (this.#options.prefix ?? '').split('/').filter((segment) => segment !== ''),
            ...(this.#options.limits ? { limits: this.#options.limits } : {}),
            meta: {},
            source: `marketplace:${this.#dir}`,
          },
          this.#listing,
        );
        for (const problem of next.problems) this.#report({ ...problem, path: join(this.#dir, problem.path) });
        const delta = listingDelta(this.#listing, next);
        this.#listing = next;
        this.#skills = Object.freeze([...next.skills.values()]);
        if (delta.upsert.length + delta.remove.length > 0) for (const listener of this.#listeners) listener(delta);
      })
      .catch((error: unknown) => this.#report({ severity: 'error', message: `cannot read the marketplace: ${(error as Error).message}`, path: this.#dir }));
    return this.#loading;
  }

  watch(): void {
    if (this.#watcher !== undefined || this.#closed) return;
    try {
      this.#watcher = watch(this.#dir, { persistent: false, recursive: true }, () => this.#schedule());
      this.#watcher.on('error', () => this.#schedule());
    } catch (error) {
      this.#report({ severity: 'warning', message: `cannot watch for changes (${(error as Error).message}); restart to pick up changes`, path: this.#dir });
    }
  }

  close(): void {
    this.#closed = true;
    this.#watcher?.close();
    clearTimeout(this.#timer);
  }

  #schedule(): void {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.reload(), this.#options.debounceMs ?? 100);
  }

  #report(problem: FolderProblem): void {
    this.#problems.report(problem);
  }
}

const SKIPPED = new Set(['.git', 'node_modules']);

/** A folder read as a tree: no link followed, `.git` and `node_modules` skipped, at most MAX_TREE_ENTRIES entries. */
export async function folderTree(root: string): Promise<Tree> {
  const entries: TreeEntry[] = [];
  const paths = new Map<string, string>();
  const walk = async (dir: string, rel: string): Promise<string> => {
    const lines: string[] = [];
    const children = (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const child of children) {
      if (SKIPPED.has(child.name)) continue;
      if (entries.length >= MAX_TREE_ENTRIES) throw new Error(`the folder has more than ${MAX_TREE_ENTRIES} entries (the limit)`);
      const path = rel === '' ? child.name : `${rel}/${child.name}`;
      const full = join(dir, child.name);
      if (child.isDirectory()) {
        const entry: TreeEntry = { path, kind: 'folder', id: '', size: 0 };
        entries.push(entry);
        entry.id = await walk(full, path);
        lines.push(`d ${child.name} ${entry.id}`);
      } else if (child.isFile() || child.isSymbolicLink()) {
        const info = await lstat(full);
        const id = `${info.size}-${info.mtimeMs}-${info.ino}-${path}`;
        entries.push({ path, kind: child.isFile() ? 'file' : 'symlink', id, size: info.size });
        paths.set(id, full);
        lines.push(`f ${child.name} ${id}`);
      }
    }
    return createHash('sha256').update(lines.join('\n')).digest('hex');
  };
  const rootId = await walk(root, '');
  return {
    entries,
    rootId,
    read: async (ids) => {
      const found = new Map<string, Uint8Array>();
      for (const id of ids) {
        const path = paths.get(id);
        if (path !== undefined) found.set(id, await readFile(path));
      }
      return found;
    },
  };
}
