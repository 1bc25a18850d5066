import { canonicalSkillUri, decodeText, hasJudgedRequirements } from '@skillport/core';
import type { Availability, AvailableCapabilities } from '@skillport/core';
import { artifactAt } from '../catalog/artifacts.js';
import { type ContentReader, StaleFileError } from '../catalog/content.js';
import { META_AVAILABILITY } from '../catalog/model.js';
import type { CatalogFile, CatalogSkill, SkillEntry } from '../catalog/model.js';
import { availabilityFor, grantedFor, orderByReadiness } from './availability.js';
import type { CatalogSnapshot, DirectoryChild } from '../catalog/snapshot.js';
import type { AuditInput } from '../access/audit.js';
import { META_SCAN, activationMeta, scanText } from '../tools/review-notes.js';

/**
 * The Skills extension's read side, as plain functions over a catalog snapshot. The SDK's `SkillsExtension` calls
 * it through a `SkillSource` (skills-source.ts) and the HTTP fast path calls it directly (http/fast-path.ts), so
 * both answer from the same code.
 */
export type FileContent = { text: string; mimeType: string } | { bytes: Uint8Array; mimeType: string };

/** A file's verified bytes as served: its media type, whether it is served as text, its digest. */
export interface FileBytes {
  bytes: Buffer;
  mimeType: string;
  text: boolean;
  digest: string;
}

/** A read's URI looked up once (`SkillsService.locate`): what is read, and the served file it is (not a packed form). */
export interface LocatedFile {
  found: { skill: CatalogSkill; file: CatalogFile };
  file: { skill: CatalogSkill; file: CatalogFile } | undefined;
}

export class InvalidCursorError extends Error {
  override name = 'InvalidCursorError';
}

/** The skill holding a URI is refused by its provider (a revoked registry version); the message says why. */
export class RefusedSkillError extends Error {
  override name = 'RefusedSkillError';
}

export interface SkillsServiceOptions {
  /** The snapshot to answer from: the caller's view of the catalog (mcp/scoped.ts), or the whole catalog. */
  snapshot: () => CatalogSnapshot;
  content: ContentReader;
  pageSize: number;
  /** Told when a file's bytes no longer match its digest (so the catalog can rescan it): a path, or a stored origin's source. */
  onStale?: (source: string) => void;
  /** Where activations and file reads are recorded (the caller's audit trail, access/audit.ts). */
  audit?: (input: AuditInput) => void;
  /** What the policy grants the caller (connections, tools, scopes): the server's side of availability. */
  granted?: () => AvailableCapabilities | undefined;
  /** Whether catalogs for a model list skills whose requirements are unmet (the policy's `unmet`, else `--unmet`). */
  unmet?: () => 'list' | 'omit';
  /** Whether a skill without a registry scan is scanned at activation (`<skill_scan>`; `serve --no-scan` turns it off). Default true. */
  scan?: boolean;
}

export class SkillsService {
  constructor(readonly options: SkillsServiceOptions) {}

  get snapshot(): CatalogSnapshot {
    return this.options.snapshot();
  }

  /** Records an activation or a file read (each surface calls it once per request it answers). */
  record(input: AuditInput): void {
    this.options.audit?.(input);
  }

  /**
   * Records a resources/read (from the SDK path or the HTTP fast path): reading a SKILL.md is the extension's way
   * of activating a skill, any other file is a read.
   */
  recordRead(uri: string, outcome: string, surface = 'resources/read'): void {
    if (this.options.audit === undefined) return;
    const canonical = canonicalSkillUri(uri);
    this.recordReadOf(uri, canonical === undefined ? undefined : this.snapshot.file(canonical), outcome, surface);
  }

  /** `recordRead` of a file already looked up (`locate`): the same record, without a second lookup. */
  recordReadOf(uri: string, found: { skill: CatalogSkill; file: CatalogFile } | undefined, outcome: string, surface = 'resources/read'): void {
    if (this.options.audit === undefined) return;
    if (found === undefined) {
      this.record({ action: 'read', surface, requested: uri, outcome });
      return;
    }
    const activation = found.file.uri === found.skill.uri;
    this.record({ action: activation ? 'activate' : 'read', surface, skill: found.skill, file: found.file.path, outcome });
  }

  /** The `_meta` a read of this file carries (tools/review-notes.ts `activationMeta`); undefined for most files. */
  readMeta(uri: string): Record<string, string> | undefined {
    const canonical = canonicalSkillUri(uri);
    const found = canonical === undefined ? undefined : this.snapshot.file(canonical);
    return found === undefined ? undefined : activationMeta(found.skill, found.file.uri);
  }

  /** Whether the caller can use the skill here: the policy's grants joined with the host's hint (mcp/availability.ts). */
  availability(skill: CatalogSkill, hint?: AvailableCapabilities): Availability {
    return availabilityFor(skill, this.options.granted?.(), hint);
  }

  /** `skills`, ready ones first, unmet ones left out when the catalog setting says so: what a model is shown. */
  forModel<T extends CatalogSkill>(skills: readonly T[], hint?: AvailableCapabilities): T[] {
    return orderByReadiness(skills, (skill) => this.availability(skill, hint), this.options.unmet?.() ?? 'list');
  }

  /** The wire entry for this caller: a skill with judged requirements carries its availability in `_meta`. */
  entryFor(skill: CatalogSkill, hint?: AvailableCapabilities): SkillEntry {
    const entry = entryWithScan(skill);
    if (!hasJudgedRequirements(skill.requirements)) return entry;
    const granted = grantedFor(skill, this.options.granted?.());
    const availability = { ...this.availability(skill, hint), ...(granted !== undefined ? { granted } : {}) };
    return { ...entry, _meta: { ...entry._meta, [META_AVAILABILITY]: availability } };
  }

  listSkills(cursor: string | undefined, hint?: AvailableCapabilities): { skills: SkillEntry[]; nextCursor?: string } {
    return this.listSkillsOf(this.snapshot, cursor, hint);
  }

  /** A page of `snapshot` (held by the caller, so the page and its cache key name the same snapshot). */
  listSkillsOf(snapshot: CatalogSnapshot, cursor: string | undefined, hint?: AvailableCapabilities): { skills: SkillEntry[]; nextCursor?: string } {
    const page = snapshot.page(decodeCursor(cursor), this.options.pageSize);
    const skills = page.skills.map((skill) => this.entryFor(skill, hint));
    const last = page.skills.at(-1);
    return page.more && last ? { skills, nextCursor: encodeCursor(last.uri) } : { skills };
  }

  getSkill(uri: string, hint?: AvailableCapabilities): SkillEntry | undefined {
    const canonical = canonicalSkillUri(uri);
    const skill = canonical === undefined ? undefined : this.snapshot.skill(canonical);
    return skill === undefined ? undefined : this.entryFor(skill, hint);
  }

  /** A listed file's content; undefined when no such file is served. Throws StaleFileError when its bytes changed. */
  async readFile(uri: string): Promise<FileContent | undefined> {
    const found = await this.readFileBytes(uri);
    if (found === undefined) return undefined;
    const { bytes, mimeType } = found;
    if (!found.text) return { bytes, mimeType };
    const text = decodeText(bytes);
    return text === undefined ? { bytes, mimeType } : { text, mimeType };
  }

  /**
   * A listed file's verified bytes, their digest, and whether they are served as text (UTF-8 without NUL, as
   * `readFile` decides), without decoding them: a large answer is written from them piece by piece (http/streamed-answer.ts).
   */
  async readFileBytes(uri: string): Promise<FileBytes | undefined> {
    const located = this.locate(uri);
    return located === undefined ? undefined : this.readLocated(located);
  }

  /**
   * What `uri` names in the current snapshot, looked up once for a whole read (the HTTP fast path asks the bytes,
   * the `_meta` and the audit record of one lookup): the served file (`file`, as `recordRead` and `readMeta` find it)
   * or a skill's packed form; undefined when nothing is served there. Throws RefusedSkillError for a revoked version.
   */
  locate(uri: string): LocatedFile | undefined {
    const canonical = canonicalSkillUri(uri);
    if (canonical === undefined) return undefined;
    const snapshot = this.snapshot;
    const file = snapshot.file(canonical);
    // Not a skill's file: maybe a skill's packed form (an archive served as it came, ADR 0010).
    const found = file ?? artifactAt(snapshot, canonical);
    if (found === undefined) {
      const refused = snapshot.refusal(canonical);
      if (refused !== undefined) throw new RefusedSkillError(refused);
      return undefined;
    }
    return { found, file };
  }

  /** The `_meta` a read of a located file carries (as `readMeta`). */
  readMetaOf(located: LocatedFile): Record<string, string> | undefined {
    return located.file === undefined ? undefined : activationMeta(located.file.skill, located.file.file.uri);
  }

  /** A located file's verified bytes (as `readFileBytes`). Throws StaleFileError when its bytes changed. */
  async readLocated(located: LocatedFile): Promise<FileBytes> {
    const { found } = located;
    let bytes: Buffer;
    try {
      bytes = await this.options.content.read(found.file, found.skill.origin);
    } catch (error) {
      if (error instanceof StaleFileError) this.options.onStale?.(error.source);
      throw error;
    }
    const text = found.file !== found.skill.artifact && this.options.content.servedForm(found.file.digest, bytes).text;
    return { bytes, mimeType: found.file.mimeType, text, digest: found.file.digest };
  }

  /** Why the skill holding `uri` is refused (a revoked version), or undefined. */
  refusal(uri: string): string | undefined {
    const canonical = canonicalSkillUri(uri);
    return canonical === undefined ? undefined : this.snapshot.refusal(canonical);
  }

  isDirectory(uri: string): boolean {
    const canonical = canonicalSkillUri(uri);
    return canonical !== undefined && this.snapshot.isDirectory(canonical);
  }

  readDirectory(uri: string, cursor: string | undefined): { resources: DirectoryChild[]; nextCursor?: string } | undefined {
    const canonical = canonicalSkillUri(uri);
    const children = canonical === undefined ? undefined : this.snapshot.directory(canonical);
    if (children === undefined) return undefined;
    const after = decodeCursor(cursor);
    const start = after === undefined ? 0 : children.findIndex((child) => child.uri > after);
    const from = start < 0 ? children.length : start;
    const resources = children.slice(from, from + this.options.pageSize);
    const more = from + this.options.pageSize < children.length;
    return more ? { resources, nextCursor: encodeCursor(resources.at(-1)!.uri) } : { resources };
  }

  /** resources/list: each skill's SKILL.md, with its name and description (what clients show). */
  listResources(): Array<{ uri: string; name: string; description: string; mimeType: string; size: number }> {
    return this.snapshot.skills.map((skill) => ({
      uri: skill.uri,
      name: skill.name,
      description: skill.description,
      mimeType: 'text/markdown',
      size: skill.files.find((file) => file.uri === skill.uri)?.size ?? 0,
    }));
  }
}

const CURSOR_PREFIX = 'after:';

export function encodeCursor(uri: string): string {
  return Buffer.from(CURSOR_PREFIX + uri).toString('base64url');
}

export function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  const decoded = typeof cursor === 'string' && /^[A-Za-z0-9_-]*$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  if (!decoded.startsWith(CURSOR_PREFIX)) throw new InvalidCursorError(`Invalid cursor: ${String(cursor).slice(0, 80)}`);
  return decoded.slice(CURSOR_PREFIX.length);
}

const withScan = new WeakMap<CatalogSkill, SkillEntry>();

/**
 * The entry as listed, plus, for a registry version no person reviewed whose scan found something, the scan's
 * summary in `_meta["dev.skillport/scan"]`: what a client that activates it from the list tells its model. Only
 * those entries are kept (once per catalog skill); every other is the skill's own, made when asked for: keeping
 * every listed entry held each file's URI and digest again beside the cached pages (~90 MB at 100,000 skills).
 */
function entryWithScan(skill: CatalogSkill): SkillEntry {
  const known = withScan.get(skill);
  if (known !== undefined) return known;
  const scan = scanText(skill);
  if (scan === undefined) return skill.entry;
  const entry = { ...skill.entry, _meta: { ...skill.entry._meta, [META_SCAN]: scan } };
  withScan.set(skill, entry);
  return entry;
}
