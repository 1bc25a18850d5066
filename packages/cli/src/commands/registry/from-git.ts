import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import semver from 'semver';
import { environment } from '../../environment.js';
import { CommandError } from './common.js';

/**
 * `publish --from-git REPO --tags PATTERN`: each tag of a repository that matches PATTERN is a release. Its commit is
 * fetched and read by the git source (shallow, isolated, never checked out: docs/git.md), every skill in it is
 * written to a temporary folder and published like a folder, with the tag's commit as provenance. The version is
 * the tag's (`v1.2.0` → 1.2.0; `pdf-tools@1.2.0` or `pdf-tools/v1.2.0` → that skill only) when it is semver, else
 * each skill's own `metadata.version`. Tags are published oldest version first, so `latest` ends on the newest;
 * publishing again is idempotent (the same bytes at the same version are "already there").
 */
export interface GitRelease {
  tag: string;
  commit: string;
  /** The version the tag names, when it names one. */
  version?: string;
  /** The one skill the tag is for (`name@1.2.0`), when it says. */
  only?: string;
}

export interface ReleaseSkill {
  name: string;
  /** A folder holding the skill's files (named as the skill). */
  dir: string;
}

/** Repository URL or path as given: a git source (`git+https://…`, `git:PATH`), a URL, or a path (the CI's checkout). */
export function gitSourceOf(repo: string): string {
  if (/^git(\+[a-z]+:\/\/|:)/.test(repo)) return repo.replace(/#.*$/, '');
  if (/^(https?|ssh|git):\/\//.test(repo)) return `git+${repo}`;
  if (/^file:\/\//.test(repo)) return `git+${repo}`;
  return `git:${resolve(repo)}`;
}

/** `*` any run of characters but none, `?` one; everything else literal. */
export function tagMatcher(pattern: string): (tag: string) => boolean {
  const regex = new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  );
  return (tag) => regex.test(tag);
}

export function releaseOf(tag: string, commit: string): GitRelease {
  const scoped = /^(.+?)(?:@|\/)v?(\d+\.\d+\.\d+.*)$/.exec(tag);
  if (scoped && semver.valid(scoped[2]!)) return { tag, commit, version: semver.valid(scoped[2]!)!, only: scoped[1]! };
  const plain = semver.valid(tag.replace(/^v/, ''));
  return { tag, commit, ...(plain ? { version: plain } : {}) };
}

/** The repository's tags that match, with their commits (annotated tags peeled), oldest version first. */
export async function listReleases(source: string, pattern: string): Promise<GitRelease[]> {
  const { GitProvider } = await import('@skillport/server');
  let commits: Map<string, string>;
  try {
    commits = await GitProvider.tags({ source, ...credentials() });
  } catch (error) {
    throw new CommandError(`cannot list the tags of ${source}: ${(error as Error).message}`);
  }
  const matches = tagMatcher(pattern);
  const releases = [...commits].filter(([tag]) => matches(tag)).map(([tag, commit]) => releaseOf(tag, commit));
  return releases.sort((a, b) => (a.version && b.version ? semver.compare(a.version, b.version) : a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
}

/** Credentials for the repository, from the environment as `serve` takes them (docs/git.md). */
function credentials(): { token?: string; username?: string; credentialsFile?: string } {
  const env = environment();
  return {
    ...(env.gitToken !== undefined ? { token: env.gitToken } : {}),
    ...(env.gitUsername !== undefined ? { username: env.gitUsername } : {}),
    ...(env.gitCredentials !== undefined ? { credentialsFile: env.gitCredentials } : {}),
  };
}

/** The skills of one tag, written into a temporary folder (removed by `done`). */
export async function releaseSkills(source: string, release: GitRelease): Promise<{ repository: string; skills: ReleaseSkill[]; done(): void }> {
  const { GitProvider } = await import('@skillport/server');
  const provider = await GitProvider.open({ source: `${source}#refs/tags/${release.tag}`, ...credentials() });
  const root = mkdtempSync(join(tmpdir(), 'skillport-release-'));
  try {
    const skills: ReleaseSkill[] = [];
    const seen = new Set<string>();
    for (const skill of provider.skills()) {
      if (release.only !== undefined && skill.name !== release.only) continue;
      if (seen.has(skill.name)) throw new CommandError(`tag ${release.tag} holds two skills named ${skill.name}: publish one at a time`);
      seen.add(skill.name);
      if (skill.origin.kind !== 'stored') continue;
      const dir = join(root, skill.name);
      for (const file of skill.files) {
        const path = join(dir, ...file.path.split('/'));
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, await skill.origin.blobs.read(file.digest, file.size));
      }
      skills.push({ name: skill.name, dir });
    }
    if (release.only !== undefined && skills.length === 0)
      throw new CommandError(`tag ${release.tag} names ${release.only}, and the commit holds no skill of that name`);
    return { repository: provider.spec.display, skills, done: () => rmSync(root, { recursive: true, force: true }) };
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  } finally {
    await provider.close();
  }
}
