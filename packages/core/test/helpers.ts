import { mkdirSync, mkdtempSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root (tests run from packages/core/dist/test). */
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');
/** The real-skills corpus, beside the repository (../shared/corpus), when present. */
export const CORPUS = resolve(REPO, '../shared/corpus/skills');

export type TreeSpec = Record<string, string | Uint8Array | { symlink: string }>;

const created: string[] = [];

/** Writes files (and symlinks) under a new temporary folder and returns its path. */
export function makeTree(spec: TreeSpec, base?: string): string {
  const root = base ?? mkdtempSync(join(tmpdir(), 'skillport-core-test-'));
  if (base === undefined) created.push(root);
  for (const [path, content] of Object.entries(spec)) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    if (typeof content === 'object' && 'symlink' in content) symlinkSync(content.symlink, full);
    else writeFileSync(full, content);
  }
  return root;
}

/** Removes every folder made by makeTree (call from `after`). */
export function removeTrees(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function skillMd(
  name: string,
  description = `Does ${name} things. Use when the user asks for ${name}.`,
  extra = '',
  body = `# ${name}\n\nInstructions for ${name}.\n`,
): string {
  return `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n${body}`;
}

/** An mtime safely in the past (DigestCache ignores files modified within the last second). */
export const OLD_TIME = new Date(Date.now() - 3_600_000);

export function makeOld(...paths: string[]): void {
  for (const path of paths) utimesSync(path, OLD_TIME, OLD_TIME);
}

/** Blocks for `ms` milliseconds (for waiting out a coarse filesystem timestamp tick). */
export function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
