import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { yamlNestingOverflow } from '@skillport/core';
import { ACCESS_CONFIG_KEYS, ACCESS_PATH_KEYS } from './commands/access-options.js';

/**
 * `skillport serve --config FILE`: the same settings as the command line, in JSON or YAML; command-line flags win
 * over the file. The `server.json` of agentskills-mcp-server is accepted as it is, so its users can switch by
 * pointing at their file: `{name, instructions, skills: [{id, provider: "fs", options: {root}}]}`.
 * `${VAR}` in any string is replaced from the environment; an unset variable becomes "" with a warning.
 * Relative paths are resolved against the file's folder.
 */
export interface ServeConfig {
  /** Folders and archive files. */
  dirs: string[];
  /** Static HTTP hosts with a discovery index (http-provider.ts in the server). */
  remotes: RemoteSpec[];
  templates: Array<{ uriTemplate: string; dir: string; description?: string }>;
  name?: string;
  instructions?: string;
  /** Any other serve option, by its camelCase name (port, host, tools, prefix, strict, ttl, ...). */
  options: Record<string, unknown>;
  /**
   * The file is agentskills-mcp-server's server.json: its hosts expect that server's tools, so `tools` defaults to
   * `asm` (what it served) unless the file or the command line says otherwise.
   */
  agentskillsServerJson?: boolean;
}

/** One remote source: `remotes: [{url, headers?, params?, skills?, allowHosts?, prefix?, timeout?, retries?, refresh?}]`. */
export interface RemoteSpec {
  url: string;
  headers?: Record<string, string>;
  params?: Record<string, string>;
  only?: string[];
  allowHosts?: string[];
  prefix?: string;
  timeoutMs?: number;
  retries?: number;
  refreshMs?: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const OPTION_KEYS = new Set([
  'http',
  'port',
  'host',
  'allowedHost',
  'allowField',
  'allowedOrigin',
  'prefix',
  'strict',
  'watch',
  'maxFiles',
  'maxBytes',
  'pageSize',
  'ttl',
  'cacheScope',
  'cacheDir',
  'cache',
  'fastPath',
  'directRoute',
  'readyWhen',
  'firstPageEarly',
  'quiet',
  'tools',
  'asmFastPath',
  'asmFastPathMax',
  'vision',
  'catalogMax',
  'unmet',
  'textMax',
  'binaryMax',
  'prompts',
  'index',
  'instructionsCatalog',
  ...ACCESS_CONFIG_KEYS,
]);

export function loadConfig(path: string, warn: (message: string) => void): ServeConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read config ${path}: ${(error as Error).message}`);
  }
  const deep = yamlNestingOverflow(text);
  if (deep !== undefined) throw new ConfigError(`config ${path} is nested too deeply at line ${deep.line}, column ${deep.column}`);
  let data: unknown;
  try {
    data = parse(text, { maxAliasCount: 100 });
  } catch (error) {
    throw new ConfigError(`config ${path} is not valid JSON or YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new ConfigError(`config ${path} must be an object`);
  const config = substitute(data, warn) as Record<string, unknown>;
  const base = dirname(resolve(path));
  const at = (value: unknown, key: string): string => {
    if (typeof value !== 'string' || value === '') throw new ConfigError(`config ${path}: ${key} must be a non-empty string`);
    // A PostgreSQL URL (`data: postgres://…`) is not a path, nor a git URL; a `git:PATH` source's path is the file's.
    if (/^git\+[a-z]+:\/\//.test(value)) return value;
    if (value.startsWith('git:')) return isAbsolute(value.slice(4)) ? value : `git:${join(base, value.slice(4))}`;
    return isAbsolute(value) || /^postgres(ql)?:\/\//i.test(value) ? value : join(base, value);
  };

  const result: ServeConfig = { dirs: [], remotes: [], templates: [], options: {} };
  if (config['templates'] !== undefined) {
    if (!Array.isArray(config['templates'])) throw new ConfigError(`config ${path}: templates must be a list of {uri, dir, description?}`);
    config['templates'].forEach((entry: unknown, index: number) => {
      const template = (entry ?? {}) as { uri?: unknown; dir?: unknown; description?: unknown };
      if (typeof template.uri !== 'string')
        throw new ConfigError(`config ${path}: templates[${index}].uri must be a URI template such as skill://docs/{product}/SKILL.md`);
      result.templates.push({
        uriTemplate: template.uri,
        dir: at(template.dir, `templates[${index}].dir`),
        ...(typeof template.description === 'string' ? { description: template.description } : {}),
      });
    });
  }
  if (config['name'] !== undefined) result.name = String(config['name']);
  if (config['instructions'] !== undefined) result.instructions = String(config['instructions']);

  if (Array.isArray(config['skills'])) {
    // agentskills-mcp-server's server.json
    result.agentskillsServerJson = true;
    config['skills'].forEach((entry: unknown, index: number) => {
      const skill = (entry ?? {}) as { id?: unknown; provider?: unknown; options?: Record<string, unknown> };
      const where = `skills[${index}]${typeof skill.id === 'string' ? ` (${skill.id})` : ''}`;
      if (skill.provider === 'fs') {
        const root = at(skill.options?.['root'] ?? '.', `${where}.options.root`);
        const own = typeof skill.id === 'string' && skill.id !== '' ? join(root, skill.id) : undefined;
        result.dirs.push(own !== undefined && existsSync(join(own, 'SKILL.md')) ? own : root);
      } else if (skill.provider === 'http') {
        // agentskills-mcp-server fetches <base_url>/<id>/SKILL.md and files by name; skillport needs the host's
        // discovery index to list and verify files, and looks for it under base_url (indexCandidates).
        const options = skill.options ?? {};
        const url = options['base_url'] ?? options['url'];
        if (typeof url !== 'string' || url === '') throw new ConfigError(`config ${path}: ${where}.options.base_url must be the host's URL`);
        const id = typeof skill.id === 'string' && skill.id !== '' ? skill.id : undefined;
        const same = result.remotes.find((remote) => remote.url === url && remote.only !== undefined);
        if (same && id !== undefined) same.only!.push(id);
        else
          result.remotes.push({
            url,
            ...stringMap(options['headers'], `${where}.options.headers`, path, 'headers'),
            ...stringMap(options['params'], `${where}.options.params`, path, 'params'),
            ...(id !== undefined ? { only: [id] } : {}),
          });
      } else {
        throw new ConfigError(`config ${path}: ${where}: provider must be "fs" or "http" (got ${JSON.stringify(skill.provider)})`);
      }
    });
  }
  const dirs = config['dirs'] ?? config['folders'];
  if (dirs !== undefined) {
    if (!Array.isArray(dirs)) throw new ConfigError(`config ${path}: dirs must be a list of folders`);
    dirs.forEach((dir, index) => result.dirs.push(at(dir, `dirs[${index}]`)));
  }
  if (config['remotes'] !== undefined) {
    if (!Array.isArray(config['remotes']))
      throw new ConfigError(`config ${path}: remotes must be a list of {url, headers?, params?, skills?, allowHosts?, prefix?, timeout?, retries?, refresh?}`);
    config['remotes'].forEach((entry: unknown, index: number) => result.remotes.push(remoteSpec(entry, `remotes[${index}]`, path)));
  }
  for (const [key, value] of Object.entries(config)) {
    if (['name', 'instructions', 'skills', 'dirs', 'folders', 'templates', 'remotes', '$schema'].includes(key)) continue;
    if (!OPTION_KEYS.has(key))
      throw new ConfigError(`config ${path}: unknown setting "${key}" (settings are the serve options in camelCase, e.g. port, tools, prefix)`);
    if (key === 'unmet' && value !== 'list' && value !== 'omit') throw new ConfigError(`config ${path}: unmet must be "list" or "omit"`);
    result.options[key] = key === 'cacheDir' || ACCESS_PATH_KEYS.includes(key) ? at(value, key) : value;
  }
  return result;
}

const REMOTE_KEYS = new Set(['url', 'headers', 'params', 'skills', 'allowHosts', 'prefix', 'timeout', 'retries', 'refresh']);

function remoteSpec(entry: unknown, where: string, path: string): RemoteSpec {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw new ConfigError(`config ${path}: ${where} must be an object with a url`);
  const remote = entry as Record<string, unknown>;
  for (const key of Object.keys(remote))
    if (!REMOTE_KEYS.has(key)) throw new ConfigError(`config ${path}: ${where}: unknown setting "${key}" (use ${[...REMOTE_KEYS].join(', ')})`);
  if (typeof remote['url'] !== 'string' || !/^https?:\/\//.test(remote['url'])) throw new ConfigError(`config ${path}: ${where}.url must be an http(s) URL`);
  const list = (key: string): string[] | undefined => {
    const value = remote[key];
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string'))
      throw new ConfigError(`config ${path}: ${where}.${key} must be a list of strings`);
    return value as string[];
  };
  const only = list('skills');
  const allowHosts = list('allowHosts');
  const spec: RemoteSpec = {
    url: remote['url'],
    ...stringMap(remote['headers'], `${where}.headers`, path, 'headers'),
    ...stringMap(remote['params'], `${where}.params`, path, 'params'),
  };
  if (only) spec.only = only;
  if (allowHosts) spec.allowHosts = allowHosts;
  if (remote['prefix'] !== undefined) spec.prefix = String(remote['prefix']);
  if (remote['timeout'] !== undefined) spec.timeoutMs = duration(remote['timeout'], `${where}.timeout`, path);
  if (remote['refresh'] !== undefined) spec.refreshMs = duration(remote['refresh'], `${where}.refresh`, path);
  if (remote['retries'] !== undefined) {
    if (!Number.isInteger(remote['retries']) || (remote['retries'] as number) < 0 || (remote['retries'] as number) > 10)
      throw new ConfigError(`config ${path}: ${where}.retries must be a whole number from 0 to 10`);
    spec.retries = remote['retries'] as number;
  }
  return spec;
}

function stringMap<K extends 'headers' | 'params'>(value: unknown, where: string, path: string, key: K): Partial<Record<K, Record<string, string>>> {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.values(value).some((item) => typeof item !== 'string')) {
    throw new ConfigError(`config ${path}: ${where} must be a map of names to strings`);
  }
  return { [key]: value as Record<string, string> } as Partial<Record<K, Record<string, string>>>;
}

/** 1500, "1500ms", "30s", "5m", "1h" -> milliseconds. */
function duration(value: unknown, where: string, path: string): number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return value;
  const match = typeof value === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(value) : null;
  if (!match) throw new ConfigError(`config ${path}: ${where} must be a duration such as 1500, "30s" or "5m"`);
  const unit = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[(match[2] ?? 'ms') as 'ms' | 's' | 'm' | 'h'];
  return Math.round(Number(match[1]) * unit);
}

function substitute(value: unknown, warn: (message: string) => void): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      const found = process.env[name];
      if (found === undefined) {
        warn(`config: \${${name}} is not set; using an empty string`);
        return '';
      }
      return found;
    });
  }
  if (Array.isArray(value)) return value.map((item) => substitute(item, warn));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item, warn)]));
  }
  return value;
}
