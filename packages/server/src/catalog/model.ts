import type { Skill } from '@modelcontextprotocol/server/ext/skills';
import type { SkillRequirements } from '@skillport/core';

/**
 * The core catalog model. One immutable snapshot answers every read; changes build a new snapshot that is swapped
 * in whole, so a request sees one consistent catalog from start to end.
 *
 * Designed for what comes after folders (see docs/architecture.md): a skill is identified by its URI, carries the
 * digests that pin its exact bytes (per file and for the whole package), and says where its bytes come from
 * (`origin`), so registry versions (immutable, digest-addressed), per-principal views (a filter over a snapshot)
 * and very large catalogs (sorted arrays + maps, no per-request scans) fit without changing the callers.
 */
export interface CatalogFile {
  /** Canonical `skill://` URI of the file. */
  uri: string;
  /** `/`-separated path inside the skill. */
  path: string;
  size: number;
  /** `sha256:<hex>` of the raw bytes. */
  digest: string;
  mimeType: string;
  /** For an in-folder symlink: the absolute path of its target (otherwise the bytes are at `origin.realDir/path`). */
  target?: string;
}

/** Where a skill's bytes come from. Folder skills: `dir` as found, `realDir` with links resolved. */
export type SkillOrigin = FolderOrigin | StoredOrigin;

export interface FolderOrigin {
  kind: 'folder';
  root: string;
  dir: string;
  realDir: string;
}

/**
 * A skill whose bytes are held by a content-addressed store (a registry's blobs, an unpacked archive, files fetched
 * over HTTP): each file is asked for by its digest and checked against it before it is served.
 */
export interface StoredOrigin {
  kind: 'stored';
  /** Where the skill came from, for messages and provenance (`registry`, `archive:/path/x.skill`, `https://...`). */
  source: string;
  blobs: BlobSource;
}

export interface BlobSource {
  /** The bytes stored under `digest` (`sha256:<hex>`), expected to be `size` bytes long. */
  read(digest: string, size: number): Promise<Uint8Array>;
}

/** The wire form of a skill (SEP-2640 Skill entry), as the SDK types it. Frozen: exactly what clients receive. */
export type SkillEntry = Skill;

export interface CatalogSkill {
  /** URI of the SKILL.md (the skill's identity on this server). */
  uri: string;
  /** URI of the skill folder (no trailing slash). */
  rootUri: string;
  name: string;
  description: string;
  frontmatter: Record<string, unknown>;
  /** SKILL.md headings, for search. */
  headings: readonly string[];
  /** Sorted by URI. SKILL.md included. */
  files: readonly CatalogFile[];
  totalBytes: number;
  packageDigest: string;
  origin: SkillOrigin;
  entry: SkillEntry;
  /**
   * The skill's packed form, when it came as an archive whose bytes can be served as they are (readable at this
   * URI through the origin, by digest): what the draft-era index lists as an `archive` entry (ADR 0010).
   */
  artifact?: CatalogFile;
  /**
   * Set when the skill's files beyond SKILL.md cannot be known (a static host whose index lists only its SKILL.md):
   * why, in a few words. Tools that list resources say so instead of listing none.
   */
  filesUnlisted?: string;
  /** What the skill declares it needs (core's requirements.ts); absent when it declares nothing. */
  requirements?: SkillRequirements;
}

export const META_PACKAGE_DIGEST = 'dev.skillport/packageDigest';
/** A skill entry's normalised requirements (MCP servers, tools, scopes, agents, allowed tools, compatibility). */
export const META_REQUIREMENTS = 'dev.skillport/requirements';
/** What the caller has, sent by a host on list and search requests (`params._meta`): `{mcpServers?, tools?, agent?}`. */
export const META_AVAILABLE = 'dev.skillport/available';
/** A skill entry's availability for the caller: `{status: ready | needs | unknown, needs?, unknown?}`. */
export const META_AVAILABILITY = 'dev.skillport/availability';
