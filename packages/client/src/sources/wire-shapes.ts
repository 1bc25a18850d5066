import { DIGEST_PATTERN, parseSkillUri } from '@skillport/core';

/**
 * Parsers for the shapes servers send that the SDK does not type: the draft-era discovery index, and the text
 * of skillport's tools. Each one checks what it reads and reports a malformed part as one line, never throwing
 * on hostile input.
 */
export interface IndexEntry {
  type: 'skill-md' | 'archive' | 'mcp-resource-template';
  name?: string;
  description: string;
  url: string;
  digest?: string;
}

export interface ToolListedSkill {
  name: string;
  description: string;
  uri: string;
  digest?: string;
}

const MAX_INDEX_ENTRIES = 10_000;

export function parseIndex(text: string): { entries: IndexEntry[]; problems: string[] } {
  const problems: string[] = [];
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { entries: [], problems: ['skill://index.json is not valid JSON'] };
  }
  const skills = (data as { skills?: unknown } | null)?.skills;
  if (!Array.isArray(skills)) return { entries: [], problems: ['skill://index.json has no "skills" array'] };
  const entries: IndexEntry[] = [];
  for (const [position, raw] of skills.slice(0, MAX_INDEX_ENTRIES).entries()) {
    const item = raw as Record<string, unknown> | null;
    const type = item?.['type'];
    const url = item?.['url'];
    const description = item?.['description'];
    const name = item?.['name'];
    const digest = item?.['digest'];
    const where = `skill://index.json entry ${position}`;
    if (type !== 'skill-md' && type !== 'archive' && type !== 'mcp-resource-template') {
      problems.push(`${where}: unknown type ${JSON.stringify(type)}: skipped`);
      continue;
    }
    if (typeof url !== 'string' || typeof description !== 'string') {
      problems.push(`${where}: needs string url and description: skipped`);
      continue;
    }
    if (type !== 'mcp-resource-template' && (typeof name !== 'string' || name === '')) {
      problems.push(`${where}: needs a name: skipped`);
      continue;
    }
    if (type === 'skill-md' && (typeof parseSkillUri(url) === 'string' || !url.endsWith('/SKILL.md'))) {
      problems.push(`${where}: url ${JSON.stringify(url).slice(0, 100)} is not a skill://…/SKILL.md URI: skipped`);
      continue;
    }
    if (digest !== undefined && (typeof digest !== 'string' || !DIGEST_PATTERN.test(digest))) {
      problems.push(`${where}: digest is not sha256:<hex>: skipped`);
      continue;
    }
    entries.push({ type, description, url, ...(typeof name === 'string' ? { name } : {}), ...(typeof digest === 'string' ? { digest } : {}) });
  }
  return { entries, problems };
}

/** `{product}` variables of a URI template, in order (only simple `{name}` expressions). */
export function templateVariables(uriTemplate: string): string[] {
  return [...uriTemplate.matchAll(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g)].map((match) => match[1]!);
}

/** One page of `list_skills` (skillport's tool): structured content when present, else the JSON text. */
export function toolListingPage(result: {
  content?: unknown;
  structuredContent?: unknown;
  isError?: unknown;
}): { skills: ToolListedSkill[]; nextCursor?: string } | { error: string } {
  let data = result.structuredContent as Record<string, unknown> | undefined;
  if (!data) {
    const first = Array.isArray(result.content) ? (result.content[0] as { text?: unknown } | undefined) : undefined;
    if (typeof first?.text !== 'string') return { error: 'no content' };
    if (result.isError) return { error: first.text };
    try {
      data = JSON.parse(first.text) as Record<string, unknown>;
    } catch {
      return { error: 'not JSON' };
    }
  }
  const list = data['skills'];
  if (!Array.isArray(list)) return { error: 'no skills array' };
  const skills: ToolListedSkill[] = [];
  for (const raw of list) {
    const item = raw as Record<string, unknown> | null;
    if (typeof item?.['name'] !== 'string' || typeof item['uri'] !== 'string' || typeof parseSkillUri(item['uri']) === 'string') continue;
    const digest = item['digest'];
    skills.push({
      name: item['name'],
      description: typeof item['description'] === 'string' ? item['description'] : '',
      uri: item['uri'],
      ...(typeof digest === 'string' && DIGEST_PATTERN.test(digest) ? { digest } : {}),
    });
  }
  const next = data['nextCursor'];
  return { skills, ...(typeof next === 'string' && next !== '' ? { nextCursor: next } : {}) };
}

/** The `<skill_content>` wrapper and `<skill_resources>` list of skillport's `activate_skill`. */
export function parseActivation(text: string): { name?: string; digest?: string; body: string; files: { path: string; size?: number }[] } | undefined {
  const open = /<skill_content\b([^>]*)>\n?/.exec(text);
  if (!open) return undefined;
  const close = text.lastIndexOf('</skill_content>');
  if (close < open.index) return undefined;
  const attrs = open[1] ?? '';
  const attr = (key: string) => {
    const match = new RegExp(`\\b${key}="([^"]*)"`).exec(attrs);
    return match ? unescapeXml(match[1]!) : undefined;
  };
  const body = text
    .slice(open.index + open[0].length, close)
    .replace(/\n$/, '')
    .replace(/<\\\/skill_content/g, '</skill_content');
  const files: { path: string; size?: number }[] = [];
  const list = /<skill_resources\b[^>]*>\n([\s\S]*?)\n<\/skill_resources>/.exec(text.slice(close));
  for (const line of list?.[1]?.split('\n') ?? []) {
    const match = /^(.*) \(([^()]*)\)$/.exec(line);
    if (match) files.push({ path: match[1]! });
  }
  const name = attr('name');
  const digest = attr('digest');
  return { body, files, ...(name !== undefined ? { name } : {}), ...(digest !== undefined ? { digest } : {}) };
}

function unescapeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}
