import type { CatalogSkill } from '../../catalog/model.js';
import type { CatalogSnapshot } from '../../catalog/snapshot.js';
import { escapeXml } from '../catalog-text.js';
import { versionOf } from '../versions.js';
import { skillId } from './ids.js';

/**
 * The texts agentskills-mcp-server's hosts inject into their system prompt (its Agent Framework context provider
 * reads `skills://catalog/xml` or `/markdown` and `skills://tools-usage-instructions` before every run): the
 * catalog in the same two shapes, and usage instructions for the same eight tools. Written for the caller's view.
 */

/** Past this many skills the catalog says it is truncated (it is injected on every turn). */
export const ASM_CATALOG_MAX = 500;

/** Optional frontmatter lists the original catalog carries as selection hints. */
const SELECTION_FIELDS = [
  ['when_to_use', 'When to use'],
  ['when_not_to_use', 'When not to use'],
] as const;

interface Entry {
  id: string;
  skill: CatalogSkill;
}

function entries(snapshot: CatalogSnapshot): { shown: Entry[]; total: number } {
  const all = snapshot.skills.map((skill) => ({ id: skillId(snapshot, skill), skill }));
  all.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { shown: all.slice(0, ASM_CATALOG_MAX), total: all.length };
}

function cases(skill: CatalogSkill, field: string): string[] {
  const value = skill.frontmatter[field];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string' && item.trim() !== '') : [];
}

export function catalogXml(snapshot: CatalogSnapshot): string {
  const { shown, total } = entries(snapshot);
  const attributes = shown.length < total ? ` truncated="true" shown="${shown.length}" total="${total}"` : '';
  if (shown.length === 0) return `<available_skills${attributes} />`;
  const lines = [`<available_skills${attributes}>`];
  for (const { id, skill } of shown) {
    lines.push('  <skill>', `    <name>${escapeXml(id)}</name>`, `    <description>${escapeXml(skill.description)}</description>`);
    const version = versionOf(skill);
    if (version !== undefined) lines.push(`    <version>${escapeXml(version)}</version>`);
    for (const [field] of SELECTION_FIELDS) {
      const list = cases(skill, field);
      if (list.length === 0) continue;
      lines.push(`    <${field}>`, ...list.map((item) => `      <case>${escapeXml(item)}</case>`), `    </${field}>`);
    }
    lines.push('  </skill>');
  }
  lines.push('</available_skills>');
  return lines.join('\n');
}

export function catalogMarkdown(snapshot: CatalogSnapshot): string {
  const { shown, total } = entries(snapshot);
  const note = shown.length < total ? `_Catalog truncated: showing ${shown.length} of ${total} skills._` : '';
  if (shown.length === 0) return note ? `No skills are currently available.\n\n${note}` : 'No skills are currently available.';
  const lines = ['# Available Skills', ''];
  for (const { id, skill } of shown) {
    lines.push(`## ${id}`, `- **Description**: ${skill.description}`);
    const version = versionOf(skill);
    if (version !== undefined) lines.push(`- **Version**: ${version}`);
    for (const [field, label] of SELECTION_FIELDS) {
      const list = cases(skill, field);
      if (list.length > 0) lines.push(`- **${label}**:`, ...list.map((item) => `  - ${item}`));
    }
    lines.push('');
  }
  if (note) lines.push(note);
  return lines.join('\n');
}

export const USAGE_INSTRUCTIONS = `## How to Use Agent Skills

You can use **Agent Skills**: packaged know-how with step-by-step instructions, and sometimes reference documents, scripts and assets. The catalog lists the skills available; each is addressed by its \`skill_id\` (the name the catalog shows).

### Workflow

1. **Choose a skill**: pick the one in the catalog that best fits the user's request.
2. **Check its metadata** (optional): \`get_skill_metadata(skill_id)\` returns its frontmatter (name, description, license, compatibility, metadata).
3. **Load its instructions**: \`get_skill_body(skill_id)\` returns them in full; follow them. For a large skill, \`get_skill_outline(skill_id)\` lists its sections with their token costs, and \`get_skill_section(skill_id, key)\` loads one; the outline says when loading the whole body is cheaper.
4. **Fetch resources when the instructions call for them**, by the name they give:
   - \`get_skill_reference(skill_id, name)\`: reference documents (policies, templates, runbooks)
   - \`get_skill_script(skill_id, name)\`: scripts
   - \`get_skill_asset(skill_id, name)\`: diagrams, data files and other assets

### Guidelines

- **Do not guess resource names.** Fetch only what the instructions name or what \`list_skill_resources(skill_id)\` reports. When that tool answers \`{"supported": false}\`, the skill's files cannot be listed: rely on the instructions alone.
- **Disclose progressively.** Read the instructions first, then only the resources the current step needs.
- **One skill at a time.** When several apply, take them one after another.`;

/** The usage instructions when the lone skill's body is already in the prompt: only the resource half. */
export const FAST_PATH_USAGE_INSTRUCTIONS = `### Bundled resources

The skill's instructions may name reference documents, scripts or assets. Fetch one only when the instructions call for it:

- \`get_skill_reference(skill_id, name)\`: reference documents (policies, templates, runbooks)
- \`get_skill_script(skill_id, name)\`: scripts
- \`get_skill_asset(skill_id, name)\`: diagrams, data files and other assets

Do not guess names: fetch only what the instructions name, or what \`list_skill_resources(skill_id)\` reports. When that tool answers \`{"supported": false}\`, rely on the instructions alone.`;

/** What both catalog resources serve on the single-skill fast path: the skill's body, ready to follow. */
export function fastPathPrompt(id: string, body: string): string {
  // The body must not be able to close its wrapper and speak outside it.
  const safe = body.replace(/<\/skill\s*>/gi, '<\\/skill>').trim();
  return `You have one skill, \`${id}\`; its full instructions are below. Follow them when the task is in their domain.\n\n<skill id="${escapeXml(id)}">\n${safe}\n</skill>`;
}
