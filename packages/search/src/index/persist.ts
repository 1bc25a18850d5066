import { createHash } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { stopwords } from '../analysis/stopwords.js';
import { BODY_MIN_NORM, FIELD_B, FIELD_WEIGHTS, K1 } from '../scoring/bm25f.js';
import { BODY_CHARS, REFERENCE_CHARS, REFERENCE_WEIGHT, SkillSearchIndex } from './skill-index.js';
import type { SearchOptions } from '../types.js';
import type { IndexParts, IndexState } from './state.js';

/**
 * A search index on disk, so that a restart searches at once instead of reading and analysing every SKILL.md again
 * (ADR 0201). One file: a first line naming the format, a JSON header line (the analysis it was made with, the
 * payload's sha256, where each array sits), then the payload: the strings as one JSON array, and the typed arrays,
 * each at a multiple of 8 bytes. Beside each document the caller keeps a version string of its own (the server: the
 * skill's package digest), so that it can tell which documents went stale while the process was down.
 *
 * Discarded, never half-used: another format, another analysis (the stopwords, the body bound, this format's
 * version: anything that would make the same text give other terms), a payload whose sha256 differs (torn, damaged),
 * or arrays that do not fit together (`checkState`).
 */
// 4: the compact postings' layout (a 32-bit word a posting, counts by code: ../postings/compact-postings.ts).
const MAGIC = 'skillport-search-index/4\n';
const CHECKSUM_FAILS = 'its checksum does not match (torn or damaged)';
/** Payloads from this size on are hashed on a worker thread while the main thread decodes them (ADR 0208). */
const HASH_ON_WORKER_BYTES = 16 * 1024 * 1024;
type Typed = Int32Array | Uint32Array | Uint8Array | Float64Array;
const KINDS = { Int32Array, Uint32Array, Uint8Array, Float64Array } as const;

interface Header {
  analysis: string;
  sha256: string;
  strings: [offset: number, length: number];
  arrays: Record<string, [kind: keyof typeof KINDS, offset: number, length: number]>;
  /** The scoring constants the pruning bounds were computed with, and the field averages they were taken at. */
  scoring?: string;
  boundAverages?: number[];
  /** The postings' code bits (0: wide, counts per posting). */
  postingShift: number;
}

/** What a persisted index holds beside the index: the caller's version of each document, by id. */
export interface PersistedIndex {
  index: SkillSearchIndex;
  versions: Map<string, string>;
}

/** What the analysis depends on: text analysed with other stopwords, another body bound or other reference rules gives other terms. */
export function analysisFingerprint(): string {
  return createHash('sha256')
    .update(JSON.stringify({ magic: MAGIC, bodyChars: BODY_CHARS, references: [REFERENCE_WEIGHT, REFERENCE_CHARS], stopwords: [...stopwords()] }))
    .digest('hex');
}

/** What the pruning bounds depend on besides the postings: bounds saved under other constants are computed again. */
export function scoringFingerprint(): string {
  return createHash('sha256').update(JSON.stringify({ FIELD_WEIGHTS, FIELD_B, K1, BODY_MIN_NORM })).digest('hex');
}

/** The index and each document's version (`versionOf(id)`, '' when unknown) as the bytes of one file. */
export function encodeIndex(index: SkillSearchIndex, versionOf: (id: string) => string): Buffer[] {
  const parts = index.exportParts();
  try {
    const payload = payloadOf(parts, versionOf);
    const chunks: Buffer[] = [];
    for (let next = payload.next(); ; next = payload.next()) {
      if (next.done === true) return [headerLine(next.value), ...chunks];
      // A copy: the payload reuses its chunk buffer.
      chunks.push(Buffer.from(next.value));
    }
  } finally {
    index.postingsWritten(parts);
  }
}

/** Chunks of the payload that are copies are about this size (larger arrays are written where they lie). */
const CHUNK_BYTES = 1 << 20;
/** Lists' entries stringified at a time (the strings' JSON is written in pieces, never as one string). */
const STRINGS_AT_ONCE = 4096;
/** A saved file's header line is padded to this size (written last, over the space kept for it). */
const HEADER_BYTES = 4096;
const COMMA = Buffer.from(',');

/**
 * The payload of `parts`, in order, as chunks to write (views of the index's own arrays for the large typed arrays,
 * else copies of about CHUNK_BYTES in one buffer, reused: each chunk is valid until the next is asked for); returns the header that describes it (sha256 included). What a save holds
 * beside the index is a chunk, not the strings' JSON and a Buffer of it and joined term lists (at 100,000 skills
 * ~300 MB).
 */
function* payloadOf(parts: IndexParts, versionOf: (id: string) => string): Generator<Uint8Array, Header> {
  const hash = createHash('sha256');
  let offset = 0;
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  // Small pieces are gathered into one buffer, reused: the consumer is done with a chunk when it asks for the next
  // (a buffer per chunk was freed only at the next GC, so a save held most of its file in chunks anyway). Plain
  // functions, not generators: one piece per slot is hundreds of thousands of calls.
  let scratch = new Uint8Array(0);
  /** Adds a piece; true when a chunk is due (`take`). */
  const add = (bytes: Uint8Array): boolean => {
    offset += bytes.length;
    pending.push(bytes);
    pendingBytes += bytes.length;
    return pendingBytes >= CHUNK_BYTES;
  };
  const take = (): Uint8Array => {
    if (scratch.length < pendingBytes) scratch = new Uint8Array(Math.max(pendingBytes, CHUNK_BYTES * 2));
    let at = 0;
    for (const piece of pending) {
      scratch.set(piece, at);
      at += piece.length;
    }
    pending = [];
    pendingBytes = 0;
    const chunk = scratch.subarray(0, at);
    hash.update(chunk);
    return chunk;
  };
  const padding = (): Uint8Array => new Uint8Array((8 - (offset % 8)) % 8);
  // The strings: one JSON object of lists, written a few thousand entries at a time.
  const lists: Array<[string, number, (at: number) => string | null]> = [
    ['terms', parts.terms.length, (at) => parts.terms[at]!],
    ['written', parts.written.length, (at) => parts.written[at]!],
    ['ids', parts.ids.length, (at) => parts.ids[at]!],
    ['names', parts.names.length, (at) => parts.names[at]!],
    ['meaning', parts.meaning.length, (at) => parts.meaning[at]!],
    ['versions', parts.ids.length, (at) => versionOf(parts.ids[at]!)],
  ];
  for (let list = 0; list < lists.length; list++) {
    const [key, length, valueAt] = lists[list]!;
    if (add(Buffer.from(`${list === 0 ? '{' : ','}${JSON.stringify(key)}:[`))) yield take();
    for (let from = 0; from < length; from += STRINGS_AT_ONCE) {
      const block: Array<string | null> = [];
      for (let at = from; at < Math.min(length, from + STRINGS_AT_ONCE); at++) block.push(valueAt(at));
      // The block's entries without its brackets (a view of the encoded bytes, not a substring flattened again).
      const text = Buffer.from(JSON.stringify(block));
      if (from > 0) add(COMMA);
      if (add(text.subarray(1, text.length - 1))) yield take();
    }
    if (add(Buffer.from(']'))) yield take();
  }
  add(Buffer.from('}'));
  const strings: [number, number] = [0, offset];
  if (add(padding())) yield take();
  const arrays: Header['arrays'] = {};
  function* array(name: string, values: Typed): Generator<Uint8Array> {
    arrays[name] = [values.constructor.name as keyof typeof KINDS, offset, values.length];
    const bytes = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    if (bytes.length >= CHUNK_BYTES) {
      // Large arrays are written where they lie.
      if (pendingBytes > 0) yield take();
      offset += bytes.length;
      hash.update(bytes);
      yield bytes;
    } else if (add(bytes)) yield take();
    if (add(padding())) yield take();
  }
  // Per-slot term lists and descriptions: their offsets first, then the lists gathered chunk by chunk (views: a list
  // is never written in place, a change makes a new one).
  const count = parts.ids.length;
  const forwardOffsets = new Int32Array(count + 1);
  const descriptionOffsets = new Int32Array(count + 1);
  for (let slot = 0; slot < count; slot++) {
    forwardOffsets[slot + 1] = forwardOffsets[slot]! + parts.forwardOf(slot).length;
    descriptionOffsets[slot + 1] = descriptionOffsets[slot]! + parts.descriptionOf(slot).length;
  }
  function* joined(name: string, kind: keyof typeof KINDS, length: number, listOf: (slot: number) => Uint8Array | Int32Array): Generator<Uint8Array> {
    arrays[name] = [kind, offset, length];
    for (let slot = 0; slot < count; slot++) {
      const list = listOf(slot);
      if (add(new Uint8Array(list.buffer, list.byteOffset, list.byteLength))) yield take();
    }
    if (add(padding())) yield take();
  }
  yield* array('df', parts.df);
  yield* array('forwardOffsets', forwardOffsets);
  yield* joined('forward', 'Uint8Array', forwardOffsets[count]!, (slot) => parts.forwardOf(slot));
  yield* array('descriptionOffsets', descriptionOffsets);
  yield* joined('descriptions', 'Int32Array', descriptionOffsets[count]!, (slot) => parts.descriptionOf(slot));
  yield* array('postingOffsets', parts.postingOffsets);
  yield* array('postings', parts.postings);
  yield* array('postingCounts', parts.postingCounts);
  for (let f = 0; f < parts.lengths.length; f++) yield* array(`lengths${f}`, parts.lengths[f]!);
  if (parts.bounds !== undefined) yield* array('bounds', parts.bounds.tf);
  if (pendingBytes > 0) yield take();
  const header: Header = { analysis: analysisFingerprint(), sha256: hash.digest('hex'), strings, arrays, postingShift: parts.postingShift };
  if (parts.bounds !== undefined) {
    header.scoring = scoringFingerprint();
    header.boundAverages = [...parts.bounds.averages];
  }
  return header;
}

/**
 * The first line and the header line, padded (JSON allows trailing spaces) so that the payload starts 8-aligned in
 * the file (read into a buffer of its own, the typed arrays are views of it, never copies): to a multiple of 8, or to
 * `size` bytes exactly (a save writes the header last, over the space it kept).
 */
function headerLine(header: Header, size?: number): Buffer {
  const line = `${MAGIC}${JSON.stringify(header)}`;
  const bytes = Buffer.byteLength(line) + 1;
  const target = size ?? bytes + ((8 - (bytes % 8)) % 8);
  if (bytes > target) throw new Error(`search index file: a header of ${bytes} bytes does not fit in ${target}`);
  return Buffer.from(`${line}${' '.repeat(target - bytes)}\n`);
}

/** The index in `bytes` (from encodeIndex); throws, saying why, when it cannot be used as it is. */
export function decodeIndex(bytes: Buffer, options: SearchOptions = {}): PersistedIndex {
  return decode(bytes, options, (payload, expected) => createHash('sha256').update(payload).digest('hex') === expected);
}

const fail = (why: string): never => {
  throw new Error(`search index file: ${why}`);
};

/** decodeIndex, with the payload's checksum checked by `verify` (the payload, the sha256 its header names) when it says so. */
function decode(
  bytes: Buffer,
  options: SearchOptions,
  verify: ((payload: Uint8Array, sha256: string) => boolean) | undefined,
): PersistedIndex & { sha256: string } {
  if (bytes.subarray(0, MAGIC.length).toString('latin1') !== MAGIC) fail('not this format');
  const end = bytes.indexOf(0x0a, MAGIC.length);
  if (end < 0) fail('no header');
  let header: Header;
  try {
    header = JSON.parse(bytes.subarray(MAGIC.length, end).toString('utf8')) as Header;
  } catch {
    return fail('the header is not JSON');
  }
  if (header?.analysis !== analysisFingerprint()) fail('made with another analysis (stopwords, body bound or format changed)');
  // Typed arrays need 8-aligned offsets: the payload is used where it lies when it is (the writer pads the header
  // so; a buffer of its own starts aligned), else copied.
  let payload: Uint8Array = bytes.subarray(end + 1);
  if ((bytes.byteOffset + end + 1) % 8 !== 0) {
    payload = new Uint8Array(bytes.length - end - 1);
    payload.set(bytes.subarray(end + 1));
  }
  if (verify !== undefined && !verify(payload, header.sha256)) fail(CHECKSUM_FAILS);
  const slice = ([at, length]: [number, number]) => {
    if (!(Number.isInteger(at) && Number.isInteger(length) && at >= 0 && length >= 0 && at + length <= payload.length)) fail('an array lies outside the file');
    return payload.subarray(at, at + length);
  };
  const array = (name: string): Typed => {
    const entry = header.arrays?.[name];
    if (entry === undefined) return fail(`no ${name}`);
    const [kind, at, length] = entry;
    const Kind = KINDS[kind];
    if (Kind === undefined || at % 8 !== 0) return fail(`${name} is not a known, aligned array`);
    const raw = slice([at, length * Kind.BYTES_PER_ELEMENT]);
    return new Kind(raw.buffer as ArrayBuffer, raw.byteOffset, length);
  };
  let strings: { terms: string[]; written: string[]; ids: string[]; names: string[]; meaning: Array<string | null>; versions: string[] };
  try {
    strings = JSON.parse(Buffer.from(slice(header.strings)).toString('utf8'));
  } catch {
    return fail('its strings are not JSON');
  }
  const state: IndexState = {
    terms: strings.terms,
    written: strings.written,
    ids: strings.ids,
    names: strings.names,
    meaning: strings.meaning,
    df: array('df') as Int32Array,
    forwardOffsets: array('forwardOffsets') as Int32Array,
    forward: array('forward') as Uint8Array,
    descriptionOffsets: array('descriptionOffsets') as Int32Array,
    descriptions: array('descriptions') as Int32Array,
    postingOffsets: array('postingOffsets') as Int32Array,
    postings: array('postings') as Uint32Array,
    postingShift: header.postingShift,
    postingCounts: array('postingCounts') as Uint32Array,
    lengths: [0, 1, 2, 3].map((f) => array(`lengths${f}`) as Int32Array),
  };
  const averages = header.boundAverages;
  if (
    header.scoring === scoringFingerprint() &&
    header.arrays?.bounds !== undefined &&
    Array.isArray(averages) &&
    averages.length === 4 &&
    averages.every((value) => typeof value === 'number' && value > 0)
  ) {
    const tf = array('bounds') as Float64Array;
    // A bound that is not a number above 0 would undercut (NaN compares false): such bounds are computed again.
    if (tf.every((value) => value >= 0)) state.bounds = { tf, averages };
  }
  if (!Array.isArray(strings?.versions) || strings.versions.length !== state.ids?.length) fail('versions do not match the ids');
  for (const key of ['terms', 'written', 'ids', 'names', 'meaning'] as const) if (!Array.isArray(state[key])) fail(`${key} is not a list`);
  const index = SkillSearchIndex.fromState(state, options);
  return { index, versions: new Map(state.ids.map((id, at) => [id, String(strings.versions[at])])), sha256: String(header.sha256) };
}

/**
 * Writes the index to `path` (a temporary file renamed over it: a reader never sees half a file), chunk by chunk: the
 * payload after the space kept for the header, then the header over it.
 */
export async function saveIndex(path: string, index: SkillSearchIndex, versionOf: (id: string) => string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  const parts = index.exportParts();
  let handle: FileHandle | undefined;
  try {
    handle = await open(temporary, 'w');
    const payload = payloadOf(parts, versionOf);
    let position = HEADER_BYTES;
    for (let next = payload.next(); ; next = payload.next()) {
      if (next.done === true) {
        await writeAll(handle, headerLine(next.value, HEADER_BYTES), 0);
        break;
      }
      await writeAll(handle, next.value, position);
      position += next.value.length;
    }
    await handle.close();
    handle = undefined;
    await rename(temporary, path);
  } catch (error) {
    await handle?.close().catch(() => undefined);
    await rm(temporary, { force: true }).catch(() => undefined);
    throw error;
  } finally {
    // Written (or given up): the index's next merge may move these postings in place again.
    index.postingsWritten(parts);
  }
}

async function writeAll(handle: FileHandle, bytes: Uint8Array, position: number): Promise<void> {
  for (let at = 0; at < bytes.length; ) {
    const { bytesWritten } = await handle.write(bytes, at, bytes.length - at, position + at);
    at += bytesWritten;
  }
}

/**
 * The index at `path`; undefined when there is none; throws, saying why, when there is one that cannot be used. A
 * large file is read into shared memory and its checksum computed on a worker thread while this thread decodes it:
 * the index is returned only once both agree, so a damaged file is still never used. `workerFrom`: the size from
 * which the worker is used (tests lower it).
 */
export async function loadIndex(path: string, options: SearchOptions = {}, workerFrom = HASH_ON_WORKER_BYTES): Promise<PersistedIndex | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let bytes: Buffer;
  try {
    const { size } = await handle.stat();
    if (size < workerFrom) bytes = await handle.readFile();
    else {
      bytes = Buffer.from(new SharedArrayBuffer(size));
      for (let at = 0; at < size; ) {
        const { bytesRead } = await handle.read(bytes, at, size - at, at);
        if (bytesRead === 0) fail('it was cut short while being read');
        at += bytesRead;
      }
    }
  } finally {
    await handle.close();
  }
  if (bytes.length < workerFrom) return decodeIndex(bytes, options);
  const end = bytes.indexOf(0x0a, MAGIC.length);
  const hashed = end < 0 ? undefined : hashOnWorker(bytes, end + 1);
  if (hashed === undefined) return decodeIndex(bytes, options);
  let decoded: PersistedIndex & { sha256: string };
  try {
    decoded = decode(bytes, options, undefined);
  } catch (error) {
    void hashed.catch(() => undefined);
    throw error;
  }
  const digest = await hashed.catch(() =>
    createHash('sha256')
      .update(bytes.subarray(end + 1))
      .digest('hex'),
  );
  if (digest !== decoded.sha256) fail(CHECKSUM_FAILS);
  return { index: decoded.index, versions: decoded.versions };
}

/** The sha256 of `bytes` from `from` on, computed on a worker thread (the bytes are shared, not copied). */
function hashOnWorker(bytes: Buffer, from: number): Promise<string> | undefined {
  if (!(bytes.buffer instanceof SharedArrayBuffer)) return undefined;
  return new Promise((resolve, reject) => {
    const worker = new Worker(HASH_WORKER, { eval: true, workerData: { buffer: bytes.buffer, offset: bytes.byteOffset + from, length: bytes.length - from } });
    worker.once('message', (digest: string) => {
      resolve(digest);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the checksum worker exited with ${code}`)));
  });
}

const HASH_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { buffer, offset, length } = workerData;
parentPort.postMessage(createHash('sha256').update(new Uint8Array(buffer, offset, length)).digest('hex'));
`;
