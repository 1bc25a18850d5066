/**
 * Every environment variable skillport reads, in one place (docs/configuration.md lists them with their
 * defaults). Commands take their values from here, never from process.env, and hand the libraries' settings to
 * them as options (the libraries read no environment), so that one name means one thing everywhere. Read at each
 * call: tests and `--config` files may change the environment between commands.
 */
export interface Environment {
  /** SKILLPORT_TOKEN: the bearer token for servers run with --auth tokens|jwt, and the publish token of a registry. */
  token?: string;
  /** SKILLPORT_PUBLISH_TOKEN: the old name of SKILLPORT_TOKEN for a registry's shared publish token (still read). */
  legacyPublishToken?: string;
  /** SKILLPORT_REGISTRY: the registry server registry commands use when --registry is not given. */
  registry?: string;
  /** SKILLPORT_CONFIG_DIR: where login tokens and user settings live (default $XDG_CONFIG_HOME/skillport). */
  configDir?: string;
  /** XDG_CONFIG_HOME (default ~/.config). */
  xdgConfigHome?: string;
  /** SKILLPORT_SEARCH_IDLE_MS: quiet time before the search index is built in the background (ADR 0151). */
  searchIdleMs?: number;
  /** SKILLPORT_SEARCH_WAIT_SKILLS: the largest catalog whose searches wait for an index still being built (ADR 0201). */
  searchWaitSkills?: number;
  /** SKILLPORT_SEARCH_WAIT_MS: how long such a search waits at most (ADR 0201). */
  searchWaitMs?: number;
  /** SKILLPORT_SEARCH_WORKERS: worker threads that read and analyse a large batch for the search index (0: none; ADR 0261). */
  searchWorkers?: number;
  /** SKILLPORT_GIT_TOKEN: a token for https git sources, sent as HTTP Basic auth to the source's origin (docs/git.md). */
  gitToken?: string;
  /** SKILLPORT_GIT_USERNAME: the user name sent with SKILLPORT_GIT_TOKEN (default x-access-token). */
  gitUsername?: string;
  /** SKILLPORT_GIT_CREDENTIALS: a git-credential-store file (https://user:token@host lines) for https git sources. */
  gitCredentials?: string;
  /** SKILLPORT_GIT_WEBHOOK_SECRET: the shared secret of the git webhook (POST /api/v1/git/webhook). */
  gitWebhookSecret?: string;
  /** XDG_CACHE_HOME: the base of the digest cache and the search index's file (default ~/.cache). */
  xdgCacheHome?: string;
  /** SKILLPORT_PAGE_CACHE_MB: the HTTP fast path's cache of serialised list pages, whole MiB, 0 = none (default 64). */
  pageCacheMb?: number;
  /** SKILLPORT_CONTENT_CACHE_MB: the cache of verified file bytes and their served forms, whole MiB, 0 = none (default 64). */
  contentCacheMb?: number;
  /** SKILLPORT_WATCH_LIMIT: watches `serve` holds before folders inside skills are swept instead (ADR 0252). */
  watchLimit?: number;
  /** SKILLPORT_WORD_VECTORS=0: search ranks lexically, without the bundled word vectors. */
  wordVectors: boolean;
  /** SKILLPORT_PG_POOL_MAX: PostgreSQL connections per replica for the registry store (default 10). */
  pgPoolMax?: number;
  /** SKILLPORT_PG_BLOB_CACHE_MB: the PostgreSQL store's in-memory blob cache, MiB (default 256). */
  pgBlobCacheMb?: number;
  /** SKILLPORT_PG_ACCESS_POOL_MAX: PostgreSQL connections per replica for the access store (default 4). */
  pgAccessPoolMax?: number;
  /** The repository a CI run builds: GitHub Actions' GITHUB_SERVER_URL/GITHUB_REPOSITORY, else GitLab's CI_PROJECT_URL. */
  ciRepository?: string;
  /** The commit it builds: GITHUB_SHA, else CI_COMMIT_SHA. */
  ciCommit?: string;
  /** NO_COLOR (https://no-color.org) and FORCE_COLOR. */
  noColor: boolean;
  forceColor: boolean;
}

const text = (name: string): string | undefined => {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
};

/** A whole number from 0 to 999,999 (spaces around it allowed), else undefined: a wrong value keeps the default. */
const whole = (name: string, least = 0): number | undefined => {
  const value = text(name)?.trim();
  if (value === undefined || !/^\d{1,6}$/.test(value)) return undefined;
  const number = Number(value);
  return number >= least ? number : undefined;
};

export function environment(): Environment {
  const idle = Number(text('SKILLPORT_SEARCH_IDLE_MS') ?? Number.NaN);
  const waitSkills = Number(text('SKILLPORT_SEARCH_WAIT_SKILLS') ?? Number.NaN);
  const waitMs = Number(text('SKILLPORT_SEARCH_WAIT_MS') ?? Number.NaN);
  const workers = Number(text('SKILLPORT_SEARCH_WORKERS') ?? Number.NaN);
  const force = process.env['FORCE_COLOR'];
  const env: Environment = {
    noColor: text('NO_COLOR') !== undefined,
    forceColor: force !== undefined && force !== '0',
    wordVectors: text('SKILLPORT_WORD_VECTORS')?.trim() !== '0',
  };
  const numbers: Array<[keyof Environment, string, number]> = [
    ['pageCacheMb', 'SKILLPORT_PAGE_CACHE_MB', 0],
    ['contentCacheMb', 'SKILLPORT_CONTENT_CACHE_MB', 0],
    ['watchLimit', 'SKILLPORT_WATCH_LIMIT', 0],
    ['pgPoolMax', 'SKILLPORT_PG_POOL_MAX', 1],
    ['pgBlobCacheMb', 'SKILLPORT_PG_BLOB_CACHE_MB', 0],
    ['pgAccessPoolMax', 'SKILLPORT_PG_ACCESS_POOL_MAX', 1],
  ];
  for (const [key, name, least] of numbers) {
    const value = whole(name, least);
    if (value !== undefined) (env as unknown as Record<string, number>)[key] = value;
  }
  const fields: Array<[keyof Environment, string]> = [
    ['token', 'SKILLPORT_TOKEN'],
    ['legacyPublishToken', 'SKILLPORT_PUBLISH_TOKEN'],
    ['registry', 'SKILLPORT_REGISTRY'],
    ['configDir', 'SKILLPORT_CONFIG_DIR'],
    ['xdgConfigHome', 'XDG_CONFIG_HOME'],
    ['xdgCacheHome', 'XDG_CACHE_HOME'],
    ['gitToken', 'SKILLPORT_GIT_TOKEN'],
    ['gitUsername', 'SKILLPORT_GIT_USERNAME'],
    ['gitCredentials', 'SKILLPORT_GIT_CREDENTIALS'],
    ['gitWebhookSecret', 'SKILLPORT_GIT_WEBHOOK_SECRET'],
  ];
  for (const [key, name] of fields) {
    const value = text(name);
    if (value !== undefined) (env as unknown as Record<string, string>)[key] = value;
  }
  const github = text('GITHUB_REPOSITORY');
  const repository = github !== undefined ? `${text('GITHUB_SERVER_URL') ?? 'https://github.com'}/${github}` : text('CI_PROJECT_URL');
  const commit = text('GITHUB_SHA') ?? text('CI_COMMIT_SHA');
  if (repository !== undefined) env.ciRepository = repository;
  if (commit !== undefined) env.ciCommit = commit;
  if (Number.isFinite(idle) && idle >= 0) env.searchIdleMs = idle;
  if (Number.isFinite(waitSkills) && waitSkills >= 0) env.searchWaitSkills = waitSkills;
  if (Number.isFinite(waitMs) && waitMs >= 0) env.searchWaitMs = waitMs;
  if (Number.isInteger(workers) && workers >= 0 && workers <= 16) env.searchWorkers = workers;
  return env;
}
