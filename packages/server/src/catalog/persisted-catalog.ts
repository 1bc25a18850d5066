import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { createHash } from 'node:crypto';
import type { SkillLimits } from '@skillport/core';
import type { FolderRoot, ScannedFolder } from './folder-scan.js';

/**
 * The last catalog `serve` built for a given set of folders, kept on disk so that a restart is ready at once:
 * the server answers from it while a background scan (scan-worker.ts) checks every file against the disk and
 * swaps in whatever changed while it was down. Reads are verified against their digests at read time, so a file
 * that changed meanwhile is refused, never served with a stale digest. Any doubt about the file (another version,
 * other folders, other limits, unreadable) means a normal cold scan.
 */
const FORMAT = 'skillport-catalog/1';

interface PersistedFile {
  format: typeof FORMAT;
  key: string;
  folders: Array<Omit<ScannedFolder, 'root'> & { root: number }>;
}

export function catalogKey(roots: readonly FolderRoot[], limits: SkillLimits): string {
  return createHash('sha256').update(JSON.stringify({ roots, limits })).digest('hex');
}

export function loadCatalog(path: string, roots: readonly FolderRoot[], limits: SkillLimits): ScannedFolder[] | undefined {
  try {
    const data = JSON.parse(readFileSync(path, 'utf8')) as PersistedFile;
    if (data.format !== FORMAT || data.key !== catalogKey(roots, limits) || !Array.isArray(data.folders)) return undefined;
    return data.folders.map((folder) => {
      const root = roots[folder.root];
      if (root === undefined || typeof folder.dir !== 'string' || !Array.isArray(folder.segments) || !Array.isArray(folder.inspection?.problems)) {
        throw new Error('malformed');
      }
      return { ...folder, root };
    });
  } catch {
    return undefined;
  }
}

export function saveCatalog(path: string, roots: readonly FolderRoot[], limits: SkillLimits, folders: Iterable<ScannedFolder>): void {
  const data: PersistedFile = { format: FORMAT, key: catalogKey(roots, limits), folders: [] };
  for (const folder of folders) data.folders.push({ ...folder, root: roots.indexOf(folder.root) });
  try {
    mkdirSync(dirname(path), { recursive: true });
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(data));
    renameSync(temp, path);
  } catch {
    // only costs the next start its head start
  }
}
