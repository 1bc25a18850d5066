import semver from 'semver';
import type { KeyObject } from 'node:crypto';
import { DEFAULT_LIMITS, declaredVersion, inspectSkillFiles, packageDigest, refusedAtPublish } from '@skillport/core';
import type { SkillFileEntry, SkillLimits } from '@skillport/core';
import { ArchiveError, readSkillPackage } from './package-format.js';
import { LATEST, REVIEW_STATUSES, RegistryError, isHeld } from './model.js';
import type { GateRecord, Provenance, ReviewStatus, SignatureRecord, TagRecord, VersionRecord } from './model.js';
import { DEFAULT_SETTINGS, judge } from './gate.js';
import type { Neighbour } from './gate.js';
import type { GateSettings } from '@skillport/server';
import type { WriteAction, WriteGuard } from './auth.js';
import { checkSignature } from './signing.js';
import { badTagReason, printable, quotedStart } from './store.js';
import type { RegistryStore } from './store.js';

/**
 * The registry's rules, over any store: what may be published (strict validation, semver, immutability, signatures),
 * how tags move, and how versions are withdrawn. HTTP routes and the CLI's local commands both call it.
 */
export interface RegistryServiceOptions {
  store: RegistryStore;
  limits?: SkillLimits;
  /** Public keys whose signatures count as trusted, by key id. */
  trustedKeys?: ReadonlyMap<string, KeyObject>;
  /** Refuse to publish (and to serve) versions that no trusted key signed. */
  requireSignatures?: boolean;
  /**
   * Refuse skills with warnings too (`serve --strict`, `strict: true` in the config file). By default a skill is
   * published as `validate` passes it: errors refuse it, warnings do not.
   */
  strict?: boolean;
  /** Extra frontmatter fields accepted without a warning (the `allowFields` setting). */
  allowFields?: readonly string[];
  now?: () => Date;
  /**
   * Called at `after-blob-N`, `before-commit` and `after-commit` of each publish, and awaited: crash tests pass a hook
   * that stops there (the product passes none).
   */
  pause?: (point: string) => Promise<void>;
}

export interface PublishRequest {
  /** A `.skill` archive (or a plain tar.gz of a skill folder). */
  archive?: Uint8Array;
  /** Or the files themselves (paths relative to the skill folder). */
  files?: SkillFileEntry[];
  /** The folder the files came from, checked against the skill's name as `validate` does. */
  folderName?: string;
  /** The version; else the archive manifest's, else the frontmatter's `metadata.version`. */
  version?: string;
  /** Tags to point at the new version. Default: `latest` (see `tagsForPublish`). */
  tags?: string[];
  publisher: string;
  provenance?: Provenance;
  signatures?: SignatureRecord[];
  /** Which names the publisher may write (the API's callers); none: every name (the local CLI, the operator). */
  guard?: WriteGuard;
  /** The gate's settings for the name being published (the policy's `gate:`; ADR 0230). Default: allow everything. */
  gate?: (name: string) => GateSettings;
  /** The skills the publisher sees, to warn of near-duplicates (never a skill it cannot see). */
  neighbours?: () => readonly Neighbour[];
}

export interface PublishResult {
  /** `created`, or `exists` when the same bytes were already published under this version (nothing changed). */
  status: 'created' | 'exists';
  version: VersionRecord;
  tags: TagRecord[];
  /** What the gate found, for the publisher: findings summarised, near-duplicates named (`warning:` lines). */
  warnings: string[];
}

/** Blob writes in flight at once during a publish. */
const BLOB_WRITERS = 8;

export class RegistryService {
  readonly store: RegistryStore;
  readonly limits: SkillLimits;
  #listeners = new Set<() => void>();

  constructor(readonly options: RegistryServiceOptions) {
    this.store = options.store;
    this.limits = options.limits ?? DEFAULT_LIMITS;
  }

  /** Called after every change this service commits (the provider refreshes at once instead of at its next poll). */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async publish(request: PublishRequest): Promise<PublishResult> {
    let files = request.files;
    let folderName = request.folderName;
    let manifestVersion: string | undefined;
    let manifestName: string | undefined;
    let provenance: Provenance = {};
    const signatures: SignatureRecord[] = [...(request.signatures ?? [])];
    if (request.archive !== undefined) {
      let archive;
      try {
        archive = await readSkillPackage(request.archive, this.limits);
      } catch (error) {
        if (error instanceof ArchiveError) throw new RegistryError(400, 'bad_archive', error.message);
        throw error;
      }
      files = archive.files;
      folderName ??= archive.folderName;
      manifestVersion = archive.manifest?.version;
      manifestName = archive.manifest?.name;
      provenance = { ...archive.manifest?.provenance };
      signatures.push(...(archive.manifest?.signatures ?? []));
    }
    if (files === undefined) throw new RegistryError(400, 'no_content', 'nothing to publish: give a .skill archive');
    provenance = cleanProvenance({ ...provenance, ...request.provenance });

    const inspected = inspectSkillFiles(files, {
      limits: this.limits,
      ...(folderName !== undefined ? { folderName } : {}),
      ...(this.options.allowFields ? { allowFields: this.options.allowFields } : {}),
    });
    const refused = refusedAtPublish(
      inspected.problems,
      files.map((file) => file.path),
      this.options.strict,
    );
    if (inspected.skill === undefined || refused.length > 0) {
      const lines = refused.map((problem) => `${problem.path ? `${problem.path}: ` : ''}${problem.message}`);
      throw new RegistryError(
        422,
        'invalid_skill',
        this.options.strict
          ? `the skill does not validate strictly (this registry refuses warnings too: fix what \`skillport validate --strict\` reports): ${lines.join('; ')}`
          : `the skill does not validate (fix the errors \`skillport validate\` reports): ${lines.join('; ')}`,
      );
    }
    const skill = inspected.skill;
    if (manifestName !== undefined && manifestName !== skill.name)
      throw new RegistryError(400, 'name_mismatch', `the archive manifest names '${printable(manifestName)}' but SKILL.md names '${skill.name}'`);
    // The name comes from the archive: checked before anything about it is looked up, so a refusal says nothing of
    // whether it exists (a hidden name and a name the publisher may not create answer alike).
    if (request.guard !== undefined && !(request.guard.sees(skill.name) && request.guard.may('publish', skill.name))) throw publishRefused(skill.name);
    const version = this.#chooseVersion(request.version, manifestVersion, skill.frontmatter);
    const digest = skill.packageDigest;

    const checked = this.#checkSignatures(digest, signatures);
    if (this.options.requireSignatures && checked.trusted.length === 0) {
      throw new RegistryError(
        403,
        'signature_required',
        `this registry requires a signature by a trusted key (--require-signatures); ${signatures.length === 0 ? 'the package is not signed (publish --sign KEYFILE)' : `it is signed only by untrusted keys: ${signatures.map((s) => s.keyId).join(', ')}`}`,
      );
    }

    const existing = await this.store.getVersion(skill.name, version);
    if (existing !== undefined) return this.#sameOrConflict(existing, digest);

    const tags = await this.#tagsForPublish(skill.name, version, request.tags);
    // The gate, before any blob is written: a refusal leaves nothing behind.
    const verdict = judge(
      { name: skill.name, description: skill.description, files },
      request.gate?.(skill.name) ?? DEFAULT_SETTINGS,
      request.neighbours?.() ?? [],
      this.#now(),
    );
    const gate = verdict.held ? { ...verdict.record, requestedTags: tags } : verdict.record;
    const bytesByPath = new Map(files.map((file) => [file.path, file.bytes]));
    // Blobs go to the store side by side (each is fsynced; in parallel the disk can group them), before the commit.
    let written = 0;
    const queue = [...skill.files];
    const writer = async () => {
      for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
        const bytes = bytesByPath.get(file.path);
        if (bytes === undefined) throw new RegistryError(500, 'internal', `lost the bytes of ${file.path}`);
        if (!(await this.store.hasBlob(file.digest))) await this.store.putBlob(file.digest, bytes);
        await this.options.pause?.(`after-blob-${++written}`);
      }
    };
    await Promise.all(Array.from({ length: Math.min(BLOB_WRITERS, queue.length) }, writer));
    await this.options.pause?.('before-commit');
    const result = await this.store.commitVersion(
      {
        name: skill.name,
        version,
        packageDigest: digest,
        manifest: {
          description: skill.description,
          frontmatter: skill.frontmatter,
          headings: skill.headings,
          files: skill.files.map((file) => ({ path: file.path, size: file.size, digest: file.digest })),
          totalBytes: skill.totalBytes,
          ...(skill.requirements !== undefined ? { requirements: skill.requirements } : {}),
        },
        publishedAt: (this.options.now?.() ?? new Date()).toISOString(),
        publisher: request.publisher,
        signatures: checked.valid,
        provenance,
        // Held: pending, and no tag points at it until a reviewer approves it (ADR 0231).
        review: verdict.held ? 'pending' : 'unreviewed',
        gate,
      },
      verdict.held ? [] : tags,
    );
    if (result.status !== 'created') return this.#sameOrConflict(result.version, digest);
    await this.options.pause?.('after-commit');
    this.#changed();
    const warnings = [...verdict.warnings];
    if (verdict.held)
      warnings.unshift(`${skill.name}@${version} is held for review (${verdict.record.reasons.join('; ')}); it is served once a reviewer approves it`);
    return { status: 'created', version: result.version, tags: await this.store.tags(skill.name), warnings };
  }

  async #sameOrConflict(existing: VersionRecord, digest: string): Promise<PublishResult> {
    if (existing.packageDigest !== digest) {
      throw new RegistryError(
        409,
        'version_exists',
        `${existing.name}@${existing.version} is already published with other bytes (${existing.packageDigest}); versions never change: publish a new version`,
      );
    }
    return { status: 'exists', version: existing, tags: await this.store.tags(existing.name), warnings: [] };
  }

  #chooseVersion(given: string | undefined, fromManifest: string | undefined, frontmatter: Record<string, unknown>): string {
    const candidate = given ?? fromManifest ?? declaredVersion(frontmatter);
    if (candidate === undefined)
      throw new RegistryError(400, 'version_required', 'no version: give one (publish --version 1.0.0) or set metadata.version in SKILL.md');
    if (candidate.length > 128 || semver.valid(candidate) !== candidate) {
      throw new RegistryError(400, 'bad_version', `${quotedStart(candidate)} is not a semantic version (MAJOR.MINOR.PATCH, e.g. 1.2.0 or 2.0.0-beta.1)`);
    }
    return candidate;
  }

  /**
   * Tags for a new version: those given, else `latest`; a prerelease moves `latest` only when asked. The first
   * version of a skill always gets `latest`, so every skill is served.
   */
  async #tagsForPublish(name: string, version: string, given: string[] | undefined): Promise<string[]> {
    const tags = new Set<string>();
    for (const tag of given ?? []) {
      const bad = badTagReason(tag);
      if (bad) throw new RegistryError(400, 'bad_tag', bad);
      tags.add(tag);
    }
    if (given === undefined || given.length === 0) {
      if (semver.prerelease(version) === null) tags.add(LATEST);
    }
    if (!tags.has(LATEST) && !(await this.store.tags(name)).some((tag) => tag.tag === LATEST)) tags.add(LATEST);
    return [...tags];
  }

  #checkSignatures(digest: string, signatures: readonly SignatureRecord[]): { valid: SignatureRecord[]; trusted: SignatureRecord[] } {
    const valid: SignatureRecord[] = [];
    const seen = new Set<string>();
    for (const signature of signatures) {
      const verdict = checkSignature(digest, signature);
      if (!verdict.valid) throw new RegistryError(400, 'bad_signature', verdict.reason);
      if (seen.has(signature.keyId)) continue;
      seen.add(signature.keyId);
      valid.push(signature);
    }
    return { valid, trusted: valid.filter((signature) => this.isTrusted(signature)) };
  }

  isTrusted(signature: SignatureRecord): boolean {
    return this.options.trustedKeys?.has(signature.keyId) === true;
  }

  async versions(name: string): Promise<{ name: string; tags: Record<string, string>; versions: VersionRecord[] }> {
    const versions = await this.store.listVersions(name);
    if (versions.length === 0) throw new RegistryError(404, 'skill_not_found', `no skill named '${printable(name)}' is published here`);
    const tags = Object.fromEntries((await this.store.tags(name)).map((tag) => [tag.tag, tag.version]));
    return { name, tags, versions };
  }

  async version(name: string, version: string): Promise<VersionRecord> {
    const record = await this.store.getVersion(name, version);
    if (record === undefined) throw versionNotFound(name, version);
    return record;
  }

  async tag(name: string, version: string, tag: string, guard?: WriteGuard): Promise<TagRecord[]> {
    const bad = badTagReason(tag);
    if (bad) throw new RegistryError(400, 'bad_tag', bad);
    const record = await this.#writable('tag', name, version, guard);
    if (record.review === 'pending' || record.review === 'rejected')
      throw new RegistryError(
        409,
        'version_not_approved',
        `${name}@${version} is ${record.review === 'pending' ? 'waiting for review' : 'rejected'}: tags move only to served versions`,
      );
    await this.store.setTag(name, tag, version);
    this.#changed();
    return this.store.tags(name);
  }

  async untag(name: string, tag: string, guard?: WriteGuard): Promise<TagRecord[]> {
    if (tag === LATEST) throw new RegistryError(400, 'bad_tag', `'latest' cannot be removed; point it at another version, or yank the version it names`);
    const noTag = () => new RegistryError(404, 'tag_not_found', `${printable(name)} has no tag '${printable(tag)}'`);
    if (guard !== undefined && !guard.sees(name)) throw noTag();
    if (guard !== undefined && !(await this.store.tags(name)).some((record) => record.tag === tag)) throw noTag();
    if (guard !== undefined && !guard.may('tag', name)) throw writeRefused('tag', name);
    if (!(await this.store.removeTag(name, tag))) throw noTag();
    this.#changed();
    return this.store.tags(name);
  }

  async yank(name: string, version: string, guard?: WriteGuard): Promise<VersionRecord> {
    const record = await this.#writable('yank', name, version, guard);
    if (record.revoked) throw new RegistryError(409, 'version_revoked', `${name}@${version} is already revoked`);
    const result = await this.store.yank(name, version, this.#now());
    this.#changed();
    return result;
  }

  async unyank(name: string, version: string, guard?: WriteGuard): Promise<VersionRecord> {
    await this.#writable('yank', name, version, guard);
    const result = await this.store.unyank(name, version);
    this.#changed();
    return result;
  }

  async revoke(name: string, version: string, reason: string, guard?: WriteGuard): Promise<VersionRecord> {
    const text = reason.trim();
    if (text === '' || text.length > 500)
      throw new RegistryError(400, 'reason_required', 'give a reason (1-500 characters): it is shown to everyone who asks for the version');
    await this.#writable('revoke', name, version, guard);
    const result = await this.store.revoke(name, version, text, this.#now());
    this.#changed();
    return result;
  }

  async review(name: string, version: string, status: string, guard?: WriteGuard, reason = ''): Promise<VersionRecord> {
    const settable = REVIEW_STATUSES.filter((s) => s !== 'pending');
    if (!(settable as readonly string[]).includes(status)) throw new RegistryError(400, 'bad_review', `review status must be one of ${settable.join(', ')}`);
    // Approving or rejecting is a decision (tags move, the reviewer is recorded); `unreviewed` only clears a label.
    if (status === 'approved' || status === 'rejected') return this.decide(name, version, status, reason, guard);
    const record = await this.#writable('review', name, version, guard);
    if (record.review === 'pending') throw new RegistryError(409, 'review_pending', `${name}@${version} is waiting for review: approve or reject it`);
    const result = await this.store.setReview(name, version, status as ReviewStatus);
    this.#changed();
    return result;
  }

  /**
   * A reviewer's decision (ADR 0231). Approve: the version is served and the tags asked for at publish move to it.
   * Reject (a reason is required): it is never served; tags on it are dropped and `latest` re-pointed. Recorded in
   * the version's gate record (who, when, why).
   */
  async decide(name: string, version: string, decision: 'approved' | 'rejected', reason: string, guard?: WriteGuard): Promise<VersionRecord> {
    const text = reason.trim();
    if (text.length > 500) throw new RegistryError(400, 'bad_reason', 'a review reason is at most 500 characters');
    if (decision === 'rejected' && text === '') throw new RegistryError(400, 'reason_required', 'give a reason for the rejection: the publisher reads it');
    const record = await this.#writable('review', name, version, guard);
    if (record.revoked !== undefined) throw new RegistryError(409, 'version_revoked', `${name}@${version} is revoked`);
    if (record.review === decision) return record;
    const gate: GateRecord = {
      ...(record.gate ?? { scannedAt: this.#now(), counts: { low: 0, medium: 0, high: 0 }, findings: [], decision: 'allowed', reasons: [] }),
      reviewedBy: guard?.writer ?? 'operator',
      reviewedAt: this.#now(),
      ...(text !== '' ? { reviewReason: text } : {}),
    };
    let tags: string[] = [];
    if (decision === 'approved' && record.review === 'pending') {
      tags = [...(record.gate?.requestedTags ?? [])];
      if (!tags.includes(LATEST) && !(await this.store.tags(name)).some((tag) => tag.tag === LATEST)) tags.push(LATEST);
    }
    const result = await this.store.decideReview(name, version, decision, gate, tags);
    this.#changed();
    return result;
  }

  /** Versions waiting for review that `guard`'s writer may review or published, oldest first. */
  async pending(guard?: WriteGuard): Promise<VersionRecord[]> {
    const out: VersionRecord[] = [];
    for (const name of await this.store.listNames()) {
      if (guard !== undefined && !guard.sees(name)) continue;
      const reviewer = guard === undefined || guard.may('review', name);
      for (const record of await this.store.listVersions(name)) {
        if (record.review !== 'pending' || record.revoked !== undefined) continue;
        if (reviewer || record.publisher === guard?.writer) out.push(record);
      }
    }
    return out.sort((a, b) => a.publishedAt.localeCompare(b.publishedAt));
  }

  /**
   * The version a write acts on, once the guard allows it: a name the writer does not see is not published as far
   * as it can tell (the same 404 as a missing name, before any lookup); a name it sees but may not write is a 403.
   */
  async #writable(action: WriteAction, name: string, version: string, guard: WriteGuard | undefined): Promise<VersionRecord> {
    if (guard !== undefined && !guard.sees(name)) throw versionNotFound(name, version);
    const record = await this.version(name, version);
    // A held version is invisible to everyone but its publisher and reviewers: to others it is not published.
    if (guard !== undefined && heldFrom(record, guard)) throw versionNotFound(name, version);
    if (guard !== undefined && !guard.may(action, name)) throw writeRefused(action, name);
    return record;
  }

  #now(): string {
    return (this.options.now?.() ?? new Date()).toISOString();
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }
}

/**
 * Whether a version is hidden from this writer: a pending version, or a rejected one that was never served, is seen
 * only by its publisher and by whoever may review the name.
 */
export function heldFrom(record: VersionRecord, viewer: { may(action: WriteAction, name: string): boolean; writer?: string }): boolean {
  if (!isHeld(record)) return false;
  return !(viewer.may('review', record.name) || (viewer.writer !== undefined && viewer.writer === record.publisher));
}

function versionNotFound(name: string, version: string): RegistryError {
  return new RegistryError(404, 'version_not_found', `${printable(name)}@${printable(version)} is not published here`);
}

/** One answer whether the name exists or not, is hidden or only not the publisher's to write (ADR 0180). */
function publishRefused(name: string): RegistryError {
  return new RegistryError(
    403,
    'forbidden',
    `you may not publish a skill named '${printable(name)}' here: the policy lets you publish only names it shows you (and, where a rule names publish subjects, only as one of them)`,
  );
}

function writeRefused(action: WriteAction, name: string): RegistryError {
  if (action === 'revoke' || action === 'review')
    return new RegistryError(403, 'forbidden', `${action} of '${printable(name)}' needs the admin scope, or a policy rule that gives you revoke over the name`);
  return new RegistryError(403, 'forbidden', `the policy does not let you ${action} '${printable(name)}' (a rule matching it names other publish subjects)`);
}

function cleanProvenance(provenance: Provenance): Provenance {
  const clean: Provenance = {};
  if (typeof provenance.repository === 'string' && provenance.repository.trim() !== '') clean.repository = provenance.repository.trim().slice(0, 1000);
  if (typeof provenance.commit === 'string' && provenance.commit.trim() !== '') clean.commit = provenance.commit.trim().slice(0, 200);
  return clean;
}

/** Recomputes a version's package digest from its manifest (used by verify and check). */
export function recomputeDigest(record: Pick<VersionRecord, 'manifest'>): string {
  return packageDigest(record.manifest.files);
}
