import { SkillCache } from './cache.js';
import type { SkillCacheOptions } from './cache.js';
import type { ConnectOptions } from './connect.js';
import { SkillSet } from './skill-set.js';
import type { SkillSetOptions } from './skill-set.js';
import { FolderSkillSource } from './sources/folder.js';
import { McpSkillSource } from './sources/mcp.js';
import type { SkillSource } from './sources/source.js';

export interface OpenSkillsOptions extends SkillSetOptions {
  /** An on-disk cache: `true` for the default folder, a folder path, options, or a shared `SkillCache`. */
  cache?: boolean | string | SkillCacheOptions | SkillCache;
  /** Answer from the cache only; never connect. */
  offline?: boolean;
  connect?: ConnectOptions;
  /** Origins by spec, to name servers (`{"http://127.0.0.1:3333/mcp": "team"}`). */
  origins?: Record<string, string>;
}

/**
 * The few-lines entry point: every spec is a server (`http(s)://…`, `stdio:COMMAND ARGS`) or a local folder.
 *
 * ```ts
 * const skills = openSkills(['https://skills.example.com/mcp', './.agents/skills'], { cache: true });
 * const session = skills.session();
 * ```
 */
export function openSkills(specs: ReadonlyArray<string | SkillSource>, options: OpenSkillsOptions = {}): SkillSet {
  const cache =
    options.cache instanceof SkillCache
      ? options.cache
      : options.cache === true
        ? new SkillCache()
        : typeof options.cache === 'string'
          ? new SkillCache({ dir: options.cache })
          : typeof options.cache === 'object'
            ? new SkillCache(options.cache)
            : undefined;
  const sources = specs.map((spec): SkillSource => {
    if (typeof spec !== 'string') return spec;
    const origin = options.origins?.[spec];
    if (/^(https?:\/\/|stdio:)/i.test(spec)) {
      return new McpSkillSource(spec, {
        ...(origin ? { origin } : {}),
        ...(cache ? { cache } : {}),
        ...(options.offline ? { offline: true } : {}),
        ...(options.connect ? { connect: options.connect } : {}),
        ...(options.onWarning ? { onWarning: options.onWarning } : {}),
      });
    }
    return new FolderSkillSource(spec, { ...(origin ? { origin } : {}), ...(options.onWarning ? { onWarning: options.onWarning } : {}) });
  });
  return new SkillSet(sources, options);
}
