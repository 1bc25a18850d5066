import { mimeTypeFor } from '@skillport/core';
import type { InspectedSkill, SkillFileRecord, SkillManifest, SkillRequirements } from '@skillport/core';

const DIGEST_PREFIX = 'sha256:';
const HEX_DIGITS = 64;

/**
 * A skill's file list as columns instead of one object per file: the paths (shared strings), the sizes, and the
 * digests' hex digits, 64 a file, in one string (one header for the whole skill). A `sha256:<hex>` string per file
 * was 88 bytes of heap and a record object beside it another ~60: at 100,000 skills (450,000 files) about 65 MB. A
 * digest is made when asked for (a slice and the prefix), byte for byte what was read. Raw bytes (32 a file) would
 * halve the column, but turning them back into hex took ten times as long as a slice, on every page and read.
 * A list holding any digest not written `sha256:` + 64 lowercase hex digits keeps its digests as given (strings).
 */
export class PackedFiles {
  readonly paths: readonly string[];
  readonly sizes: readonly number[];
  /** 64 hex digits a file, or the digests themselves when one is not canonical. */
  readonly #digests: string | readonly string[];
  /** Link targets by file index; undefined when no file is a link. */
  readonly #targets: ReadonlyMap<number, string> | undefined;

  private constructor(paths: string[], sizes: number[], digests: string | string[], targets: Map<number, string> | undefined) {
    this.paths = paths;
    this.sizes = sizes;
    this.#digests = digests;
    this.#targets = targets;
  }

  /** The columns of `records` (in their order); `intern` shares path strings between skills. */
  static from(records: readonly SkillFileRecord[], intern: (value: string) => string = (value) => value): PackedFiles {
    return PackedFiles.#pack(
      records.length,
      (i) => intern(records[i]!.path),
      (i) => records[i]!.size,
      (i) => records[i]!.digest,
      (i) => records[i]!.target,
    );
  }

  /**
   * The columns of a persisted catalog's `[path, size, digest, target?]` lists, with nothing made per file on the way
   * (a record object and a media type per file were most of a restore's garbage at 100,000 skills).
   */
  static fromTuples<P = string>(
    files: readonly (readonly [P, number, string, string?])[],
    intern: (value: P) => string = (value) => value as string,
  ): PackedFiles {
    return PackedFiles.#pack(
      files.length,
      (i) => intern(files[i]![0]),
      (i) => files[i]![1],
      (i) => files[i]![2],
      (i) => files[i]![3],
    );
  }

  static #pack(
    count: number,
    pathOf: (index: number) => string,
    sizeOf: (index: number) => number,
    digestOf: (index: number) => string,
    targetOf: (index: number) => string | undefined,
  ): PackedFiles {
    const paths: string[] = new Array(count);
    const sizes: number[] = new Array(count);
    const digests: string[] = new Array(count);
    let targets: Map<number, string> | undefined;
    let shaped = true;
    for (let i = 0; i < count; i++) {
      paths[i] = pathOf(i);
      sizes[i] = sizeOf(i);
      const target = targetOf(i);
      if (target !== undefined) (targets ??= new Map()).set(i, target);
      const digest = digestOf(i);
      digests[i] = digest;
      if (shaped && (digest.length !== DIGEST_PREFIX.length + HEX_DIGITS || !digest.startsWith(DIGEST_PREFIX))) shaped = false;
    }
    // Through bytes: a fresh flat string, never a slice that would keep the scanned digest strings alive. The round
    // trip is the check too (a regular expression per digest was ~0.4 s of a 100,000-skill restore): a digit that is
    // not lowercase hex ends the decoding early or comes back lowercase, so the hex differs from what was given.
    if (shaped) {
      let given = '';
      for (const digest of digests) given += digest.slice(DIGEST_PREFIX.length);
      const hex = Buffer.from(given, 'hex').toString('hex');
      if (hex === given) return new PackedFiles(paths, sizes, hex, targets);
    }
    return new PackedFiles(paths, sizes, digests, targets);
  }

  get length(): number {
    return this.paths.length;
  }

  path(index: number): string {
    return this.paths[index]!;
  }

  size(index: number): number {
    return this.sizes[index]!;
  }

  digest(index: number): string {
    const digests = this.#digests;
    return typeof digests === 'string' ? DIGEST_PREFIX + digests.slice(index * HEX_DIGITS, (index + 1) * HEX_DIGITS) : digests[index]!;
  }

  target(index: number): string | undefined {
    return this.#targets?.get(index);
  }

  /** Whether any file is a link (most skills: none). */
  get hasTargets(): boolean {
    return this.#targets !== undefined;
  }

  mimeType(index: number): string {
    return mimeTypeFor(this.paths[index]!);
  }

  /** File `index` as a record of its own (made now: nothing holds it). */
  record(index: number): SkillFileRecord {
    const record: SkillFileRecord = { path: this.path(index), size: this.size(index), digest: this.digest(index), mimeType: this.mimeType(index) };
    const target = this.target(index);
    if (target !== undefined) record.target = target;
    return record;
  }

  records(): SkillFileRecord[] {
    return Array.from({ length: this.length }, (_, index) => this.record(index));
  }

  /** Same files linked the same way, file by file (what a package digest does not cover). */
  sameTargets(other: PackedFiles): boolean {
    if (this.length !== other.length) return false;
    if (this.#targets === undefined || other.#targets === undefined) return this.#targets === other.#targets;
    if (this.#targets.size !== other.#targets.size) return false;
    for (const [index, target] of this.#targets) if (other.#targets.get(index) !== target) return false;
    return true;
  }
}

/**
 * A scanned skill whose file list is packed (see PackedFiles): what the live catalog keeps per folder. `files` is
 * made when asked for (persisting, the watcher's first walk); the catalog skill built from it shares the columns.
 * A restored skill (`CompactSkill.restored`) keeps its frontmatter as the JSON text it was saved in (`detailsText`)
 * until it is asked for: at 100,000 skills those objects were a large part of what a warm start built and the young
 * generation copied, and most skills are never asked for it before they change. Its requirements are the saved
 * scan's, read at restore (small, and what a restricted view checks for every skill).
 */
export class CompactSkill implements InspectedSkill {
  dir: string;
  realDir: string;
  folderName: string;
  name: string;
  description: string;
  totalBytes: number;
  packageDigest: string;
  headings: string[];
  #frontmatter: Record<string, unknown> = {};
  #requirements: SkillRequirements | undefined;
  /** Restored: its requirements are the scan's own (absent: it declared none), not to be read again from its frontmatter. */
  #requirementsKnown = false;
  /** The saved details (`detailsText`) until they are parsed. */
  #details: string | undefined;

  constructor(
    skill: Omit<InspectedSkill, 'files' | 'frontmatter'> & Partial<Pick<InspectedSkill, 'frontmatter'>>,
    readonly packed: PackedFiles,
  ) {
    this.dir = skill.dir;
    this.realDir = skill.realDir;
    this.folderName = skill.folderName;
    this.name = skill.name;
    this.description = skill.description;
    if (skill.frontmatter !== undefined) this.#frontmatter = skill.frontmatter;
    this.headings = skill.headings;
    this.totalBytes = skill.totalBytes;
    this.packageDigest = skill.packageDigest;
    this.#requirements = skill.requirements;
  }

  /** A skill read back from a persisted catalog, its `details` (from `detailsText`) parsed when first asked for. */
  static restored(skill: Omit<InspectedSkill, 'files' | 'frontmatter'>, packed: PackedFiles, details: string): CompactSkill {
    const restored = new CompactSkill(skill, packed);
    restored.#details = details;
    restored.#requirementsKnown = true;
    return restored;
  }

  /** Whether `requirements` is the scan's own reading (see #requirementsKnown). */
  get requirementsKnown(): boolean {
    return this.#requirementsKnown;
  }

  /**
   * A skill's frontmatter as a JSON text, `[frontmatter, elided]`: the frontmatter's name and description, when they
   * are the skill's (nearly always: most of its bytes), saved as 0 and flagged in `elided` (1: name, 2:
   * description), so the text holds each once. A restored skill not asked for it yet gives back the text it was read from.
   */
  static detailsText(skill: InspectedSkill): string {
    if (skill instanceof CompactSkill && skill.#details !== undefined) return skill.#details;
    const frontmatter = skill.frontmatter;
    let elided = 0;
    if (frontmatter['name'] === skill.name) elided |= 1;
    if (frontmatter['description'] === skill.description) elided |= 2;
    const saved = elided === 0 ? frontmatter : { ...frontmatter, ...(elided & 1 ? { name: 0 } : {}), ...(elided & 2 ? { description: 0 } : {}) };
    return JSON.stringify([saved, elided]);
  }

  /** Whether the details are still the saved text (nothing has asked for them). */
  get unparsed(): boolean {
    return this.#details !== undefined;
  }

  get frontmatter(): Record<string, unknown> {
    if (this.#details !== undefined) this.#parse();
    return this.#frontmatter;
  }

  set frontmatter(value: Record<string, unknown>) {
    if (this.#details !== undefined) this.#parse();
    this.#frontmatter = value;
  }

  get requirements(): SkillRequirements | undefined {
    return this.#requirements;
  }

  set requirements(value: SkillRequirements | undefined) {
    this.#requirements = value;
  }

  get files(): SkillFileRecord[] {
    return this.packed.records();
  }

  #parse(): void {
    const text = this.#details!;
    this.#details = undefined;
    // Written by this server into a checksummed file: a shape it cannot have written means no details were saved.
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const [frontmatter, elided] = Array.isArray(parsed) ? (parsed as unknown[]) : [];
    if (frontmatter !== null && typeof frontmatter === 'object' && !Array.isArray(frontmatter)) {
      const fields = frontmatter as Record<string, unknown>;
      // Put back in place (the key keeps its position): the same strings as the skill's own.
      if (typeof elided === 'number' && elided & 1) fields['name'] = this.name;
      if (typeof elided === 'number' && elided & 2) fields['description'] = this.description;
      this.#frontmatter = fields;
    }
  }
}

/** A manifest's files as columns: its own when packed already, packed now otherwise. */
export function packedFilesOf(manifest: SkillManifest): PackedFiles {
  return manifest instanceof CompactSkill ? manifest.packed : PackedFiles.from(manifest.files);
}
