import { sha256Digest } from '@skillport/core';
import type { ArchiveFormat, FolderProblem, SkillFileEntry, SkillManifest } from '@skillport/core';
import { buildCatalogSkill } from '../catalog/catalog-skill.js';
import type { SkillProvider } from '../catalog/composite-catalog.js';
import type { BlobSource, CatalogFile, CatalogSkill } from '../catalog/model.js';

/**
 * What the archive and HTTP providers share: turning a skill held in memory into a served catalog skill (stored
 * origin, bytes by digest), and the SkillProvider bookkeeping (the current list, change listeners).
 */

/** Bytes kept in memory by their digest: a skill's files, and its archive when it came as one. */
export class MemoryBlobs implements BlobSource {
  readonly #bytes = new Map<string, Uint8Array>();

  put(bytes: Uint8Array, digest = sha256Digest(bytes)): string {
    this.#bytes.set(digest, bytes);
    return digest;
  }

  async read(digest: string): Promise<Uint8Array> {
    const bytes = this.#bytes.get(digest);
    if (bytes === undefined) throw new Error(`no stored bytes for ${digest}`);
    return bytes;
  }
}

export interface PackedForm {
  bytes: Uint8Array;
  format: ArchiveFormat;
  /** Its digest, when already computed. */
  digest?: string;
}

const ARTIFACT_TYPES: Partial<Record<ArchiveFormat, { ext: string; mimeType: string }>> = {
  zip: { ext: 'zip', mimeType: 'application/zip' },
  'tar.gz': { ext: 'tar.gz', mimeType: 'application/gzip' },
};

/**
 * A catalog skill over in-memory files, served at `skill://<path...>/SKILL.md`. `packed`, when given and in a format
 * the draft-era discovery index knows (zip, tar.gz), becomes the skill's artifact at `<root uri>.<ext>`: the packed
 * bytes exactly as they came, so their digest is the one the publisher computed (ADR 0010).
 */
export function storedCatalogSkill(
  manifest: SkillManifest,
  files: readonly SkillFileEntry[],
  path: readonly string[],
  source: string,
  packed?: PackedForm,
  meta: Record<string, unknown> = {},
): CatalogSkill | string {
  const blobs = new MemoryBlobs();
  for (const file of files) blobs.put(file.bytes);
  const built = buildCatalogSkill(manifest, path, { kind: 'stored', source, blobs }, meta);
  if (typeof built === 'string') return built;
  const type = packed === undefined ? undefined : ARTIFACT_TYPES[packed.format];
  if (packed !== undefined && type !== undefined) {
    const digest = blobs.put(packed.bytes, packed.digest ?? sha256Digest(packed.bytes));
    const artifact: CatalogFile = {
      uri: `${built.rootUri}.${type.ext}`,
      path: `${path.at(-1) ?? 'skill'}.${type.ext}`,
      size: packed.bytes.byteLength,
      digest,
      mimeType: type.mimeType,
    };
    built.artifact = artifact;
  }
  return built;
}

/** The SkillProvider plumbing: hold the published list, tell listeners when it changes. */
export abstract class ProviderBase implements SkillProvider {
  abstract readonly label: string;
  #skills: readonly CatalogSkill[] = [];
  readonly #listeners = new Set<() => void>();

  skills(): readonly CatalogSkill[] {
    return this.#skills;
  }

  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Publishes a new list; listeners hear about it only when some skill was added, removed or changed. */
  protected publish(skills: readonly CatalogSkill[]): void {
    const before = new Map(this.#skills.map((skill) => [skill.uri, skill.packageDigest + (skill.artifact?.digest ?? '')]));
    const same = before.size === skills.length && skills.every((skill) => before.get(skill.uri) === skill.packageDigest + (skill.artifact?.digest ?? ''));
    // Unchanged: keep the published objects (the served snapshot holds them; equal digests mean equal bytes).
    if (same) return;
    this.#skills = Object.freeze([...skills]);
    for (const listener of this.#listeners) listener();
  }
}

/** Problems said once each (by path and message); those found while starting are kept for `--strict`. */
export class ProblemLog {
  readonly startup: FolderProblem[] = [];
  starting = true;
  readonly #said = new Set<string>();

  constructor(readonly onProblem?: (problem: FolderProblem) => void) {}

  report(problem: FolderProblem): void {
    const key = `${problem.path}\0${problem.message}`;
    if (this.#said.has(key)) return;
    this.#said.add(key);
    if (this.starting) this.startup.push(problem);
    this.onProblem?.(problem);
  }
}
