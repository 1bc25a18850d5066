import { z } from 'zod';
import { ResourceNotFoundError, ResourceTemplate } from '@modelcontextprotocol/server';
import type { McpServer } from '@modelcontextprotocol/server';
import { parseSkillMarkdown } from '@skillport/core';
import type { CatalogSkill } from '../../catalog/model.js';
import type { SkillsService } from '../../mcp/skills-service.js';
import { skillBody } from '../activation.js';
import { pendingOf } from '../versions.js';
import { audited } from '../audited.js';
import { fail } from '../read-resource.js';
import type { ReadOptions, ToolResult } from '../read-resource.js';
import { resolveSkill } from '../resolve.js';
import { findResource, listResources, readResource } from './files.js';
import type { ResourceKind } from './files.js';
import { findSkill, printable, skillId } from './ids.js';
import { findFlatSection, flatOutline, outlineLine, renderOutline } from './sections.js';
import { outlinePage, outlinePageInput, shownTitle } from '../outline-pages.js';
import { FAST_PATH_USAGE_INSTRUCTIONS, USAGE_INSTRUCTIONS, catalogMarkdown, catalogXml, fastPathPrompt } from './texts.js';

/**
 * `--tools asm`: the tools and resources of agentskills-mcp-server (seed 002), by the same names, parameters and
 * output shapes, so a host written for it works here unchanged (README, "Drop-in for agentskills-mcp-server").
 * Every answer comes from the caller's view (this instance's `service`) and every byte through SkillsService's
 * verifying reader. The single-skill fast path is decided once for the whole server (fast-path.ts) and passed in:
 * the four body tools are then never registered, so no client sees the tool set change.
 */
export interface AsmOptions extends ReadOptions {
  /** The lone skill whose body the catalog resources serve (fast-path.ts), or undefined. */
  fastPath: { uri: string } | undefined;
  /** `full` is on as well: get_skill_outline/get_skill_section are shared and also take its `name`/`uri`. */
  shared: boolean;
}

const annotations = { readOnlyHint: true, openWorldHint: false };
const ok = (text: string): ToolResult => ({ content: [{ type: 'text', text }] });
const SKILL_ID = "The skill's id, as the skills catalog lists it (skills://catalog/xml).";

export const ASM_BODY_TOOLS = ['get_skill_metadata', 'get_skill_body', 'get_skill_outline', 'get_skill_section'] as const;

export function registerAsm(server: McpServer, service: SkillsService, options: AsmOptions): void {
  const skillIdSchema = { skill_id: z.string().max(4096).describe(SKILL_ID) };
  // With `full` on too, its hosts call the outline tools with name or uri: one tool serves both.
  const sharedRef = {
    skill_id: z.string().max(4096).optional().describe(SKILL_ID),
    name: z.string().max(256).optional().describe("The skill's name, as listed (list_skills)."),
    uri: z.string().max(4096).optional().describe("The skill's URI (skill://…/SKILL.md)."),
  };

  /** Resolves the skill (or answers the one-line error) and records the call in the audit trail. */
  const withSkill = async (
    surface: string,
    given: object,
    file: string | undefined,
    run: (skill: CatalogSkill, id: string) => Promise<ToolResult>,
    action: 'read' | 'activate' = 'read',
  ): Promise<ToolResult> => {
    const args = given as { skill_id?: string; name?: string; uri?: string };
    const snapshot = service.snapshot;
    const found =
      args.skill_id !== undefined || (args.name === undefined && args.uri === undefined) ? findSkill(snapshot, args.skill_id) : resolveSkill(snapshot, args);
    if ('error' in found) {
      service.record({ action, surface, requested: args.skill_id ?? args.uri ?? args.name, ...(file !== undefined ? { file } : {}), outcome: 'not_found' });
      return fail(found.error);
    }
    const skill = found.skill;
    return audited(service, { action, surface, skill, ...(file !== undefined ? { file } : {}) }, () => run(skill, skillId(snapshot, skill)));
  };

  if (options.fastPath === undefined) {
    server.registerTool(
      'get_skill_metadata',
      {
        description: 'Get structured metadata (name, description, and optional fields like license, compatibility, metadata) for a specific skill.',
        inputSchema: z.object(skillIdSchema),
        annotations,
      },
      async (args) =>
        withSkill('get_skill_metadata', args, 'SKILL.md', async (skill) => {
          // Read through the verifying reader: the answer is the frontmatter of exactly the bytes the digest names.
          const content = await service.readFile(skill.uri);
          let frontmatter = skill.frontmatter;
          if (content !== undefined && 'text' in content) {
            try {
              frontmatter = parseSkillMarkdown(content.text).frontmatter;
            } catch {
              // Served leniently: the catalog's reading of it stands.
            }
          }
          return ok(JSON.stringify(frontmatter));
        }),
    );

    server.registerTool(
      'get_skill_body',
      { description: 'Get the full instructions and guidance (markdown body) for a specific skill.', inputSchema: z.object(skillIdSchema), annotations },
      async (args) =>
        withSkill(
          'get_skill_body',
          args,
          'SKILL.md',
          // A version pending review (served to its publisher and reviewers only) says so before its body.
          async (skill) => ok(`${pendingLine(skill)}${await skillBody(service, skill)}`),
          'activate',
        ),
    );

    server.registerTool(
      'get_skill_outline',
      {
        description:
          "List the sections of a skill's body with an addressable key and an estimated token cost for each, plus the cost of the whole body. " +
          'Use it before get_skill_section when a skill is large and only part of it is relevant. The outline says when fetching the whole body is cheaper; believe it.',
        inputSchema: z.object({ ...(options.shared ? sharedRef : skillIdSchema), ...outlinePageInput }),
        annotations,
      },
      async (args) =>
        withSkill('get_skill_outline', args, 'SKILL.md', async (skill, id) => {
          const flat = await flatOutline(service, skill);
          const page = outlinePage(flat.sections, skill.packageDigest, args, (entry) => outlineLine(entry).length + 1);
          if ('error' in page) return fail(page.error);
          return {
            content: [{ type: 'text', text: renderOutline(id, flat, page) }],
            structuredContent: {
              skill_id: id,
              uri: skill.uri,
              totalTokens: flat.outline.totalTokens,
              wholeBodyCheaper: flat.outline.wholeBodyCheaper,
              totalSections: flat.sections.length,
              sections: page.items.map(({ key, section }) => ({
                key,
                path: section.key,
                title: shownTitle(section.title),
                level: section.level,
                tokens: section.tokens,
              })),
              ...(page.nextCursor !== undefined ? { nextCursor: page.nextCursor } : {}),
            },
          };
        }),
    );

    server.registerTool(
      'get_skill_section',
      {
        description:
          "Get one section of a skill's body, addressed by a key from get_skill_outline. Sections do not nest, so a parent section does not include the subsections listed under it.",
        inputSchema: z.object({ ...(options.shared ? sharedRef : skillIdSchema), key: z.string().max(1024).describe('A section key from get_skill_outline.') }),
        annotations,
      },
      async (args) =>
        withSkill('get_skill_section', args, `SKILL.md#${args.key}`, async (skill, id) => {
          const flat = await flatOutline(service, skill);
          const found = findFlatSection(flat, args.key);
          if (found === undefined) {
            const keys = flat.sections.map((entry) => entry.key);
            const shown = keys.slice(0, 40).join(', ') + (keys.length > 40 ? `, and ${keys.length - 40} more` : '');
            return fail(`Error: Skill '${id}' has no section '${printable(args.key)}'; available keys: ${shown || 'none'}`);
          }
          return ok(found.section.text);
        }),
    );
  }

  server.registerTool(
    'list_skill_resources',
    {
      description:
        'List the references, scripts, and assets a skill bundles. Returns a JSON object keyed by resource kind. ' +
        'Where a skill\'s files cannot be enumerated the answer is {"supported": false, "note": …}: then take resource names from the skill body instead.',
      inputSchema: z.object(skillIdSchema),
      annotations,
    },
    async (args) => withSkill('list_skill_resources', args, undefined, async (skill) => ok(JSON.stringify(listResources(skill)))),
  );

  const resourceTool = (tool: string, kind: ResourceKind, what: string, images: boolean) =>
    server.registerTool(
      tool,
      {
        description: `Get the content of a specific ${what} from a skill. Provide both skill_id and the ${what} name. Text comes back as it is; binary content is returned as a JSON envelope with base64 data (described, not inlined, past ${options.binaryMax} bytes).`,
        inputSchema: z.object({
          ...skillIdSchema,
          name: z
            .string()
            .max(4096)
            .describe(`The ${what}'s name, as the skill body or list_skill_resources gives it (e.g. "guide.md"), or its path inside the skill.`),
          offset: z.number().int().min(0).optional().describe('For large text files: the first byte to return.'),
          length: z.number().int().min(1).optional().describe('For large text files: how many bytes.'),
        }),
        annotations,
      },
      async (args) =>
        withSkill(tool, args, args.name, async (skill) => {
          const file = findResource(skill, kind, args.name);
          if ('error' in file) return fail(file.error);
          return readResource(service, file, args.name, args, options, images);
        }),
    );
  resourceTool('get_skill_reference', 'references', 'reference document', true);
  resourceTool('get_skill_script', 'scripts', 'script', false);
  resourceTool('get_skill_asset', 'assets', 'asset', true);

  registerAsmResources(server, service, options);
}

function registerAsmResources(server: McpServer, service: SkillsService, options: AsmOptions): void {
  /** The lone skill the fast path inlines, when this caller sees exactly it. */
  const lone = (): CatalogSkill | undefined => {
    if (options.fastPath === undefined) return undefined;
    const snapshot = service.snapshot;
    const skill = snapshot.skill(options.fastPath.uri);
    return skill !== undefined && snapshot.size === 1 ? skill : undefined;
  };
  const catalog = async (format: 'xml' | 'markdown'): Promise<string> => {
    const skill = lone();
    if (skill !== undefined) return fastPathPrompt(skillId(service.snapshot, skill), await skillBody(service, skill));
    return format === 'xml' ? catalogXml(service.snapshot) : catalogMarkdown(service.snapshot);
  };
  const text = (uri: string, mimeType: string, body: string) => ({ contents: [{ uri, mimeType, text: body }] });

  server.registerResource(
    'skills-catalog-xml',
    'skills://catalog/xml',
    { title: 'Skills catalog (XML)', description: 'XML catalog of the skills you can use, for system-prompt injection.', mimeType: 'application/xml' },
    async () => text('skills://catalog/xml', 'application/xml', await catalog('xml')),
  );
  server.registerResource(
    'skills-catalog-markdown',
    'skills://catalog/markdown',
    { title: 'Skills catalog (Markdown)', description: 'Markdown catalog of the skills you can use, for system-prompt injection.', mimeType: 'text/markdown' },
    async () => text('skills://catalog/markdown', 'text/markdown', await catalog('markdown')),
  );
  server.registerResource(
    'skills-tools-usage-instructions',
    'skills://tools-usage-instructions',
    { title: 'How to use the skills tools', description: 'Workflow instructions explaining how to use the Agent Skills tools.', mimeType: 'text/markdown' },
    async () => text('skills://tools-usage-instructions', 'text/markdown', options.fastPath !== undefined ? FAST_PATH_USAGE_INSTRUCTIONS : USAGE_INSTRUCTIONS),
  );
  server.registerResource(
    'skill-resources',
    new ResourceTemplate('skills://{skill_id}/resources', {
      list: undefined,
      complete: {
        skill_id: (value) => {
          const snapshot = service.snapshot;
          const wanted = (value ?? '').toLowerCase();
          const ids: string[] = [];
          for (const skill of snapshot.skills) {
            const id = skillId(snapshot, skill);
            if (id.toLowerCase().startsWith(wanted)) ids.push(id);
            if (ids.length >= 100) break;
          }
          return ids;
        },
      },
    }),
    { description: 'Resource listing for a single skill, grouped by kind.', mimeType: 'application/json' },
    async (uri, variables) => {
      const raw = String(Array.isArray(variables['skill_id']) ? variables['skill_id'][0] : (variables['skill_id'] ?? ''));
      let id = raw;
      try {
        id = decodeURIComponent(raw);
      } catch {
        // Not percent-encoding after all: looked up as written.
      }
      const found = findSkill(service.snapshot, id);
      if ('error' in found) throw new ResourceNotFoundError(uri.href, found.error.replace(/^Error: /, ''));
      return text(uri.href, 'application/json', JSON.stringify(listResources(found.skill)));
    },
  );
}

function pendingLine(skill: CatalogSkill): string {
  const pending = pendingOf(skill);
  return pending === undefined ? '' : `<skill_review status="pending">${pending}</skill_review>\n\n`;
}
