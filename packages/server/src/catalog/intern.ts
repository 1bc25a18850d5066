import type { ScannedFolder } from './folder-scan.js';
import { CompactSkill, PackedFiles } from './packed-files.js';

/**
 * Folders arrive from a worker thread (or the persisted catalog) as fresh copies: every `text/markdown`, every
 * `SKILL.md`, every repeated folder name is a string of its own, and a skill's description is stored twice. At
 * 10,000 skills that is megabytes of duplicates, so received folders are compacted: repeated strings are shared
 * and derived values point at their source.
 */
export class StringPool {
  // Two generations: a string not seen again for a whole generation is let go by the pool (its holders keep it),
  // so a long-running server whose folders keep changing (new names, new headings) does not keep every string it
  // ever saw. Strings that keep recurring ("SKILL.md", "Overview") move into each new generation and stay shared.
  #current = new Map<string, string>();
  #previous = new Map<string, string>();

  constructor(readonly generationSize = 65_536) {}

  /** How many strings the pool holds (both generations). */
  get size(): number {
    return this.#current.size + this.#previous.size;
  }

  intern(value: string): string {
    let known = this.#current.get(value);
    if (known !== undefined) return known;
    known = this.#previous.get(value) ?? value;
    if (this.#current.size >= this.generationSize) {
      this.#previous = this.#current;
      this.#current = new Map();
    }
    this.#current.set(known, known);
    return known;
  }
}

export function compactFolder(folder: ScannedFolder, pool: StringPool): ScannedFolder {
  folder.segments = folder.segments.map((segment) => pool.intern(segment));
  const skill = folder.inspection.skill;
  if (skill !== undefined) {
    // The folder's path arrives up to three times (the scanned folder's, the skill's, the resolved one): one string.
    if (skill.dir === folder.dir) skill.dir = folder.dir;
    if (skill.realDir === skill.dir) skill.realDir = skill.dir;
    skill.folderName = pool.intern(skill.folderName);
    // A restored skill's frontmatter is not read now (CompactSkill: its description is made the skill's when parsed),
    // and its headings come shared already (persisted-catalog.ts).
    if (!(skill instanceof CompactSkill && skill.unparsed)) {
      const description = skill.frontmatter['description'];
      if (description === skill.description) skill.description = description as string;
      // Headings repeat across skills ("Overview", "When to Use This Skill": hundreds of copies at 1,000 skills).
      skill.headings = skill.headings.map((heading) => pool.intern(heading));
    }
    // One object per skill for its files, not one per file (packed-files.ts); media types are derived from paths.
    if (!(skill instanceof CompactSkill))
      folder.inspection.skill = new CompactSkill(
        skill,
        PackedFiles.from(skill.files, (path) => pool.intern(path)),
      );
  }
  for (const problem of folder.inspection.problems) problem.message = pool.intern(problem.message);
  return folder;
}
