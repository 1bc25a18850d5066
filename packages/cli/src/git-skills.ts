import { join } from 'node:path';
import type { LoadedSkill, SkillDescriptor, SkillSource, VerifiedFile } from '@skillport/client';
import type { CatalogSkill as ServedSkill } from '@skillport/server';
import { environment } from './environment.js';

/**
 * A git repository as a source for the client commands (`install REPO#REF NAME`, `ls`, `show`, `outdated`,
 * `update`): the server's git source fetches the ref (shallow, isolated, cached under the cache folder's `git/`)
 * and its skills are listed with their `skill://` URIs, digests and provenance (repository, ref, commit), and read
 * from memory, every file checked against its digest. The lockfile then pins the commit and the digests; `update`
 * fetches the ref again and moves along the branch.
 */
export const GIT_SPEC = /^git(\+[a-z]+:\/\/|:)/;

/** A git source as it is named in messages and the lockfile: without user info in its URL. */
export function gitSpecLabel(spec: string): string {
  return spec.replace(/(:\/\/)[^/@\s]+@/, '$1');
}

/** The same source pinned at `commit` (`…#main:skills` → `…#<commit>:skills`). */
export function pinnedAt(spec: string, commit: string): string {
  const hash = spec.indexOf('#');
  const base = hash < 0 ? spec : spec.slice(0, hash);
  const fragment = hash < 0 ? '' : spec.slice(hash + 1);
  const colon = fragment.indexOf(':');
  return `${base}#${commit}${colon < 0 ? '' : fragment.slice(colon)}`;
}

export async function openGitSkills(spec: string, cacheDir: string | undefined): Promise<SkillSource & { commit: string | undefined }> {
  const { GitProvider, defaultCacheDir } = await import('@skillport/server');
  const lib = await import('@skillport/client');
  const env = environment();
  const provider = await GitProvider.open({
    source: spec,
    cacheDir: join(cacheDir ?? defaultCacheDir(environment().xdgCacheHome), 'git'),
    ...(env.gitToken !== undefined ? { token: env.gitToken } : {}),
    ...(env.gitUsername !== undefined ? { username: env.gitUsername } : {}),
    ...(env.gitCredentials !== undefined ? { credentialsFile: env.gitCredentials } : {}),
  });
  const origin = gitSpecLabel(spec);
  const served = new Map<string, ServedSkill>(provider.skills().map((skill) => [skill.uri, skill]));
  const descriptor = (skill: ServedSkill): SkillDescriptor => ({
    origin,
    uri: skill.uri,
    name: skill.name,
    description: skill.description,
    frontmatter: skill.frontmatter,
    files: skill.files.map((file) => ({ path: file.path, uri: file.uri, digest: file.digest, size: file.size, mimeType: file.mimeType })),
    packageDigest: skill.packageDigest,
    verification: 'digest',
    meta: skill.entry._meta as Record<string, unknown>,
  });
  const readFile = async (skill: SkillDescriptor, path: string): Promise<VerifiedFile> => {
    const clean = lib.checkRelativePath(path, skill.files);
    const held = served.get(skill.uri);
    const entry = skill.files?.find((file) => file.path === clean);
    const file = held?.files.find((candidate) => candidate.path === clean);
    if (!held || !entry || !file || held.origin.kind !== 'stored') throw new lib.SkillError('unlisted', `'${path}' is not a file of skill '${skill.name}'`);
    return lib.verifiedBytes(origin, entry, clean, await held.origin.blobs.read(file.digest, file.size), 'network');
  };
  return {
    origin,
    commit: provider.commit,
    list: async () => [...served.values()].map(descriptor),
    load: async (skill: SkillDescriptor): Promise<LoadedSkill> => lib.finishLoad(skill, await readFile(skill, 'SKILL.md')),
    readFile,
    close: () => provider.close(),
  };
}
