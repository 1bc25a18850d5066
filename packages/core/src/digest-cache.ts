import { ChunkedFileWriter, readCheckedLines } from './chunked-writer.js';
import type { Stats } from 'node:fs';

/**
 * A persistent cache of file digests and parsed frontmatter, so a restart over an unchanged tree reads and hashes
 * nothing. A file's digest is reused only while its size, mtime, ctime and inode are all unchanged (ctime moves
 * on any write, even one that restores mtime). Parsed frontmatter is keyed by the SKILL.md digest, so it can never
 * be stale. The cache is an optimisation only: a missing, corrupt or foreign file just means a cold start (the
 * file carries a checksum, `readCheckedLines`: a damaged digest inside well-formed JSON would otherwise be trusted).
 *
 * The file is a header line and one line per entry (`["f", path, row]`, `["m", digest, frontmatter]`), read a line at
 * a time: at 100,000 skills it is ~200 MB, and reading it whole (buffer, string, parse tree) took gigabytes.
 */
const FORMAT = 'skillport-digest-cache/2';
type FileRow = [size: number, mtimeMs: number, ctimeMs: number, ino: number, digest: string];
export interface CacheEntries {
  files: Array<[string, FileRow]>;
  frontmatter: Array<[string, ParsedFrontmatter]>;
}
export type ParsedFrontmatter =
  | { frontmatter: Record<string, unknown>; bodyLine: number; headings?: string[] /** YAML simpler readers refuse. */; portability?: string[] }
  | { error: string };

export class DigestCache {
  #files = new Map<string, FileRow>();
  #frontmatter = new Map<string, ParsedFrontmatter>();
  #used = new Set<string>();
  #usedFrontmatter = new Set<string>();
  #dirty = false;
  /** Streaming (see `streamSave`): the new cache file being written, and the frontmatter keys already in it. */
  #stream: ChunkedFileWriter | undefined;
  #streamed = new Set<string>();
  /** Streaming to another cache instead of a file (see `streamSave`): the lines not handed on yet. */
  #sink: ((lines: string) => void) | undefined;
  #sinkLines: string[] = [];
  hits = 0;
  misses = 0;

  /** `load: false` starts empty but still saves to `path` (to merge what worker threads found, then save). */
  constructor(
    readonly path?: string,
    options: { load?: boolean } = {},
  ) {
    if (path === undefined || options.load === false) return;
    try {
      const lines = readCheckedLines(path);
      if (lines === undefined) return;
      let header = true;
      for (const line of lines) {
        if (header) {
          if ((JSON.parse(line) as { format?: string }).format !== FORMAT) return;
          header = false;
          continue;
        }
        const entry = JSON.parse(line) as ['f', string, FileRow] | ['m', string, ParsedFrontmatter];
        if (entry[0] === 'f') {
          if (Array.isArray(entry[2]) && entry[2].length === 5) this.#files.set(entry[1], entry[2]);
        } else if (entry[0] === 'm') this.#frontmatter.set(entry[1], entry[2]);
      }
    } catch {
      // no cache yet, or unreadable: start cold
      this.#files.clear();
      this.#frontmatter.clear();
    }
  }

  /**
   * From now on, entries used are written straight to a new cache file (completed by `save`) instead of being kept
   * until then: a full scan in a worker looks each file up once, and holding every row to the end cost hundreds of
   * megabytes at 100,000 skills. Loaded entries stay, for lookups. A file seen twice (inside nested skills) may be
   * hashed twice and written twice (the later line wins on load). With `sink`, the lines go to it in batches instead
   * (a scan in several workers: one of them writes the file, the others hand it their lines, see `writeStreamed`).
   */
  streamSave(sink?: (lines: string) => void): void {
    if (sink !== undefined) {
      // Another thread writes the file (a scan in several workers): the lines are handed to it in batches.
      this.#sink = sink;
      return;
    }
    if (this.path === undefined) return;
    try {
      this.#stream = new ChunkedFileWriter(this.path);
      this.#stream.write(`${JSON.stringify({ format: FORMAT })}\n`);
    } catch {
      this.#stream = undefined; // a read-only cache location only costs speed
    }
  }

  /** Lines streamed by another cache (its `streamSave(sink)`), written into this one's file. */
  writeStreamed(lines: string): void {
    if (this.#stream === undefined || lines === '') return;
    try {
      this.#stream.write(lines);
    } catch {
      this.#stream.abandon();
      this.#stream = undefined;
    }
  }

  #streaming(): boolean {
    return this.#stream !== undefined || this.#sink !== undefined;
  }

  #streamLine(entry: ['f', string, FileRow] | ['m', string, ParsedFrontmatter]): void {
    if (this.#sink !== undefined) {
      this.#sinkLines.push(`${JSON.stringify(entry)}\n`);
      if (this.#sinkLines.length >= 512) this.#flushSink();
      return;
    }
    try {
      this.#stream!.write(`${JSON.stringify(entry)}\n`);
    } catch {
      this.#stream?.abandon();
      this.#stream = undefined;
    }
  }

  digestFor(path: string, stat: Stats): string | undefined {
    const row = this.#files.get(path);
    if (row && row[0] === stat.size && row[1] === stat.mtimeMs && row[2] === stat.ctimeMs && row[3] === stat.ino) {
      if (this.#streaming()) this.#streamLine(['f', path, row]);
      this.#used.add(path);
      this.hits++;
      return row[4];
    }
    this.misses++;
    return undefined;
  }

  remember(path: string, stat: Stats, digest: string): void {
    // A file modified within the last second may be modified again within the same timestamp tick (coarse filesystems): don't trust it.
    if (Date.now() - stat.mtimeMs < 1000) return;
    if (this.#streaming()) {
      this.#streamLine(['f', path, [stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino, digest]]);
      return;
    }
    this.#files.set(path, [stat.size, stat.mtimeMs, stat.ctimeMs, stat.ino, digest]);
    this.#used.add(path);
    this.#dirty = true;
  }

  frontmatterFor(digest: string): ParsedFrontmatter | undefined {
    const value = this.#frontmatter.get(digest);
    if (value !== undefined && this.#streaming() && !this.#streamed.has(digest)) {
      this.#streamed.add(digest);
      this.#streamLine(['m', digest, value]);
    }
    if (value !== undefined) this.#usedFrontmatter.add(digest);
    return value;
  }

  rememberFrontmatter(digest: string, value: ParsedFrontmatter): void {
    if (this.#streaming()) {
      if (!this.#streamed.has(digest)) this.#streamLine(['m', digest, value]);
      this.#streamed.add(digest);
      return;
    }
    this.#frontmatter.set(digest, value);
    this.#usedFrontmatter.add(digest);
    this.#dirty = true;
  }

  /** The entries used since loading: what a scan in a worker thread hands back to be merged and saved. */
  exportUsed(): CacheEntries {
    const files: Array<[string, FileRow]> = [];
    for (const key of this.#used) {
      const row = this.#files.get(key);
      if (row) files.push([key, row]);
    }
    const frontmatter: Array<[string, ParsedFrontmatter]> = [];
    for (const key of this.#usedFrontmatter) {
      const value = this.#frontmatter.get(key);
      if (value) frontmatter.push([key, value]);
    }
    return { files, frontmatter };
  }

  /** Takes in entries exported by another instance (they count as used). */
  merge(entries: CacheEntries): void {
    for (const [key, row] of entries.files) {
      this.#files.set(key, row);
      this.#used.add(key);
    }
    for (const [key, value] of entries.frontmatter) {
      this.#frontmatter.set(key, value);
      this.#usedFrontmatter.add(key);
    }
    this.#dirty = true;
  }

  #flushSink(): void {
    if (this.#sinkLines.length === 0) return;
    this.#sink?.(this.#sinkLines.join(''));
    this.#sinkLines = [];
  }

  /** Writes the cache (atomically: temp file + rename), keeping only entries used since it was loaded. */
  save(): void {
    if (this.#sink !== undefined) {
      this.#flushSink();
      return;
    }
    if (this.path === undefined) return;
    if (this.#stream !== undefined) {
      const stream = this.#stream;
      this.#stream = undefined;
      try {
        stream.commit();
      } catch {
        stream.abandon();
      }
      return;
    }
    const pruned = this.#used.size !== this.#files.size || this.#usedFrontmatter.size !== this.#frontmatter.size;
    if (!this.#dirty && !pruned) return;
    let writer: ChunkedFileWriter | undefined;
    try {
      writer = new ChunkedFileWriter(this.path);
      writer.write(`${JSON.stringify({ format: FORMAT })}\n`);
      for (const key of this.#used) {
        const row = this.#files.get(key);
        if (row) writer.write(`${JSON.stringify(['f', key, row])}\n`);
      }
      for (const key of this.#usedFrontmatter) {
        const value = this.#frontmatter.get(key);
        if (value) writer.write(`${JSON.stringify(['m', key, value])}\n`);
      }
      writer.commit();
      this.#dirty = false;
    } catch {
      writer?.abandon(); // a read-only cache location only costs speed
    }
  }
}
