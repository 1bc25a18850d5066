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
 * from the frontmatter the source listed) judged against what the host has (`SessionOptions.available`) plus what
 * the server's policy grants (`dev.skillport/availability`'s `granted`); for kinds the host did not speak of, the
 * server's own verdict.
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
  const sent = skill.meta?.[META_AVAILABILITY];
  const server = serverVerdict(sent);
  // What the server's policy grants is added to each kind the host spoke of; the host's word decides the rest.
  const local = judgeAvailability(requirementsOf(skill), withGrants(available ?? {}, grantsOf(sent)));
  // The host said nothing about some kind: the server's verdict (its grants, and the hint it was sent) is the known one.
  if (local.status === 'unknown' && server !== undefined) return server;
  return local;
}

function grantsOf(value: unknown): Record<string, unknown> {
  const granted = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)['granted'] : undefined;
  return granted !== null && typeof granted === 'object' ? (granted as Record<string, unknown>) : {};
}

function withGrants(available: AvailableCapabilities, granted: Record<string, unknown>): AvailableCapabilities {
  const out: AvailableCapabilities = { ...available };
  for (const kind of ['mcpServers', 'tools', 'scopes'] as const) {
    const extra = granted[kind];
    const have = available[kind];
    if (have !== undefined && Array.isArray(extra)) out[kind] = [...have, ...extra.filter((item): item is string => typeof item === 'string')];
  }
  return out;
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
