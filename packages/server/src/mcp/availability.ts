import { availabilityRank, judgeAvailability, mergeAvailable } from '@skillport/core';
import type { Availability, AvailableCapabilities } from '@skillport/core';
import type { CatalogSkill } from '../catalog/model.js';
import { META_AVAILABLE } from '../catalog/model.js';

/**
 * Availability for one caller: what the host says it has (a hint in the request's `_meta`
 * `dev.skillport/available`, or list_skills' `available` argument) joined with what the policy grants the principal
 * (access/policy.ts `grants`). A hint is only a hint: a malformed one is ignored, never an error, and it can only
 * change how skills are marked and ordered, never which skills are visible.
 */
const MAX_NAMES = 256;
const MAX_NAME = 128;

/** The host's hint from a request's `_meta`, or undefined when there is none or it is malformed. */
export function hintFromMeta(meta: unknown): AvailableCapabilities | undefined {
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return undefined;
  return hintFrom((meta as Record<string, unknown>)[META_AVAILABLE]);
}

/** A hint value (`{mcpServers?, tools?, agent?}`), checked and bounded. */
export function hintFrom(value: unknown): AvailableCapabilities | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const raw = value as Record<string, unknown>;
  const names = (list: unknown): string[] | undefined =>
    Array.isArray(list)
      ? list.filter((item): item is string => typeof item === 'string' && item !== '' && item.length <= MAX_NAME).slice(0, MAX_NAMES)
      : undefined;
  const hint: AvailableCapabilities = {};
  const servers = names(raw['mcpServers']);
  const tools = names(raw['tools']);
  if (servers !== undefined) hint.mcpServers = servers;
  if (tools !== undefined) hint.tools = tools;
  if (typeof raw['agent'] === 'string' && raw['agent'] !== '' && raw['agent'].length <= MAX_NAME) hint.agent = raw['agent'];
  return Object.keys(hint).length > 0 ? hint : undefined;
}

/** Judges one skill for a caller. Skills that declare nothing judged are ready without any work. */
export function availabilityFor(skill: CatalogSkill, granted: AvailableCapabilities | undefined, hint: AvailableCapabilities | undefined): Availability {
  return judgeAvailability(skill.requirements, hint === undefined ? (granted ?? {}) : granted === undefined ? hint : mergeAvailable(hint, granted));
}

/**
 * A catalog for a model (the session catalog, tool descriptions, instructions): ready skills first, then those
 * that could not be judged, then unmet ones (stable within each), or without the unmet ones under `omit`.
 */
export function orderByReadiness<T extends CatalogSkill>(skills: readonly T[], judge: (skill: T) => Availability, unmet: 'list' | 'omit'): T[] {
  const ranked = skills.map((skill, index) => ({ skill, index, rank: availabilityRank(judge(skill)) }));
  const kept = unmet === 'omit' ? ranked.filter((item) => item.rank < 2) : ranked;
  return kept.sort((a, b) => a.rank - b.rank || a.index - b.index).map((item) => item.skill);
}

/**
 * Which of the skill's requirements the policy's grants cover (its MCP servers, tools, scopes), for the wire: a client
 * that re-judges with what its host has adds these, and so never keeps a verdict that came from another host's hint.
 */
export function grantedFor(skill: CatalogSkill, granted: AvailableCapabilities | undefined): Record<string, string[]> | undefined {
  const req = skill.requirements;
  if (req === undefined || granted === undefined) return undefined;
  const covered = (wanted: readonly string[], have: readonly string[] | undefined) => {
    const set = new Set((have ?? []).map((name) => name.toLowerCase()));
    return wanted.filter((name) => set.has(name.toLowerCase()));
  };
  const out: Record<string, string[]> = {};
  const servers = covered(
    req.mcpServers.map((server) => server.name),
    granted.mcpServers,
  );
  const tools = covered(req.tools, granted.tools);
  const scopes = covered(req.scopes, granted.scopes);
  if (servers.length > 0) out['mcpServers'] = servers;
  if (tools.length > 0) out['tools'] = tools;
  if (scopes.length > 0) out['scopes'] = scopes;
  return Object.keys(out).length > 0 ? out : undefined;
}
