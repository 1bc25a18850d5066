import { createHash } from 'node:crypto';
import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { FolderProblem, SkillLimits } from '@skillport/core';
import type { ProviderDelta, SkillProvider } from '../catalog/composite-catalog.js';
import type { CatalogSkill } from '../catalog/model.js';
import { META_PROVENANCE } from '../tools/versions.js';
import { runGit } from './git/git-command.js';
import type { GitRunOptions } from './git/git-command.js';
import { isCommitId, localGitDir, parseGitSource } from './git/git-source.js';
import type { GitSourceSpec } from './git/git-source.js';
import { gitTree } from './git/git-tree.js';
import { repositoryKey } from './git/webhook.js';
import { listingDelta, treeSkills } from './git/tree-skills.js';
import { ProblemLog } from './stored-skill.js';
import type { TreeSkills } from './git/tree-skills.js';

/**
 * A git repository served as skills (git-source.ts has the syntax). Its ref is fetched shallowly (depth 1, the one
 * commit, never the history) into a bare repository in the cache, the commit's tree is read with `ls-tree` and
 * `cat-file` (never checked out: no hooks, filters or work-tree files), and its skills are served from memory with
 * their provenance in `_meta["dev.skillport/provenance"]` (`repository`, `ref`, `commit`, `path`).
 *
 * Following a branch: `refresh()` asks the remote for the ref (`ls-remote`) and fetches only when it moved; it runs
 * on an interval, on a webhook (the git plugin's route) and, for a repository on this machine, as soon as its ref
 * files change. A refresh builds the whole new listing first and swaps it in at once; only skills whose folder
 * changed (a new git tree id) are read and rebuilt, the others keep their objects (and their commit: the bytes are
 * the same at every later commit), and the catalog gets a delta of just that. A refresh that fails (the remote away,
 * the branch deleted, a broken fetch) keeps serving the last good commit and says so in `health()`; the last good
 * commit is kept as a ref in the cache, so a restart while the remote is away serves it too.
 */
export interface GitProviderOptions {
  source: string | GitSourceSpec;
  /** Folder for the repository copies (`<cacheDir>/<key>.git`); none: a temporary folder removed on close. */
  cacheDir?: string;
  prefix?: string;
  limits?: SkillLimits;
  /** How often the ref is asked for once watching (ms; 0: never). */
  intervalMs?: number;
  /** A token for an https remote, sent as HTTP Basic auth to that origin only (`SKILLPORT_GIT_TOKEN`). */
  token?: string;
  /** The user name sent with the token (default `x-access-token`, which GitHub and GitLab accept). */
  username?: string;
  /** A git-credential-store file (`https://user:token@host` lines) for https remotes. */
  credentialsFile?: string;
  timeoutMs?: number;
  onProblem?: (problem: FolderProblem) => void;
  /** One line per fetch that changed what is served, and per failure and recovery. */
  onEvent?: (line: string) => void;
  /** Every how many fetches the cache repository drops the objects of commits no longer served (default 20). */
  pruneEvery?: number;
  /** Quiet period after a local ref changes before it is fetched (ms). */
  debounceMs?: number;
}

export interface GitSourceHealth {
  repository: string;
  ref: string;
  /** The commit served (undefined: none yet). */
  commit?: string;
  status: 'ok' | 'failing' | 'starting';
  /** The last successful check of the remote. */
  checkedAt?: string;
  fetchedAt?: string;
  error?: string;
  failingSince?: string;
  skills: number;
}

type Listener = (delta?: ProviderDelta) => void;

export const DEFAULT_GIT_INTERVAL_MS = 60_000;
const SERVED_REF = 'refs/skillport/served';
const PRUNE_EVERY = 20;
const FETCHED_REF = 'refs/skillport/fetched';

export class GitProvider implements SkillProvider {
  readonly label: string;
  readonly spec: GitSourceSpec;
  /** Problems found by the first load (what `--strict` looks at). */
  readonly #options: GitProviderOptions;
  readonly #listeners = new Set<Listener>();
  #repo = '';
  #temporary = false;
  #listing: TreeSkills = { skills: new Map(), keys: new Map(), problems: [] };
  #skills: readonly CatalogSkill[] = [];
  #commit: string | undefined;
  #resolvedRef: string | undefined;
  #health: Omit<GitSourceHealth, 'repository' | 'ref' | 'skills' | 'commit'> = { status: 'starting' };
  #running: Promise<void> | undefined;
  #again = false;
  #fetches = 0;
  /** The ref the served listing's provenance names. */
  #servedRef: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  #debounce: NodeJS.Timeout | undefined;
  #watchers: FSWatcher[] = [];
  #closed = false;
  readonly #problems: ProblemLog;

  private constructor(options: GitProviderOptions) {
    this.#options = options;
    this.#problems = new ProblemLog(options.onProblem);
    this.spec = typeof options.source === 'string' ? parseGitSource(options.source) : options.source;
    this.label = `${this.spec.display}${this.spec.ref !== undefined ? `#${this.spec.ref}` : ''}${this.spec.subdir !== '' ? `:${this.spec.subdir}` : ''}`;
  }

  /** Fetches the ref (or, when the remote cannot be reached, serves the commit the cache last served); throws when neither. */
  static async open(options: GitProviderOptions): Promise<GitProvider> {
    const provider = new GitProvider(options);
    try {
      await provider.#init();
      await provider.refresh();
      if (provider.#commit === undefined) throw new Error(provider.#health.error ?? 'nothing fetched');
    } catch (error) {
      await provider.close();
      throw new Error(`${provider.label}: ${(error as Error).message}`);
    } finally {
      provider.#problems.starting = false;
    }
    return provider;
  }

  /** The remote's tags and the commits they name (annotated tags peeled), asked with the same isolation and credentials. */
  static async tags(options: Omit<GitProviderOptions, 'cacheDir' | 'intervalMs' | 'onProblem' | 'onEvent'>): Promise<Map<string, string>> {
    const provider = new GitProvider(options);
    const out = (await provider.#git(['ls-remote', '--tags', provider.spec.url], true)).toString('utf8');
    const tags = new Map<string, string>();
    for (const line of out.split('\n')) {
      const [oid, ref] = line.split('\t');
      if (!oid || !ref?.startsWith('refs/tags/')) continue;
      const peeled = ref.endsWith('^{}');
      const tag = ref.slice('refs/tags/'.length, peeled ? -3 : undefined);
      if (peeled || !tags.has(tag)) tags.set(tag, oid);
    }
    return tags;
  }

  /** Problems found by the first load (what `--strict` looks at). */
  get startupProblems(): readonly FolderProblem[] {
    return this.#problems.startup;
  }

  skills(): readonly CatalogSkill[] {
    return this.#skills;
  }

  onChange(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The commit served now. */
  get commit(): string | undefined {
    return this.#commit;
  }

  /** Whether a webhook's push (its repository URLs or names, and its ref) is about this source. */
  matches(repositories: readonly string[], ref: string | undefined): boolean {
    if (isCommitId(this.spec.ref ?? '')) return false;
    const served = this.#resolvedRef ?? (this.spec.ref?.startsWith('refs/') ? this.spec.ref : undefined);
    if (ref !== undefined && served !== undefined && ref !== served) return false;
    if (
      ref !== undefined &&
      served === undefined &&
      this.spec.ref !== undefined &&
      ref !== `refs/heads/${this.spec.ref}` &&
      ref !== `refs/tags/${this.spec.ref}`
    )
      return false;
    if (repositories.length === 0) return true;
    const own = repositoryKey(this.spec.display);
    return repositories.some((given) => {
      const key = repositoryKey(given);
      return key !== '' && (own === key || own.endsWith(`/${key}`));
    });
  }

  health(): GitSourceHealth {
    return {
      repository: this.spec.display,
      ref: this.#resolvedRef ?? this.spec.ref ?? 'HEAD',
      ...(this.#commit !== undefined ? { commit: this.#commit } : {}),
      ...this.#health,
      skills: this.#skills.length,
    };
  }

  /**
   * Asks the remote for the ref and, when it moved, fetches and swaps in the new commit's skills. Calls while one
   * runs are folded into one more run after it (a burst of pushes costs two fetches, not one per push).
   */
  refresh(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.#running !== undefined) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      do {
        this.#again = false;
        await this.#check();
      } while (this.#again && !this.#closed);
    })().finally(() => (this.#running = undefined));
    return this.#running;
  }

  /** Follows the ref: on the interval, and for a repository on this machine, when its ref files change. */
  watch(): void {
    if (this.#closed || isCommitId(this.spec.ref ?? '')) return;
    const interval = this.#options.intervalMs ?? DEFAULT_GIT_INTERVAL_MS;
    if (interval > 0 && this.#timer === undefined) {
      this.#timer = setInterval(() => void this.refresh(), interval);
      this.#timer.unref();
    }
    if (!this.spec.local || this.#watchers.length > 0) return;
    const gitDir = localGitDir(this.spec.url);
    if (gitDir === undefined) return;
    const ref = this.#resolvedRef ?? 'refs/heads';
    // A ref moves by a rename onto its loose file (refs/heads/<branch>), or in packed-refs after a gc or a pack.
    for (const dir of new Set([gitDir, join(gitDir, ref.startsWith('refs/') && ref !== 'refs/heads' ? dirname(ref) : 'refs/heads')])) {
      try {
        const watcher = watch(dir, { persistent: false }, (_event, name) => {
          if (name !== null && name.toString().endsWith('.lock')) return;
          this.#schedule();
        });
        watcher.on('error', () => this.#schedule());
        this.#watchers.push(watcher);
      } catch {
        /* no such folder (a ref not yet loose): the interval still follows it */
      }
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    clearTimeout(this.#debounce);
    for (const watcher of this.#watchers) watcher.close();
    this.#watchers = [];
    await this.#running?.catch(() => {});
    if (this.#temporary && this.#repo !== '') await rm(this.#repo, { recursive: true, force: true });
  }

  #schedule(): void {
    if (this.#closed) return;
    clearTimeout(this.#debounce);
    this.#debounce = setTimeout(() => void this.refresh(), this.#options.debounceMs ?? 25);
  }

  async #init(): Promise<void> {
    if (this.#options.cacheDir === undefined) {
      this.#repo = await mkdtemp(join(tmpdir(), 'skillport-git-'));
      this.#temporary = true;
    } else {
      const key = createHash('sha256')
        .update(`${this.spec.url}\0${this.spec.ref ?? ''}`)
        .digest('hex')
        .slice(0, 20);
      this.#repo = join(this.#options.cacheDir, `${key}.git`);
      await mkdir(this.#repo, { recursive: true });
    }
    await this.#git(['init', '--bare', '--quiet', this.#repo], false);
    // A restart serves what the cache last served until the remote answers (or when it never does).
    const served = await this.#git(['rev-parse', '--verify', '--quiet', `${SERVED_REF}^{commit}`]).catch(() => undefined);
    const commit = served?.toString('utf8').trim();
    // The full ref it was served under (refs/heads/main), so provenance reads the same before and after the remote answers.
    const ref = (await this.#git(['config', '--get', 'skillport.ref']).catch(() => undefined))?.toString('utf8').trim();
    if (ref) this.#resolvedRef = ref;
    if (commit) {
      try {
        await this.#serve(commit);
      } catch {
        /* a damaged cache: fetched again below */
      }
    }
  }

  /** One look at the remote; a failure is recorded (and said once), never thrown past here. */
  async #check(): Promise<void> {
    try {
      const { oid, ref } = await this.#resolve();
      this.#resolvedRef = ref;
      if (oid === this.#commit && this.#servedRef !== ref) {
        // Served from the cache under the ref as written (main): read again under its full name, no fetch needed.
        await this.#serve(oid, true);
        await this.#git(['config', 'skillport.ref', ref]);
      } else if (oid !== this.#commit) {
        if (isCommitId(ref)) await this.#git(['fetch', '--depth=1', '--no-tags', '--no-write-fetch-head', '--quiet', this.spec.url, oid], true);
        else await this.#git(['fetch', '--depth=1', '--no-tags', '--no-write-fetch-head', '--quiet', '--force', this.spec.url, `+${ref}:${FETCHED_REF}`], true);
        const fetched = isCommitId(ref) ? oid : (await this.#git(['rev-parse', '--verify', `${FETCHED_REF}^{commit}`])).toString('utf8').trim();
        await this.#serve(fetched);
        await this.#git(['update-ref', SERVED_REF, fetched]);
        await this.#git(['config', 'skillport.ref', ref]);
        this.#health.fetchedAt = new Date().toISOString();
        if (++this.#fetches % (this.#options.pruneEvery ?? PRUNE_EVERY) === 0) await this.#prune();
      }
      const recovered = this.#health.status === 'failing';
      this.#health = { ...this.#health, status: 'ok', checkedAt: new Date().toISOString() };
      delete this.#health.error;
      delete this.#health.failingSince;
      if (recovered) this.#options.onEvent?.(`git: ${this.label} reachable again; serving ${short(this.#commit)}`);
    } catch (error) {
      const message = (error as Error).message;
      const first = this.#health.status !== 'failing' || this.#health.error !== message;
      this.#health = { ...this.#health, status: 'failing', error: message, failingSince: this.#health.failingSince ?? new Date().toISOString() };
      if (first && this.#commit !== undefined) this.#options.onEvent?.(`git: ${this.label}: ${message}; still serving ${short(this.#commit)}`);
    }
  }

  /** The ref's commit on the remote, and the full ref name (a branch wins over a tag of the same name). */
  async #resolve(): Promise<{ oid: string; ref: string }> {
    const ref = this.spec.ref;
    if (ref !== undefined && isCommitId(ref)) return { oid: ref, ref };
    const patterns = ref === undefined ? ['HEAD'] : ref.startsWith('refs/') ? [ref] : [`refs/heads/${ref}`, `refs/tags/${ref}`];
    const out = (await this.#git(['ls-remote', ...(ref === undefined ? ['--symref'] : []), this.spec.url, ...patterns], true)).toString('utf8');
    const refs = new Map<string, string>();
    let head: string | undefined;
    for (const line of out.split('\n')) {
      const symref = /^ref: (\S+)\tHEAD$/.exec(line);
      if (symref) head = symref[1];
      const [oid, name] = line.split('\t');
      if (oid && name && /^[0-9a-f]{40,64}$/.test(oid)) refs.set(name, oid);
    }
    if (ref === undefined) {
      const oid = refs.get('HEAD');
      if (oid !== undefined) return { oid, ref: head ?? 'HEAD' };
    }
    for (const name of patterns) {
      const oid = refs.get(`${name}^{}`) ?? refs.get(name);
      if (oid !== undefined) return { oid, ref: name };
    }
    throw new RefError(ref === undefined ? 'the repository has no default branch (empty?)' : `no branch or tag ${ref} in the repository (deleted?)`);
  }

  /** Reads the commit's tree into skills and swaps them in, with a delta of what changed. */
  async #serve(commit: string, fresh = false): Promise<void> {
    const treeish = this.spec.subdir === '' ? `${commit}^{tree}` : `${commit}:${this.spec.subdir}`;
    const treeId = (await this.#git(['rev-parse', '--verify', '--quiet', treeish]).catch(() => undefined))?.toString('utf8').trim();
    if (!treeId) throw new RefError(`no folder ${this.spec.subdir} at commit ${short(commit)}`);
    const tree = await gitTree(this.#repo, treeId);
    const provenance = { repository: this.spec.display, ref: this.#resolvedRef ?? this.spec.ref ?? 'HEAD', commit };
    const next = await treeSkills(
      tree,
      {
        prefix: (this.#options.prefix ?? '').split('/').filter((segment) => segment !== ''),
        ...(this.#options.limits ? { limits: this.#options.limits } : {}),
        meta: { [META_PROVENANCE]: provenance },
        source: `git:${this.label}`,
      },
      fresh ? undefined : this.#listing,
    );
    this.#servedRef = provenance.ref;
    for (const problem of next.problems) this.#report({ ...problem, path: `${this.label}@${short(commit)}:${problem.path}` });
    const { upsert, remove } = listingDelta(this.#listing, next);
    const before = this.#commit;
    this.#listing = next;
    this.#commit = commit;
    this.#skills = Object.freeze([...next.skills.values()]);
    if (before !== undefined || !this.#problems.starting)
      this.#options.onEvent?.(
        `git: ${this.label} at ${short(commit)}${before !== undefined ? ` (was ${short(before)})` : ''}: ${upsert.length} added or changed, ${remove.length} removed, ${next.skills.size - upsert.length} unchanged`,
      );
    if (upsert.length + remove.length === 0) return;
    for (const listener of this.#listeners) listener({ upsert, remove });
  }

  /**
   * Drops the objects of commits no longer served: skills are served from memory, and an unchanged skill's blobs are
   * in the served commit's tree too, so nothing a reader holds needs them. A failure is not a fetch failure.
   */
  async #prune(): Promise<void> {
    try {
      await this.#git(['reflog', 'expire', '--expire=now', '--all']);
      await this.#git(['gc', '--prune=now', '--quiet']);
    } catch (error) {
      this.#report({ severity: 'warning', message: `could not prune the cache repository: ${(error as Error).message}`, path: this.#repo });
    }
  }

  #git(args: readonly string[], network = false): Promise<Buffer> {
    const options: GitRunOptions = {
      ...(this.#repo !== '' ? { cwd: this.#repo } : {}),
      ...(this.#options.timeoutMs !== undefined ? { timeoutMs: this.#options.timeoutMs } : {}),
    };
    if (network) Object.assign(options, this.#networkOptions());
    else options.protocols = [];
    if (args[0] === 'init') delete options.cwd;
    return runGit(args, options);
  }

  /** Transports and credentials for a call that reaches the remote: its own scheme only, secrets in the environment. */
  #networkOptions(): GitRunOptions {
    if (this.spec.local) return { protocols: ['file'] };
    const url = new URL(this.spec.url);
    const protocols = [url.protocol.replace(/:$/, '')];
    const secretConfig: Record<string, string> = {};
    const redact: string[] = [];
    const user =
      this.spec.userInfo ??
      (this.#options.token !== undefined ? { username: this.#options.username ?? 'x-access-token', password: this.#options.token } : undefined);
    if (user !== undefined && (url.protocol === 'https:' || url.protocol === 'http:')) {
      const basic = Buffer.from(`${user.username}:${user.password}`).toString('base64');
      secretConfig[`http.${url.origin}/.extraHeader`] = `Authorization: Basic ${basic}`;
      redact.push(user.password, basic);
    } else if (this.#options.credentialsFile !== undefined) {
      secretConfig['credential.helper'] = `store --file=${JSON.stringify(this.#options.credentialsFile)}`;
    }
    return { protocols, secretConfig, redact };
  }

  #report(problem: FolderProblem): void {
    this.#problems.report(problem);
  }
}

class RefError extends Error {}

function short(commit: string | undefined): string {
  return commit === undefined ? 'nothing' : commit.slice(0, 12);
}
