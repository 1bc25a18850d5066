import { lineOf, lineStarts, normalise } from './files.js';
import type { ScannedFile } from './files.js';
import type { Layer } from './decode.js';
import type { RuleSet } from './rules.js';

/**
 * The SKILL.md frontmatter's string values as a client reads them, for those the file's text does not hold as they
 * are: YAML escapes in a double-quoted scalar (`\x49gnore`, `\u202e`, `\e`, a `\`-newline fold) and folded lines are
 * decoded by every parser, so a rule reading only the file would miss what agents are served. Each becomes a layer
 * (decode.ts) reported at its top-level key's line.
 */
export function frontmatterLayers(skillMd: ScannedFile, frontmatter: Record<string, unknown>, rules: RuleSet): Layer[] {
  const layers: Layer[] = [];
  // A value folded over lines (`>`, a plain scalar on two lines) differs from the file by its spaces alone: the file's
  // own findings cover it.
  const collapsed = collapse(skillMd.text);
  for (const [key, value] of Object.entries(frontmatter)) {
    for (const text of stringsIn(value)) {
      if (text.trim().length === 0 || skillMd.text.includes(text) || collapsed.includes(collapse(text))) continue;
      const at = keyOffset(skillMd.text, key);
      const line = at < 0 ? 1 : lineOf(skillMd, at);
      const normal = normalise(text, rules.confusables);
      layers.push({
        path: skillMd.path,
        kind: skillMd.kind,
        bytes: skillMd.bytes,
        text,
        normal,
        lineStarts: lineStarts(normal),
        isSkillMd: true,
        origin: { file: skillMd, line, column: 1, encoding: `frontmatter '${key}' YAML` },
      });
      if (layers.length >= rules.decode.maxLayers) return layers;
    }
  }
  return layers;
}

/** Every string inside a parsed YAML value (keys of mappings included: a client shows those too). */
function stringsIn(value: unknown, depth = 0): string[] {
  if (typeof value === 'string') return [value];
  if (depth > 64 || value === null || typeof value !== 'object') return [];
  if (Array.isArray(value)) return value.flatMap((item) => stringsIn(item, depth + 1));
  return Object.entries(value).flatMap(([key, item]) => [key, ...stringsIn(item, depth + 1)]);
}

/** Where a top-level key starts in the file (-1 when it is written in a way not found here, e.g. quoted). */
function keyOffset(text: string, key: string): number {
  const escaped = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const found = new RegExp(`^["']?${escaped}["']?\\s*:`, 'm').exec(text);
  return found === null ? -1 : found.index;
}

const collapse = (text: string): string => text.replace(/\s+/g, ' ');
