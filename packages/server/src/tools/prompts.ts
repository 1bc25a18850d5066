import type { McpServer } from '@modelcontextprotocol/server';
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { CatalogSkill } from '../catalog/model.js';
import type { CatalogSnapshot } from '../catalog/snapshot.js';
import { decodeCursor, encodeCursor } from '../mcp/skills-service.js';
import type { SkillsService } from '../mcp/skills-service.js';
import { activatedContent } from './activation.js';
import { readinessBlock } from './readiness.js';
import { hintFromMeta } from '../mcp/availability.js';

/**
 * Every skill as an MCP prompt: clients that show prompts offer them as slash commands, and choosing one puts the
 * activated skill into the conversation. A prompt is named after its skill; when several skills share a name, each
 * is named after its URI path instead (`team-a/run`), so every prompt name is unique. Served with the low-level
 * handlers and paged, so a 10,000-skill catalog costs nothing per request until prompts are asked for.
 */
export function promptName(snapshot: CatalogSnapshot, skill: CatalogSkill): string {
  // Under a visibility policy, a name shared by several skills means the best-ranked one (views.ts): that one keeps
  // the bare name, the others are named by their URI path, so prompt names stay unique.
  const named = snapshot.named(skill.name);
  return named.length === 1 && named[0] === skill ? skill.name : skill.rootUri.slice('skill://'.length);
}

function skillForPrompt(snapshot: CatalogSnapshot, name: string): CatalogSkill | undefined {
  const named = snapshot.named(name);
  if (named.length === 1) return named[0];
  return snapshot.skill(`skill://${name}/SKILL.md`);
}

export function registerPrompts(server: McpServer, service: SkillsService, pageSize: number): void {
  const low = server.server;
  low.registerCapabilities({ prompts: { listChanged: true } });
  low.setRequestHandler('prompts/list', async (request) => {
    const snapshot = service.snapshot;
    let after: string | undefined;
    try {
      after = decodeCursor(request.params?.cursor);
    } catch (error) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, (error as Error).message);
    }
    const page = snapshot.page(after, pageSize);
    const prompts = page.skills.map((skill) => ({ name: promptName(snapshot, skill), title: skill.name, description: skill.description }));
    const last = page.skills.at(-1);
    return page.more && last ? { prompts, nextCursor: encodeCursor(last.uri) } : { prompts };
  });
  low.setRequestHandler('prompts/get', async (request) => {
    const skill = skillForPrompt(service.snapshot, request.params.name);
    if (skill === undefined) {
      service.record({ action: 'activate', surface: 'prompts/get', requested: request.params.name, outcome: 'not_found' });
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${request.params.name} not found`);
    }
    let text: string;
    try {
      text = await activatedContent(service, skill);
    } catch (error) {
      service.record({ action: 'activate', surface: 'prompts/get', skill, file: 'SKILL.md', outcome: 'error', detail: (error as Error).message });
      throw error;
    }
    service.record({ action: 'activate', surface: 'prompts/get', skill, file: 'SKILL.md', outcome: 'ok' });
    // As activate_skill: what the skill needs and whether this host has it, before the instructions.
    const readiness = readinessBlock(skill, service.availability(skill, hintFromMeta(request.params._meta)));
    if (readiness !== undefined) text = `${readiness}\n\n${text}`;
    return {
      description: skill.description,
      messages: [{ role: 'user' as const, content: { type: 'text' as const, text: `Use the "${skill.name}" skill for this task.\n\n${text}` } }],
    };
  });
}
