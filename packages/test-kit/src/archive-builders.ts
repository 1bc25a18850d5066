import { deflateRawSync, gzipSync } from 'node:zlib';

/**
 * Archive writers for tests, written from the format specifications (POSIX ustar, PKWARE APPNOTE) so that tests can
 * build the hostile archives no well-behaved tool would write: `../` paths, links, devices, lying sizes, shared data.
 */

export interface TarEntrySpec {
  path: string;
  /** '0' file (default), '2' symlink, '1' hard link, '3' char device, '5' folder, '6' FIFO, 'x' pax header. */
  type?: string;
  content?: string | Uint8Array;
  linkpath?: string;
  /** Overrides the size written in the header (for truncation tests). */
  size?: number;
}

function writeOctal(block: Buffer, offset: number, length: number, value: number): void {
  block.write(value.toString(8).padStart(length - 1, '0') + '\0', offset, length, 'latin1');
}

export function tarHeader(entry: TarEntrySpec, size: number): Buffer {
  const block = Buffer.alloc(512);
  block.write(entry.path, 0, 100, 'utf8');
  writeOctal(block, 100, 8, entry.type === '5' ? 0o755 : 0o644);
  writeOctal(block, 108, 8, 1000);
  writeOctal(block, 116, 8, 1000);
  writeOctal(block, 124, 12, size);
  writeOctal(block, 136, 12, 1_700_000_000);
  block.write(entry.type ?? '0', 156, 1, 'latin1');
  if (entry.linkpath !== undefined) block.write(entry.linkpath, 157, 100, 'utf8');
  block.write('ustar\0', 257, 6, 'latin1');
  block.write('00', 263, 2, 'latin1');
  block.write('        ', 148, 8, 'latin1');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(sum.toString(8).padStart(6, '0') + '\0 ', 148, 8, 'latin1');
  return block;
}

/** A plain tar: each entry's header, its content padded to 512 bytes, then the two zero blocks. */
export function makeTar(entries: TarEntrySpec[], options: { endBlocks?: boolean } = {}): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const content = typeof entry.content === 'string' ? Buffer.from(entry.content) : Buffer.from(entry.content ?? new Uint8Array());
    parts.push(tarHeader(entry, entry.size ?? content.length));
    parts.push(content);
    const pad = (512 - (content.length % 512)) % 512;
    parts.push(Buffer.alloc(pad));
  }
  if (options.endBlocks !== false) parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** A pax extended header record carrying a long path for the entry that follows. */
export function paxPath(path: string): TarEntrySpec {
  let record = '';
  for (let length = path.length + 8; ; length++) {
    record = `${length} path=${path}\n`;
    if (Buffer.byteLength(record) === length) break;
  }
  return { path: 'PaxHeader', type: 'x', content: record };
}

export const makeTarGz = (entries: TarEntrySpec[]): Buffer => gzipSync(makeTar(entries));

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

export interface ZipEntrySpec {
  path: string;
  content?: string | Uint8Array;
  /** Deflate (default) or store. */
  method?: 'deflate' | 'store';
  /** Unix mode for the external attributes (e.g. 0o120777 for a symlink); made-by host is Unix when set. */
  unixMode?: number;
  /** Overrides the uncompressed size written in the headers (the lying-header bomb). */
  declaredSize?: number;
  /** General purpose flags (0x1 = encrypted). */
  flags?: number;
}

interface BuiltEntry {
  name: Buffer;
  crc: number;
  compressed: Buffer;
  size: number;
  method: number;
  flags: number;
  offset: number;
  external: number;
  madeBy: number;
}

function localHeader(entry: BuiltEntry): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0x04034b50, 0);
  header.writeUInt16LE(20, 4);
  header.writeUInt16LE(entry.flags, 6);
  header.writeUInt16LE(entry.method, 8);
  header.writeUInt32LE(entry.crc, 14);
  header.writeUInt32LE(entry.compressed.length, 18);
  header.writeUInt32LE(entry.size, 22);
  header.writeUInt16LE(entry.name.length, 26);
  return Buffer.concat([header, entry.name]);
}

function centralHeader(entry: BuiltEntry): Buffer {
  const header = Buffer.alloc(46);
  header.writeUInt32LE(0x02014b50, 0);
  header.writeUInt16LE(entry.madeBy, 4);
  header.writeUInt16LE(20, 6);
  header.writeUInt16LE(entry.flags, 8);
  header.writeUInt16LE(entry.method, 10);
  header.writeUInt32LE(entry.crc, 16);
  header.writeUInt32LE(entry.compressed.length, 20);
  header.writeUInt32LE(entry.size, 24);
  header.writeUInt16LE(entry.name.length, 28);
  header.writeUInt32LE(entry.external >>> 0, 38);
  header.writeUInt32LE(entry.offset, 42);
  return Buffer.concat([header, entry.name]);
}

function endOfCentralDirectory(count: number, size: number, offset: number): Buffer {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count, 8);
  end.writeUInt16LE(count, 10);
  end.writeUInt32LE(size, 12);
  end.writeUInt32LE(offset, 16);
  return end;
}

function buildEntry(spec: ZipEntrySpec, offset: number): BuiltEntry {
  const content = typeof spec.content === 'string' ? Buffer.from(spec.content) : Buffer.from(spec.content ?? new Uint8Array());
  const method = spec.method === 'store' || spec.path.endsWith('/') ? 0 : 8;
  return {
    name: Buffer.from(spec.path, 'utf8'),
    crc: crc32(content),
    compressed: method === 8 ? deflateRawSync(content, { level: 9 }) : content,
    size: spec.declaredSize ?? content.length,
    method,
    flags: (spec.flags ?? 0) | 0x800,
    offset,
    external: spec.unixMode !== undefined ? spec.unixMode * 0x10000 : 0,
    madeBy: spec.unixMode !== undefined ? (3 << 8) | 20 : 20,
  };
}

export function makeZip(entries: ZipEntrySpec[]): Buffer {
  const parts: Buffer[] = [];
  const built: BuiltEntry[] = [];
  let offset = 0;
  for (const spec of entries) {
    const entry = buildEntry(spec, offset);
    const local = localHeader(entry);
    parts.push(local, entry.compressed);
    offset += local.length + entry.compressed.length;
    built.push(entry);
  }
  const central = Buffer.concat(built.map(centralHeader));
  return Buffer.concat([...parts, central, endOfCentralDirectory(built.length, central.length, offset)]);
}

/**
 * The non-recursive zip bomb pattern (overlapping files): one deflated entry's data, referenced by `count` central
 * directory entries of different names. Each entry claims the full size; the archive stays the size of one entry.
 */
export function makeOverlappingZipBomb(count: number, entryBytes: number): Buffer {
  const kernel = buildEntry({ path: 'kernel', content: Buffer.alloc(entryBytes, 0x61) }, 0);
  const local = localHeader(kernel);
  // yauzl reads each entry's data through the shared local header; the central names may differ from it.
  const centrals: Buffer[] = [];
  for (let i = 0; i < count; i++) centrals.push(centralHeader({ ...kernel, name: Buffer.from(`f${i}.txt`) }));
  const central = Buffer.concat(centrals);
  return Buffer.concat([local, kernel.compressed, central, endOfCentralDirectory(count, central.length, local.length + kernel.compressed.length)]);
}
