import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { CliError } from './kit.js';
import { environment } from './environment.js';

/**
 * The user's own skillport files, as npm's ~/.npmrc and gh's ~/.config/gh/hosts.yml keep theirs: in
 * `$SKILLPORT_CONFIG_DIR`, else `$XDG_CONFIG_HOME/skillport`, else `~/.config/skillport`.
 * - `config.json`: settings (`allowFields`), never secret.
 * - `credentials.json`: one token per server origin (`skillport login`), written with mode 600 in a 700 folder.
 */
export function configDir(): string {
  const env = environment();
  if (env.configDir) return env.configDir;
  return join(env.xdgConfigHome || join(homedir(), '.config'), 'skillport');
}

export interface UserSettings {
  /** Frontmatter fields accepted without a warning by validate and publish. */
  allowFields: string[];
}

export function userSettings(): UserSettings {
  const path = join(configDir(), 'config.json');
  const data = readJson(path);
  const allowFields = data['allowFields'] ?? [];
  if (!Array.isArray(allowFields) || allowFields.some((field) => typeof field !== 'string'))
    throw new CliError(`${path}: allowFields must be a list of field names`);
  return { allowFields: allowFields as string[] };
}

export interface StoredLogin {
  token: string;
  /** Who the server said the token is, when it was stored (for `whoami --offline` style messages). */
  principal?: string;
  savedAt: string;
}

const credentialsPath = () => join(configDir(), 'credentials.json');

/** A server's key in the credentials file: its origin (scheme, host, port), so the base URL and /mcp share one. */
export function serverKey(url: string): string {
  return new URL(url).origin;
}

export function storedLogin(url: string): StoredLogin | undefined {
  const servers = readJson(credentialsPath())['servers'];
  if (servers === null || typeof servers !== 'object') return undefined;
  const entry = (servers as Record<string, unknown>)[serverKey(url)];
  if (entry === null || typeof entry !== 'object' || typeof (entry as StoredLogin).token !== 'string') return undefined;
  return entry as StoredLogin;
}

export function saveLogin(url: string, login: StoredLogin): string {
  return updateCredentials((servers) => {
    servers[serverKey(url)] = login;
  });
}

/** Removes a server's token; true when there was one. */
export function removeLogin(url: string): boolean {
  let removed = false;
  updateCredentials((servers) => {
    removed = serverKey(url) in servers;
    delete servers[serverKey(url)];
  });
  return removed;
}

function updateCredentials(change: (servers: Record<string, unknown>) => void): string {
  const dir = configDir();
  const path = credentialsPath();
  const data = readJson(path);
  const servers = (data['servers'] !== null && typeof data['servers'] === 'object' ? data['servers'] : {}) as Record<string, unknown>;
  change(servers);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Written whole under a temporary name created 600, then renamed: no moment where another user could read it.
  const temp = `${path}.tmp-${process.pid}`;
  rmSync(temp, { force: true });
  writeFileSync(temp, `${JSON.stringify({ ...data, servers }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, path);
  return path;
}

function readJson(path: string): Record<string, unknown> {
  if (!existsSync(path)) return {};
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new CliError(`${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new CliError(`${path} must hold a JSON object`);
  return data as Record<string, unknown>;
}

/**
 * The token a command sends to a server: `--token`, else SKILLPORT_TOKEN, else the one `skillport login` stored for
 * the server's origin (as gh and npm: a flag or the environment wins over the stored login).
 */
export function tokenFor(url: string | undefined, flag: string | undefined): { token?: string; source?: 'flag' | 'env' | 'login' } {
  if (flag !== undefined && flag !== '') return { token: flag, source: 'flag' };
  const env = environment().token;
  if (env !== undefined) return { token: env, source: 'env' };
  if (url === undefined || !/^https?:\/\//i.test(url)) return {};
  const stored = storedLogin(url);
  return stored ? { token: stored.token, source: 'login' } : {};
}
