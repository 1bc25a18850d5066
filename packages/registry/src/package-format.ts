import { gzipSync } from 'node:zlib';
import { Header, Pax } from 'tar';
import { DIGEST_PATTERN, DEFAULT_LIMITS, formatBytes, packageDigest, readSkillArchive, sha256Digest, unsafePathReason } from '@skillport/core';
import type { SkillFileEntry, SkillLimits } from '@skillport/core';
import type { Provenance, SignatureRecord, StoredFile } from './model.js';
import { isSignatureRecord } from './signing.js';

/**
 * The `.skill` archive (docs/api.md, "The .skill archive"): a gzip-compressed POSIX tar holding
 *
 *   skillport.json          the manifest (first entry): format, name, version, package digest, files, provenance, signatures
 *   <name>/SKILL.md         the skill's files under one folder named like the skill
 *   <name>/references/...
 *
 * Written deterministically (sorted entries, mode 0644, uid/gid 0, mtime 0), so the same skill packs to the same
 * bytes. Reading uses core's safe archive reader (bombs, links, devices, path tricks, entry and size caps), then the
 * manifest must agree with the files it describes.
 */
export const ARCHIVE_FORMAT = 'skillport.skill/1';
export const ARCHIVE_MANIFEST = 'skillport.json';
export const ARCHIVE_MEDIA_TYPE = 'application/vnd.skillport.skill+gzip';

export interface ArchiveManifest {
  format: typeof ARCHIVE_FORMAT;
  name: string;
  version?: string;
  packageDigest: string;
  files: StoredFile[];
  provenance?: Provenance;
  signatures?: SignatureRecord[];
}

export class ArchiveError extends Error {
  override name = 'ArchiveError';
}

/** Builds the manifest of a set of files (sorted by path, as the package digest orders them). */
export function manifestFor(
  name: string,
  files: readonly SkillFileEntry[],
  extra: Partial<Pick<ArchiveManifest, 'version' | 'provenance' | 'signatures'>> = {},
): ArchiveManifest {
  const stored = files
    .map((file) => ({ path: file.path, size: file.bytes.byteLength, digest: sha256Digest(file.bytes) }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const manifest: ArchiveManifest = { format: ARCHIVE_FORMAT, name, packageDigest: packageDigest(stored), files: stored };
  if (extra.version !== undefined) manifest.version = extra.version;
  if (extra.provenance !== undefined && Object.keys(extra.provenance).length > 0) manifest.provenance = extra.provenance;
  if (extra.signatures !== undefined && extra.signatures.length > 0) manifest.signatures = extra.signatures;
  return manifest;
}

/** Packs files and their manifest into `.skill` bytes. */
export function packSkillArchive(manifest: ArchiveManifest, files: readonly SkillFileEntry[]): Buffer {
  const blocks: Buffer[] = [];
  const add = (path: string, bytes: Uint8Array) => {
    const data: ConstructorParameters<typeof Header>[0] & object = {
      path,
      mode: 0o644,
      uid: 0,
      gid: 0,
      size: bytes.byteLength,
      mtime: new Date(0),
      type: 'File',
      uname: '',
      gname: '',
    };
    const header = new Header(data);
    const block = Buffer.alloc(512);
    if (header.encode(block, 0)) blocks.push(new Pax({ ...data, mtime: undefined, atime: undefined, ctime: undefined } as never).encode());
    blocks.push(block, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    const pad = (512 - (bytes.byteLength % 512)) % 512;
    if (pad > 0) blocks.push(Buffer.alloc(pad));
  };
  add(ARCHIVE_MANIFEST, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const file of sorted) add(`${manifest.name}/${file.path}`, file.bytes);
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}

export interface ReadArchive {
  /** The manifest, when the archive has one (a plain tar.gz of a skill folder has none). */
  manifest?: ArchiveManifest;
  /** The skill's files, paths relative to the skill folder. */
  files: SkillFileEntry[];
  /** The folder the files were in (the skill's name in a `.skill` archive). */
  folderName?: string;
}

/**
 * Reads `.skill` bytes (or a plain tar.gz / zip of a skill folder) with core's safe archive reader (zip-slip, links,
 * devices, duplicates, entry count, bombs capped while inflating), then checks the manifest against the files.
 * Throws ArchiveError with a one-line reason.
 */
export async function readSkillPackage(bytes: Uint8Array, limits: SkillLimits = DEFAULT_LIMITS): Promise<ReadArchive> {
  const contents = await readSkillArchive(bytes, {
    limits: {
      // Room for the manifest (up to a few hundred bytes per file) beside the skill's own bytes.
      maxArchiveBytes: limits.maxBytes + MANIFEST_ROOM,
      maxUncompressedBytes: limits.maxBytes + MANIFEST_ROOM,
      maxEntries: 2 * limits.maxFiles + 8,
    },
  });
  const refused = contents.problems.find((problem) => problem.severity === 'error');
  if (refused !== undefined) throw new ArchiveError(refused.message);
  const entries =
    contents.folderName === undefined ? contents.files : contents.files.map((file) => ({ path: `${contents.folderName}/${file.path}`, bytes: file.bytes }));
  if (entries.length > limits.maxFiles + 1) throw new ArchiveError(`archive holds more than ${limits.maxFiles} files (the limit)`);
  const total = entries.reduce((sum, entry) => sum + (entry.path === ARCHIVE_MANIFEST ? 0 : entry.bytes.byteLength), 0);
  if (total > limits.maxBytes) throw new ArchiveError(`archive holds more than ${formatBytes(limits.maxBytes)} of files (the limit)`);
  return assemble(
    entries.map((entry) => ({ path: entry.path, bytes: Buffer.from(entry.bytes.buffer, entry.bytes.byteOffset, entry.bytes.byteLength) })),
    limits,
  );
}

const MANIFEST_ROOM = 1024 * 1024;

function assemble(entries: Array<{ path: string; bytes: Buffer }>, limits: SkillLimits): ReadArchive {
  let manifest: ArchiveManifest | undefined;
  const files: SkillFileEntry[] = [];
  for (const entry of entries) {
    // A leading "./" is how many tar tools write relative paths; anything else odd is refused below.
    const path = entry.path.startsWith('./') ? entry.path.slice(2) : entry.path;
    if (path === ARCHIVE_MANIFEST) {
      if (manifest !== undefined) throw new ArchiveError(`archive holds ${ARCHIVE_MANIFEST} twice`);
      manifest = parseManifest(entry.bytes, limits);
      continue;
    }
    const reason = unsafePathReason(path);
    if (reason !== undefined) throw new ArchiveError(`unsafe path in archive ${JSON.stringify(path.slice(0, 200))}: ${reason}`);
    files.push({ path, bytes: entry.bytes });
  }
  if (files.length === 0) throw new ArchiveError('archive holds no files');
  // Files sit under one folder (the skill's), or at the root of a plain tar.gz.
  const tops = new Set(files.map((file) => (file.path.includes('/') ? file.path.slice(0, file.path.indexOf('/')) : '')));
  let folderName: string | undefined;
  let inner = files;
  if (tops.size === 1 && !tops.has('')) {
    folderName = [...tops][0]!;
    inner = files.map((file) => ({ path: file.path.slice(folderName!.length + 1), bytes: file.bytes }));
  } else if (manifest !== undefined) {
    throw new ArchiveError(`a .skill archive keeps every file under one folder named like the skill (${manifest.name}/)`);
  }
  const seen = new Set<string>();
  for (const file of inner) {
    const reason = unsafePathReason(file.path);
    if (reason !== undefined) throw new ArchiveError(`unsafe path in archive ${JSON.stringify(file.path.slice(0, 200))}: ${reason}`);
    if (seen.has(file.path)) throw new ArchiveError(`archive holds ${file.path} twice`);
    seen.add(file.path);
  }
  if (manifest !== undefined) {
    if (folderName !== manifest.name) throw new ArchiveError(`archive folder '${folderName}' differs from the manifest's name '${manifest.name}'`);
    const actual = manifestFor(manifest.name, inner);
    if (actual.packageDigest !== manifest.packageDigest) {
      const listed = new Map(manifest.files.map((file) => [file.path, file]));
      const wrong = actual.files.find((file) => listed.get(file.path)?.digest !== file.digest) ?? manifest.files.find((file) => !seen.has(file.path));
      throw new ArchiveError(
        `archive files do not match its manifest${wrong ? ` (${wrong.path})` : ''}: package digest ${actual.packageDigest}, manifest says ${manifest.packageDigest}`,
      );
    }
  }
  const result: ReadArchive = { files: inner };
  if (manifest !== undefined) result.manifest = manifest;
  if (folderName !== undefined) result.folderName = folderName;
  return result;
}

function parseManifest(bytes: Buffer, limits: SkillLimits): ArchiveManifest {
  if (bytes.byteLength > 64 * 1024 + limits.maxFiles * 400) throw new ArchiveError(`${ARCHIVE_MANIFEST} is too large`);
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new ArchiveError(`${ARCHIVE_MANIFEST} is not valid JSON`);
  }
  const manifest = value as Partial<ArchiveManifest> & Record<string, unknown>;
  if (manifest === null || typeof manifest !== 'object') throw new ArchiveError(`${ARCHIVE_MANIFEST} is not an object`);
  if (manifest.format !== ARCHIVE_FORMAT)
    throw new ArchiveError(`${ARCHIVE_MANIFEST}: unknown format ${JSON.stringify(manifest.format)} (expected ${ARCHIVE_FORMAT})`);
  if (
    typeof manifest.name !== 'string' ||
    manifest.name === '' ||
    manifest.name.length > 64 ||
    unsafePathReason(manifest.name) !== undefined ||
    manifest.name.includes('/')
  ) {
    throw new ArchiveError(`${ARCHIVE_MANIFEST}: name must be the skill's name`);
  }
  if (manifest.version !== undefined && (typeof manifest.version !== 'string' || manifest.version.length > 256))
    throw new ArchiveError(`${ARCHIVE_MANIFEST}: version must be a string`);
  if (typeof manifest.packageDigest !== 'string' || !DIGEST_PATTERN.test(manifest.packageDigest))
    throw new ArchiveError(`${ARCHIVE_MANIFEST}: packageDigest must be sha256:<64 hex>`);
  if (!Array.isArray(manifest.files) || manifest.files.some((file) => !isStoredFile(file)))
    throw new ArchiveError(`${ARCHIVE_MANIFEST}: files must be [{path, size, digest}]`);
  if (
    manifest.signatures !== undefined &&
    (!Array.isArray(manifest.signatures) || manifest.signatures.length > 16 || !manifest.signatures.every(isSignatureRecord))
  ) {
    throw new ArchiveError(`${ARCHIVE_MANIFEST}: signatures must be [{algorithm: "ed25519", keyId, publicKey, signature}]`);
  }
  const provenance = manifest.provenance;
  if (provenance !== undefined) {
    if (provenance === null || typeof provenance !== 'object') throw new ArchiveError(`${ARCHIVE_MANIFEST}: provenance must be an object`);
    for (const key of ['repository', 'commit'] as const) {
      const field = (provenance as Record<string, unknown>)[key];
      if (field !== undefined && (typeof field !== 'string' || field.length > 1000))
        throw new ArchiveError(`${ARCHIVE_MANIFEST}: provenance.${key} must be a string`);
    }
  }
  return manifest as ArchiveManifest;
}

function isStoredFile(value: unknown): value is StoredFile {
  if (value === null || typeof value !== 'object') return false;
  const file = value as Record<string, unknown>;
  return (
    typeof file['path'] === 'string' &&
    typeof file['size'] === 'number' &&
    Number.isInteger(file['size']) &&
    (file['size'] as number) >= 0 &&
    typeof file['digest'] === 'string' &&
    DIGEST_PATTERN.test(file['digest'] as string)
  );
}
