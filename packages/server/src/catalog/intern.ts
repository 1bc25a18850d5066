import { mimeTypeFor } from '@skillport/core';
import type { ScannedFolder } from './folder-scan.js';

/**
 * Folders arrive from a worker thread (or the persisted catalog) as fresh copies: every `text/markdown`, every
 * `SKILL.md`, every repeated folder name is a string of its own, and a skill's description is stored twice. At
 * 10,000 skills that is megabytes of duplicates, so received folders are compacted: repeated strings are shared
 * and derived values point at their source.
 */
export class StringPool {
  #strings = new Map<string, string>();

  intern(value: string): string {
    const known = this.#strings.get(value);
    if (known !== undefined) return known;
    this.#strings.set(value, value);
    return value;
  }
}

export function compactFolder(folder: ScannedFolder, pool: StringPool): ScannedFolder {
  folder.segments = folder.segments.map((segment) => pool.intern(segment));
  const skill = folder.inspection.skill;
  if (skill !== undefined) {
    if (skill.realDir === skill.dir) skill.realDir = skill.dir;
    skill.folderName = pool.intern(skill.folderName);
    const description = skill.frontmatter['description'];
    if (description === skill.description) skill.description = description as string;
    for (const file of skill.files) {
      file.mimeType = mimeTypeFor(file.path); // constants from the media-type table
      file.path = pool.intern(file.path);
    }
    // Headings repeat across skills ("Overview", "When to Use This Skill": hundreds of copies at 1,000 skills).
    skill.headings = skill.headings.map((heading) => pool.intern(heading));
  }
  for (const problem of folder.inspection.problems) problem.message = pool.intern(problem.message);
  return folder;
}
