import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Where this package's data files are: `dist/data/` (the word lists beside their parsers in `src/`, copied there by
 * `scripts/search-data.mjs`, and the compacted word vectors), found through this package's own `package.json` so
 * that the CLI's bundle, which runs from another folder, finds them too. Undefined when the package cannot be found.
 */
export function dataFolder(): string | undefined {
  try {
    return join(dirname(createRequire(import.meta.url).resolve('@skillport/search/package.json')), 'dist', 'data');
  } catch {
    return undefined;
  }
}

/** A data file's text; throws, naming the file and the fix, when it is missing. */
export function readDataFile(name: string): string {
  const folder = dataFolder();
  if (folder === undefined) throw new Error(`@skillport/search: its package.json cannot be found, so neither can ${name}`);
  try {
    return readFileSync(join(folder, name), 'utf8');
  } catch (error) {
    throw new Error(
      `@skillport/search: ${join(folder, name)} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)}); \`npm run build\` copies it there`,
    );
  }
}
