import { readFile, stat } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import type { ReadEntry } from 'tar';
import type yauzl from 'yauzl';
import { DEFAULT_LIMITS, formatBytes } from './limits.js';
import type { SkillLimits } from './limits.js';
import { inspectSkillFiles, unsafePathReason } from './skill-files.js';
import type { InspectedFiles, SkillFileEntry, SkillFileProblem } from './skill-files.js';

/**
 * Reads a skill packed as an archive (`.skill`, `.zip`, `.tar.gz`, `.tgz`, `.tar`) into memory, safely: the archive
 * is untrusted input. The format is recognised by its bytes, not its name (a `.skill` made by one tool is a zip, by
 * another a tar.gz). Every entry must be a regular file or a folder at a plain relative path; links, devices, duplicate
 * entries and path tricks refuse the whole archive (a skill with one hostile entry is not served in part). Inflating
 * is bounded before it starts and while it runs: the total uncompressed bytes and the expansion ratio are capped, so a
 * zip bomb costs at most the cap, never the bomb's size. The files come back relative to the skill's root (an archive
 * holding only `my-skill/...` is the skill `my-skill`), ready for inspectSkillFiles, which applies the skill rules.
 */

export type ArchiveFormat = 'zip' | 'tar.gz' | 'tar';

export interface ArchiveLimits {
  /** Bytes of archive (compressed) we agree to read at all. */
  maxArchiveBytes: number;
  /** Entries of any kind (files, folders, metadata) in the archive. */
  maxEntries: number;
  /** Total bytes of file content after inflating. */
  maxUncompressedBytes: number;
  /** Largest accepted ratio of inflated bytes to archive bytes (checked once past ratioFloorBytes). */
  maxRatio: number;
  /** Inflated bytes below which the ratio is not checked (a tiny tar.gz is mostly zero padding: 100x is normal). */
  ratioFloorBytes: number;
  /** Characters in one entry's path. */
  maxPathLength: number;
}

export const DEFAULT_ARCHIVE_LIMITS: Readonly<ArchiveLimits> = Object.freeze({
  maxArchiveBytes: DEFAULT_LIMITS.maxBytes,
  maxEntries: 2 * DEFAULT_LIMITS.maxFiles,
  maxUncompressedBytes: DEFAULT_LIMITS.maxBytes,
  maxRatio: 200,
  ratioFloorBytes: 1024 * 1024,
  maxPathLength: 1024,
});

export interface ReadArchiveOptions {
  limits?: Partial<ArchiveLimits>;
}

export interface ArchiveContents {
  /** The format found in the bytes (absent when they are not an archive we read). */
  format?: ArchiveFormat;
  /** The skill's files, relative to its root; empty when an error-level problem was found. */
  files: SkillFileEntry[];
  /** The single top folder every entry was in (stripped from the paths), if there was one. */
  folderName?: string;
  /** Errors (the archive is refused, files is empty) and warnings (skipped junk such as `__MACOSX/`). */
  problems: SkillFileProblem[];
}

/** File names we treat as skill archives when looking through a folder or a command line. */
export function isSkillArchiveName(name: string): boolean {
  return /\.(skill|zip|tgz|tar\.gz|tar)$/i.test(name);
}

/** The archive format of some bytes, recognised by their magic numbers (zip, gzip, ustar/GNU tar). */
export function archiveFormatOf(bytes: Uint8Array): ArchiveFormat | undefined {
  if (bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && ((bytes[2] === 3 && bytes[3] === 4) || (bytes[2] === 5 && bytes[3] === 6))) return 'zip';
  if (bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) return 'tar.gz';
  if (looksLikeTar(bytes)) return 'tar';
  return undefined;
}

/**
 * A tar header block: its stored checksum (octal, at 148..155) equals the sum of its 512 bytes with that field read as
 * spaces, as tar's own Header computes it. Checked here rather than with tar's Header so that only reading an archive
 * loads the tar package (a server of plain folders never needs it at start).
 */
function looksLikeTar(bytes: Uint8Array): boolean {
  if (bytes.length < 512) return false;
  if ((bytes[148]! & 0x80) !== 0) return false; // a base-256 checksum: not one tar writes
  let sum = 8 * 0x20;
  for (let i = 0; i < 512; i++) if (i < 148 || i >= 156) sum += bytes[i]!;
  // Read as tar reads it: 12 bytes from 148, up to the first NUL, trimmed, octal (an empty field is not a number).
  const field = Buffer.from(bytes.buffer, bytes.byteOffset + 148, 12)
    .toString('utf8')
    .replace(/\0.*$/, '')
    .trim();
  return parseInt(field, 8) === sum;
}

/** A refusal: its message is the one line the caller shows. */
class ArchiveRefused extends Error {}

const refuse = (message: string): never => {
  throw new ArchiveRefused(message);
};

export function resolveArchiveLimits(partial?: Partial<ArchiveLimits>): ArchiveLimits {
  const limits = { ...DEFAULT_ARCHIVE_LIMITS, ...partial };
  for (const [key, value] of Object.entries(limits)) {
    if (!Number.isInteger(value) || value <= 0) throw new RangeError(`archive limit ${key} must be a positive integer (got ${value})`);
  }
  return limits;
}

/**
 * Reads a skill archive from bytes or a file path. Never throws for bad input: every refusal is an error-level
 * problem with a one-line message (and no files). Throws only for bad limits (a programming error).
 */
export async function readSkillArchive(source: Uint8Array | string, options: ReadArchiveOptions = {}): Promise<ArchiveContents> {
  const limits = resolveArchiveLimits(options.limits);
  let format: ArchiveFormat | undefined;
  try {
    const bytes = typeof source === 'string' ? await readArchiveFile(source, limits) : Buffer.from(source.buffer, source.byteOffset, source.byteLength);
    if (bytes.byteLength > limits.maxArchiveBytes) refuse(`archive is larger than ${formatBytes(limits.maxArchiveBytes)} (the limit)`);
    format = archiveFormatOf(bytes);
    if (format === undefined) refuse('not a skill archive: expected a zip, a tar or a gzip-compressed tar');
    const collector = new EntryCollector(limits, bytes.byteLength);
    if (format === 'zip') await readZip(bytes, collector);
    else await readTar(format === 'tar.gz' ? await inflateGzip(bytes, limits) : bytes, collector);
    return { format, ...collector.finish() };
  } catch (error) {
    // Anything a parser throws on its own is still about the input: a refusal, never a crash.
    const message =
      error instanceof ArchiveRefused ? error.message : `truncated or corrupt archive: ${String((error as Error)?.message ?? error).split('\n')[0]}`;
    return { format, files: [], problems: [{ severity: 'error', message, path: '' }] };
  }
}

/**
 * readSkillArchive then inspectSkillFiles: the archive's skill with the skill rules applied (the archive's single
 * top folder, if any, is the folder name the skill's name is checked against).
 */
export async function inspectSkillArchive(
  source: Uint8Array | string,
  options: ReadArchiveOptions & { skillLimits?: SkillLimits; allowFields?: readonly string[] } = {},
): Promise<InspectedFiles & { files: SkillFileEntry[]; format?: ArchiveFormat }> {
  const contents = await readSkillArchive(source, options);
  if (contents.problems.some((problem) => problem.severity === 'error')) return { problems: contents.problems, files: [], format: contents.format };
  const inspected = inspectSkillFiles(contents.files, {
    folderName: contents.folderName,
    limits: options.skillLimits,
    ...(options.allowFields ? { allowFields: options.allowFields } : {}),
  });
  return { ...inspected, problems: [...contents.problems, ...inspected.problems], files: inspected.skill ? contents.files : [], format: contents.format };
}

async function readArchiveFile(path: string, limits: ArchiveLimits): Promise<Buffer> {
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) refuse('not a regular file');
    size = info.size;
  } catch (error) {
    if (error instanceof ArchiveRefused) throw error;
    return refuse(`cannot read archive: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  if (size > limits.maxArchiveBytes) refuse(`archive is larger than ${formatBytes(limits.maxArchiveBytes)} (the limit)`);
  try {
    return await readFile(path);
  } catch (error) {
    return refuse(`cannot read archive: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/**
 * The cap on inflated bytes for an archive of this size: the total cap, lowered by the ratio cap (never below the
 * floor). For a tar, the inflated stream also holds 512-byte headers and padding, hence the allowance per entry.
 */
function inflateCap(limits: ArchiveLimits, archiveBytes: number, overhead: number): number {
  const byRatio = Math.max(limits.ratioFloorBytes, archiveBytes * limits.maxRatio);
  return Math.min(limits.maxUncompressedBytes + overhead, byRatio + overhead);
}

const bombMessage = (limits: ArchiveLimits, archiveBytes: number): string => {
  const byRatio = Math.max(limits.ratioFloorBytes, archiveBytes * limits.maxRatio);
  return byRatio < limits.maxUncompressedBytes
    ? `archive expands more than ${limits.maxRatio} times its size (refused as a possible zip bomb)`
    : `archive inflates past ${formatBytes(limits.maxUncompressedBytes)} (the limit; refused as a possible zip bomb)`;
};

const inflate = promisify(gunzip);

/** Gunzips with a hard output cap: zlib stops as soon as the output would pass it, whatever the stream claims. */
async function inflateGzip(bytes: Buffer, limits: ArchiveLimits): Promise<Buffer> {
  // Headers, pax records and padding: up to 1.5 KiB per entry, plus the end-of-archive blocks and record padding.
  const overhead = limits.maxEntries * 1536 + 20 * 512;
  try {
    const tar = await inflate(bytes, { maxOutputLength: inflateCap(limits, bytes.byteLength, overhead) });
    // A gzip inside a gzip would be inflated again by the tar parser, unbounded: refuse it (and anything not tar).
    if (!looksLikeTar(tar) && !isEmptyTar(tar)) refuse('not a skill archive: the gzip stream does not hold a tar');
    return tar;
  } catch (error) {
    if (error instanceof ArchiveRefused) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || error instanceof RangeError) refuse(bombMessage(limits, bytes.byteLength));
    return refuse(`truncated or corrupt archive: ${code === 'Z_BUF_ERROR' ? 'unexpected end of the gzip stream' : (error as Error).message}`);
  }
}

function isEmptyTar(bytes: Buffer): boolean {
  return bytes.length >= 512 && bytes.subarray(0, 512).every((byte) => byte === 0);
}

/**
 * Applies the checks common to both formats as entries arrive, and holds the files. Paths are normalised (a
 * leading `./`, as `tar czf x.tgz .` writes, is dropped) and then must pass unsafePathReason.
 */
class EntryCollector {
  private entries = 0;
  private inflated = 0;
  private readonly files: SkillFileEntry[] = [];
  private readonly seen = new Set<string>();
  private skippedMacJunk = false;

  constructor(
    private readonly limits: ArchiveLimits,
    private readonly archiveBytes: number,
  ) {}

  limitEntries(): number {
    return this.limits.maxEntries;
  }

  /** Counts one entry of any kind; refuses past the limit. */
  countEntry(): void {
    if (++this.entries > this.limits.maxEntries) refuse(`archive has more than ${this.limits.maxEntries} entries (the limit)`);
  }

  /** The normalised path of an entry, or undefined when it is to be skipped (the archive root, `__MACOSX/`). */
  entryPath(rawPath: string): string | undefined {
    let path = rawPath;
    while (path.startsWith('./')) path = path.slice(2);
    if (path === '' || path === '.') return undefined;
    if (path.length > this.limits.maxPathLength) refuse(`entry path longer than ${this.limits.maxPathLength} characters`);
    const reason = unsafePathReason(path.endsWith('/') ? path.slice(0, -1) : path);
    if (reason !== undefined) refuse(`unsafe entry path ${JSON.stringify(rawPath.slice(0, 200))}: ${reason}`);
    // macOS metadata: `__MACOSX/` (zips made by Finder) and `._name` AppleDouble files (tars made by bsdtar).
    if (path === '__MACOSX/' || path.startsWith('__MACOSX/') || /(^|\/)\._[^/]+$/.test(path)) {
      this.skippedMacJunk = true;
      return undefined;
    }
    return path;
  }

  /** Refuses a second entry at the same path (tar would let the later one win; we say no). */
  claim(path: string): void {
    const key = path.endsWith('/') ? path.slice(0, -1) : path;
    if (this.seen.has(key)) refuse(`duplicate entry in archive: ${JSON.stringify(key.slice(0, 200))}`);
    this.seen.add(key);
  }

  /** Checks bytes about to be inflated (or already inflated) against the total and ratio caps. */
  account(bytes: number): void {
    this.inflated += bytes;
    const byRatio = Math.max(this.limits.ratioFloorBytes, this.archiveBytes * this.limits.maxRatio);
    if (this.inflated > this.limits.maxUncompressedBytes || this.inflated > byRatio) refuse(bombMessage(this.limits, this.archiveBytes));
  }

  addFile(path: string, bytes: Uint8Array): void {
    this.files.push({ path, bytes });
  }

  finish(): Omit<ArchiveContents, 'format'> {
    const problems: SkillFileProblem[] = [];
    if (this.skippedMacJunk) problems.push({ severity: 'warning', message: 'skipped macOS metadata in the archive (__MACOSX/, ._ files)', path: '' });
    const { files, folderName } = stripTopFolder(this.files, this.seen);
    return { files, folderName, problems };
  }
}

/**
 * An archive whose entries all sit in one top folder (and none at the root) is that folder's skill: `my-skill/SKILL.md`
 * becomes `SKILL.md` with folderName `my-skill`. An archive with files at its root is returned as it is.
 */
function stripTopFolder(files: SkillFileEntry[], seen: Set<string>): { files: SkillFileEntry[]; folderName?: string } {
  if (files.length === 0) return { files };
  const tops = new Set<string>();
  for (const path of seen) tops.add(path.split('/')[0]!);
  const top = files[0]!.path.split('/')[0]!;
  if (tops.size !== 1 || files.some((file) => !file.path.includes('/'))) return { files };
  return { files: files.map((file) => ({ path: file.path.slice(top.length + 1), bytes: file.bytes })), folderName: top };
}

// ---- tar ----

const TAR_FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);
const TAR_REFUSED: Record<string, string> = {
  SymbolicLink: 'symbolic link',
  Link: 'hard link',
  CharacterDevice: 'character device',
  BlockDevice: 'block device',
  FIFO: 'FIFO',
};

async function readTar(tar: Buffer, collector: EntryCollector): Promise<void> {
  // A tar is whole 512-byte blocks; a partial last block means the archive was cut (the parser would ignore it).
  if (tar.length % 512 !== 0) refuse('truncated or corrupt archive: the tar ends inside a 512-byte block');
  // Loaded on the first archive read: a server of plain folders never loads tar (start-up time, issue 20).
  const { Parser } = await import('tar');
  return new Promise((resolve, reject) => {
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      parser.abort(error instanceof Error ? error : new Error(String(error)));
      reject(error instanceof ArchiveRefused ? error : new ArchiveRefused(`truncated or corrupt archive: ${tarErrorText(error)}`));
    };
    // strict: a bad checksum or a truncated entry is an error, not a warning. No brotli/zstd sniffing: the bytes are
    // already plain tar, and a second decompressor would have no cap.
    const parser = new Parser({ strict: true, brotli: false, zstd: false, maxMetaEntrySize: 64 * 1024 });
    parser.on('entry', (entry: ReadEntry) => {
      if (failed) return entry.resume();
      try {
        collector.countEntry();
        const refused = TAR_REFUSED[entry.type];
        if (refused !== undefined)
          refuse(`${refused} entry ${JSON.stringify(entry.path.slice(0, 200))} refused (a skill archive holds regular files and folders only)`);
        const path = collector.entryPath(entry.type === 'Directory' && !entry.path.endsWith('/') ? `${entry.path}/` : entry.path);
        if (path === undefined) return entry.resume();
        collector.claim(path);
        if (entry.type === 'Directory' || entry.type === 'GNUDumpDir') return entry.resume();
        if (!TAR_FILE_TYPES.has(entry.type))
          refuse(`entry ${JSON.stringify(entry.path.slice(0, 200))} of type ${entry.type} refused (a skill archive holds regular files and folders only)`);
        collector.account(entry.size);
        const chunks: Buffer[] = [];
        entry.on('data', (chunk: Buffer) => chunks.push(chunk));
        entry.on('end', () => {
          if (!failed) collector.addFile(path, Buffer.concat(chunks));
        });
      } catch (error) {
        entry.resume();
        fail(error);
      }
    });
    parser.on('error', fail);
    parser.on('end', () => {
      if (!failed) resolve();
    });
    parser.end(tar);
  });
}

function tarErrorText(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/^TAR_[A-Z_]+: /, '');
}

// ---- zip ----

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
/** Host systems whose "version made by" means the upper external attributes hold a Unix mode. */
const UNIX_HOSTS = new Set([3, 19]); // Unix, OS X
/** Hosts whose tools (old .NET, PowerShell's Compress-Archive) wrote `\` as the separator, against the format. */
const DOS_HOSTS = new Set([0, 11, 14]); // MS-DOS/FAT, NTFS, VFAT

async function readZip(bytes: Buffer, collector: EntryCollector): Promise<void> {
  // Loaded on the first zip read, as tar is.
  const { default: yauzl } = await import('yauzl');
  return new Promise((resolve, reject) => {
    // decodeStrings off: names are checked by our rules (unsafePathReason), not yauzl's, so every archive format
    // refuses the same paths with the same messages. validateEntrySizes on: an entry that inflates past its declared
    // size is cut off (the lying-header bomb), and the declared sizes are what we cap before inflating.
    yauzl.fromBuffer(bytes, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true, autoClose: true }, (openError, zip) => {
      if (openError || !zip) return reject(new ArchiveRefused(`truncated or corrupt archive: ${openError?.message ?? 'unreadable zip'}`));
      let failed = false;
      const fail = (error: unknown) => {
        if (failed) return;
        failed = true;
        zip.close();
        reject(
          error instanceof ArchiveRefused
            ? error
            : new ArchiveRefused(`truncated or corrupt archive: ${error instanceof Error ? error.message : String(error)}`),
        );
      };
      if (zip.entryCount > collector.limitEntries()) return fail(new ArchiveRefused(`archive has more than ${collector.limitEntries()} entries (the limit)`));
      zip.on('error', fail);
      zip.on('end', () => {
        if (!failed) resolve();
      });
      zip.on('entry', (entry: yauzl.Entry) => {
        try {
          collector.countEntry();
          const decoded = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
          // Such a name means a folder separator; the path checks then apply to the result (`..\\x` is refused).
          const rawName = DOS_HOSTS.has(entry.versionMadeBy >> 8) ? decoded.replaceAll('\\', '/') : decoded;
          const found = zipEntryKind(entry);
          const kind = found === 'file' && rawName.endsWith('/') ? 'folder' : found;
          if (kind !== 'file' && kind !== 'folder')
            refuse(`${kind} entry ${JSON.stringify(rawName.slice(0, 200))} refused (a skill archive holds regular files and folders only)`);
          const path = collector.entryPath(kind === 'folder' && !rawName.endsWith('/') ? `${rawName}/` : rawName);
          if (path === undefined) return zip.readEntry();
          collector.claim(path);
          if (kind === 'folder') return zip.readEntry();
          if (entry.isEncrypted()) refuse(`encrypted entry ${JSON.stringify(path.slice(0, 200))} refused`);
          // Capped on the declared size before a byte is inflated; yauzl holds the entry to that size.
          collector.account(entry.uncompressedSize);
          zip.openReadStream(entry, (streamError, stream) => {
            if (streamError || !stream) return fail(streamError ?? new Error('unreadable entry'));
            const chunks: Buffer[] = [];
            stream.on('data', (chunk: Buffer) => chunks.push(chunk));
            stream.on('error', (error: Error) =>
              fail(
                /too many bytes in the stream/.test(error.message)
                  ? new ArchiveRefused(`entry ${JSON.stringify(path.slice(0, 200))} inflates past its declared size (refused as a possible zip bomb)`)
                  : error,
              ),
            );
            stream.on('end', () => {
              if (failed) return;
              collector.addFile(path, Buffer.concat(chunks));
              zip.readEntry();
            });
          });
        } catch (error) {
          fail(error);
        }
      });
      zip.readEntry();
    });
  });
}

function zipEntryKind(entry: yauzl.Entry): 'file' | 'folder' | string {
  const mode = UNIX_HOSTS.has(entry.versionMadeBy >> 8) ? (entry.externalFileAttributes >>> 16) & S_IFMT : 0;
  const nameIsFolder = entry.fileNameRaw.length > 0 && entry.fileNameRaw[entry.fileNameRaw.length - 1] === 0x2f;
  if (mode === S_IFLNK) return 'symbolic link';
  if (mode === S_IFDIR || (mode === 0 && nameIsFolder)) return 'folder';
  if (mode === S_IFREG || mode === 0) return nameIsFolder ? 'folder' : 'file';
  return `special file (mode ${mode.toString(8)})`;
}
