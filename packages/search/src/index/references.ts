import { REFERENCE_CHARS } from './skill-index.js';

/**
 * A reference file larger than this is not read for search: REFERENCE_CHARS characters are at most 4 bytes each, so
 * a larger file's head would do, but readers read whole files, and one huge file must not cost a whole read per skill.
 */
export const MAX_REFERENCE_BYTES = 4 * REFERENCE_CHARS;

/**
 * Which of a skill's files are indexed as its references (SearchDocument.references), in path order: its Markdown
 * files other than SKILL.md itself and a README or LICENSE (about the package, not the task). `paths` are
 * `/`-separated, relative to the skill folder.
 */
export function referenceFiles(paths: Iterable<string>): string[] {
  const picked: string[] = [];
  for (const path of paths) {
    if (!/\.(md|markdown)$/i.test(path) || path === 'SKILL.md') continue;
    const base = path.slice(path.lastIndexOf('/') + 1);
    if (/^(readme|license|licence|changelog)\b/i.test(base)) continue;
    if (path.split('/').some((segment) => segment.startsWith('.'))) continue;
    picked.push(path);
  }
  return picked.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
