import { basename, join } from 'node:path';
import { createHash } from 'node:crypto';
import { ChunkedFileWriter, mimeTypeFor, readCheckedFile } from '@skillport/core';
import type { FolderProblem, InspectedSkill, SkillFileRecord, SkillLimits } from '@skillport/core';
import type { FolderRoot, ScannedFolder } from './folder-scan.js';

/**
 * The last catalog `serve` built for a given set of folders, kept on disk so that a restart is ready at once:
 * the server answers from it while a background scan checks every file against the disk and swaps in whatever
 * changed while it was down (ADR 0004). Reads are verified against their digests at read time, so a file that
 * changed meanwhile is refused, never served under a stale digest. Any doubt about the file (another format, other
 * folders, other limits, unreadable) means a normal cold scan.
 *
 * Compact form, one folder per element: `[root, relDir, problems, skill | 0]`, where skill is
 * `[name, description, frontmatter, realDir, packageDigest, totalBytes, files, headings]` and a file is
 * `[path, size, digest]` or `[path, size, digest, target]`. Media types and folder names are derived again.
 */
const FORMAT = 'skillport-catalog/3';

type PersistedFile = [path: string, size: number, digest: string, target?: string];
type PersistedSkill = [
  name: string,
  description: string,
  frontmatter: Record<string, unknown>,
  realDir: string,
  packageDigest: string,
  totalBytes: number,
  files: PersistedFile[],
  headings: string[],
];
type PersistedFolder = [root: number, relDir: string, problems: FolderProblem[], skill: PersistedSkill | 0];

export function catalogKey(roots: readonly FolderRoot[], limits: SkillLimits): string {
  return createHash('sha256')
    .update(JSON.stringify({ format: FORMAT, roots, limits }))
    .digest('hex');
}

export function loadCatalog(path: string, roots: readonly FolderRoot[], limits: SkillLimits): ScannedFolder[] | undefined {
  try {
    // Checksummed (readCheckedFile): a torn or damaged file means a cold scan, never a believed one.
    const text = readCheckedFile(path);
    if (text === undefined) return undefined;
    const data = JSON.parse(text) as { format?: string; key?: string; folders?: PersistedFolder[] };
    if (data.format !== FORMAT || data.key !== catalogKey(roots, limits) || !Array.isArray(data.folders)) return undefined;
    return data.folders.map(([rootIndex, relDir, problems, skill]) => {
      const root = roots[rootIndex];
      if (root === undefined || typeof relDir !== 'string' || !Array.isArray(problems)) throw new Error('malformed');
      const segments = relDir === '' ? [] : relDir.split('/');
      const dir = join(root.dir, ...segments);
      const folder: ScannedFolder = { root, dir, segments, inspection: { problems } };
      if (skill !== 0) folder.inspection.skill = restoreSkill(dir, skill);
      return folder;
    });
  } catch {
    return undefined;
  }
}

function restoreSkill(dir: string, [name, description, frontmatter, realDir, packageDigest, totalBytes, files, headings]: PersistedSkill): InspectedSkill {
  return {
    dir,
    realDir,
    folderName: basename(dir),
    name,
    description,
    frontmatter,
    headings: Array.isArray(headings) ? headings : [],
    packageDigest,
    totalBytes,
    files: files.map(([path, size, digest, target]) => {
      const file: SkillFileRecord = { path, size, digest, mimeType: mimeTypeFor(path) };
      if (target !== undefined) file.target = target;
      return file;
    }),
  };
}

/** Writes the catalog piece by piece (no single string of the whole catalog), atomically. */
export function saveCatalog(path: string, roots: readonly FolderRoot[], limits: SkillLimits, folders: Iterable<ScannedFolder>): void {
  let writer: ChunkedFileWriter | undefined;
  try {
    writer = new ChunkedFileWriter(path);
    writer.write(`{"format":${JSON.stringify(FORMAT)},"key":${JSON.stringify(catalogKey(roots, limits))},"folders":[`);
    let first = true;
    for (const folder of folders) {
      const skill = folder.inspection.skill;
      const persisted: PersistedFolder = [
        roots.indexOf(folder.root),
        folder.segments.join('/'),
        folder.inspection.problems,
        skill === undefined
          ? 0
          : [
              skill.name,
              skill.description,
              skill.frontmatter,
              skill.realDir,
              skill.packageDigest,
              skill.totalBytes,
              skill.files.map((file) => (file.target === undefined ? [file.path, file.size, file.digest] : [file.path, file.size, file.digest, file.target])),
              skill.headings,
            ],
      ];
      writer.write(`${first ? '' : ','}${JSON.stringify(persisted)}`);
      first = false;
    }
    writer.write(']}');
    writer.commit();
  } catch {
    writer?.abandon(); // only costs the next start its head start
  }
}
