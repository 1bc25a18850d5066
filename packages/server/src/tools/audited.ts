import { SlowFileError, StaleFileError } from '../catalog/content.js';
import type { AuditInput } from '../access/audit.js';
import type { SkillsService } from '../mcp/skills-service.js';
import type { ToolResult } from './read-resource.js';

/**
 * Runs a tool call and records it in the audit trail: `ok`, or `refused` with the one-line reason the model got
 * (a path not listed, a digest that moved on), or `error` when it threw.
 */
export async function audited(service: SkillsService, input: Omit<AuditInput, 'outcome'>, run: () => Promise<ToolResult>): Promise<ToolResult> {
  try {
    const result = await run();
    const text = result.content[0]?.type === 'text' ? result.content[0].text : undefined;
    service.record({ ...input, outcome: result.isError ? 'refused' : 'ok', ...(result.isError && text ? { detail: text } : {}) });
    return result;
  } catch (error) {
    service.record({
      ...input,
      outcome: error instanceof StaleFileError ? 'stale' : error instanceof SlowFileError ? 'slow' : 'error',
      detail: (error as Error).message,
    });
    throw error;
  }
}
