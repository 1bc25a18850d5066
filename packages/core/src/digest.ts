import { createHash } from 'node:crypto';

/** `sha256:<64 lowercase hex>` of the raw bytes, the digest form of the Skills extension. */
export function sha256Digest(bytes: Uint8Array | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

export const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;

export interface ManifestLine {
  path: string;
  size: number;
  digest: string;
}

/**
 * The package digest: one digest for a skill's whole file set, so a version can be pinned by a single value.
 *
 * Canonical form (documented in docs/architecture.md so anyone can recompute it): one line per file,
 * `<digest> <size> <path>\n`, where path is the file's `/`-separated path inside the skill folder (UTF-8,
 * not percent-encoded), lines sorted by path in Unicode code-point order; the package digest is
 * `sha256:` + hex sha256 of the UTF-8 bytes of the concatenated lines.
 */
export function packageDigest(files: readonly ManifestLine[]): string {
  const lines = files
    .map((file) => ({ key: [...file.path], line: `${file.digest} ${file.size} ${file.path}\n` }))
    .sort((a, b) => compareCodePoints(a.key, b.key))
    .map((item) => item.line);
  return sha256Digest(lines.join(''));
}

function compareCodePoints(a: string[], b: string[]): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const diff = a[i]!.codePointAt(0)! - b[i]!.codePointAt(0)!;
    if (diff !== 0) return diff;
  }
  return a.length - b.length;
}
