/** A tree of files read whole (a git commit's tree): what tree-skills.ts turns into skills. */
export interface TreeEntry {
  /** `/`-separated path from the tree's root. */
  path: string;
  kind: 'file' | 'folder' | 'symlink' | 'submodule';
  /** Content identity: a blob or tree id (git), anything that changes with the content. */
  id: string;
  size: number;
}

export interface Tree {
  entries: readonly TreeEntry[];
  /** The root's content identity. */
  rootId: string;
  /** The bytes of these files (by id). */
  read(ids: readonly string[]): Promise<Map<string, Uint8Array>>;
}
