import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/server';
import type { CatalogSkill } from '../catalog/model.js';
import type { CatalogSnapshot } from '../catalog/snapshot.js';
import { decodeCursor, encodeCursor, InvalidCursorError } from '../mcp/skills-service.js';
import type { SkillsService } from '../mcp/skills-service.js';
import { activatedContent, skillBody } from './activation.js';
import { availableSkillsXml } from './catalog-text.js';
import { fail, readSkillResource } from './read-resource.js';
import type { ReadOptions, ToolResult } from './read-resource.js';
import { resolveSkill } from './resolve.js';
import { searchSkills } from '../search/catalog-search.js';
import type { SearchAnswer } from '../search/catalog-search.js';
import { fuseRankings } from '../search/embeddings.js';
import type { SkillEmbeddings } from '../search/embeddings.js';
import { SkillMeaning } from '../search/sentence-meaning.js';
import { outlineTools } from './outline.js';
import { sessionCatalog } from '../access/views.js';
import { audited } from './audited.js';
import { SessionPins, chooseUnlisted, chooseVersion, pendingOf, pinExact, versionOf } from './versions.js';
import { availabilityLine, readinessBlock, SessionHint } from './readiness.js';
import { availabilityRank, hasJudgedRequirements } from '@skillport/core';
import type { Availability, AvailableCapabilities } from '@skillport/core';

/**
 * The tool surface, for clients that only call tools (most of them today). `core`: list_skills, activate_skill,
 * read_skill_resource; `full` adds get_skill_outline and get_skill_section. Names and parameters are a contract:
 * agents and scripts rely on them (README, "Tools").
 */
export type ToolMode = 'none' | 'core' | 'full';

export interface ToolOptions extends ReadOptions {
  mode: ToolMode;
  /** Up to this many skills, the catalog is written into activate_skill's description (no search turn needed). */
  catalogInDescriptionMax: number;
  /** A lone skill whose SKILL.md is at most this many bytes is inlined in the instructions (single-skill fast path). */
  inlineSkillMaxBytes: number;
  /**
   * Also serve agentskills-mcp-server's tools and resources (tools/asm/; `--tools asm`, `core,asm`, `full,asm`). Its
   * hosts inject skills://catalog/xml themselves, so the instructions then carry no catalog and no inlined skill.
   */
  asm: boolean;
  /** asm's single-skill fast path: a lone skill whose body is at most this many tokens is inlined (0, the default: never, as agentskills-mcp-server's own CLI). */
  asmInlineMaxTokens: number;
  /**
   * `serve --embeddings URL`: meaning-based ranking fused with the lexical one (search/embeddings.ts); `--embeddings
   * builtin`: the lexical hits reordered by the shipped sentence encoder (search/sentence-meaning.ts).
   */
  embeddings?: SkillEmbeddings | SkillMeaning | undefined;
}

export const DEFAULT_TOOL_OPTIONS: ToolOptions = {
  mode: 'core',
  catalogInDescriptionMax: 50,
  inlineSkillMaxBytes: 20_000,
  asm: false,
  asmInlineMaxTokens: 0,
  textMax: 256 * 1024,
  binaryMax: 64 * 1024,
  vision: false,
};

/** The single-skill fast path applies: one skill, small enough to sit in the instructions. */
export function inlinedSkill(snapshot: CatalogSnapshot, options: ToolOptions): CatalogSkill | undefined {
  // With asm on, its catalog resources carry the lone skill (tools/asm/fast-path.ts): inlining it in the
  // instructions too would give a host that injects both the same body twice.
  if (snapshot.size !== 1 || options.asm) return undefined;
  const skill = snapshot.skills[0]!;
  // A versioned skill (registry) is activated through the tool, so the session can pin the version it got.
  if (versionOf(skill) !== undefined) return undefined;
  const manifest = skill.files.find((file) => file.uri === skill.uri);
  return manifest !== undefined && manifest.size <= options.inlineSkillMaxBytes ? skill : undefined;
}

/**
 * list_skills' arguments. Exported for the HTTP fast path (http/fast-path.ts), which validates a `tools/call` with
 * this same schema, so that it takes exactly the arguments the SDK's McpServer would hand to the tool.
 */
export const listSkillsInput = z.object({
  query: z.string().max(2000).optional().describe('What the user wants done, in their words, plus terms a matching skill would likely use.'),
  limit: z.number().int().min(1).max(200).optional().describe('How many entries (default 10 with a query, 50 without).'),
  cursor: z.string().max(4096).optional().describe('nextCursor from the previous page.'),
  available: z
    .object({
      mcpServers: z.array(z.string().min(1).max(128)).max(256).optional().describe('Names of the MCP servers this host is connected to.'),
      tools: z.array(z.string().min(1).max(128)).max(1024).optional().describe('Names of the tools this host can call.'),
      agent: z.string().min(1).max(128).optional().describe("The host agent's name (claude-code, codex, ...)."),
    })
    .strict()
    .optional()
    .describe(
      'What this host has, so each skill says whether it is ready here (availability) and ready skills rank first. Pass it once per session; it is remembered.',
    ),
});

const skillRef = {
  name: z.string().max(256).optional().describe("The skill's name, as listed."),
  uri: z.string().max(4096).optional().describe("The skill's URI (skill://…/SKILL.md); use it when several skills share a name."),
};

const ok = (text: string, structured?: Record<string, unknown>): ToolResult =>
  structured === undefined ? { content: [{ type: 'text', text }] } : { content: [{ type: 'text', text }], structuredContent: structured };

function describeActivate(service: SkillsService, snapshot: CatalogSnapshot, options: ToolOptions, hint?: AvailableCapabilities): string {
  const session = sessionCatalog(snapshot);
  const mark = (skill: CatalogSkill) => availabilityLine(service.availability(skill, hint));
  if (session !== undefined) {
    // A session catalog (a project's or an agent's pinned and required skills) is what the model starts from.
    const skills = [...session.required, ...service.forModel(session.pinned, hint)].slice(0, Math.max(options.catalogInDescriptionMax, 1));
    return `Load a skill's full instructions when the user's task matches its description, then follow them.${session.required.length ? ` Required for this session: ${session.required.map((skill) => skill.name).join(', ')}.` : ''} Skills for this session:\n${availableSkillsXml(skills, mark)}${snapshot.size > skills.length ? `\nFind others among the ${snapshot.size} you can use with list_skills {"query": "<the task>"}.` : ''}`;
  }
  return snapshot.size <= options.catalogInDescriptionMax
    ? `Load a skill's full instructions when the user's task matches its description, then follow them. Available skills:\n${availableSkillsXml(service.forModel(snapshot.skills, hint), mark)}`
    : `Load a skill's full instructions when the user's task matches its description, then follow them. This server has ${snapshot.size} skills: find the right one with list_skills {"query": "<the task>"} first.`;
}

/**
 * Registers the tools on one server instance. Returns a refresh function for long-lived instances (stdio): the
 * catalog in activate_skill's description follows the catalog when it changes.
 */
export function registerTools(server: McpServer, service: SkillsService, options: ToolOptions): () => void {
  if (options.mode === 'none') return () => {};
  // One server instance per stdio connection: what this session activated stays pinned (tools/versions.ts).
  const pins = new SessionPins();
  // What the host said it has, remembered for the session (a stdio connection): activate_skill judges readiness by it.
  const hint = new SessionHint();
  const annotations = { readOnlyHint: true, openWorldHint: false };
  server.registerTool(
    'list_skills',
    {
      title: 'List or search skills',
      description:
        "List the skills this server offers, or search them. Without a query: this session's skills when it has a session catalog, else the whole catalog, a page at a time (pass nextCursor back as cursor). " +
        'With a query: the best matches first, ranked over names, descriptions, headings and whole SKILL.md bodies, each with a short reason (which of your words matched, and where). ' +
        'Phrase the query as the task in the user\'s own words plus the terms a skill for it would likely use (tool, file format, domain: "shoebox of paper receipts for my accountant: expense receipts, bookkeeping, tax"). ' +
        'Weak matches are left out, so few or no results means no skill fits well: try other words. ' +
        'Then load the one that fits with activate_skill.',
      inputSchema: listSkillsInput,
      annotations,
    },
    async (args, ctx) => listSkills(service, service.snapshot, args, options.embeddings, hint.take(args.available, ctx.mcpReq._meta)),
  );

  const activate = server.registerTool(
    'activate_skill',
    {
      title: 'Activate a skill',
      description: describeActivate(service, service.snapshot, options),
      inputSchema: z.object({
        ...skillRef,
        version: z
          .string()
          .max(256)
          .optional()
          .describe(
            'A version or tag, for registry skills (default: the one listed; a session keeps the version it activated). Folder skills have one version.',
          ),
      }),
      annotations,
    },
    async (args, ctx) => {
      const snapshot = service.snapshot;
      const known = hint.take(undefined, ctx.mcpReq._meta);
      // Readiness comes before the instructions, so a model knows what is missing before it starts following them.
      const ready = (skill: CatalogSkill, text: string) => {
        const block = readinessBlock(skill, service.availability(skill, known));
        return block === undefined ? text : `${block}\n\n${text}`;
      };
      const found = resolveSkill(snapshot, args);
      if ('error' in found) {
        // Known by name but not listed (every registry version yanked or revoked): the version asked for, or why not.
        const unlisted = args.uri ? undefined : chooseUnlisted(snapshot, args.name, { version: args.version });
        if (unlisted !== undefined && 'skill' in unlisted) {
          const skill = unlisted.skill;
          return audited(service, { action: 'activate', surface: 'activate_skill', skill, file: 'SKILL.md' }, async () =>
            ok(ready(skill, await activatedContent(service, skill))),
          );
        }
        service.record({
          action: 'activate',
          surface: 'activate_skill',
          requested: args.uri || args.name,
          outcome: unlisted !== undefined ? 'refused' : 'not_found',
          ...(unlisted !== undefined ? { detail: unlisted.error } : {}),
        });
        return fail(unlisted?.error ?? found.error);
      }
      const chosen = chooseVersion(snapshot, found.skill, { version: args.version }, pins);
      if ('error' in chosen) {
        service.record({ action: 'activate', surface: 'activate_skill', skill: found.skill, file: 'SKILL.md', outcome: 'refused', detail: chosen.error });
        return fail(chosen.error);
      }
      const skill = pinExact(snapshot, found.skill, chosen.skill, pins);
      return audited(service, { action: 'activate', surface: 'activate_skill', skill, file: 'SKILL.md' }, async () => {
        const text = ready(skill, await activatedContent(service, skill));
        const newer = chosen.pinnedFrom !== undefined ? versionOf(chosen.pinnedFrom) : undefined;
        return ok(
          newer === undefined
            ? text
            : `${text}\n\n(This session keeps version ${versionOf(chosen.skill)}, which it activated earlier; ${newer} is now current: activate with {"version": "${newer}"} to switch.)`,
        );
      });
    },
  );

  server.registerTool(
    'read_skill_resource',
    {
      title: 'Read a file of a skill',
      description:
        'Read one file of a skill (a reference, script or asset listed when the skill was activated), by its path inside the skill folder. ' +
        'Text comes back as text; binary files as a JSON envelope (base64 up to a size limit). Large text files are read in parts with offset and length.',
      inputSchema: z.object({
        ...skillRef,
        version: z
          .string()
          .max(256)
          .optional()
          .describe('For registry skills: the version activated (default: the one this session activated, else the one listed).'),
        path: z.string().max(4096).describe('The file\'s path inside the skill folder, as listed, e.g. "references/guide.md".'),
        digest: z
          .string()
          .max(100)
          .optional()
          .describe(
            'The digest the skill was activated with: a registry skill reads the version with that digest; a folder skill refuses the read if it has changed since.',
          ),
        offset: z.number().int().min(0).optional().describe('For large text files: first byte to return.'),
        length: z.number().int().min(1).optional().describe('For large text files: how many bytes.'),
      }),
      annotations,
    },
    async (args) => {
      const snapshot = service.snapshot;
      const lone = inlinedSkill(snapshot, options);
      const found = resolveSkill(snapshot, lone && !args.name && !args.uri ? { uri: lone.uri } : args);
      if ('error' in found) {
        const unlisted = args.uri ? undefined : chooseUnlisted(snapshot, args.name, { version: args.version, digest: args.digest });
        if (unlisted !== undefined && 'skill' in unlisted) {
          const skill = unlisted.skill;
          return audited(service, { action: 'read', surface: 'read_skill_resource', skill, file: args.path }, () =>
            readSkillResource(service, skill, args, options),
          );
        }
        service.record({
          action: 'read',
          surface: 'read_skill_resource',
          requested: args.uri || args.name,
          file: args.path,
          outcome: unlisted !== undefined ? 'refused' : 'not_found',
          ...(unlisted !== undefined ? { detail: unlisted.error } : {}),
        });
        return fail(unlisted?.error ?? found.error);
      }
      const chosen = chooseVersion(snapshot, found.skill, { version: args.version, digest: args.digest }, pins);
      if ('error' in chosen) {
        service.record({ action: 'read', surface: 'read_skill_resource', skill: found.skill, file: args.path, outcome: 'refused', detail: chosen.error });
        return fail(chosen.error);
      }
      return audited(service, { action: 'read', surface: 'read_skill_resource', skill: chosen.skill, file: args.path }, () =>
        readSkillResource(service, chosen.skill, args, options),
      );
    },
  );

  // With asm on, its get_skill_outline/get_skill_section (same names) serve both surfaces (tools/asm/register.ts).
  if (options.mode === 'full' && !options.asm) outlineTools(server, service, skillRef, annotations);

  // The tool set is the mode's, whoever calls and whatever the catalog holds: a principal whose view holds one skill
  // (the single-skill fast path inlines it in the instructions) still lists, and can call, every tool. Only the
  // catalog written into activate_skill's description follows the caller's view and the catalog's changes.
  const apply = () => {
    const description = describeActivate(service, service.snapshot, options, hint.current);
    if (activate.description !== description) activate.update({ description });
  };
  hint.onChange = apply;
  return apply;
}

/** list_skills on the caller's snapshot: the tool's handler, and the HTTP fast path's answer to its `tools/call`. */
export async function listSkills(
  service: SkillsService,
  snapshot: CatalogSnapshot,
  args: { query?: string | undefined; limit?: number | undefined; cursor?: string | undefined; available?: AvailableCapabilities | undefined },
  embeddings?: SkillEmbeddings | SkillMeaning,
  hint: AvailableCapabilities | undefined = args.available,
): Promise<ToolResult> {
  const entry = (skill: CatalogSkill) => withAvailability(service, skill, skillEntry(skill), hint);
  const query = args.query?.trim();
  const session = sessionCatalog(snapshot);
  if (!query && session !== undefined) {
    // Without a query: the session catalog (required first, then pinned, ready ones first); a query searches everything visible.
    const skills = [
      ...session.required.map((skill) => ({ ...entry(skill), required: true })),
      ...service.forModel(session.pinned, hint).map((skill) => ({ ...entry(skill), pinned: true })),
    ];
    const result = { skills, total: skills.length, session: true, searchable: snapshot.size };
    return ok(JSON.stringify(result), result);
  }
  if (query) {
    const limit = args.limit ?? 10;
    const found =
      embeddings === undefined
        ? await lexicalSearch(service, snapshot, query, limit)
        : embeddings instanceof SkillMeaning
          ? await meaningSearch(service, snapshot, query, limit, embeddings)
          : await hybridSearch(service, snapshot, query, limit, embeddings);
    const indexing = found.indexing;
    const skills = rankByReadiness(found.skills.map((hit) => withAvailability(service, snapshot.skill(hit.uri)!, hit, hint)));
    // While the search index is still being built at start, the answer says how much of the catalog it covered.
    const result = { query, skills, total: snapshot.size, ...(indexing !== undefined ? { indexing } : {}) };
    const text =
      skills.length > 0
        ? JSON.stringify(result)
        : indexing === undefined
          ? `No skill matches "${query}". Try other words, or list_skills without a query to browse.`
          : `No skill matches "${query}" so far: the search index is still being built, and ${indexing.note}.`;
    return ok(text, result);
  }
  let after: string | undefined;
  try {
    after = decodeCursor(args.cursor === '' ? undefined : args.cursor);
  } catch (error) {
    if (error instanceof InvalidCursorError) return fail('Error: That cursor is not valid; call list_skills without a cursor to start again.');
    throw error;
  }
  const page = snapshot.page(after, args.limit ?? 50);
  const result: Record<string, unknown> = { skills: page.skills.map(entry), total: snapshot.size };
  const last = page.skills.at(-1);
  if (page.more && last) result['nextCursor'] = encodeCursor(last.uri);
  return ok(JSON.stringify(result), result);
}

/**
 * Search progress, in a result only while the index is incomplete: skills searched of the total, when to ask again,
 * and the same in words a model acts on ("searched 40,000 of 100,000 skills so far; ask again in 12 s").
 */
interface Indexing {
  searched: number;
  total: number;
  retryAfterSeconds: number;
  note: string;
}

async function lexicalSearch(service: SkillsService, snapshot: CatalogSnapshot, query: string, limit: number) {
  const answer = await searchSkills(service, snapshot, query, limit);
  const skills = answer.hits.map((hit) => ({ ...skillEntry(snapshot.skill(hit.id)!), score: Number(hit.score.toFixed(3)), reason: hit.reason }));
  return { skills, indexing: indexingOf(answer) };
}

function indexingOf(answer: SearchAnswer): Indexing | undefined {
  if (answer.complete) return undefined;
  const retryAfterSeconds = answer.retryAfterSeconds ?? 1;
  const count = (n: number) => n.toLocaleString('en-US');
  const note = `searched ${count(answer.searched)} of ${count(answer.total)} skills so far; ask again in ${retryAfterSeconds} s for complete results`;
  return { searched: answer.searched, total: answer.total, retryAfterSeconds, note };
}

/**
 * Lexical and embedding rankings fused by reciprocal rank (the fused score replaces the lexical one). A skill only
 * the embeddings found says so in its reason; when the endpoint fails, the lexical results are served alone.
 */
async function hybridSearch(service: SkillsService, snapshot: CatalogSnapshot, query: string, limit: number, embeddings: SkillEmbeddings) {
  const depth = Math.max(limit, HYBRID_DEPTH);
  const [answer, similar] = await Promise.all([searchSkills(service, snapshot, query, depth), embeddings.rank(snapshot, query, depth)]);
  if (similar === undefined) return lexicalSearch(service, snapshot, query, limit);
  const hits = answer.hits;
  const reasons = new Map(hits.map((hit) => [hit.id, hit.reason]));
  const skills = fuseRankings([hits.map((hit) => hit.id), similar])
    .filter((hit) => snapshot.skill(hit.id) !== undefined)
    .slice(0, limit)
    .map((hit) => ({
      ...skillEntry(snapshot.skill(hit.id)!),
      score: Number(hit.score.toFixed(4)),
      reason: reasons.has(hit.id) ? `${reasons.get(hit.id)}; close in meaning` : 'close in meaning (embeddings) only',
    }));
  return { skills, indexing: indexingOf(answer) };
}

/**
 * The lexical hits, MEANING_DEPTH deep, reordered by the sentence encoder (only what the words found, and only when
 * the lexical search answers at all: whether any skill fits stays the lexical decision), then cut to `limit`.
 */
async function meaningSearch(service: SkillsService, snapshot: CatalogSnapshot, query: string, limit: number, meaning: SkillMeaning) {
  const answer = await searchSkills(service, snapshot, query, Math.max(limit, MEANING_DEPTH));
  const hits = (await meaning.rerank(snapshot, query, answer.hits)).slice(0, limit);
  const skills = hits.map((hit) => ({ ...skillEntry(snapshot.skill(hit.id)!), score: Number(hit.score.toFixed(3)), reason: hit.reason }));
  return { skills, indexing: indexingOf(answer) };
}

/** The lexical candidates the sentence encoder reorders (the word vectors' depth in the index). */
const MEANING_DEPTH = 50;

/** How deep each ranking goes before fusion. */
const HYBRID_DEPTH = 50;

function skillEntry(skill: CatalogSkill) {
  const version = versionOf(skill);
  const pending = pendingOf(skill);
  return {
    name: skill.name,
    description: skill.description,
    uri: skill.uri,
    digest: skill.packageDigest,
    ...(version !== undefined ? { version } : {}),
    ...(pending !== undefined ? { review: pending } : {}),
  };
}

/**
 * Among equally good matches (the same score as shown), a skill ready here ranks above one that may not be, and that
 * above one whose requirements are unmet; a better match is never passed by a worse one.
 */
function rankByReadiness<T extends { score: number; availability?: Availability }>(hits: T[]): T[] {
  const rank = (hit: T) => (hit.availability === undefined ? 0 : availabilityRank(hit.availability));
  return hits
    .map((hit, index) => ({ hit, index }))
    .sort((a, b) => b.hit.score - a.hit.score || rank(a.hit) - rank(b.hit) || a.index - b.index)
    .map((item) => item.hit);
}

/** A list_skills entry of a skill with judged requirements says whether it is ready for this caller, and what it needs. */
function withAvailability<T extends object>(service: SkillsService, skill: CatalogSkill, item: T, hint: AvailableCapabilities | undefined) {
  if (!hasJudgedRequirements(skill.requirements)) return item;
  const availability = service.availability(skill, hint);
  return { ...item, requirements: skill.requirements, availability };
}

/** Server instructions: a short usage guide, the catalog when asked, and the whole skill on the single-skill path. */
export async function buildInstructions(service: SkillsService, options: ToolOptions, withCatalog: boolean): Promise<string> {
  const snapshot = service.snapshot;
  const inlined = options.mode === 'none' ? undefined : inlinedSkill(snapshot, options);
  if (inlined) {
    const body = await skillBody(service, inlined).catch(() => undefined);
    if (body !== undefined) {
      const files = inlined.files.length > 1 ? ' Its other files are read with read_skill_resource {"path": "<path>"}.' : '';
      return `This server provides one skill, "${inlined.name}": ${inlined.description}\nFollow it when the task matches.${files}\n\n${await activatedContent(service, inlined)}`;
    }
  }
  const lines = [
    `This server offers ${snapshot.size} Agent Skill${snapshot.size === 1 ? '' : 's'}: folders of instructions with optional references, scripts and assets.`,
  ];
  const session = sessionCatalog(snapshot);
  if (session !== undefined && session.required.length > 0 && options.mode !== 'none') {
    lines.push(`This session requires these skills: activate each before starting work: ${session.required.map((skill) => skill.name).join(', ')}.`);
  }
  if (options.mode !== 'none') {
    lines.push(
      'When a task matches a skill, call activate_skill with its name to load the instructions, then follow them.',
      snapshot.size > options.catalogInDescriptionMax
        ? 'To find a skill, call list_skills with the task in your own words.'
        : 'The skills are listed in the activate_skill tool.',
      "Read a skill's other files with read_skill_resource only when its instructions call for them.",
    );
  }
  if (options.asm) {
    lines.push(
      'Hosts written for agentskills-mcp-server: the catalog is at skills://catalog/xml (or skills://catalog/markdown) and the workflow for its tools at skills://tools-usage-instructions.',
    );
  }
  lines.push('Clients of the MCP Skills extension can also use skills/list and read skill:// resources; every file is listed with its sha256 digest.');
  // asm's hosts inject the catalog resource: a second catalog in the instructions would only repeat it.
  if (withCatalog && !options.asm && snapshot.size > 0) {
    const shown = service.forModel(snapshot.skills.slice(0, Math.max(options.catalogInDescriptionMax, 200)));
    lines.push(
      '',
      availableSkillsXml(shown, (skill) => availabilityLine(service.availability(skill))),
    );
  }
  return lines.join('\n');
}
