import { runGit } from './git-command.js';
import type { Tree, TreeEntry } from './tree.js';

/** The most entries a served tree may have (a repository past it is refused, not read in part). */
export const MAX_TREE_ENTRIES = 200_000;

/** A commit's tree (or a folder's) in a local repository, listed with `ls-tree` and read with `cat-file --batch`. */
export async function gitTree(repo: string, treeId: string): Promise<Tree> {
  const out = await runGit(['ls-tree', '-r', '-t', '-z', '--long', '--full-tree', treeId], { cwd: repo, maxOutputBytes: 64 * 1024 * 1024 });
  const entries: TreeEntry[] = [];
  for (const record of out.toString('utf8').split('\0')) {
    if (record === '') continue;
    // "<mode> <type> <id> <size>\t<path>": the size is "-" for trees and submodules.
    const tab = record.indexOf('\t');
    const [mode, type, id, size] = record.slice(0, tab).split(/ +/);
    const path = record.slice(tab + 1);
    const kind = type === 'tree' ? 'folder' : type === 'commit' ? 'submodule' : mode === '120000' ? 'symlink' : 'file';
    entries.push({ path, kind, id: id!, size: size === '-' ? 0 : Number(size) });
    if (entries.length > MAX_TREE_ENTRIES) throw new Error(`the repository's tree has more than ${MAX_TREE_ENTRIES} entries (the limit)`);
  }
  return { entries, rootId: treeId, read: (ids) => readBlobs(repo, ids) };
}

/** Blob bytes by id, in one `cat-file --batch` run (no filters: the bytes as committed). */
export async function readBlobs(repo: string, ids: readonly string[]): Promise<Map<string, Uint8Array>> {
  const found = new Map<string, Uint8Array>();
  if (ids.length === 0) return found;
  const out = await runGit(['cat-file', '--batch'], { cwd: repo, input: `${ids.join('\n')}\n` });
  let at = 0;
  while (at < out.length) {
    const end = out.indexOf(0x0a, at);
    if (end < 0) break;
    const header = out.subarray(at, end).toString('utf8');
    at = end + 1;
    const [id, type, size] = header.split(' ');
    if (type === 'missing' || size === undefined) throw new Error(`the repository has no object ${id}`);
    const length = Number(size);
    found.set(id!, new Uint8Array(out.subarray(at, at + length)));
    at += length + 1;
  }
  return found;
}
