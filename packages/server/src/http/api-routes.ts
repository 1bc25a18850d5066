import type { AccessControl } from '../access/access-control.js';
import { PolicyError } from '../access/policy.js';
import { subjectsOf } from '../access/principal.js';
import type { Principal } from '../access/principal.js';
import type { Scoped } from '../mcp/scoped.js';
import { parseSince } from '@skillport/core';
import { HttpError, methodNotAllowed } from './errors.js';
import type { HttpApp, RouteKit } from './routes.js';

/**
 * The access part of the JSON HTTP API (docs/security.md, "HTTP API"):
 *
 * | method and path | scope | answers |
 * |---|---|---|
 * | `GET /api/v1/me` | read | the caller's principal (user, orgs, projects, agent, scopes) and how many skills it sees |
 * | `GET /api/v1/catalog` | read | the skills the caller sees (folders and registry alike) (name, description, uri, digest) |
 * | `GET /api/v1/admin/policy` | admin | the policy file's text (YAML) |
 * | `PUT /api/v1/admin/policy` | admin | replaces the policy (checked first; written atomically, to the file or the database; in force at once, on every replica within a second) |
 * | `GET /api/v1/admin/audit?since=&user=&skill=&limit=` | admin | audit events, oldest first |
 * | `GET /api/v1/admin/tokens` | admin | the tokens' records (never a token or its hash) |
 *
 * The `read` scope is checked by the router before any route runs.
 */
const MAX_POLICY_BYTES = 1024 * 1024;

export function accessRoutes(app: HttpApp, kit: RouteKit, access: AccessControl, scopedFor: (principal: Principal) => Scoped): void {
  const admin = kit.requireScope('admin');
  app.get('/api/v1/me', (c) => {
    const scoped = scopedFor(kit.principal(c));
    return c.json({ ...describePrincipal(scoped.principal), skills: scoped.service.snapshot.size });
  });
  app.all('/api/v1/me', () => methodNotAllowed('GET'));

  app.get('/api/v1/catalog', (c) => {
    const snapshot = scopedFor(kit.principal(c)).service.snapshot;
    return c.json({
      skills: snapshot.skills.map((skill) => ({ name: skill.name, description: skill.description, uri: skill.uri, digest: skill.packageDigest })),
    });
  });
  app.all('/api/v1/catalog', () => methodNotAllowed('GET'));

  app.get('/api/v1/admin/policy', admin, (c) => {
    const text = access.policySource?.text;
    if (text === undefined)
      throw new HttpError(404, 'no_policy', 'No policy: the server was started without --policy (and none is stored), so every skill is public');
    return c.body(text, 200, { 'content-type': 'application/yaml; charset=utf-8' });
  });
  app.put('/api/v1/admin/policy', admin, async (c) => {
    const source = access.policySource;
    if (source === undefined) throw new HttpError(409, 'no_policy', 'The server was started without --policy FILE; start it with one to edit the policy');
    const body = (await kit.readBody(c, MAX_POLICY_BYTES)).toString('utf8');
    try {
      const policy = await source.write(body);
      return c.json({ ok: true, rules: policy.rules.length, sessions: policy.sessions.length, default: policy.default, precedence: policy.precedence });
    } catch (failure) {
      if (failure instanceof PolicyError) throw new HttpError(400, 'bad_policy', failure.message);
      throw failure;
    }
  });
  app.all('/api/v1/admin/policy', () => methodNotAllowed('GET, PUT'));

  app.get('/api/v1/admin/audit', admin, async (c) => {
    if (access.store === undefined) throw new HttpError(404, 'no_audit_log', 'No audit log: the server was started without --data DIR');
    await access.audit.flush();
    const query = (name: string) => c.req.query(name);
    const since = query('since');
    let sinceIso: string | undefined;
    if (since !== undefined) {
      sinceIso = parseSince(since);
      if (sinceIso === undefined) throw new HttpError(400, 'bad_request', `since: "${since.slice(0, 64)}" is not a time (ISO 8601, or 30m, 2h, 7d ago)`);
    }
    const user = query('user');
    const skill = query('skill');
    const limit = query('limit');
    const events = await access.store.queryAudit({
      ...(sinceIso !== undefined ? { since: sinceIso } : {}),
      ...(user !== undefined ? { user } : {}),
      ...(skill !== undefined ? { skill } : {}),
      ...(limit !== undefined && /^\d{1,7}$/.test(limit) ? { limit: Number(limit) } : {}),
    });
    return c.json({ events });
  });
  app.all('/api/v1/admin/audit', () => methodNotAllowed('GET'));

  app.get('/api/v1/admin/tokens', admin, async (c) => {
    if (access.store === undefined) throw new HttpError(404, 'no_token_store', 'No token store: the server was started without --data DIR');
    return c.json({ tokens: await access.store.listTokens() });
  });
  app.all('/api/v1/admin/tokens', () => methodNotAllowed('GET'));
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
