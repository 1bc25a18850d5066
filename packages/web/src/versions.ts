/**
 * A skill's published versions, as the skill page shows them. The web package does not depend on the registry:
 * `serve --data` gives the registry plugin's (registry/src/plugin.ts: `RegistryPlugin.history`).
 */
export interface VersionInfo {
  version: string;
  packageDigest: string;
  publishedAt: string;
  publisher: string;
  /** Tags naming this version (`latest`, `beta`). */
  tags: string[];
  yankedAt?: string;
  revoked?: { at: string; reason: string };
  /** Each signature's key id, and whether a key the server trusts made it. */
  signatures: Array<{ keyId: string; trusted: boolean }>;
  repository?: string;
  commit?: string;
  review: string;
}

export interface VersionHistory {
  /** Newest first; undefined when nothing is published under that name. */
  versions(name: string): Promise<VersionInfo[] | undefined>;
}
