/**
 * The Agent Skills specification's frontmatter rules, with the reference validator's (`skills-ref`) wording
 * wherever it has a message for the case, plus the stricter rules the MCP Skills extension puts on a served
 * entry (ASCII names, 1-500 character compatibility, string-to-string metadata).
 *
 * Each problem says whether a lenient reading is still safe to serve (`warning`) or not (`error`).
 */
import { KNOWN_FIELDS } from './known-fields.js';

export type Severity = 'error' | 'warning';

export interface Problem {
  severity: Severity;
  message: string;
}

export const MAX_NAME_LENGTH = 64;
export const MAX_DESCRIPTION_LENGTH = 1024;
export const MAX_COMPATIBILITY_LENGTH = 500;
export const ALLOWED_FIELDS = ['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name'] as const;

/** The MCP extension's name rule (the conformance suite's pattern): ASCII lowercase, digits, single hyphens. */
export const MCP_NAME_PATTERN = /^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$/;

/** Characters as Python counts them (code points), which is what the spec's limits mean. */
export function countCodePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

const pyList = (items: readonly string[]) => `[${items.map((item) => `'${item}'`).join(', ')}]`;

export interface FrontmatterVerdict {
  problems: Problem[];
  /** The name to serve under (NFKC-normalised, trimmed), when there is one. */
  name?: string;
  description?: string;
}

export interface RuleOptions {
  /** Fields to accept beside the spec's and the known ones (`validate --allow-field`, the `allowFields` setting). */
  allowFields?: readonly string[];
}

/**
 * Checks frontmatter against the spec. `folderName` is the skill folder's own name (for the name-match rule).
 * Fields agents document or real skills carry (known-fields.json) pass; other extra fields are one warning.
 */
export function checkFrontmatter(frontmatter: Record<string, unknown>, folderName: string | undefined, options: RuleOptions = {}): FrontmatterVerdict {
  const problems: Problem[] = [];
  const error = (message: string) => problems.push({ severity: 'error', message });
  const warning = (message: string) => problems.push({ severity: 'warning', message });

  const extra = Object.keys(frontmatter)
    .filter((key) => !(ALLOWED_FIELDS as readonly string[]).includes(key) && !KNOWN_FIELDS.has(key) && !options.allowFields?.includes(key))
    .sort();
  if (extra.length > 0) {
    warning(`Unexpected fields in frontmatter: ${extra.join(', ')}. Only ${pyList(ALLOWED_FIELDS)} are allowed.`);
  }
  if ('version' in frontmatter && !options.allowFields?.includes('version')) {
    const inMetadata = metadataVersion(frontmatter) !== undefined;
    // Registries read metadata.version (the spec's place for it); a top-level one is read when metadata has none.
    warning(
      inMetadata
        ? "Top-level 'version' is ignored: metadata.version gives the version (remove the top-level one)"
        : "Top-level 'version' is read as the version; move it under metadata.version (the specification's place for it)",
    );
  }

  let name: string | undefined;
  if (!('name' in frontmatter)) {
    error('Missing required field in frontmatter: name');
  } else {
    const raw = frontmatter['name'];
    if (typeof raw !== 'string' || raw.trim() === '') {
      error("Field 'name' must be a non-empty string");
    } else {
      name = raw.trim().normalize('NFKC');
      const length = countCodePoints(name);
      if (length > MAX_NAME_LENGTH) error(`Skill name '${name}' exceeds ${MAX_NAME_LENGTH} character limit (${length} chars)`);
      if (name !== name.toLowerCase()) error(`Skill name '${name}' must be lowercase`);
      if (name.startsWith('-') || name.endsWith('-')) error('Skill name cannot start or end with a hyphen');
      if (name.includes('--')) error('Skill name cannot contain consecutive hyphens');
      if (![...name].every((char) => char === '-' || /[\p{L}\p{N}]/u.test(char))) {
        error(`Skill name '${name}' contains invalid characters. Only letters, digits, and hyphens are allowed.`);
      } else if (!problems.some((p) => p.severity === 'error') && !MCP_NAME_PATTERN.test(name)) {
        // Valid Agent Skills name, but the MCP Skills extension only carries ASCII names.
        error(`Skill name '${name}' uses non-ASCII letters, which the MCP Skills extension does not allow in a skill URI`);
      }
      if (raw !== raw.trim()) error(`Skill name '${raw}' has leading or trailing whitespace`);
      if (folderName !== undefined && folderName.normalize('NFKC') !== name) {
        warning(`Directory name '${folderName}' must match skill name '${name}'`);
      }
    }
  }

  let description: string | undefined;
  if (!('description' in frontmatter)) {
    error('Missing required field in frontmatter: description');
  } else {
    const raw = frontmatter['description'];
    if (typeof raw !== 'string' || raw.trim() === '') {
      error("Field 'description' must be a non-empty string");
    } else {
      description = raw;
      const length = countCodePoints(raw);
      if (length > MAX_DESCRIPTION_LENGTH) error(`Description exceeds ${MAX_DESCRIPTION_LENGTH} character limit (${length} chars)`);
    }
  }

  if ('compatibility' in frontmatter) {
    const raw = frontmatter['compatibility'];
    if (typeof raw !== 'string') error("Field 'compatibility' must be a string");
    else if (raw === '') error("Field 'compatibility' must be 1-500 characters when present");
    else {
      const length = countCodePoints(raw);
      if (length > MAX_COMPATIBILITY_LENGTH) error(`Compatibility exceeds ${MAX_COMPATIBILITY_LENGTH} character limit (${length} chars)`);
    }
  }

  if ('metadata' in frontmatter) {
    const raw = frontmatter['metadata'];
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) error("Field 'metadata' must be a mapping of strings to strings");
    else {
      const bad = Object.entries(raw)
        .filter(([, value]) => typeof value !== 'string')
        .map(([key]) => key);
      if (bad.length > 0) error(`Field 'metadata' must map strings to strings (not: ${bad.join(', ')})`);
    }
  }

  if ('license' in frontmatter && typeof frontmatter['license'] !== 'string') warning("Field 'license' must be a string");
  if ('allowed-tools' in frontmatter && typeof frontmatter['allowed-tools'] !== 'string') {
    warning("Field 'allowed-tools' must be a space-separated string");
  }

  const verdict: FrontmatterVerdict = { problems };
  if (name !== undefined) verdict.name = name;
  if (description !== undefined) verdict.description = description;
  return verdict;
}

/** `metadata.version` when it is a string. */
function metadataVersion(frontmatter: Record<string, unknown>): string | undefined {
  const metadata = frontmatter['metadata'];
  const value = metadata !== null && typeof metadata === 'object' ? (metadata as Record<string, unknown>)['version'] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/**
 * The version a skill declares: `metadata.version`, else a top-level `version` (what many published skills carry,
 * as a string or a YAML number such as 1.0, read as written). Undefined when neither is there.
 */
export function declaredVersion(frontmatter: Record<string, unknown>): string | undefined {
  const fromMetadata = metadataVersion(frontmatter);
  if (fromMetadata !== undefined) return fromMetadata;
  const top = frontmatter['version'];
  return typeof top === 'string' ? top : typeof top === 'number' && Number.isFinite(top) ? String(top) : undefined;
}
