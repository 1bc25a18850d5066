import { encodePath, inspectSkillFiles, readSkillArchive } from '@skillport/core';
import { SkillError } from '../errors.js';
import type { SkillFileEntry } from '../model.js';

/** A skill archive unpacked in memory: its files (with digests) and their bytes. */
export interface UnpackedArchive {
  files: SkillFileEntry[];
  bytes: Map<string, Uint8Array>;
}

/**
 * Unpacks a draft-era `archive` entry's blob with core's safe reader (zip-slip, links, duplicates, bombs and
 * oversize refused) and inspects the files with the server's skill rules. A refusal is one line naming the archive.
 * Files are named `<archive uri>!/<path>`: they are not resources of their own on the server.
 */
export async function unpackSkillArchive(archiveUri: string, blob: Uint8Array): Promise<UnpackedArchive> {
  const contents = await readSkillArchive(blob);
  const refusal = contents.problems.find((problem) => problem.severity === 'error');
  if (refusal || contents.files.length === 0) throw new SkillError('invalid', `${archiveUri}: ${refusal?.message ?? 'empty archive'}: refused`);
  const inspected = inspectSkillFiles(contents.files, contents.folderName ? { folderName: contents.folderName } : {});
  const manifest = inspected.skill;
  if (!manifest) {
    throw new SkillError(
      'invalid',
      `${archiveUri}: ${inspected.problems.find((problem) => problem.severity === 'error')?.message ?? 'not a valid skill'}: refused`,
    );
  }
  return {
    files: manifest.files.map((file) => ({
      path: file.path,
      uri: `${archiveUri}!/${encodePath(file.path)}`,
      digest: file.digest,
      size: file.size,
      mimeType: file.mimeType,
    })),
    bytes: new Map(contents.files.map((file) => [file.path, file.bytes])),
  };
}
