import { decodeText, splitFrontmatter } from '@skillport/core';
import { REFERENCE_CHARS } from '@skillport/search/analysis';

/**
 * What search reads of a skill, however its bytes are read (the content reader on the main thread, a verified read in
 * a worker thread): the body of its SKILL.md and the texts of its reference files. A read that fails (undefined or
 * thrown: the file changed since it was scanned, its digest no longer matches) leaves that text out.
 */
export type ReadBytes<F> = (file: F) => Promise<Uint8Array | undefined>;

/** The SKILL.md body after its frontmatter ('' when it cannot be read or is not text). */
export async function bodyText<F>(manifest: F | undefined, read: ReadBytes<F>): Promise<string> {
  if (manifest === undefined) return '';
  try {
    const bytes = await read(manifest);
    const text = bytes === undefined ? undefined : decodeText(bytes);
    return text === undefined ? '' : splitFrontmatter(text, Number.MAX_SAFE_INTEGER).body;
  } catch {
    return '';
  }
}

/**
 * The texts of the skill's reference files (already picked by `referenceFiles` and size), in their order, up to
 * REFERENCE_CHARS characters in all (what the index takes of them), read a batch at a time: files up to the
 * characters still wanted in bytes (a character is at least a byte), read together, then the next batch while
 * characters are still wanted.
 */
export async function referenceTexts<F extends { size: number }>(files: readonly F[], read: ReadBytes<F>): Promise<string[]> {
  const texts: string[] = [];
  let chars = 0;
  for (let next = 0; next < files.length && chars < REFERENCE_CHARS; ) {
    const batch: F[] = [];
    for (let bytes = 0; next < files.length && bytes < REFERENCE_CHARS - chars; next++) {
      batch.push(files[next]!);
      bytes += files[next]!.size;
    }
    const found = await Promise.all(
      batch.map(async (file) => {
        try {
          const bytes = await read(file);
          return bytes === undefined ? undefined : decodeText(bytes);
        } catch {
          return undefined; // unreadable now: the skill is indexed without it, like a SKILL.md that cannot be read
        }
      }),
    );
    for (const text of found) {
      if (text === undefined) continue;
      texts.push(text);
      chars += text.length;
    }
  }
  return texts;
}
