/**
 * The Agent Skills discovery index (format 0.2.0): what a static host publishes at
 * `/.well-known/agent-skills/index.json` (earlier drafts: `/.well-known/skills/index.json`), and what draft-era MCP
 * servers publish at `skill://index.json`:
 *
 *   {"$schema": "https://schemas.agentskills.io/discovery/0.2.0/schema.json",
 *    "skills": [{"name", "type": "skill-md" | "archive", "description", "url", "digest": "sha256:<hex>"}]}
 *
 * (the RFC's own examples carry `"version": "0.2.0"` instead of `$schema`: both are accepted). `url` resolves against
 * the index's URL (RFC 3986). `digest` is the SHA-256 of the artifact's bytes: a SKILL.md for `skill-md`, the whole
 * archive (.tar.gz or .zip) for `archive`. Parsing is strict about what a reader must rely on (names, URLs,
 * digests) and lenient about the rest: an unusable entry is skipped with a one-line reason, the others are kept.
 */
export const DISCOVERY_SCHEMA_0_2_0 = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';

export interface DiscoveryEntry {
  name: string;
  type: 'skill-md' | 'archive';
  description: string;
  /** Absolute URL of the artifact. */
  url: string;
  /** `sha256:<64 lowercase hex>`. */
  digest: string;
}

export interface ParsedDiscoveryIndex {
  entries: DiscoveryEntry[];
  /** Entries skipped, each with its reason (the entry's name or position first). */
  skipped: string[];
}

const NAME = /^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;

export class DiscoveryIndexError extends Error {
  override name = 'DiscoveryIndexError';
}

/** Parses index bytes fetched from `indexUrl`. Throws DiscoveryIndexError (one line) when the whole index is unusable. */
export function parseDiscoveryIndex(text: string, indexUrl: string): ParsedDiscoveryIndex {
  let data: unknown;
  try {
    data = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    throw new DiscoveryIndexError(`the index is not valid JSON (${(error as Error).message.split('\n')[0]})`);
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new DiscoveryIndexError('the index must be a JSON object');
  const index = data as Record<string, unknown>;
  const schema = index['$schema'];
  const version = index['version'];
  if (typeof schema === 'string') {
    const match = /\/discovery\/(\d+)\.(\d+)\.(\d+)\/schema\.json$/.exec(schema);
    if (!match || match[1] !== '0' || Number(match[2]) < 2)
      throw new DiscoveryIndexError(`unsupported index schema ${JSON.stringify(schema.slice(0, 200))} (this reader knows ${DISCOVERY_SCHEMA_0_2_0})`);
  } else if (typeof version === 'string') {
    const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
    if (!match || match[1] !== '0' || Number(match[2]) < 2)
      throw new DiscoveryIndexError(
        `unsupported index version ${JSON.stringify(version.slice(0, 50))} (this reader knows 0.2.0: entries with type, url and digest)`,
      );
  } else {
    throw new DiscoveryIndexError('the index has no $schema (or version): an index from before 0.2.0 lists files without digests, which cannot be verified');
  }
  if (!Array.isArray(index['skills'])) throw new DiscoveryIndexError('the index has no skills list');
  const entries: DiscoveryEntry[] = [];
  const skipped: string[] = [];
  const names = new Set<string>();
  index['skills'].forEach((raw: unknown, position: number) => {
    const entry = (raw ?? {}) as Record<string, unknown>;
    const label = typeof entry['name'] === 'string' ? JSON.stringify(entry['name'].slice(0, 80)) : `skills[${position}]`;
    const skip = (reason: string) => skipped.push(`${label}: ${reason}`);
    const { name, type, description, url, digest } = entry;
    if (type !== 'skill-md' && type !== 'archive') return skip(`type ${JSON.stringify(type)} is not one this reader serves (skill-md, archive)`);
    if (typeof name !== 'string' || !NAME.test(name)) return skip('name must be 1-64 lowercase letters, digits and single hyphens');
    if (names.has(name)) return skip('listed twice; the first entry is used');
    if (typeof description !== 'string' || description.trim() === '') return skip('no description');
    if (typeof digest !== 'string' || !DIGEST.test(digest)) return skip('no sha256 digest (sha256:<64 lowercase hex>): its content could not be verified');
    if (typeof url !== 'string' || url === '') return skip('no url');
    let resolved: URL;
    try {
      resolved = new URL(url, indexUrl);
    } catch {
      return skip('url is not a valid URL');
    }
    if (resolved.protocol !== 'https:' && resolved.protocol !== 'http:') return skip(`url scheme ${resolved.protocol} is not http or https`);
    if (resolved.username !== '' || resolved.password !== '') return skip('url must not carry credentials');
    names.add(name);
    entries.push({ name, type, description, url: resolved.href, digest });
  });
  return { entries, skipped };
}
