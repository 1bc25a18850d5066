import type { GateSettings } from './access/gate-policy.js';
import type { Principal } from './access/principal.js';
import type { PrivateSkills } from './access/views.js';
import type { SkillProvider } from './catalog/composite-catalog.js';
import type { HttpRoutes } from './http/routes.js';

/**
 * The one seam through which a part that is not the server plugs into it (the registry of `serve --data`, say):
 * `setup` runs once, after the access configuration is checked and before the catalog is built, and hands back the
 * providers whose skills join the catalog, the routes it adds beside /mcp, its /healthz figures and how to close it.
 * Everything a plugin needs from the server comes in the context, so nothing is wired after the server opens.
 */
export interface ServerPlugin {
  /** For messages (`registry`). */
  name: string;
  setup(context: PluginContext): Promise<PluginParts>;
}

export interface PluginContext {
  /** Whether `principal` may see the skill `name` served at `uri` (the visibility policy; docs/security.md). */
  canSee(principal: Principal, name: string, uri: string): boolean;
  /** What the policy lets `principal` write under `name` (scopes aside; ADR 0180): publish/tag/yank, revoke/review. */
  writeGrants(principal: Principal, name: string, uri: string): { publish: boolean; revoke: boolean };
  /** True when HTTP callers are authenticated (`--auth tokens|jwt`): writes then go by the callers' scopes. */
  authenticated: boolean;
  /** The publish gate's settings for `publisher` publishing `name` at `uri` (the policy's `gate:`; ADR 0230). */
  gate(publisher: Principal | undefined, name: string, uri: string): GateSettings;
  /**
   * The listed skills of the whole catalog (folders, git, archives, remotes, plugins) that `principal` sees, names
   * and descriptions: the audience a publish joins (near-duplicates). Undefined principal (a shared publish token,
   * `--auth none`): every listed skill. Empty until the catalog is built.
   */
  visibleSkills(principal: Principal | undefined): Array<{ name: string; description: string }>;
}

export interface PluginParts {
  /** Skills served beside the folders'; a URI clash goes to the earlier provider, and plugins come first. */
  providers?: SkillProvider[];
  /**
   * Skills served to some principals only, beside their views (a registry's versions held for review, to their
   * publishers and reviewers): whoever is not given one finds nothing at its URI, by name, in search or completion.
   */
  privateSkills?: PrivateSkills;
  /** Routes mounted on the HTTP router (http/routes.ts). */
  routes?: HttpRoutes;
  /** Figures merged into GET /healthz. */
  health?: () => Record<string, unknown>;
  /** Whether it is ready to take traffic (a registry replica caught up with its database): GET /readyz. */
  ready?: () => Promise<{ ready: boolean; reason?: string }>;
  /** One line for the start-up message (`registry ./data (3 skills, …)`). */
  summary?: () => string;
  close?(): Promise<void>;
}

/**
 * One published version of a skill, as a registry plugin reports it and the web catalog's skill page shows it
 * (defined here, where both the registry and the web package already depend, so the shape exists once).
 */
export interface SkillVersionInfo {
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
  /**
   * A version held for review, in the history of its publisher and its name's reviewers only (never anyone
   * else's); `reviewable` when this viewer may decide it.
   */
  pending?: { reviewable: boolean };
  /** What the registry's scan found in this version (ADR 0230): counts, and the first findings. */
  scan?: {
    counts: { low: number; medium: number; high: number };
    findings: Array<{ rule: string; severity: string; title: string; why: string; file: string; line: number; excerpt: string; note?: string }>;
  };
}
