import semver from 'semver';
import { printable as corePrintable } from '@skillport/core';
import type { GateRecord, NewVersion, ReviewStatus, TagRecord, VersionRecord } from './model.js';

/**
 * The registry store: version metadata plus content-addressed blobs. Every implementation (SQLite here; PostgreSQL
 * next) must pass the contract suite in test/store-contract.ts, so callers never change with the store.
 *
 * Atomicity contract: `putBlob` returns only once the blob is durable; `commitVersion` makes a version (and its tag
 * moves) visible in one transaction that only references stored blobs. A crash at any point leaves either no version
 * or the whole version; blobs written for a publish that never committed are orphans, which `check` reports and never
 * deletes.
 */
export interface RegistryStore {
  /** Where the store lives, for messages. */
  readonly location: string;
  /** Stores `bytes` under its digest (`sha256:<hex>`, checked). Idempotent; durable when it resolves. */
  putBlob(digest: string, bytes: Uint8Array): Promise<void>;
  hasBlob(digest: string): Promise<boolean>;
  /** The blob's bytes; throws when missing or not `size` bytes long (callers verify the digest). */
  readBlob(digest: string, size: number): Promise<Uint8Array>;
  /**
   * Commits a version whose blobs are all stored, and points `tags` at it, atomically.
   * `exists`: the same name, version and package digest is already there (nothing changes).
   * `conflict`: the same name and version holds other bytes (nothing changes).
   */
  commitVersion(version: NewVersion, tags: readonly string[]): Promise<CommitResult>;
  getVersion(name: string, version: string): Promise<VersionRecord | undefined>;
  /** Every version of a skill, oldest first. */
  listVersions(name: string): Promise<VersionRecord[]>;
  /** Every skill name, sorted. */
  listNames(): Promise<string[]>;
  tags(name: string): Promise<TagRecord[]>;
  /** Points a tag at an existing version (which must be neither yanked nor revoked). */
  setTag(name: string, tag: string, version: string): Promise<void>;
  /** Removes a tag; false when it did not exist. */
  removeTag(name: string, tag: string): Promise<boolean>;
  /** Yanks a version: removes every tag on it and re-points `latest` (see `chooseLatest`), atomically. */
  yank(name: string, version: string, at: string): Promise<VersionRecord>;
  /**
   * Undoes a yank: the version is listed again, and `latest` returns to it when it is now the highest live release
   * (or nothing held `latest`). Other tags stay where they are. A revoked version cannot be restored.
   */
  unyank(name: string, version: string): Promise<VersionRecord>;
  /** Revokes a version with a reason: like yank, and the version is refused everywhere. */
  revoke(name: string, version: string, reason: string, at: string): Promise<VersionRecord>;
  setReview(name: string, version: string, review: ReviewStatus): Promise<VersionRecord>;
  /**
   * A reviewer's decision on a version (ADR 0231), atomically: its review state and gate record, and `tags` pointed
   * at it (the tags asked for at publish, on approval; none on rejection; none when it was withdrawn meanwhile).
   */
  decideReview(name: string, version: string, review: ReviewStatus, gate: GateRecord, tags: readonly string[]): Promise<VersionRecord>;
  /** The store's revision: it grows with every committed change (also changes made by other processes). */
  revision(): Promise<number>;
  /** Versions changed after `since` (exclusive) and every tag, as of `revision`. */
  changesSince(since: number): Promise<{ revision: number; versions: VersionRecord[]; tags: TagRecord[] }>;
  /**
   * Optional: calls `onChange` soon after any process commits a change (PostgreSQL: LISTEN/NOTIFY), and once after
   * each reconnection; `onState` says whether the wake-up channel is connected. Returns a function that stops it.
   * Stores without it are followed by polling `revision()`.
   */
  watch?(onChange: () => void, onState?: (connected: boolean) => void): () => void;
  /** Optional: a store whose blobs are remote loads these into memory in the background (files of listed versions). */
  warm?(files: ReadonlyArray<{ digest: string; size: number }>): void;
  /** Checks the store's consistency without changing anything. */
  check(options?: { verifyBlobs?: boolean }): Promise<StoreCheck>;
  close(): Promise<void>;
}

export type CommitResult =
  | { status: 'created'; version: VersionRecord }
  | { status: 'exists'; version: VersionRecord }
  | { status: 'conflict'; version: VersionRecord };

export interface StoreCheck {
  /** No problem found (orphaned blobs are reported but do not make a store inconsistent). */
  consistent: boolean;
  versions: number;
  tags: number;
  blobs: number;
  /** Blobs a version references that are missing, the wrong size, or (with verifyBlobs) the wrong bytes. */
  problems: string[];
  /** Blob files no version references (e.g. from a publish killed before its commit). Never deleted by check. */
  orphanBlobs: string[];
  /** Temporary files of interrupted blob writes. */
  tempFiles: string[];
}

/**
 * Where `latest` goes when the version it named is yanked or revoked: the highest remaining version by semver
 * precedence that is neither yanked nor revoked, preferring releases over prereleases; none when nothing is left.
 */
export function chooseLatest(versions: readonly (Pick<VersionRecord, 'version' | 'yankedAt' | 'revoked'> & { review?: ReviewStatus })[]): string | undefined {
  // A version held for review or rejected is not served, so no tag may name it (ADR 0231).
  const live = versions
    .filter((v) => v.yankedAt === undefined && v.revoked === undefined && v.review !== 'pending' && v.review !== 'rejected')
    .map((v) => v.version);
  const releases = live.filter((v) => semver.prerelease(v) === null);
  const pool = releases.length > 0 ? releases : live;
  return pool.sort(semver.compare).at(-1);
}

export const TAG_PATTERN = /^[a-z][a-z0-9._-]{0,63}$/;

/** Why `tag` cannot be a tag name, or undefined. Tags must not look like versions, so `NAME@X` is never ambiguous. */
export function badTagReason(tag: string): string | undefined {
  if (!TAG_PATTERN.test(tag)) return `tag '${printable(tag)}' must be 1-64 characters: a lowercase letter, then lowercase letters, digits, '.', '_' or '-'`;
  if (semver.valid(tag) !== null) return `tag '${tag}' looks like a version`;
  return undefined;
}

/**
 * A caller's text that may be of any length (a version sent by a hostile publisher can be megabytes), quoted by its
 * start: the first `max` characters (controls shown as `?`), then `…` and how long it is.
 */
export function quotedStart(text: string, max = 64): string {
  const whole = String(text);
  return whole.length <= max ? `'${corePrintable(whole, max)}'` : `'${corePrintable(whole, max)}…' (${whole.length} characters)`;
}

/** A caller's text quoted in a registry message (core's printable, at most 120 characters). */
export function printable(text: string): string {
  return corePrintable(text, 120);
}
