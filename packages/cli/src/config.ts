import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { ACCESS_CONFIG_KEYS, ACCESS_PATH_KEYS } from './commands/access-options.js';

/**
 * `skillport serve --config FILE`: the same settings as the command line, in JSON or YAML; command-line flags win
 * over the file. The `server.json` of agentskills-mcp-server is accepted as it is, so its users can switch by
 * pointing at their file: `{name, instructions, skills: [{id, provider: "fs", options: {root}}]}`.
 * `${VAR}` in any string is replaced from the environment; an unset variable becomes "" with a warning.
 * Relative paths are resolved against the file's folder.
 */
export interface ServeConfig {
  dirs: string[];
  templates: Array<{ uriTemplate: string; dir: string; description?: string }>;
  name?: string;
  instructions?: string;
  /** Any other serve option, by its camelCase name (port, host, tools, prefix, strict, ttl, ...). */
  options: Record<string, unknown>;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const OPTION_KEYS = new Set([
  'http', 'port', 'host', 'allowedHost', 'prefix', 'strict', 'watch', 'maxFiles', 'maxBytes', 'pageSize', 'ttl', 'cacheScope',
  'cacheDir', 'cache', 'fastPath', 'quiet', 'tools', 'vision', 'catalogMax', 'textMax', 'binaryMax', 'prompts', 'index', 'instructionsCatalog',
  ...ACCESS_CONFIG_KEYS,
]);

export function loadConfig(path: string, warn: (message: string) => void): ServeConfig {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read config ${path}: ${(error as Error).message}`);
  }
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
    return isAbsolute(value) ? value : join(base, value);
  };

  const result: ServeConfig = { dirs: [], templates: [], options: {} };
  if (config['templates'] !== undefined) {
    if (!Array.isArray(config['templates'])) throw new ConfigError(`config ${path}: templates must be a list of {uri, dir, description?}`);
    config['templates'].forEach((entry: unknown, index: number) => {
      const template = (entry ?? {}) as { uri?: unknown; dir?: unknown; description?: unknown };
      if (typeof template.uri !== 'string') throw new ConfigError(`config ${path}: templates[${index}].uri must be a URI template such as skill://docs/{product}/SKILL.md`);
      result.templates.push({ uriTemplate: template.uri, dir: at(template.dir, `templates[${index}].dir`), ...(typeof template.description === 'string' ? { description: template.description } : {}) });
    });
  }
  if (config['name'] !== undefined) result.name = String(config['name']);
  if (config['instructions'] !== undefined) result.instructions = String(config['instructions']);

  if (Array.isArray(config['skills'])) {
    // agentskills-mcp-server's server.json
    config['skills'].forEach((entry: unknown, index: number) => {
      const skill = (entry ?? {}) as { id?: unknown; provider?: unknown; options?: Record<string, unknown> };
      const where = `skills[${index}]${typeof skill.id === 'string' ? ` (${skill.id})` : ''}`;
      if (skill.provider === 'fs') {
        const root = at(skill.options?.['root'] ?? '.', `${where}.options.root`);
        const own = typeof skill.id === 'string' && skill.id !== '' ? join(root, skill.id) : undefined;
        result.dirs.push(own !== undefined && existsSync(join(own, 'SKILL.md')) ? own : root);
      } else if (skill.provider === 'http') {
        throw new ConfigError(`config ${path}: ${where}: the "http" provider is not supported yet; serve those skills from a folder (provider "fs")`);
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
  for (const [key, value] of Object.entries(config)) {
    if (['name', 'instructions', 'skills', 'dirs', 'folders', 'templates', '$schema'].includes(key)) continue;
    if (!OPTION_KEYS.has(key)) throw new ConfigError(`config ${path}: unknown setting "${key}" (settings are the serve options in camelCase, e.g. port, tools, prefix)`);
    result.options[key] = key === 'cacheDir' || ACCESS_PATH_KEYS.includes(key) ? at(value, key) : value;
  }
  return result;
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
