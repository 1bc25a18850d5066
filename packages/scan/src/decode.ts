import { gunzipSync, inflateSync } from 'node:zlib';
import { lineOf, lineStarts, normalise } from './files.js';
import type { ScannedFile } from './files.js';
import type { DecodeSettings, RuleSet } from './rules.js';

/**
 * Encoded text inside a file (base64, hex, `\x` or `%` escapes, character codes, ROT13, reversed strings), decoded
 * so the rules read what an agent or a script would once it decodes it: an instruction or a command spelled in
 * base64 is still that instruction. Each decoded run is a layer: a file of its own text whose findings are reported
 * at the run's place in the file it came from. Only runs that decode to mostly printable text count (a hash or an
 * image decodes to noise), and layers are decoded again up to `decode.depth` times.
 */
export interface Layer extends ScannedFile {
  origin: { file: ScannedFile; line: number; column: number; encoding: string };
}

interface Decoder {
  encoding: string;
  /** Read the file's own text, not the normal form (which already joins what this decoder looks for). */
  raw?: boolean;
  pattern: (settings: DecodeSettings) => RegExp;
  decode: (match: RegExpMatchArray) => string | undefined;
}

const bytesText = (bytes: Buffer): string | undefined => {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
};

/**
 * Decoded bytes as text: compressed (zlib, gzip) bytes inflated first, UTF-16LE (PowerShell's -EncodedCommand) read
 * as such, anything else as UTF-8.
 */
const anyText = (bytes: Buffer): string | undefined => {
  if (bytes.length >= 4) {
    const zlibbed = bytes[0] === 0x78 && [0x01, 0x5e, 0x9c, 0xda].includes(bytes[1]!);
    const gzipped = bytes[0] === 0x1f && bytes[1] === 0x8b;
    if (zlibbed || gzipped) {
      try {
        return bytesText((zlibbed ? inflateSync : gunzipSync)(bytes, { maxOutputLength: 1 << 20 }));
      } catch {
        return undefined;
      }
    }
    let zeros = 0;
    const pairs = Math.min(32, bytes.length >> 1);
    for (let i = 0; i < pairs; i++) if (bytes[2 * i + 1] === 0 && bytes[2 * i] !== 0) zeros++;
    if (pairs >= 4 && zeros === pairs) return bytes.toString('utf16le');
  }
  return bytesText(bytes);
};

const MAX_CODES = 8192;

/** RFC 4648 base32 (upper case, optional padding). */
const base32 = (run: string): Buffer | undefined => {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of run.replace(/=+$/, '')) {
    const index = alphabet.indexOf(char);
    if (index < 0) return undefined;
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
};

/** Base85 as Python's b85encode writes it (RFC 1924's alphabet) or Ascii85 (a85encode, `<~…~>`). */
const base85 = (run: string, ascii: boolean): Buffer | undefined => {
  const alphabet = ascii ? '' : '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz!#$%&()*+-;<=>?@^_`{|}~';
  const text = ascii
    ? run
        .replace(/^<~|~>$/g, '')
        .replace(/\s+/g, '')
        .replace(/z/g, '!!!!!')
    : run;
  const digit = (char: string): number => (ascii ? char.charCodeAt(0) - 33 : alphabet.indexOf(char));
  const out: number[] = [];
  for (let i = 0; i < text.length; i += 5) {
    const chunk = text.slice(i, i + 5);
    const padded = chunk.padEnd(5, ascii ? 'u' : '~');
    let value = 0;
    for (const char of padded) {
      const d = digit(char);
      if (d < 0 || d > 84) return undefined;
      value = value * 85 + d;
    }
    if (value > 0xffffffff) return undefined;
    const bytes = [(value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff];
    out.push(...bytes.slice(0, chunk.length - 1));
  }
  return Buffer.from(out);
};

// Long lists are cut: String.fromCodePoint(...codes) of a huge list would overflow the stack.
const fromCodes = (codes: number[]): string | undefined =>
  codes.length > MAX_CODES
    ? fromCodes(codes.slice(0, MAX_CODES))
    : codes.every((code) => Number.isInteger(code) && code >= 0 && code <= 0x10ffff)
      ? String.fromCodePoint(...codes)
      : undefined;

const DECODERS: Decoder[] = [
  {
    encoding: 'base64',
    pattern: (s) => new RegExp(`(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{${s.base64Min},}={0,2}`, 'g'),
    decode: (match) => {
      const run = match[0];
      // Words, paths and identifiers are runs of letters too: base64 of text mixes cases and carries digits or +/.
      if (!/[A-Z]/.test(run) || !/[a-z]/.test(run) || !/[0-9+/]/.test(run)) return undefined;
      return anyText(Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64'));
    },
  },
  {
    encoding: 'hex',
    pattern: (s) => new RegExp(`(?<![0-9A-Za-z])(?:[0-9a-fA-F]{2}){${Math.ceil(s.hexMin / 2)},}(?![0-9A-Za-z])`, 'g'),
    decode: (match) => anyText(Buffer.from(match[0], 'hex')),
  },
  {
    encoding: 'octal escapes',
    pattern: (s) => new RegExp(`(?:\\\\[0-3][0-7]{2}){${s.escapesMin},}`, 'g'),
    decode: (match) =>
      anyText(
        Buffer.from(
          match[0]
            .split('\\')
            .slice(1)
            .map((octal) => parseInt(octal, 8)),
        ),
      ),
  },
  {
    encoding: 'spaced hex',
    // Bytes written out one by one: `63 75 72 6c`, `63:75:72:6c`, `0x63, 0x75`.
    pattern: (s) => new RegExp(`(?<![0-9A-Za-z])(?:(?:0x)?[0-9a-fA-F]{2}(?:\\s*[,:]\\s*|\\s)){${s.escapesMin},}(?:0x)?[0-9a-fA-F]{2}(?![0-9A-Za-z])`, 'g'),
    decode: (match) => anyText(Buffer.from(match[0].replace(/0x/g, '').replace(/[^0-9a-fA-F]/g, ''), 'hex')),
  },
  {
    encoding: 'base32',
    pattern: () => /(?<![A-Za-z0-9+/])[A-Z2-7]{24,}={0,6}(?![A-Za-z0-9+/])/g,
    decode: (match) => (/[2-7]/.test(match[0]) ? ((bytes) => (bytes ? anyText(bytes) : undefined))(base32(match[0])) : undefined),
  },
  {
    encoding: 'base85',
    raw: true,
    pattern: () => /\b(b85decode|a85decode)\s*\(\s*b?["']([^"'\n]{10,})["']|<~([^~]{10,})~>/g,
    decode: (match) => {
      const bytes = match[3] !== undefined ? base85(match[3], true) : base85(match[2]!, match[1] === 'a85decode');
      return bytes ? anyText(bytes) : undefined;
    },
  },
  {
    encoding: 'number list',
    // A list of character codes with no call beside it (`K = [99, 117, 114, 108, …]`), read as text, or XORed with a
    // one-byte key when the file XORs.
    pattern: () => /[[({]\s*((?:0x[0-9a-fA-F]{1,2}|\d{1,3})(?:\s*,\s*(?:0x[0-9a-fA-F]{1,2}|\d{1,3})){11,})\s*,?\s*[\])}]/g,
    decode: (match) => {
      const codes = match[1]!.split(/\s*,\s*/, MAX_CODES).map((code) => Number(code));
      if (codes.some((code) => code > 255)) return undefined;
      if (codes.every((code) => code === 9 || code === 10 || code === 13 || (code >= 32 && code < 127))) return String.fromCharCode(...codes);
      for (let key = 1; key < 256; key++) {
        const plain = codes.map((code) => code ^ key);
        if (plain.every((code) => code === 9 || code === 10 || (code >= 32 && code < 127))) {
          const text = String.fromCharCode(...plain);
          if (/[a-z]{3,}[\s/.;:=|-]/i.test(text) && /\s/.test(text)) return text;
        }
      }
      return undefined;
    },
  },
  {
    encoding: '\\x escapes',
    pattern: (s) => new RegExp(`(?:\\\\x[0-9a-fA-F]{2}){${s.escapesMin},}`, 'g'),
    decode: (match) => bytesText(Buffer.from(match[0].replace(/\\x/g, ''), 'hex')),
  },
  {
    encoding: '\\u escapes',
    pattern: (s) => new RegExp(`(?:\\\\u[0-9a-fA-F]{4}){${s.escapesMin},}`, 'g'),
    decode: (match) =>
      fromCodes(
        match[0]
          .split('\\u')
          .slice(1)
          .map((hex) => parseInt(hex, 16)),
      ),
  },
  {
    encoding: 'joined strings',
    raw: true,
    // Literals glued together to spell what none of them says alone: 'cu' + 'rl'.
    pattern: () => /(?:["'][^"'\n]{1,4}["']\s*\+\s*)+["'][^"'\n]{1,40}["']/g,
    decode: (match) => [...match[0].matchAll(/["']([^"'\n]*)["']/g)].map((part) => part[1]).join(''),
  },
  {
    encoding: 'quote-split words',
    raw: true,
    // A line whose words are split by empty quotes (`c''u''r''l`), read whole with the quotes taken out.
    pattern: () => /^.*\b[A-Za-z]+(?:(?:''|"")[A-Za-z]+){2,}\b.*$/gm,
    decode: (match) => match[0].replace(/(?<=[A-Za-z])(''|"")(?=[A-Za-z])/g, ''),
  },
  {
    encoding: 'percent escapes',
    pattern: (s) => new RegExp(`(?:%[0-9a-fA-F]{2}[^%\\s"'\`]{0,3}){${s.escapesMin},}`, 'g'),
    decode: (match) => {
      try {
        return decodeURIComponent(match[0]);
      } catch {
        return undefined;
      }
    },
  },
  {
    encoding: 'character codes',
    pattern: (s) =>
      new RegExp(
        `(?:fromCharCode|fromCodePoint|bytes|bytearray|\\[char\\[\\]\\]|chr)\\s*\\(?\\s*\\[?\\s*((?:0x[0-9a-f]+|\\d+)(?:\\s*,\\s*(?:0x[0-9a-f]+|\\d+)){${s.escapesMin - 1},})`,
        'gi',
      ),
    decode: (match) => fromCodes(match[1]!.split(/\s*,\s*/).map((code) => Number(code))),
  },
  {
    encoding: 'ROT13',
    pattern: () => /\b(?:codecs\.(?:de|en)code|rot13)\s*\(\s*["']([^"'\n]{8,})["']\s*(?:,\s*["']rot[_-]?13["'])?/gi,
    decode: (match) =>
      match[1]!.replace(/[a-z]/gi, (char) => {
        const base = char <= 'Z' ? 65 : 97;
        return String.fromCharCode(((char.charCodeAt(0) - base + 13) % 26) + base);
      }),
  },
  {
    encoding: 'reversed text',
    pattern: () =>
      /["']([^"'\n]{12,})["']\s*\[\s*::\s*-1\s*\]|\becho\s+["']?([^|"'\n]{12,}?)["']?\s*\|\s*rev\b|["']([^"'\n]{12,})["']\.split\(\s*["']{2}\s*\)\.reverse\(\)|\becho\s+(?:-n\s+)?["']([^"'\n]{12,})["']\s*\|\s*rev\b/g,
    decode: (match) => [...(match[1] ?? match[2] ?? match[3] ?? match[4] ?? '')].reverse().join(''),
  },
];

function printableShare(text: string): number {
  if (text.length === 0) return 0;
  let good = 0;
  for (const char of text) if (/[\p{L}\p{N}\p{P}\p{S}\p{Zs}\t\n\r]/u.test(char)) good++;
  return good / [...text].length;
}

export function decodeLayers(files: readonly ScannedFile[], rules: RuleSet): Layer[] {
  const settings = rules.decode;
  const layers: Layer[] = [];
  let current: ScannedFile[] = [...files];
  for (let depth = 0; depth < settings.depth && current.length > 0; depth++) {
    const next: Layer[] = [];
    for (const file of current) {
      if (file.kind === 'binary' || file.normal === '') continue;
      let count = 0;
      for (const decoder of DECODERS) {
        const source = decoder.raw ? file.text : file.normal;
        for (const match of source.matchAll(decoder.pattern(settings))) {
          if (count >= settings.maxLayers) break;
          const text = decoder.decode(match);
          // Decoded text that is short, or noise, says nothing a rule could read.
          if (text === undefined || text.trim().length < 6 || printableShare(text) < settings.printable) continue;
          // Words, or another encoded run to decode on the next pass.
          if (!/[a-z]{2,}[\s/.;:=|-]/i.test(text) && !/^\s*[A-Za-z0-9+/_-]{16,}={0,2}\s*$/.test(text)) continue;
          const at = match.index!;
          const parent = 'origin' in file ? (file as Layer).origin : undefined;
          const line = parent?.line ?? (decoder.raw ? lineInText(source, at) : lineOf(file, at));
          const column = parent?.column ?? (decoder.raw ? at - source.lastIndexOf('\n', at - 1) : at - file.lineStarts[line - 1]! + 1);
          const normal = normalise(text, rules.confusables);
          next.push({
            path: file.path,
            kind: file.kind,
            bytes: file.bytes,
            text,
            normal,
            lineStarts: lineStarts(normal),
            isSkillMd: file.isSkillMd,
            origin: { file: parent?.file ?? file, line, column, encoding: parent ? `${decoder.encoding} inside ${parent.encoding}` : decoder.encoding },
          });
          count++;
        }
      }
    }
    layers.push(...next);
    current = next;
  }
  return layers;
}

function lineInText(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}
