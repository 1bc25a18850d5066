import type { SkillVersionInfo } from '@skillport/server';

/**
 * A skill's published versions, as the skill page shows them. The web package does not depend on the registry:
 * `serve --data` gives the registry plugin's (registry/src/plugin.ts: `RegistryPlugin.history`).
 */
export type VersionInfo = SkillVersionInfo;

export interface VersionHistory {
  /** Newest first; undefined when nothing is published under that name. */
  versions(name: string): Promise<VersionInfo[] | undefined>;
}
