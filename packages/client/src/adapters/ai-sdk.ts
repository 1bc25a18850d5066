import { jsonSchema, tool } from 'ai';
import type { JSONSchema7, Tool } from 'ai';
import type { AvailableCapabilities } from '@skillport/core';
import { availableFromToolNames } from '../availability.js';
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

/** What the host has, from the AI SDK tool set it gives the model (keys are tool names): `SessionOptions.available`. */
export function availableFromAiSdkTools(tools: Readonly<Record<string, unknown>>, extra: AvailableCapabilities = {}): AvailableCapabilities {
  return availableFromToolNames(Object.keys(tools), extra);
}
