/**
 * Levenshtein distance between two strings (compared on their first 128 characters), or `limit + 1` as soon as it
 * must exceed `limit`, so ranking "did you mean" candidates over a long list stays cheap. Two rows of a typed array,
 * reused from call to call: no allocation per row (a did-you-mean over 50,000 outline sections took 4.5 s of
 * allocating arrays).
 */
const MAX_COMPARED = 128;
let previousRow = new Uint16Array(MAX_COMPARED + 1);
let currentRow = new Uint16Array(MAX_COMPARED + 1);

export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const s = a.slice(0, MAX_COMPARED);
  const t = b.slice(0, MAX_COMPARED);
  for (let j = 0; j <= t.length; j++) previousRow[j] = j;
  for (let i = 1; i <= s.length; i++) {
    currentRow[0] = i;
    let best = i;
    const char = s.charCodeAt(i - 1);
    for (let j = 1; j <= t.length; j++) {
      const value = Math.min(previousRow[j]! + 1, currentRow[j - 1]! + 1, previousRow[j - 1]! + (char === t.charCodeAt(j - 1) ? 0 : 1));
      currentRow[j] = value;
      if (value < best) best = value;
    }
    if (best > limit) return limit + 1;
    [previousRow, currentRow] = [currentRow, previousRow];
  }
  return previousRow[t.length]!;
}

/** Text for XML element content or attributes: `& < > " '` escaped, so a value cannot close an element or inject markup. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[char]!);
}

/** A caller's text quoted in a message: control characters (and DEL) shown as `?`, at most `max` characters. */
export function printable(text: string, max = 200): string {
  return String(text)
    .replace(/[\u0000-\u001f\u007f]/g, '?')
    .slice(0, max);
}

/**
 * Text from skill folders (names, descriptions, file names) made safe for a terminal line: C0 and C1 control
 * characters, DEL and the bidirectional controls are shown as escapes (`\n`, `\t`, `\r`, else `\u001b`), so a hostile
 * name can neither start a forged line, send an escape sequence, nor reorder what is displayed around it.
 * `keepNewlines`: for a message whose lines are its own (an error with the lines of a server's stderr below it).
 */
export function escapeControls(text: string, options: { keepNewlines?: boolean } = {}): string {
  return String(text).replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, (char) => {
    if (char === '\n') return options.keepNewlines ? char : '\\n';
    if (char === '\t') return '\\t';
    if (char === '\r') return '\\r';
    return `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** Text on one line: every run of whitespace (line breaks included) becomes one space; at most `max` characters. */
export function oneLine(text: string, max = Number.POSITIVE_INFINITY): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, max);
}

/** One skill in an `<available_skills>` catalog: `location` (a URI a server serves it at) and `origin` are optional. */
export interface AvailableSkill {
  name: string;
  description: string;
  location?: string;
  origin?: string;
  /** For a skill that is not plainly ready here: what it needs, in a few words (`needs MCP server "rube"`). */
  availability?: string;
}

/**
 * The `<available_skills>` catalog a model reads (the Agent Skills client guide's form), the one writer for server
 * instructions, tool descriptions and client prompts. Every value is XML-escaped so a description cannot close its
 * element and speak outside it. `compact`: one line per skill (server texts, where size counts); `indented`: the
 * readable form hosts put in a system prompt.
 */
export function availableSkillsXml(skills: readonly AvailableSkill[], layout: 'compact' | 'indented' = 'compact'): string {
  const items = skills.map((skill) => {
    const fields = [`<name>${escapeXml(skill.name)}</name>`, `<description>${escapeXml(skill.description)}</description>`];
    if (skill.location !== undefined) fields.push(`<location>${escapeXml(skill.location)}</location>`);
    if (skill.origin !== undefined) fields.push(`<origin>${escapeXml(skill.origin)}</origin>`);
    if (skill.availability !== undefined) fields.push(`<availability>${escapeXml(skill.availability)}</availability>`);
    return layout === 'compact' ? `<skill>${fields.join('')}</skill>` : `  <skill>\n${fields.map((field) => `    ${field}`).join('\n')}\n  </skill>`;
  });
  return `<available_skills>\n${items.join('\n')}\n</available_skills>`;
}
