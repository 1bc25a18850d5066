import {
  MCP_TOOL_PREFIX_PATTERN,
  availabilityRank,
  availabilitySummary,
  judgeAvailability,
  readRequirements,
  readinessText,
  requirementsFromWire,
} from '@skillport/core';
import type { Availability, AvailableCapabilities, SkillRequirements } from '@skillport/core';
import type { SkillDescriptor } from './model.js';

/**
 * Whether a skill can work in this host: its requirements (the server's `dev.skillport/requirements`, else read
 * from the frontmatter the source listed) judged against what the host has (`SessionOptions.available`), joined
 * with the server's own verdict (`dev.skillport/availability`: what its policy grants the caller). Ready when
 * either side has it; unmet when one side knows it is missing and the other does not say otherwise.
 */
export const META_REQUIREMENTS = 'dev.skillport/requirements';
export const META_AVAILABILITY = 'dev.skillport/availability';
export const META_AVAILABLE = 'dev.skillport/available';

export function requirementsOf(skill: SkillDescriptor): SkillRequirements | undefined {
  const sent = skill.meta?.[META_REQUIREMENTS];
  if (sent !== undefined) return requirementsFromWire(sent);
  return readRequirements(skill.frontmatter).requirements;
}

export function availabilityOf(skill: SkillDescriptor, available: AvailableCapabilities | undefined): Availability {
  const local = judgeAvailability(requirementsOf(skill), available ?? {});
  const server = serverVerdict(skill.meta?.[META_AVAILABILITY]);
  if (server === undefined || local.status === 'ready') return local;
  if (server.status === 'ready') return server;
  // The host said nothing about a kind the server knows is missing (or the reverse): the known answer wins.
  if (local.status === 'unknown' && server.status === 'needs') return server;
  return local;
}

function serverVerdict(value: unknown): Availability | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const status = (value as Record<string, unknown>)['status'];
  if (status === 'ready') return { status: 'ready' };
  const needs = (value as Record<string, unknown>)['needs'];
  if (status === 'needs' && needs !== null && typeof needs === 'object') return { status: 'needs', needs: needs as Record<string, string[]> };
  return undefined;
}

export { availabilityRank, availabilitySummary, readinessText };

/**
 * What a host has, from the names of the tools it gives its model: every name is a tool, and Claude Code's
 * `mcp__<server>__<tool>` names say which MCP servers are connected. Hosts that know their MCP servers directly add
 * them to `mcpServers`.
 */
export function availableFromToolNames(names: Iterable<string>, extra: AvailableCapabilities = {}): AvailableCapabilities {
  const tools = new Set(extra.tools ?? []);
  const servers = new Set(extra.mcpServers ?? []);
  for (const name of names) {
    tools.add(name);
    const server = MCP_TOOL_PREFIX_PATTERN.exec(name)?.[1];
    if (server !== undefined) servers.add(server);
  }
  const out: AvailableCapabilities = { tools: [...tools], mcpServers: [...servers] };
  if (extra.scopes !== undefined) out.scopes = [...extra.scopes];
  if (extra.agent !== undefined) out.agent = extra.agent;
  return out;
}
