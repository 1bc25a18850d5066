import type { AvailableCapabilities } from '@skillport/core';
import { availableFromToolNames } from '../availability.js';
import type { SkillTool } from '../tools.js';
import { callSkillTool } from '../tools.js';

/**
 * OpenAI-style function definitions (Chat Completions `tools`, also accepted by most OpenAI-compatible APIs) and a
 * dispatcher for the `tool_calls` a response carries. No dependency on any OpenAI package.
 */
export interface OpenAIFunctionTool {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown>; strict?: boolean };
}

export function toOpenAITools(tools: readonly SkillTool[]): OpenAIFunctionTool[] {
  return tools.map((tool) => ({ type: 'function', function: { name: tool.name, description: tool.description, parameters: { ...tool.inputSchema } } }));
}

/** Answers one `tool_calls[i]` (its `function.arguments` is a JSON string) with the message to append. */
export async function answerOpenAIToolCall(
  tools: readonly SkillTool[],
  call: { id: string; function: { name: string; arguments: string } },
): Promise<{ role: 'tool'; tool_call_id: string; content: string }> {
  return { role: 'tool', tool_call_id: call.id, content: await callSkillTool(tools, call.function.name, call.function.arguments) };
}

/** The plain JSON-schema form: `{name, description, inputSchema}` (MCP's tool shape, Anthropic's `input_schema` rename aside). */
export function toJsonSchemaTools(tools: readonly SkillTool[]): Array<{ name: string; description: string; inputSchema: Record<string, unknown> }> {
  return tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: { ...tool.inputSchema } }));
}

/**
 * What the host has, from the function tools it already gives the model (its own and its MCP servers'): pass it as
 * `SessionOptions.available` so skills needing what the host lacks are marked (`mcp__<server>__<tool>` names count
 * as that MCP server).
 */
export function availableFromOpenAITools(
  tools: ReadonlyArray<{ function: { name: string } } | { name: string }>,
  extra: AvailableCapabilities = {},
): AvailableCapabilities {
  return availableFromToolNames(
    tools.map((tool) => ('function' in tool ? tool.function.name : tool.name)),
    extra,
  );
}
