import { ResourceTemplate } from '@modelcontextprotocol/server';
import type { McpServer } from '@modelcontextprotocol/server';
import type { CatalogSnapshot } from '../catalog/snapshot.js';
import type { SkillsService } from '../mcp/skills-service.js';

/**
 * Template skills: a family of skills addressed by a URI template, e.g. `skill://docs/{product}/SKILL.md` with one
 * skill per product folder, or `skill://docs/{product}/{version}/SKILL.md` with two levels. The family's folder is
 * served like any other (every file listed, digested and verified); on top of that the template is registered as
 * an MCP resource template whose variables complete through `completion/complete` from the skills actually
 * served (prefix filtering; the SDK caps a reply at 100 values with `total` and `hasMore`), each variable narrowed
 * by the values already chosen for the earlier ones (`context.arguments`). The draft-era index lists the family as
 * an `mcp-resource-template` entry.
 *
 * Form: `skill://` + fixed segments + one or more `{variable}` segments + `/SKILL.md`; the folder holds the
 * variables' values as nested folders, the last one being each skill's folder (named like the skill).
 */
export interface TemplateFamily {
  uriTemplate: string;
  dir: string;
  description: string;
  /** Fixed segments before the first variable (the URI prefix the family's folder is served under). */
  prefix: string[];
  variables: string[];
}

export function parseTemplate(uriTemplate: string, dir: string, description?: string): TemplateFamily {
  const match = /^skill:\/\/(.+)\/SKILL\.md$/.exec(uriTemplate);
  if (!match) throw new Error(`template ${uriTemplate}: must be skill://…/{variable}/SKILL.md`);
  const segments = match[1]!.split('/');
  const prefix: string[] = [];
  const variables: string[] = [];
  for (const segment of segments) {
    const variable = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(segment);
    if (variable) variables.push(variable[1]!);
    else if (variables.length > 0) throw new Error(`template ${uriTemplate}: fixed segments must come before the variables`);
    else if (!/^[A-Za-z0-9._~-]+$/.test(segment) || segment === '.' || segment === '..')
      throw new Error(`template ${uriTemplate}: "${segment}" is not a plain path segment`);
    else prefix.push(segment);
  }
  if (variables.length === 0) throw new Error(`template ${uriTemplate}: needs at least one {variable}`);
  if (new Set(variables).size !== variables.length) throw new Error(`template ${uriTemplate}: a variable appears twice`);
  return { uriTemplate, dir, description: description ?? `Skills of the ${variables.join('/')} family at ${uriTemplate}`, prefix, variables };
}

/** The values served for `variables[index]`, given the earlier ones; sorted, unique. */
export function templateValues(snapshot: CatalogSnapshot, family: TemplateFamily, index: number, context: Record<string, string>): string[] {
  const base = `skill://${family.prefix.join('/')}/`;
  const values = new Set<string>();
  for (const skill of snapshot.skills) {
    if (!skill.uri.startsWith(base)) continue;
    const parts = skill.uri
      .slice(base.length, -'/SKILL.md'.length)
      .split('/')
      .map((part) => decodeURIComponent(part));
    if (parts.length !== family.variables.length) continue;
    let fits = true;
    for (let earlier = 0; earlier < index; earlier++) {
      const chosen = context[family.variables[earlier]!];
      if (chosen !== undefined && chosen !== parts[earlier]) fits = false;
    }
    if (fits) values.add(parts[index]!);
  }
  return [...values].sort();
}

export function registerTemplates(server: McpServer, service: SkillsService, families: readonly TemplateFamily[]): void {
  families.forEach((family, position) => {
    const complete: Record<string, (value: string, context?: { arguments?: Record<string, string> }) => string[]> = {};
    family.variables.forEach((variable, index) => {
      complete[variable] = (value, context) => {
        const wanted = (value ?? '').toLowerCase();
        return templateValues(service.snapshot, family, index, context?.arguments ?? {}).filter((candidate) => candidate.toLowerCase().startsWith(wanted));
      };
    });
    server.registerResource(
      `skill-template-${position + 1}`,
      new ResourceTemplate(family.uriTemplate, { list: undefined, complete }),
      { description: family.description, mimeType: 'text/markdown' },
      // Never reached for served skills: the skills extension's skill://{+path} template answers them first.
      async (uri) => {
        const content = await service.readFile(uri.href);
        if (content === undefined || !('text' in content)) throw new Error(`No skill at ${uri.href}`);
        return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text: content.text }] };
      },
    );
  });
}
