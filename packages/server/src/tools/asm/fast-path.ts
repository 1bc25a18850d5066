import { countTokens } from '../../sections.js';
import type { SkillsService } from '../../mcp/skills-service.js';
import { skillBody } from '../activation.js';

/**
 * The single-skill fast path of agentskills-mcp-server: when the server holds exactly one skill and its body is
 * small, both catalog resources serve the body itself, the usage instructions keep only their resource half, and the
 * four body tools (metadata, body, outline, section) are not registered. MCP cannot hide a tool from a connected
 * client, and a server's tool set must not depend on who calls it, so this is decided once, from the whole catalog
 * (not a caller's view), when the server starts; a server whose skills grow past one keeps the decision until it is
 * restarted, as the original does.
 *
 * Off unless asked for (`--asm-fast-path`), as in the original, whose own CLI never turns it on: a host written for
 * that CLI expects all eight tools. The ceiling is the original's default and its reasoning: re-sending a body on every turn beats one tool call at
 * any conversation length only while the body is about 300 tokens or less. Counted with core's tokenizer.
 */
export const DEFAULT_ASM_INLINE_MAX_TOKENS = 300;

export async function decideFastPath(whole: SkillsService, maxTokens: number): Promise<{ uri: string } | undefined> {
  const snapshot = whole.snapshot;
  if (maxTokens <= 0 || snapshot.size !== 1) return undefined;
  const skill = snapshot.skills[0]!;
  try {
    const body = await skillBody(whole, skill);
    return (await countTokens(body)) <= maxTokens ? { uri: skill.uri } : undefined;
  } catch {
    return undefined; // unreadable now: the normal path, which reports the problem when the skill is asked for
  }
}
