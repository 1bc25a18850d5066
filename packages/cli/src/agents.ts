import { homedir } from 'node:os';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import known from './agents.json' with { type: 'json' };

/**
 * The agents `install --agent` writes for, and the folders each reads skills from (agents.json, with the page each
 * folder was taken from). Project folders are relative to the project root (the working folder), user folders to
 * the home folder.
 */
export interface Agent {
  id: string;
  name: string;
  project: string;
  user: string;
  source: string;
}

export type Scope = 'project' | 'user';

export const AGENTS: readonly Agent[] = Object.entries(known.agents as Record<string, Omit<Agent, 'id'>>).map(([id, agent]) => ({ id, ...agent }));

export function agentById(id: string): Agent {
  const agent = AGENTS.find((candidate) => candidate.id === id);
  if (agent === undefined) throw new Error(`unknown agent '${id}' (known: ${AGENTS.map((a) => a.id).join(', ')}; skillport agents lists their folders)`);
  return agent;
}

/** The folder an agent reads skills from in a scope, as an absolute path. */
export function agentFolder(agent: Agent, scope: Scope, projectRoot = process.cwd()): string {
  return scope === 'user' ? join(homedir(), agent.user) : resolve(projectRoot, agent.project);
}

/** Every folder some known agent scans, in both scopes: where no cache or staging file may live. */
export function scannedFolders(projectRoot = process.cwd()): string[] {
  return [...new Set(AGENTS.flatMap((agent) => [agentFolder(agent, 'project', projectRoot), agentFolder(agent, 'user', projectRoot)]))];
}

/** Whether `path` is `folder` or inside it. */
export function isInside(path: string, folder: string): boolean {
  const rel = relative(folder, resolve(path));
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
}
