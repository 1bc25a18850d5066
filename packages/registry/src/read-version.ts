import { sha256Digest } from '@skillport/core';
import type { SkillFileEntry } from '@skillport/core';
import type { VersionRecord } from './model.js';
import type { RegistryStore } from './store.js';

/** A version's files read back from the store, each checked against its digest. */
export async function blobFiles(store: RegistryStore, record: VersionRecord): Promise<SkillFileEntry[]> {
  const files: SkillFileEntry[] = [];
  for (const file of record.manifest.files) {
    const bytes = await store.readBlob(file.digest, file.size);
    if (sha256Digest(bytes) !== file.digest) throw new Error(`blob ${file.digest} (${record.name}@${record.version}: ${file.path}) does not match its digest`);
    files.push({ path: file.path, bytes });
  }
  return files;
}
