import { META_REQUIREMENTS } from '../availability.js';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { discoverSkills, fileSource, inspectSkillFolder, readKnownFileSync } from '@skillport/core';
import type { InspectedSkill, SkillLimits } from '@skillport/core';
import { SkillError } from '../errors.js';
import type { LoadedSkill, SkillDescriptor, VerifiedFile } from '../model.js';
import { checkRelativePath, printable, verifiedBytes } from '../verify.js';
import { finishLoad } from './load.js';
import type { SkillSource, WarningHandler } from './source.js';

export interface FolderSourceOptions {
  /** Default `local`. */
  origin?: string;
  limits?: SkillLimits;
  onWarning?: WarningHandler;
}

/**
 * Skills from local folders, with exactly the server's parsing and validation (`inspectSkillFolder` from core):
 * a folder the server would refuse is left out with a warning; every file is listed with its digest at listing
 * time and re-checked against it when read, so a file edited after listing is refused, not served stale.
 */
export class FolderSkillSource implements SkillSource {
  readonly origin: string;
  private readonly roots: string[];
  private readonly inspected = new Map<string, InspectedSkill>();

  constructor(
    roots: string | string[],
    private readonly options: FolderSourceOptions = {},
  ) {
    this.roots = (Array.isArray(roots) ? roots : [roots]).map((root) => resolve(root));
    this.origin = options.origin ?? 'local';
  }

  async list(): Promise<SkillDescriptor[]> {
    const skills: SkillDescriptor[] = [];
    this.inspected.clear();
    for (const root of this.roots) {
      const discovery = discoverSkills(root);
      for (const problem of discovery.problems) if (problem.severity === 'error') this.options.onWarning?.(`${problem.path}: ${problem.message}`);
      for (const found of discovery.skills) {
        const inspection = inspectSkillFolder(found.dir, { servedRoot: root, ...(this.options.limits ? { limits: this.options.limits } : {}) });
        if (!inspection.skill) {
          const reason = inspection.problems.find((problem) => problem.severity === 'error')?.message ?? 'not a valid skill';
          this.options.onWarning?.(`skipped ${found.dir}: ${reason}`);
          continue;
        }
        const skill = inspection.skill;
        const uri = pathToFileURL(`${skill.dir}/SKILL.md`).href;
        this.inspected.set(uri, skill);
        skills.push({
          origin: this.origin,
          uri,
          name: skill.name,
          description: skill.description,
          frontmatter: skill.frontmatter,
          files: skill.files.map((file) => ({
            path: file.path,
            uri: pathToFileURL(`${skill.dir}/${file.path}`).href,
            digest: file.digest,
            size: file.size,
            mimeType: file.mimeType,
          })),
          packageDigest: skill.packageDigest,
          verification: 'digest',
          // What a server would send: the requirements read from the folder (its Codex sidecar included).
          ...(skill.requirements !== undefined ? { meta: { [META_REQUIREMENTS]: skill.requirements } } : {}),
        });
      }
    }
    return skills;
  }

  async load(skill: SkillDescriptor): Promise<LoadedSkill> {
    return finishLoad(skill, await this.readFile(skill, 'SKILL.md'));
  }

  async readFile(skill: SkillDescriptor, path: string): Promise<VerifiedFile> {
    const clean = checkRelativePath(path, skill.files);
    const inspected = this.inspected.get(skill.uri);
    const entry = skill.files?.find((file) => file.path === clean);
    const record = inspected?.files.find((file) => file.path === clean);
    if (!inspected || !entry || !record) {
      throw new SkillError('unlisted', `'${printable(path)}' is not a file of skill '${skill.name}'${listedHint(skill)}`);
    }
    let bytes: Uint8Array;
    try {
      bytes = readKnownFileSync(fileSource(inspected, record), record.size);
    } catch (error) {
      throw new SkillError('unavailable', `${entry.uri} cannot be read (${error instanceof Error ? error.message : String(error)}); list the skills again`);
    }
    return verifiedBytes(this.origin, entry, clean, bytes, 'disk');
  }
}

export function listedHint(skill: SkillDescriptor): string {
  const others = (skill.files ?? []).filter((file) => file.path !== 'SKILL.md').map((file) => file.path);
  if (skill.files === undefined) return '';
  if (others.length === 0) return '; it has no other files';
  return `; its files: ${others.slice(0, 20).join(', ')}${others.length > 20 ? `, and ${others.length - 20} more` : ''}`;
}
