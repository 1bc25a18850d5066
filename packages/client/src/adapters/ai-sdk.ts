import { jsonSchema, tool } from 'ai';
import type { JSONSchema7, Tool } from 'ai';
import type { SkillTool } from '../tools.js';

/**
 * Vercel AI SDK tools (`generateText({ tools })`, `streamText`, agents). A separate entry point
 * (`@skillport/client/ai`) so the core library never loads `ai`, which stays an optional peer dependency.
 */
export function aiSdkTools(tools: readonly SkillTool[]): Record<string, Tool<Record<string, unknown>, string>> {
  return Object.fromEntries(
    tools.map((skillTool) => [
      skillTool.name,
      tool<Record<string, unknown>, string>({
        description: skillTool.description,
        inputSchema: jsonSchema<Record<string, unknown>>(skillTool.inputSchema as unknown as JSONSchema7),
        execute: (input) => skillTool.execute(input),
      }),
    ]),
  );
}
