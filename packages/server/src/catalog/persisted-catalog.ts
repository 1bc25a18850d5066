import { basename, join, sep } from 'node:path';
import { appendFileSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { ChunkedFileWriter, readCheckedLines, readLinesCheckedBeside } from '@skillport/core';
import type { FolderProblem, InspectedSkill, SkillLimits, SkillRequirements } from '@skillport/core';
import type { FolderRoot, ScannedFolder } from './folder-scan.js';
import { CompactSkill, PackedFiles } from './packed-files.js';

/**
 * The last catalog `serve` built for a given set of folders, kept on disk so that a restart is ready at once:
 * the server answers from it while a background scan checks every file against the disk and swaps in whatever
 * changed while it was down (ADR 0004). Reads are verified against their digests at read time, so a file that
 * changed meanwhile is refused, never served under a stale digest. Any doubt about the file (another format, other
 * folders, other limits, unreadable) means a normal cold scan.
 *
 * Two files: a *base* (the whole catalog, written after a full scan) and a *journal* beside it (`<base>.log`) of the
 * folders changed since, one line per changed folder, appended a moment after each change: so a change costs what
 * changed, not a rewrite of the catalog (issue 13). The journal is folded into a fresh base once it outgrows
 * JOURNAL_MIN lines or 1/8 of the catalog. Both are checksummed: the base ends with a sha256 line (ChunkedFileWriter),
 * and each journal line starts with the sha256 of the rest of the line; a journal line that does not match (torn
 * by a crash, damaged) ends the journal there, and its lines name the base they follow (a journal left by an
 * older base is ignored).
 *
 * The base is a header line (`{"format", "key", "base"}`) and then one line per folder (read line by line: a
 * 100,000-skill base is ~115 MB, and parsing it whole took gigabytes), `[root, relDir, problems, skill | 0]`, where skill is
 * `[name, description, details, realDir, packageDigest, totalBytes, files, headings, requirements | 0]`, details is
 * the frontmatter as a JSON text (CompactSkill.detailsText: parsed only when a restored skill is asked for it), and a
 * file is `[path, size, digest]` or `[path, size, digest, target]`. In a base, a file path or heading that an earlier
 * line held already is written as the number of that string among the base's new paths and headings so far (headings
 * repeat across skills: the reader takes them from a list instead of parsing and interning each copy; SharedStrings). Media types and folder names are derived again. A journal
 * line holds `[baseId, root, relDir, problems, skill | 0]`, or `[baseId, root, relDir]` for a folder gone.
 */
const FORMAT = 'skillport-catalog/8';
/** A base of this size or more is checked on a worker thread while it is read (`loadChecked`). */
const HASH_ON_WORKER_BYTES = 32 * 1024 * 1024;
/** The journal is folded into a new base past this many lines, or 1/8 of the catalog's folders if more. */
const JOURNAL_MIN = 1024;

/** A file path or heading: the string, or in a base the number of one written before (see SharedStrings). */
type Shared = string | number;
type PersistedFile = [path: Shared, size: number, digest: string, target?: string];
type PersistedSkill = [
  name: string,
  description: string,
  /** CompactSkill.detailsText. */
  details: string,
  realDir: string,
  packageDigest: string,
  totalBytes: number,
  files: PersistedFile[],
  headings: Shared[],
  requirements: SkillRequirements | 0,
];
interface BaseHeader {
  format?: string;
  key?: string;
  base?: string;
}
type PersistedFolder = [root: number, relDir: string, problems: FolderProblem[], skill: PersistedSkill | 0];

export function catalogKey(roots: readonly FolderRoot[], limits: SkillLimits, allowFields: readonly string[] = []): string {
  // The fields a run accepts change its warnings: a run that accepts others starts from a scan of its own.
  const accepted = [...new Set(allowFields)].sort();
  return createHash('sha256')
    .update(JSON.stringify({ format: FORMAT, roots, limits, ...(accepted.length > 0 ? { allowFields: accepted } : {}) }))
    .digest('hex');
}

/**
 * The persisted catalog of one `serve` (see above): `load` at start, `append` the folders a change touched, `writeBase`
 * after a full scan (and when `append` says the journal is full). Write failures only cost the next start its head
 * start: they are swallowed, and the next save writes a whole base.
 */
export class PersistedCatalog {
  readonly #journal: string;
  readonly #key: string;
  /** The id of the base on disk that this process loaded or wrote, and the journal lines after it. */
  #base: string | undefined;
  #lines = 0;

  constructor(
    readonly path: string,
    readonly roots: readonly FolderRoot[],
    readonly limits: SkillLimits,
    allowFields?: readonly string[],
  ) {
    this.#journal = `${path}.log`;
    this.#key = catalogKey(roots, limits, allowFields);
  }

  /**
   * The base and every valid journal line after it; undefined when there is no usable base. `take` is given each
   * folder as it is read, and what it returns is kept (the live catalog compacts it there, line by line). Skills come
   * back with their files packed already (CompactSkill); a journal line's paths and headings go through `intern` (a
   * base shares its own: SharedStrings).
   */
  load(take: (folder: ScannedFolder) => ScannedFolder = (folder) => folder, intern?: (value: string) => string): ScannedFolder[] | undefined {
    // Checksummed (readCheckedLines): a torn or damaged file means a cold scan, never a believed one.
    const lines = readCheckedLines(this.path);
    return lines === undefined ? undefined : this.#read(lines, take, intern);
  }

  /**
   * `load`, with a base of `workerFrom` bytes or more read while a worker thread checks its sha256 (the checksum pass
   * before the parse was a sixth of reading a 100,000-skill base): what was read is given back only once the worker
   * says the bytes match, else undefined (a cold scan), as `load` would have said.
   */
  async loadChecked(
    take: (folder: ScannedFolder) => ScannedFolder = (folder) => folder,
    workerFrom = HASH_ON_WORKER_BYTES,
    intern?: (value: string) => string,
  ): Promise<ScannedFolder[] | undefined> {
    let size: number;
    try {
      size = statSync(this.path).size;
    } catch {
      return undefined;
    }
    if (size < workerFrom) return this.load(take, intern);
    const beside = readLinesCheckedBeside(this.path);
    if (beside === undefined) return undefined;
    const base = this.#base;
    const lines = this.#lines;
    const folders = this.#read(beside.lines, take, intern);
    if (await beside.verified) return folders;
    // Read from bytes that do not match their checksum: nothing of it is kept, not even the base it named.
    this.#base = base;
    this.#lines = lines;
    return undefined;
  }

  #read(lines: Iterable<string>, take: (folder: ScannedFolder) => ScannedFolder, intern = (value: string) => value): ScannedFolder[] | undefined {
    try {
      let header: BaseHeader | undefined;
      // A base holds each folder once: they are keyed (root and folder path) only when a journal changes some.
      const folders: ScannedFolder[] = [];
      const shared = sharedReader();
      for (const line of lines) {
        if (header === undefined) {
          header = JSON.parse(line) as BaseHeader;
          if (header.format !== FORMAT || header.key !== this.#key || typeof header.base !== 'string') return undefined;
          continue;
        }
        if (line === '') continue;
        const folder = JSON.parse(line) as PersistedFolder;
        folders.push(take(restoreFolder(this.roots, folder, shared)));
      }
      if (header === undefined) return undefined;
      const base = header.base!;
      const { lines: changes, valid } = readJournal(this.#journal, base);
      // A journal with a bad line (a crash mid-append) is not appended to: the next save writes a whole base.
      this.#base = valid ? base : undefined;
      this.#lines = changes.length;
      if (changes.length === 0) return folders;
      const byKey = new Map<string, ScannedFolder>();
      for (const folder of folders) byKey.set(`${this.roots.indexOf(folder.root)}/${folder.segments.join('/')}`, folder);
      for (const line of changes) {
        if (line.length === 2) byKey.delete(`${line[0]}/${line[1]}`);
        else byKey.set(`${line[0]}/${line[1]}`, take(restoreFolder(this.roots, line as PersistedFolder, (value) => intern(plainString(value)))));
      }
      return [...byKey.values()];
    } catch {
      return undefined;
    }
  }

  /**
   * Appends the folders at `dirs` as they are now (`current`; absent: gone), or returns false when a whole base must
   * be written instead (none written or loaded yet, the journal full or damaged).
   */
  append(changed: Iterable<ScannedFolder>, current: ReadonlyMap<string, ScannedFolder>, total: number): boolean {
    if (this.#base === undefined) return false;
    const lines: string[] = [];
    for (const folder of changed) {
      const now = current.get(folder.dir);
      const root = this.roots.indexOf(folder.root);
      const record = now === undefined ? [this.#base, root, folder.segments.join('/')] : [this.#base, ...persistedFolder(this.roots, now)];
      const json = JSON.stringify(record);
      lines.push(`${createHash('sha256').update(json).digest('hex')} ${json}\n`);
    }
    if (this.#lines + lines.length > Math.max(JOURNAL_MIN, total / 8)) return false;
    try {
      appendFileSync(this.#journal, lines.join(''));
      this.#lines += lines.length;
      return true;
    } catch {
      return false;
    }
  }

  /** Writes every folder as a new base (piece by piece, atomically) and starts an empty journal after it. */
  writeBase(folders: readonly ScannedFolder[]): void {
    this.beginBase(folders).step(Infinity);
  }

  /**
   * A new base of `folders`, written a slice at a time by `step` (a large catalog takes seconds to serialise: the
   * caller keeps answering requests between slices). The folders must not change under it: callers pass a copy of
   * their list (folder objects are replaced on a change, never edited).
   */
  beginBase(folders: readonly ScannedFolder[]): BaseWrite {
    const base = randomBytes(8).toString('hex');
    const shared = new SharedStrings();
    let writer: ChunkedFileWriter | undefined;
    let next = 0;
    const fail = () => {
      writer?.abandon(); // only costs the next start its head start
      writer = undefined;
      this.#base = undefined;
      return true;
    };
    try {
      writer = new ChunkedFileWriter(this.path);
      writer.write(`{"format":${JSON.stringify(FORMAT)},"key":${JSON.stringify(this.#key)},"base":"${base}"}\n`);
    } catch {
      fail();
    }
    return {
      step: (budgetMs: number): boolean => {
        if (writer === undefined) return true;
        try {
          const started = performance.now();
          while (next < folders.length) {
            writer.write(`${JSON.stringify(persistedFolder(this.roots, folders[next]!, shared))}\n`);
            next++;
            if ((next & 63) === 0 && performance.now() - started > budgetMs) return false;
          }
          writer.commit();
          writer = undefined;
          // The old journal follows the old base: its lines name that base, so a crash before this removal is harmless.
          rmSync(this.#journal, { force: true });
          this.#base = base;
          this.#lines = 0;
          return true;
        } catch {
          return fail();
        }
      },
    };
  }
}

/** A base being written: `step(ms)` writes for about that long and says whether it is done (written or given up). */
export interface BaseWrite {
  step(budgetMs: number): boolean;
}

/** The checksummed lines of a journal that follow `base`, up to the first bad one; `valid`: every line was good. */
function readJournal(path: string, base: string): { lines: unknown[][]; valid: boolean } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { lines: [], valid: true };
  }
  const lines: unknown[][] = [];
  let at = 0;
  while (at < text.length) {
    const end = text.indexOf('\n', at);
    if (end < 0) return { lines, valid: false }; // torn: the last append did not finish
    const line = text.slice(at, end);
    at = end + 1;
    const json = line.slice(65);
    if (line[64] !== ' ' || createHash('sha256').update(json).digest('hex') !== line.slice(0, 64)) return { lines, valid: false };
    const record = JSON.parse(json) as unknown[];
    if (!Array.isArray(record) || record[0] !== base || (record.length !== 3 && record.length !== 5)) return { lines, valid: false };
    lines.push(record.slice(1));
  }
  return { lines, valid: true };
}

function restoreFolder(roots: readonly FolderRoot[], [rootIndex, relDir, problems, skill]: PersistedFolder, intern: (value: Shared) => string): ScannedFolder {
  const root = roots[rootIndex];
  if (root === undefined || typeof relDir !== 'string' || !Array.isArray(problems)) throw new Error('malformed');
  const segments = relDir === '' ? [] : relDir.split('/');
  const dir = folderPath(root.dir, relDir, segments);
  const folder: ScannedFolder = { root, dir, segments, inspection: { problems } };
  if (skill !== 0) folder.inspection.skill = restoreSkill(dir, skill, intern);
  return folder;
}

/**
 * `join(rootDir, ...segments)`, by concatenation where that is the same string (a written base holds normalised
 * paths: path.join per folder was a tenth of a restore); anything join would change goes through join.
 */
function folderPath(rootDir: string, relDir: string, segments: readonly string[]): string {
  if (relDir === '') return join(rootDir);
  if (
    sep === '/' &&
    !rootDir.endsWith('/') &&
    rootDir !== '' &&
    !relDir.startsWith('.') &&
    !relDir.startsWith('/') &&
    !relDir.includes('/.') &&
    !relDir.includes('//') &&
    !relDir.endsWith('/')
  )
    return `${rootDir}/${relDir}`;
  return join(rootDir, ...segments);
}

function restoreSkill(
  dir: string,
  [name, description, details, realDir, packageDigest, totalBytes, files, headings, requirements]: PersistedSkill,
  intern: (value: Shared) => string,
): InspectedSkill {
  if (typeof details !== 'string' || !Array.isArray(files) || !Array.isArray(headings)) throw new Error('malformed');
  // Packed straight from the persisted lists (packed-files.ts): the records `files` would give are made when asked for.
  // The files before the headings: the order they were written in (SharedStrings numbers strings as they come).
  const packed = PackedFiles.fromTuples(files, intern);
  const skill: Omit<InspectedSkill, 'files' | 'frontmatter'> = {
    dir,
    realDir,
    folderName: basename(dir),
    name,
    description,
    headings: headings.map((heading) => intern(heading)),
    packageDigest,
    totalBytes,
  };
  if (requirements !== 0 && requirements !== null && typeof requirements === 'object') skill.requirements = requirements;
  return CompactSkill.restored(skill, packed, details);
}

function persistedFiles(skill: InspectedSkill, shared: SharedStrings | undefined): PersistedFile[] {
  const files = skill instanceof CompactSkill ? skill.packed : PackedFiles.from(skill.files);
  return Array.from({ length: files.length }, (_, index) => {
    const path = shared === undefined ? files.path(index) : shared.write(files.path(index));
    const target = files.target(index);
    return target === undefined ? [path, files.size(index), files.digest(index)] : [path, files.size(index), files.digest(index), target];
  });
}

/**
 * The paths and headings of one base (see the format above), written: each new string is numbered in the order it is
 * written, and one seen before is written as its number. `sharedReader` undoes it, reading the lines in that order.
 */
class SharedStrings {
  readonly #numbers = new Map<string, number>();

  write(value: string): Shared {
    const known = this.#numbers.get(value);
    if (known !== undefined) return known;
    this.#numbers.set(value, this.#numbers.size);
    return value;
  }
}

/** A base's paths and headings read back (SharedStrings): each new string is listed, a number is taken from the list. */
function sharedReader(): (value: Shared) => string {
  // No hashing on this side: a number is an index.
  const strings: string[] = [];
  return (value) => {
    if (typeof value === 'string') {
      strings.push(value);
      return value;
    }
    const known = strings[value];
    if (known === undefined) throw new Error('malformed');
    return known;
  };
}

/** A journal line's path or heading: always the string itself (its lines are written one change at a time). */
function plainString(value: Shared): string {
  if (typeof value !== 'string') throw new Error('malformed');
  return value;
}

function persistedFolder(roots: readonly FolderRoot[], folder: ScannedFolder, shared?: SharedStrings): PersistedFolder {
  const skill = folder.inspection.skill;
  return [
    roots.indexOf(folder.root),
    folder.segments.join('/'),
    folder.inspection.problems,
    skill === undefined
      ? 0
      : [
          skill.name,
          skill.description,
          CompactSkill.detailsText(skill),
          skill.realDir,
          skill.packageDigest,
          skill.totalBytes,
          persistedFiles(skill, shared),
          shared === undefined ? skill.headings : skill.headings.map((heading) => shared.write(heading)),
          skill.requirements ?? 0,
        ],
  ];
}
