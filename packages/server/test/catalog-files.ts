import { sha256Digest } from '@skillport/core';
import type { CatalogFile } from '../src/catalog/model.js';

/** A catalog file record for `bytes` at `path` in skill `s`, as the catalog would publish it (tests of reads). */
export function catalogFile(bytes: Buffer, path = 'notes.md'): CatalogFile {
  return { uri: `skill://s/${path}`, path, size: bytes.byteLength, digest: sha256Digest(bytes), mimeType: 'text/markdown' };
}
