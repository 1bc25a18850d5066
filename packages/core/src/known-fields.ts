import known from './known-fields.json' with { type: 'json' };

/**
 * Frontmatter fields beyond the specification's six that agents document (Claude Code's `argument-hint`, `model`…)
 * or that real skills commonly carry (`version`, `requires`…): accepted without a warning and kept verbatim, as the
 * MCP Skills extension keeps all frontmatter. The list is data (known-fields.json); other fields are warnings.
 */
export interface KnownField {
  source: 'client' | 'corpus';
  /** The agent that documents it, for client fields. */
  by?: string;
  about: string;
}

export const KNOWN_FIELDS: ReadonlyMap<string, KnownField> = new Map(Object.entries(known.fields as Record<string, KnownField>));
