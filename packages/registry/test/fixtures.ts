import { sha256Digest } from '@skillport/core';
import type { SkillFileEntry } from '@skillport/core';
import { manifestFor } from '../src/package-format.js';
import type { NewVersion } from '../src/model.js';

export function skillMd(name: string, body = `# ${name}\n\nDo ${name} things.\n`, extra = ''): string {
  return `---\nname: ${name}\ndescription: Does ${name} things. Use when the user asks for ${name}.\n${extra}---\n\n${body}`;
}

export function files(name: string, spec: Record<string, string | Uint8Array> = {}): SkillFileEntry[] {
  const all: Record<string, string | Uint8Array> = { 'SKILL.md': skillMd(name), ...spec };
  return Object.entries(all).map(([path, content]) => ({ path, bytes: typeof content === 'string' ? Buffer.from(content) : content }));
}

/** A version record for store-level tests (the store does not validate skills; the service does). */
export function newVersion(
  name: string,
  version: string,
  content: SkillFileEntry[] = files(name),
  at = '2026-11-30T00:00:00.000Z',
): { record: NewVersion; blobs: Array<[string, Uint8Array]> } {
  const manifest = manifestFor(name, content);
  return {
    record: {
      name,
      version,
      packageDigest: manifest.packageDigest,
      manifest: {
        description: `Does ${name} things.`,
        frontmatter: { name },
        headings: [],
        files: manifest.files,
        totalBytes: manifest.files.reduce((sum, file) => sum + file.size, 0),
      },
      publishedAt: at,
      publisher: 'test',
      signatures: [],
      provenance: {},
      review: 'unreviewed',
    },
    blobs: content.map((file) => [sha256Digest(file.bytes), file.bytes]),
  };
}
