import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBodyLimited } from '../http/body.js';
import type { AccessControl } from './access-control.js';
import { PolicyError } from './policy.js';
import { hasScope, subjectsOf } from './principal.js';
import type { Principal, Scope } from './principal.js';
import type { Scoped } from './scoped.js';
import { sendForbidden } from './http-auth.js';

/**
 * The access part of the JSON HTTP API (docs/security.md, "HTTP API"):
 *
 * | method and path | scope | answers |
 * |---|---|---|
 * | `GET /api/v1/me` | read | the caller's principal (user, orgs, projects, agent, scopes) and how many skills it sees |
 * | `GET /api/v1/catalog` | read | the skills the caller sees (folders and registry alike) (name, description, uri, digest) |
 * | `GET /api/v1/admin/policy` | admin | the policy file's text (YAML) |
 * | `PUT /api/v1/admin/policy` | admin | replaces the policy (checked first; written atomically; in force at once) |
 * | `GET /api/v1/admin/audit?since=&user=&skill=&limit=` | admin | audit events, oldest first |
 * | `GET /api/v1/admin/tokens` | admin | the tokens' records (never a token or its hash) |
 *
 * Anything else under `/api/v1/` is left to other handlers (the registry's); `handled` is false then.
 */
const MAX_POLICY_BYTES = 1024 * 1024;

export async function handleAccessApi(access: AccessControl, scoped: Scoped, req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<boolean> {
  const principal = scoped.principal;
  const need = (scope: Scope): boolean => {
    if (hasScope(principal, scope)) return true;
    sendForbidden(access, req, res, scope);
    return false;
  };
  if (path === '/api/v1/me') {
    if (!methodIs(req, res, 'GET') || !need('read')) return true;
    json(res, 200, { ...describePrincipal(principal), skills: scoped.service.snapshot.size });
    return true;
  }
  if (path === '/api/v1/catalog') {
    if (!methodIs(req, res, 'GET') || !need('read')) return true;
    const snapshot = scoped.service.snapshot;
    json(res, 200, { skills: snapshot.skills.map((skill) => ({ name: skill.name, description: skill.description, uri: skill.uri, digest: skill.packageDigest })) });
    return true;
  }
  if (path === '/api/v1/admin/policy') {
    if (req.method === 'GET') {
      if (!need('admin')) return true;
      if (access.policyFile === undefined) return error(res, 404, 'No policy file: the server was started without --policy, so every skill is public');
      res.writeHead(200, { 'content-type': 'application/yaml; charset=utf-8', 'cache-control': 'no-store' });
      res.end(access.policyFile.text);
      return true;
    }
    if (req.method === 'PUT') {
      if (!need('admin')) return true;
      if (access.policyFile === undefined) return error(res, 409, 'The server was started without --policy FILE; start it with one to edit the policy');
      const body = (await readBodyLimited(req, MAX_POLICY_BYTES))?.toString('utf8');
      if (body === undefined) return error(res, 413, `The policy is larger than ${MAX_POLICY_BYTES} bytes`);
      try {
        const policy = access.policyFile.write(body);
        json(res, 200, { ok: true, rules: policy.rules.length, sessions: policy.sessions.length, default: policy.default, precedence: policy.precedence });
      } catch (failure) {
        if (!(failure instanceof PolicyError)) throw failure;
        error(res, 400, failure.message);
      }
      return true;
    }
    return methodNotAllowed(res, 'GET, PUT');
  }
  if (path === '/api/v1/admin/audit') {
    if (!methodIs(req, res, 'GET') || !need('admin')) return true;
    if (access.store === undefined) return error(res, 404, 'No audit log: the server was started without --data DIR');
    access.audit.flush();
    const since = query.get('since');
    let sinceIso: string | undefined;
    if (since !== null) {
      sinceIso = parseSince(since);
      if (sinceIso === undefined) return error(res, 400, `since: "${since.slice(0, 64)}" is not a time (ISO 8601, or 30m, 2h, 7d ago)`);
    }
    const limit = query.get('limit');
    const events = access.store.queryAudit({
      ...(sinceIso !== undefined ? { since: sinceIso } : {}),
      ...(query.get('user') !== null ? { user: query.get('user')! } : {}),
      ...(query.get('skill') !== null ? { skill: query.get('skill')! } : {}),
      ...(limit !== null && /^\d{1,7}$/.test(limit) ? { limit: Number(limit) } : {}),
    });
    json(res, 200, { events });
    return true;
  }
  if (path === '/api/v1/admin/tokens') {
    if (!methodIs(req, res, 'GET') || !need('admin')) return true;
    if (access.store === undefined) return error(res, 404, 'No token store: the server was started without --data DIR');
    json(res, 200, { tokens: access.store.listTokens() });
    return true;
  }
  return false;
}

export function describePrincipal(principal: Principal): Record<string, unknown> {
  return {
    via: principal.via,
    ...(principal.user !== undefined ? { user: principal.user } : {}),
    orgs: principal.orgs,
    projects: principal.projects,
    ...(principal.agent !== undefined ? { agent: principal.agent } : {}),
    scopes: [...principal.scopes].sort(),
    subjects: subjectsOf(principal),
    ...(principal.tokenId !== undefined ? { token: principal.tokenId } : {}),
  };
}

/** `--since`: an ISO 8601 time, or a span back from now (`30m`, `2h`, `7d`, `45s`). */
export function parseSince(text: string, now = Date.now()): string | undefined {
  const span = /^(\d{1,6})([smhdw])$/.exec(text.trim());
  if (span) {
    const unit = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3 }[span[2] as 's' | 'm' | 'h' | 'd' | 'w'];
    return new Date(now - Number(span[1]) * unit).toISOString();
  }
  if (!/^\d{4}-\d{2}-\d{2}/.test(text.trim())) return undefined;
  const time = Date.parse(text);
  return Number.isNaN(time) ? undefined : new Date(time).toISOString();
}

function methodIs(req: IncomingMessage, res: ServerResponse, method: string): boolean {
  if (req.method === method) return true;
  methodNotAllowed(res, method);
  return false;
}

function methodNotAllowed(res: ServerResponse, allow: string): true {
  res.setHeader('allow', allow);
  return error(res, 405, `Method not allowed; use ${allow}`);
}

function error(res: ServerResponse, status: number, message: string): true {
  json(res, status, { error: message });
  return true;
}

function json(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(body);
}

