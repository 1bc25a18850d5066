import { sha256Digest } from '@skillport/core';
import type { RegistryStore } from './store.js';

/**
 * Copies a registry from one store into another (`skillport store copy --from DIR --to postgres://…`): every blob
 * (its bytes re-hashed on the way), every version with its publish time, signatures, provenance and review, then
 * withdrawals and tags as the source has them. Versions the target already holds with the same bytes are skipped;
 * other bytes under the same version are a conflict, reported and left alone. Ends with a full check of the
 * target (every blob re-hashed), so a copy that says it worked has verified every digest it wrote.
 */
export interface CopyResult {
  versions: { created: number; existing: number; conflicts: number };
  blobs: { copied: number; existing: number };
  tags: number;
  problems: string[];
}

export async function copyStore(from: RegistryStore, to: RegistryStore, options: { onProgress?: (line: string) => void } = {}): Promise<CopyResult> {
  const result: CopyResult = { versions: { created: 0, existing: 0, conflicts: 0 }, blobs: { copied: 0, existing: 0 }, tags: 0, problems: [] };
  const names = await from.listNames();
  let done = 0;
  for (const name of names) {
    options.onProgress?.(`copying ${++done}/${names.length}: ${name}`);
    const versions = await from.listVersions(name);
    for (const record of versions) {
      for (const file of record.manifest.files) {
        if (await to.hasBlob(file.digest)) {
          result.blobs.existing++;
          continue;
        }
        const bytes = await from.readBlob(file.digest, file.size);
        if (sha256Digest(bytes) !== file.digest) {
          result.problems.push(`${name}@${record.version}: ${file.path} in the source does not match its digest ${file.digest}`);
          continue;
        }
        await to.putBlob(file.digest, bytes);
        result.blobs.copied++;
      }
      const { revision: _revision, yankedAt: _yanked, revoked: _revoked, ...fresh } = record;
      let committed;
      try {
        committed = await to.commitVersion(fresh, []);
      } catch (error) {
        result.problems.push(`${name}@${record.version}: ${(error as Error).message}`);
        continue;
      }
      if (committed.status === 'conflict') {
        result.versions.conflicts++;
        result.problems.push(
          `${name}@${record.version}: the target holds other bytes under this version (${committed.version.packageDigest}, source ${record.packageDigest}); left alone`,
        );
        continue;
      }
      result.versions[committed.status === 'created' ? 'created' : 'existing']++;
      const there = committed.version;
      if (record.revoked !== undefined && there.revoked === undefined) await to.revoke(name, record.version, record.revoked.reason, record.revoked.at);
      else if (record.yankedAt !== undefined && there.yankedAt === undefined && there.revoked === undefined)
        await to.yank(name, record.version, record.yankedAt);
      if (record.review !== there.review) await to.setReview(name, record.version, record.review);
    }
    const wanted = await from.tags(name);
    const present = new Map((await to.tags(name)).map((tag) => [tag.tag, tag.version]));
    for (const tag of wanted) {
      if (present.get(tag.tag) !== tag.version) {
        try {
          await to.setTag(name, tag.tag, tag.version);
        } catch (error) {
          result.problems.push(`${name}: tag ${tag.tag} -> ${tag.version}: ${(error as Error).message}`);
          continue;
        }
      }
      result.tags++;
    }
  }
  options.onProgress?.('verifying every blob in the target…');
  const check = await to.check({ verifyBlobs: true });
  result.problems.push(...check.problems.map((problem) => `target check: ${problem}`));
  return result;
}
