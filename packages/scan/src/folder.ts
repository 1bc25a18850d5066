import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { SkillFile } from './files.js';

/**
 * A skill folder's files for a scan: every regular file under it (symbolic links are not followed, so nothing
 * outside the folder is read; `.git` is skipped), at most `maxFiles` of them and files of at most `maxFileBytes`
 * read (larger ones are listed with no bytes and reported as skipped by the scan). Unreadable entries are left out
 * with a note; nothing here throws for what the folder holds.
 */
export interface FolderFiles {
  files: SkillFile[];
  notes: string[];
}

export function readSkillFolderFiles(dir: string, options: { maxFiles?: number; maxFileBytes?: number } = {}): FolderFiles {
  const maxFiles = options.maxFiles ?? 2000;
  const maxFileBytes = options.maxFileBytes ?? 2 * 1024 * 1024;
  const files: SkillFile[] = [];
  const notes: string[] = [];
  const walk = (folder: string, prefix: string, depth: number): void => {
    if (depth > 32) return void notes.push(`${prefix}: deeper than 32 folders, not read`);
    let names: string[];
    try {
      names = readdirSync(folder).sort();
    } catch (error) {
      return void notes.push(`${prefix || '.'}: cannot list (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
    for (const name of names) {
      if (name === '.git') continue;
      const path = prefix === '' ? name : `${prefix}/${name}`;
      const full = join(folder, name);
      let info;
      try {
        info = lstatSync(full);
      } catch {
        continue;
      }
      if (info.isDirectory()) walk(full, path, depth + 1);
      else if (info.isFile()) {
        if (files.length >= maxFiles) {
          notes.push(`more than ${maxFiles} files: the rest were not scanned`);
          return;
        }
        if (info.size > maxFileBytes) {
          files.push({ path, bytes: new Uint8Array(maxFileBytes + 1) });
          continue;
        }
        try {
          files.push({ path, bytes: readFileSync(full) });
        } catch (error) {
          notes.push(`${path}: cannot read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
        }
      }
    }
  };
  walk(dir, '', 0);
  return { files, notes };
}
