import { describeError } from './errors.js';
import type { SkillSession } from './session.js';

/**
 * The tools a model gets, in a framework-neutral form: a name, a description, a JSON schema for the arguments and
 * an `execute` that always resolves to text. Failures come back as one line starting with `Error:` that says what
 * to do next, never as an exception, so any agent loop can pass them straight to the model.
 */
export interface JsonSchema {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required: string[];
  additionalProperties: false;
}

export interface SkillTool {
  name: 'load_skill' | 'read_skill_resource' | 'read_skill_uri';
  description: string;
  inputSchema: JsonSchema;
  execute(args: unknown): Promise<string>;
}

export interface ToolOptions {
  /** Up to this many skills, load_skill's `name` is an enum of the names (default 100). */
  enumMax?: number;
}

export async function skillTools(session: SkillSession, options: ToolOptions = {}): Promise<SkillTool[]> {
  const skills = await session.skills();
  const names = skills.map((skill) => skill.id).sort();
  const nameSchema: Record<string, unknown> = { type: 'string', description: 'The skill name, exactly as in <available_skills>.' };
  if (names.length > 0 && names.length <= (options.enumMax ?? 100)) nameSchema['enum'] = names;
  const tools: SkillTool[] = [
    {
      name: 'load_skill',
      description: "Load a skill's full instructions by name, before starting a task that matches its description in <available_skills>.",
      inputSchema: { type: 'object', properties: { name: nameSchema }, required: ['name'], additionalProperties: false },
      execute: guarded(async (args) => {
        const { skill, content, alreadyActive } = await session.activate(stringArg(args, 'name'));
        // Readiness is said at every load (what the host has may change), before the instructions; it is not pinned.
        const readiness = session.readiness(skill);
        const text = alreadyActive
          ? `Skill '${skill.id}' is already active; its instructions were given earlier in this conversation and are unchanged.`
          : content;
        return readiness === undefined ? text : `${readiness}\n\n${text}`;
      }),
    },
    {
      name: 'read_skill_resource',
      description:
        "Read one file of a skill (a reference, script or asset listed when the skill was loaded) by its path inside the skill, only when the skill's instructions call for it.",
      inputSchema: {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'The skill name, as in <available_skills>.' },
          path: { type: 'string', description: 'The file path as listed, e.g. "references/guide.md".' },
          offset: { type: 'integer', minimum: 0, description: 'For large files: the byte to start from, as given by a previous read.' },
        },
        required: ['name', 'path'],
        additionalProperties: false,
      },
      execute: guarded(async (args) => (await session.readResource(stringArg(args, 'name'), stringArg(args, 'path'), numberArg(args, 'offset'))).content),
    },
  ];
  if (session.options.directReferences) {
    tools.push({
      name: 'read_skill_uri',
      description: 'Read a skill:// URI mentioned in skill content or server instructions, with the origin from the [Origin: X] marker above that mention.',
      inputSchema: {
        type: 'object',
        properties: {
          uri: { type: 'string', description: 'The skill:// URI exactly as written.' },
          origin: { type: 'string', description: 'X from the nearest [Origin: X] marker above the URI.' },
        },
        required: ['uri', 'origin'],
        additionalProperties: false,
      },
      execute: guarded(async (args) => (await session.readUri(stringArg(args, 'uri'), stringArg(args, 'origin'))).content),
    });
  }
  return tools;
}

/** Runs one tool by name (for loops that dispatch by name); unknown names are an `Error:` line too. */
export async function callSkillTool(tools: readonly SkillTool[], name: string, args: unknown): Promise<string> {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) return `Error: Unknown tool '${String(name).slice(0, 100)}'. Tools: ${tools.map((candidate) => candidate.name).join(', ')}.`;
  return tool.execute(typeof args === 'string' ? parseJsonArgs(args) : args);
}

function parseJsonArgs(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { __invalid: text };
  }
}

class ArgumentError extends Error {}

function guarded(run: (args: Record<string, unknown>) => Promise<string>): (args: unknown) => Promise<string> {
  return async (args) => {
    try {
      if (args === null || typeof args !== 'object' || Array.isArray(args) || '__invalid' in args)
        throw new ArgumentError('The arguments must be a JSON object.');
      return await run(args as Record<string, unknown>);
    } catch (error) {
      return `Error: ${describeError(error)}`;
    }
  };
}

function stringArg(args: Record<string, unknown>, key: string): string {
  const value = args[key];
  if (typeof value !== 'string' || value === '') throw new ArgumentError(`'${key}' is required and must be a string.`);
  return value;
}

function numberArg(args: Record<string, unknown>, key: string): number {
  const value = args[key];
  if (value === undefined || value === null) return 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw new ArgumentError(`'${key}' must be a non-negative integer.`);
  return value;
}
