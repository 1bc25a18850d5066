import { z } from 'zod';
import { findSection, outlineSkill, suggestSections } from '../sections.js';
import type { SkillOutline } from '../sections.js';
import type { McpServer, RegisteredTool } from '@modelcontextprotocol/server';
import type { CatalogSkill } from '../catalog/model.js';
import type { SkillsService } from '../mcp/skills-service.js';
import { skillBody, wrapSkill } from './activation.js';
import { fail } from './read-resource.js';
import { resolveSkill } from './resolve.js';
import { audited } from './audited.js';
import { moreLine, outlinePage, outlinePageInput, shownTitle } from './outline-pages.js';

/**
 * `full` mode: a big skill read a part at a time. The outline lists each section (by ATX heading, outside code
 * fences) with a stable key and its token cost, and says plainly when loading the whole body is cheaper.
 * Outlines are cached per skill digest (the same bytes always give the same outline).
 */
const outlines = new Map<string, Promise<SkillOutline>>();

async function outlineOf(service: SkillsService, skill: CatalogSkill): Promise<SkillOutline> {
  let outline = outlines.get(skill.packageDigest);
  if (outline === undefined) {
    outline = skillBody(service, skill).then((body) => outlineSkill(body));
    outlines.set(skill.packageDigest, outline);
    outline.catch(() => outlines.delete(skill.packageDigest));
    if (outlines.size > 1000) outlines.delete(outlines.keys().next().value!);
  }
  return outline;
}

export function outlineTools(
  server: McpServer,
  service: SkillsService,
  skillRef: Record<string, z.ZodOptional<z.ZodString>>,
  annotations: Record<string, boolean>,
): RegisteredTool[] {
  const outline = server.registerTool(
    'get_skill_outline',
    {
      title: 'Outline a skill',
      description:
        "The sections of a skill's instructions with their token costs, to read a large skill a part at a time with get_skill_section; a page at a time (pass nextCursor back as cursor).",
      inputSchema: z.object({ ...skillRef, ...outlinePageInput }),
      annotations,
    },
    async (args) => {
      const found = resolveSkill(service.snapshot, args as { name?: string; uri?: string });
      if ('error' in found) {
        service.record({
          action: 'read',
          surface: 'get_skill_outline',
          requested: (args as { uri?: string; name?: string }).uri || (args as { name?: string }).name,
          outcome: 'not_found',
        });
        return fail(found.error);
      }
      return audited(service, { action: 'read', surface: 'get_skill_outline', skill: found.skill, file: 'SKILL.md' }, async () => {
        const outline = await outlineOf(service, found.skill);
        const line = (section: SkillOutline['sections'][number]) =>
          `${'  '.repeat(Math.max(0, section.level - 1))}${section.key}  "${shownTitle(section.title)}"  ${section.tokens} tokens`;
        const page = outlinePage(outline.sections, found.skill.packageDigest, args, (section) => line(section).length + 1);
        if ('error' in page) return fail(page.error);
        const more = moreLine(page, outline.sections.length);
        const text = [`${found.skill.name} (${found.skill.uri}): ${outline.advice}`, ...page.items.map(line), ...(more ? [more] : [])].join('\n');
        return {
          content: [{ type: 'text', text }],
          structuredContent: {
            skill: found.skill.name,
            uri: found.skill.uri,
            totalTokens: outline.totalTokens,
            wholeBodyCheaper: outline.wholeBodyCheaper,
            totalSections: outline.sections.length,
            sections: page.items.map(({ key, title, level, tokens }) => ({ key, title: shownTitle(title), level, tokens })),
            ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
          },
        };
      });
    },
  );

  const section = server.registerTool(
    'get_skill_section',
    {
      title: 'Read one section of a skill',
      description: "One section of a skill's instructions, by the key get_skill_outline gave (or the section's title).",
      inputSchema: z.object({ ...skillRef, key: z.string().max(1024).describe('The section key from get_skill_outline.') }),
      annotations,
    },
    async (args) => {
      const found = resolveSkill(service.snapshot, args as { name?: string; uri?: string });
      if ('error' in found) {
        service.record({
          action: 'read',
          surface: 'get_skill_section',
          requested: (args as { uri?: string }).uri || (args as { name?: string }).name,
          outcome: 'not_found',
        });
        return fail(found.error);
      }
      return audited(service, { action: 'read', surface: 'get_skill_section', skill: found.skill, file: `SKILL.md#${args.key}` }, async () => {
        const outline = await outlineOf(service, found.skill);
        const section = findSection(outline, args.key);
        if (section === undefined) {
          const close = suggestSections(outline, args.key);
          return fail(
            `Error: Skill '${found.skill.name}' has no section '${args.key}'.${close.length ? ` Did you mean: ${close.join(', ')}?` : ' Call get_skill_outline for the keys.'}`,
          );
        }
        return {
          content: [{ type: 'text', text: wrapSkill(found.skill, section.text).replace('<skill_content ', `<skill_content section="${section.key}" `) }],
        };
      });
    },
  );
  return [outline, section];
}
