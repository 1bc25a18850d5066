import type { Finding } from '@skillport/scan';
import type { SkillRequirements } from '@skillport/core';
/**
 * The registry's records. A version is a skill's files frozen under a semver version: each file by sha256, the
 * package digest over them (core's `packageDigest`, canonical form in docs/api.md), who signed it and where it
 * came from. Versions are never changed once published, except for their status (yanked, revoked, review).
 */
export interface StoredFile {
  /** `/`-separated path inside the skill. */
  path: string;
  size: number;
  /** `sha256:<hex>` of the bytes (the blob's address). */
  digest: string;
}

/** Everything needed to serve a version without reading its blobs. */
export interface StoredManifest {
  description: string;
  frontmatter: Record<string, unknown>;
  headings: string[];
  /** Sorted by path. SKILL.md included. */
  files: StoredFile[];
  totalBytes: number;
  /** The skill's requirements as read at publish (its Codex sidecar included); older records have none stored. */
  requirements?: SkillRequirements;
}

export interface SignatureRecord {
  algorithm: 'ed25519';
  /** `ed25519:` + the first 32 hex characters of sha256 over the raw 32-byte public key. */
  keyId: string;
  /** The public key, SPKI PEM, so anyone can check the signature without asking the registry. */
  publicKey: string;
  /** base64 Ed25519 signature over the UTF-8 bytes of the package digest string (`sha256:<hex>`). */
  signature: string;
}

export interface Provenance {
  /** Source repository URL, when the publisher gave one. */
  repository?: string;
  /** Source commit, when given. */
  commit?: string;
}

/**
 * A version's review state (ADR 0231): `unreviewed` (published without review: served), `pending` (held by the gate:
 * served to no one until a reviewer decides; no tag points at it), `approved` (served; the tags asked for at publish
 * move to it on approval), `rejected` (never served).
 */
export type ReviewStatus = 'unreviewed' | 'pending' | 'approved' | 'rejected';
export const REVIEW_STATUSES: readonly ReviewStatus[] = ['unreviewed', 'pending', 'approved', 'rejected'];

/** A finding as stored with a version: the scanner's own (packages/scan). */
export type StoredFinding = Finding;

/**
 * What the gate found and decided at publish (ADR 0230), kept with the version as provenance: the scan's findings
 * (at most 200, highest first; `counts` counts them all), near-duplicates it named, the decision and why, the tags
 * a held version gets once approved, and the review decision.
 */
export interface GateRecord {
  scannedAt: string;
  counts: { low: number; medium: number; high: number };
  findings: StoredFinding[];
  /** Skills the publisher sees whose name or description is very close (names only). */
  duplicates?: Array<{ name: string; similarity: number; reason: string }>;
  decision: 'allowed' | 'held';
  /** Why it was held (or what was noted when allowed). */
  reasons: string[];
  /** Tags asked for at publish, moved to the version when it is approved. */
  requestedTags?: string[];
  reviewedBy?: string;
  reviewedAt?: string;
  reviewReason?: string;
}

export interface VersionRecord {
  name: string;
  version: string;
  packageDigest: string;
  manifest: StoredManifest;
  /** ISO 8601, set by the registry. */
  publishedAt: string;
  /** Who published it, as the write authoriser named them (`token` until identities exist). */
  publisher: string;
  signatures: SignatureRecord[];
  provenance: Provenance;
  review: ReviewStatus;
  /** The gate's scan and decision (absent for versions published before the gate existed). */
  gate?: GateRecord;
  /** Set when yanked: gone from catalogs and tags, still readable by exact version or digest. */
  yankedAt?: string;
  /** Set when revoked: refused everywhere, with the reason. */
  revoked?: { at: string; reason: string };
  /** Store revision of the last change to this record (for incremental refreshes). */
  revision: number;
}

/** What a publish hands the store, once every blob is stored. */
export type NewVersion = Omit<VersionRecord, 'revision' | 'yankedAt' | 'revoked'>;

export interface TagRecord {
  name: string;
  tag: string;
  version: string;
}

export const LATEST = 'latest';

/** Pending, or rejected before it was ever served: served to no one, listed only to its publisher and reviewers. */
export function isHeld(record: Pick<VersionRecord, 'review' | 'gate'>): boolean {
  return record.review === 'pending' || (record.review === 'rejected' && record.gate?.decision === 'held');
}

/** A refusal with the HTTP status it maps to and one line for the caller. */
/**
 * The registry package's one base error: a stable `code` callers select on, and the HTTP status the API answers it
 * with (http-api.ts turns it into the server's HttpError). Kept free of the server package: the publisher's side
 * (`@skillport/registry/client`) throws it too.
 */
export class RegistryError extends Error {
  override name = 'RegistryError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Codes of a full disk or quota: the file system's, SQLite's and PostgreSQL's (`disk_full`). */
const STORAGE_FULL = new Set(['ENOSPC', 'EDQUOT', 'SQLITE_FULL', '53100']);

/** A write that failed because the store's disk is full: the API answers 507 with one line, not a bare 500. */
export function storageFull(error: unknown): RegistryError | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (typeof code !== 'string' || !STORAGE_FULL.has(code)) return undefined;
  return new RegistryError(507, 'insufficient_storage', `the registry's storage is full (${code}); nothing was published: free space and publish again`);
}
