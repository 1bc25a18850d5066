import { canonicalSkillUri } from '@skillport/core';

const SKILL_URI_PATTERN = /skill:\/\/[^\s"'<>()`\]\[]+/g;

/**
 * Direct `skill://` references: content from an origin that mentions `skill://` URIs is marked `[Origin: X]`, and
 * only the URIs that content from X mentioned may later be followed on X (read_skill_uri), so one server's content
 * cannot make the model read another server's files. Off unless the session enables direct references.
 */
export class ReferenceTracker {
  /** skill:// URIs that content from each origin mentioned. */
  private readonly mentioned = new Map<string, Set<string>>();

  constructor(
    private readonly enabled: boolean,
    state?: Record<string, string[]>,
  ) {
    for (const [origin, uris] of Object.entries(state ?? {})) this.mentioned.set(origin, new Set(uris));
  }

  /** The text, with the `[Origin: X]` marker when it mentions skill:// URIs (which are then remembered for X). */
  mark(origin: string, text: string): string {
    if (!this.enabled) return text;
    const found = text.match(SKILL_URI_PATTERN);
    if (!found) return text;
    let seen = this.mentioned.get(origin);
    if (!seen) this.mentioned.set(origin, (seen = new Set()));
    for (const uri of found) {
      const canonical = canonicalSkillUri(uri.replace(/[.,;:!?]+$/, ''));
      if (canonical) seen.add(canonical);
    }
    return `[Origin: ${origin}]\n${text}`;
  }

  /** Whether content from `origin` mentioned this canonical URI. */
  has(origin: string, canonical: string): boolean {
    return this.mentioned.get(origin)?.has(canonical) === true;
  }

  toJSON(): Record<string, string[]> {
    return Object.fromEntries([...this.mentioned].map(([origin, uris]) => [origin, [...uris]]));
  }
}
