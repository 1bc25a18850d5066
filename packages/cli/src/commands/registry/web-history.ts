import type { RegistryService } from '@skillport/registry';
import type { VersionHistory } from '@skillport/web';

/** The registry's version records as the web catalog's skill pages show them (newest published first). */
export function versionHistory(service: RegistryService): VersionHistory {
  return {
    async versions(name) {
      let found;
      try {
        found = await service.versions(name);
      } catch {
        // Nothing published under that name (a 404 from the service).
        return undefined;
      }
      const tagsOf = new Map<string, string[]>();
      for (const [tag, version] of Object.entries(found.tags)) tagsOf.set(version, [...(tagsOf.get(version) ?? []), tag]);
      // The store lists them in publish order: newest first reads best.
      return [...found.versions].reverse().map((record) => ({
        version: record.version,
        packageDigest: record.packageDigest,
        publishedAt: record.publishedAt,
        publisher: record.publisher,
        tags: tagsOf.get(record.version) ?? [],
        ...(record.yankedAt !== undefined ? { yankedAt: record.yankedAt } : {}),
        ...(record.revoked !== undefined ? { revoked: record.revoked } : {}),
        signatures: record.signatures.map((signature) => ({ keyId: signature.keyId, trusted: service.isTrusted(signature) })),
        ...(record.provenance.repository !== undefined ? { repository: record.provenance.repository } : {}),
        ...(record.provenance.commit !== undefined ? { commit: record.provenance.commit } : {}),
        review: record.review,
      }));
    },
  };
}
