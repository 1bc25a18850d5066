import { statSync } from 'node:fs';

/**
 * What `serve` is given on its command line (and in a config's `dirs`): folders, and archive files (`.skill`,
 * `.zip`, `.tar.gz`, ...), told apart by what is on disk: a regular file is an archive (its format is read from its
 * bytes), anything else is a folder (a path that does not exist stays a folder, so it gets the folder's clear
 * "does not exist" error). Archives inside served folders are not served as skills: there they may be a skill's
 * own asset (an `assets/template.zip`); name an archive to serve it (ADR 0010).
 */
export function splitSources(paths: readonly string[]): { folders: string[]; archives: string[] } {
  const folders: string[] = [];
  const archives: string[] = [];
  for (const path of paths) {
    let isFile = false;
    try {
      isFile = statSync(path).isFile();
    } catch {
      /* missing: reported as a folder that does not exist */
    }
    (isFile ? archives : folders).push(path);
  }
  return { folders, archives };
}
