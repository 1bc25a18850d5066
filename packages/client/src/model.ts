/**
 * The client's model of a skill, whatever served it. A skill is identified by (origin, uri): the source it came
 * from and the URI of its SKILL.md there. Names are not unique across sources; the session gives each skill a
 * model-facing name that is (see `skill-set.ts`).
 */

/** One file of a skill as its source listed it. */
export interface SkillFileEntry {
  /** `/`-separated path inside the skill folder (`SKILL.md`, `references/guide.md`). */
  path: string;
  uri: string;
  /** `sha256:<hex>` of the raw bytes; absent when the source gives none (draft-era and tool-only servers). */
  digest?: string;
  size?: number;
  mimeType?: string;
}

/**
 * How strongly a skill's bytes are checked:
 * - `digest`: every file listed with digest and size (the final extension, local folders); all reads verified.
 * - `skill-md`: only SKILL.md has a digest (draft-era index with digests); other files are path-checked only.
 * - `none`: no digests at all (draft index without digests, tool-only servers); content is tagged unverified.
 */
export type Verification = 'digest' | 'skill-md' | 'none';

export interface SkillDescriptor {
  /** The source's name: the namespace of the skill, shown to the model as its origin. */
  origin: string;
  /** URI of its SKILL.md at the source (`skill://…/SKILL.md`, or `file://…` for a folder). */
  uri: string;
  name: string;
  description: string;
  /** The frontmatter as the source listed it (what SKILL.md must match). */
  frontmatter: Record<string, unknown>;
  /** Every file when the source lists them (always including SKILL.md); undefined when only known after loading. */
  files?: SkillFileEntry[];
  /** One digest for the whole file set, when known (skillport servers, folders). */
  packageDigest?: string;
  verification: Verification;
  /** The entry's `_meta` as the server sent it (a skillport registry puts version, tags and provenance here). */
  meta?: Record<string, unknown>;
  /**
   * A draft-era `archive` entry: the whole skill is one blob at `uri` (checked against `digest` when the index gives
   * one), unpacked in memory with core's safe archive reader when the skill is loaded; `uri` above is the archive's.
   */
  archive?: { uri: string; digest?: string };
}

/** Bytes read and checked. */
export interface VerifiedFile {
  origin: string;
  uri: string;
  path: string;
  bytes: Uint8Array;
  /** Decoded text when the bytes are valid UTF-8. */
  text?: string;
  mimeType?: string;
  /** True when size and digest were checked against the source's listing. */
  verified: boolean;
  /** Where the bytes came from this time. */
  from: 'network' | 'cache' | 'disk';
}

/** A skill's SKILL.md, read, verified and parsed. */
export interface LoadedSkill {
  skill: SkillDescriptor;
  body: string;
  frontmatter: Record<string, unknown>;
  /** The files besides SKILL.md (when the source lists them). */
  resources: SkillFileEntry[];
  file: VerifiedFile;
}

/** A template skill family: a URI template whose variables a host fills through completion/complete. */
export interface SkillTemplate {
  origin: string;
  uriTemplate: string;
  description: string;
  variables: string[];
}

export const skillKey = (skill: { origin: string; uri: string }): string => `${skill.origin}\u0000${skill.uri}`;

/** A skill in a composed catalog (a SkillSet), with the name the model uses for it. */
export interface CatalogSkill extends SkillDescriptor {
  /** Unique in the set: the skill's name, or `name@origin` when several origins serve that name. */
  id: string;
}
