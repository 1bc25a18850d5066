import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export type TreeSpec = Record<string, string | Uint8Array | { symlink: string }>;

const created: string[] = [];

/** Writes files (and symlinks) under a folder (a new temporary one unless `base` is given) and returns its path. */
export function makeTree(spec: TreeSpec, base?: string): string {
  const root = base ?? mkdtempSync(join(tmpdir(), 'skillport-test-'));
  if (base === undefined) created.push(root);
  for (const [path, content] of Object.entries(spec)) {
    const full = join(root, path);
    mkdirSync(dirname(full), { recursive: true });
    if (typeof content === 'object' && 'symlink' in content) symlinkSync(content.symlink, full);
    else writeFileSync(full, content);
  }
  return root;
}

/**
 * A new empty temporary folder named after `label`, by its real path (macOS's /tmp is a link: the server reports real
 * paths), removed with makeTree's by `removeTrees`.
 */
export function tempFolder(label: string): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `skillport-${label}-`)));
  created.push(dir);
  return dir;
}

/** Removes every temporary folder made by makeTree so far (call from `after` where a test makes many). */
export function removeTrees(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A SKILL.md with the given name and (by default) a description and body that name it. */
export function skillMd(
  name: string,
  description = `Does ${name} things. Use when the user asks for ${name}.`,
  extra = '',
  body = `# ${name}\n\nInstructions for ${name}.\n`,
): string {
  return `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n${body}`;
}
