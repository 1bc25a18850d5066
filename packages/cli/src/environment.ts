/**
 * Every environment variable the skillport command reads, in one place (docs/configuration.md lists them with
 * their defaults). Commands take their values from here, never from process.env, so that one name means one
 * thing everywhere. Read at each call: tests and `--config` files may change the environment between commands.
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
  /** SKILLPORT_GIT_TOKEN: a token for https git sources, sent as HTTP Basic auth to the source's origin (docs/git.md). */
  gitToken?: string;
  /** SKILLPORT_GIT_USERNAME: the user name sent with SKILLPORT_GIT_TOKEN (default x-access-token). */
  gitUsername?: string;
  /** SKILLPORT_GIT_CREDENTIALS: a git-credential-store file (https://user:token@host lines) for https git sources. */
  gitCredentials?: string;
  /** SKILLPORT_GIT_WEBHOOK_SECRET: the shared secret of the git webhook (POST /api/v1/git/webhook). */
  gitWebhookSecret?: string;
  /** NO_COLOR (https://no-color.org) and FORCE_COLOR. */
  noColor: boolean;
  forceColor: boolean;
}

const text = (name: string): string | undefined => {
  const value = process.env[name];
  return value === undefined || value === '' ? undefined : value;
};

export function environment(): Environment {
  const idle = Number(text('SKILLPORT_SEARCH_IDLE_MS') ?? Number.NaN);
  const waitSkills = Number(text('SKILLPORT_SEARCH_WAIT_SKILLS') ?? Number.NaN);
  const waitMs = Number(text('SKILLPORT_SEARCH_WAIT_MS') ?? Number.NaN);
  const force = process.env['FORCE_COLOR'];
  const env: Environment = { noColor: text('NO_COLOR') !== undefined, forceColor: force !== undefined && force !== '0' };
  const fields: Array<[keyof Environment, string]> = [
    ['token', 'SKILLPORT_TOKEN'],
    ['legacyPublishToken', 'SKILLPORT_PUBLISH_TOKEN'],
    ['registry', 'SKILLPORT_REGISTRY'],
    ['configDir', 'SKILLPORT_CONFIG_DIR'],
    ['xdgConfigHome', 'XDG_CONFIG_HOME'],
    ['gitToken', 'SKILLPORT_GIT_TOKEN'],
    ['gitUsername', 'SKILLPORT_GIT_USERNAME'],
    ['gitCredentials', 'SKILLPORT_GIT_CREDENTIALS'],
    ['gitWebhookSecret', 'SKILLPORT_GIT_WEBHOOK_SECRET'],
  ];
  for (const [key, name] of fields) {
    const value = text(name);
    if (value !== undefined) (env as unknown as Record<string, string>)[key] = value;
  }
  if (Number.isFinite(idle) && idle >= 0) env.searchIdleMs = idle;
  if (Number.isFinite(waitSkills) && waitSkills >= 0) env.searchWaitSkills = waitSkills;
  if (Number.isFinite(waitMs) && waitMs >= 0) env.searchWaitMs = waitMs;
  return env;
}
