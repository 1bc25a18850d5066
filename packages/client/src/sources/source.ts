import type { LoadedSkill, SkillDescriptor, SkillTemplate, VerifiedFile } from '../model.js';

/**
 * Where skills come from. A source lists skills without reading any of their files (the spec's "nothing fetched
 * ahead of need"), and reads a file only when asked, verified against what it listed. Optional parts: direct
 * `skill://` references, server instructions, template families.
 */
export interface SkillSource {
  /** The namespace: shown to the model as the skills' origin, and half of every skill's identity. */
  readonly origin: string;
  /** Metadata only. */
  list(): Promise<SkillDescriptor[]>;
  /** SKILL.md read, verified (bytes and frontmatter) and parsed. */
  load(skill: SkillDescriptor): Promise<LoadedSkill>;
  /** One file by its path inside the skill; unlisted paths are refused when the source lists files. */
  readFile(skill: SkillDescriptor, path: string): Promise<VerifiedFile>;
  /** A `skill://` URI read on this source only (direct references). */
  readUri?(uri: string): Promise<VerifiedFile>;
  /** The server's instructions, when it has any. */
  instructions?(): Promise<string | undefined>;
  templates?(): Promise<SkillTemplate[]>;
  /** Values for one variable of a template, given the earlier ones (`completion/complete`). */
  complete?(
    template: SkillTemplate,
    variable: string,
    value: string,
    context: Record<string, string>,
  ): Promise<{ values: string[]; hasMore: boolean; total?: number }>;
  /** The concrete skill a template names once every variable has a value. */
  resolveTemplate?(template: SkillTemplate, values: Record<string, string>): Promise<SkillDescriptor>;
  close?(): Promise<void>;
}

/** A source's non-fatal findings (a refused listing entry, a stale cache used offline). */
export type WarningHandler = (message: string) => void;
