import { createHash } from 'node:crypto';

/**
 * Who is asking. Every request is answered for one principal: from a token or a JWT on HTTP, from configuration on
 * stdio (and on HTTP with `--auth none`). Visibility depends only on the principal's subjects (user, organisations,
 * projects, agent); what it may do depends on its scopes.
 */
export type Scope = 'read' | 'publish' | 'admin';
export const SCOPES: readonly Scope[] = ['read', 'publish', 'admin'];

/** A subject a policy rule can name: `public` (everyone) or `kind:value`. */
export type SubjectKind = 'user' | 'agent' | 'project' | 'org' | 'public';
export const SUBJECT_KINDS: readonly SubjectKind[] = ['user', 'agent', 'project', 'org', 'public'];

export interface Principal {
  /** How it was established: `anonymous`, `config` (stdio / --auth none), `token`, `jwt`. */
  via: 'anonymous' | 'config' | 'token' | 'jwt';
  user?: string;
  orgs: readonly string[];
  projects: readonly string[];
  agent?: string;
  scopes: ReadonlySet<Scope>;
  /** For tokens: the token's id (so a revocation can find the sessions it affects). */
  tokenId?: string;
  /** When the credential it came from expires (ms since the epoch): a stream it opened is closed then. */
  expiresAt?: number;
}

export const ANONYMOUS: Principal = Object.freeze({ via: 'anonymous', orgs: [], projects: [], scopes: new Set<Scope>(['read']) });

/** Every subject the principal holds, `public` included (`user:alice`, `org:acme`, ...). */
export function subjectsOf(principal: Principal): string[] {
  const subjects = ['public'];
  if (principal.user !== undefined) subjects.push(`user:${principal.user}`);
  if (principal.agent !== undefined) subjects.push(`agent:${principal.agent}`);
  for (const project of principal.projects) subjects.push(`project:${project}`);
  for (const org of principal.orgs) subjects.push(`org:${org}`);
  return subjects;
}

// Principals are immutable once made: their keys are computed once (a service asks for its view at every lookup).
const viewKeys = new WeakMap<Principal, string>();
const principalKeys = new WeakMap<Principal, string>();

/** A stable key for what the principal may see (its subjects): views are cached by it. */
export function viewKey(principal: Principal): string {
  let key = viewKeys.get(principal);
  if (key === undefined) {
    key = [...new Set(subjectsOf(principal))].sort().join('\n');
    viewKeys.set(principal, key);
  }
  return key;
}

/** A stable key for the whole principal (subjects, scopes, token): per-principal server state is kept by it. */
export function principalKey(principal: Principal): string {
  let key = principalKeys.get(principal);
  if (key === undefined) {
    const scopes = [...principal.scopes].sort().join(',');
    key = createHash('sha256')
      .update(`${principal.via}\n${principal.tokenId ?? ''}\n${scopes}\n${viewKey(principal)}`)
      .digest('base64url')
      .slice(0, 22);
    principalKeys.set(principal, key);
  }
  return key;
}

/** `admin` implies every scope, `publish` implies `read`. */
export function hasScope(principal: Principal, scope: Scope): boolean {
  if (principal.scopes.has(scope) || principal.scopes.has('admin')) return true;
  return scope === 'read' && principal.scopes.has('publish');
}

/** A short human label for logs and the audit log: `alice`, `alice (token ab12cd34)`, `anonymous`. */
export function principalLabel(principal: Principal): string {
  const who = principal.user ?? principal.agent ?? 'anonymous';
  return principal.tokenId ? `${who} (token ${principal.tokenId})` : who;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$/;

/** Names in subjects: letters, digits and `._@+-`, up to 128 characters (no `:`, spaces or globs). */
export function checkSubjectName(kind: string, value: string): string {
  if (!NAME.test(value)) throw new Error(`${kind} "${value}" is not a valid name (letters, digits, . _ @ + -; up to 128 characters)`);
  return value;
}

/**
 * A principal from configuration: `user:alice,org:acme,project:web,agent:ci,scope:admin` (comma or space separated).
 * Scopes default to `read`.
 */
export function parsePrincipalSpec(spec: string): Principal {
  const orgs: string[] = [];
  const projects: string[] = [];
  const scopes = new Set<Scope>();
  let user: string | undefined;
  let agent: string | undefined;
  for (const part of spec.split(/[\s,]+/).filter(Boolean)) {
    const colon = part.indexOf(':');
    const kind = colon < 0 ? '' : part.slice(0, colon);
    const value = part.slice(colon + 1);
    switch (kind) {
      case 'user':
        user = checkSubjectName('user', value);
        break;
      case 'agent':
        agent = checkSubjectName('agent', value);
        break;
      case 'org':
        orgs.push(checkSubjectName('org', value));
        break;
      case 'project':
        projects.push(checkSubjectName('project', value));
        break;
      case 'scope':
        if (!(SCOPES as readonly string[]).includes(value)) throw new Error(`scope "${value}" is not one of ${SCOPES.join(', ')}`);
        scopes.add(value as Scope);
        break;
      default:
        throw new Error(`"${part}" is not user:NAME, org:NAME, project:NAME, agent:NAME or scope:read|publish|admin`);
    }
  }
  if (scopes.size === 0) scopes.add('read');
  return { via: 'config', ...(user !== undefined ? { user } : {}), ...(agent !== undefined ? { agent } : {}), orgs, projects, scopes };
}
