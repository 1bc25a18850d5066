import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createToken, makeTarGz, skillMd, startHttp, tempFolder } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

/**
 * The write-isolation matrix (principals × every write route × visible, hidden and missing names), the write side of
 * access-isolation.test.ts: a real `serve --http --data DIR --auth tokens --policy` process over real HTTP.
 *
 * The oracle is this test's own reading of the policy below (who sees, who publishes, who revokes which prefix). Each
 * cell acts on a version of its own (set up by the name's owner first), so cells do not depend on each other; after
 * each one the owner reads the name back to see that the write happened exactly when it was allowed. And a name the
 * writer cannot see must answer exactly like a name that does not exist (byte for byte, the name aside), and so must a
 * publish of it.
 */
const POLICY = `default: none
rules:
  - skills: "acme-*"
    allow: [org:acme]
    revoke: [user:acme-lead]
  - skills: "beta-*"
    allow: [org:beta]
  - skills: "shared-*"
    allow: [public]
    publish: [org:acme]
`;

type Prefix = 'acme' | 'beta' | 'shared';
const EXISTING: Record<Prefix, string> = { acme: 'acme-deploy', beta: 'beta-tool', shared: 'shared-guide' };

interface Who {
  args: string[] | undefined;
  user?: string;
  orgs: string[];
  scope: 'read' | 'publish' | 'admin' | 'none';
}

const PRINCIPALS: Record<string, Who> = {
  anonymous: { args: undefined, orgs: [], scope: 'none' },
  acmeReader: { args: ['--user', 'alice', '--org', 'acme'], orgs: ['acme'], scope: 'read' },
  acmePublisher: { args: ['--user', 'acme-ci', '--org', 'acme', '--scope', 'publish'], orgs: ['acme'], scope: 'publish' },
  acmeLead: { args: ['--user', 'acme-lead', '--org', 'acme', '--scope', 'publish'], user: 'acme-lead', orgs: ['acme'], scope: 'publish' },
  betaPublisher: { args: ['--user', 'beta-ci', '--org', 'beta', '--scope', 'publish'], orgs: ['beta'], scope: 'publish' },
  betaAdmin: { args: ['--user', 'beta-root', '--org', 'beta', '--scope', 'admin'], orgs: ['beta'], scope: 'admin' },
};

/** Who owns (publishes, sets up) each prefix's names in this test. */
const OWNER: Record<Prefix, string> = { acme: 'acmePublisher', beta: 'betaPublisher', shared: 'acmePublisher' };

type Route = 'publish' | 'tag' | 'untag' | 'yank' | 'unyank' | 'revoke' | 'review' | 'approve' | 'reject';
const ROUTES: Route[] = ['publish', 'tag', 'untag', 'yank', 'unyank', 'revoke', 'review', 'approve', 'reject'];
/** Routes that revoke or decide a review: the admin scope, or a publish scope and the policy's revoke grant. */
const REVOKING: ReadonlySet<Route> = new Set(['revoke', 'review', 'approve', 'reject']);

// This test's reading of POLICY.
const sees = (who: Who, prefix: Prefix) => prefix === 'shared' || who.orgs.includes(prefix);
const mayPublish = (who: Who, prefix: Prefix) => sees(who, prefix) && (prefix !== 'shared' || who.orgs.includes('acme'));
const mayRevoke = (who: Who, prefix: Prefix) => sees(who, prefix) && (who.scope === 'admin' || (prefix === 'acme' && who.user === 'acme-lead'));

interface Answer {
  status: number;
  text: string;
}

function archive(name: string, text: string): Buffer {
  return makeTarGz([{ path: `${name}/SKILL.md`, content: skillMd(name, undefined, '', `# ${name}\n\n${text}\n`) }]);
}

describe('write isolation: principals × write routes × visible, hidden and missing names', () => {
  const data = tempFolder('skillport-write-matrix-');
  const policyFile = join(data, 'policy.yaml');
  writeFileSync(policyFile, POLICY);
  const tokens: Record<string, string | undefined> = {};
  let server: RunningServer;
  let base: string;

  const call = async (who: string, method: string, path: string, body?: string | Uint8Array): Promise<Answer> => {
    const headers: Record<string, string> = {};
    if (tokens[who] !== undefined) headers['authorization'] = `Bearer ${tokens[who]}`;
    if (typeof body === 'string') headers['content-type'] = 'application/json';
    const response = await fetch(`${base}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
    return { status: response.status, text: await response.text() };
  };
  const ok = async (who: string, method: string, path: string, body?: string | Uint8Array) => {
    const answer = await call(who, method, path, body);
    assert.ok(answer.status === 200 || answer.status === 201, `${who} ${method} ${path}: ${answer.status} ${answer.text}`);
    return JSON.parse(answer.text) as Record<string, unknown>;
  };

  /** The write `route` on `name`, for cell `i` (its version `1.<i>.0`, its tags `c<i>`/`x<i>`). */
  const write = (who: string, route: Route, name: string, i: number): Promise<Answer> => {
    const version = `1.${i}.0`;
    const at = `/api/v1/skills/${name}`;
    switch (route) {
      case 'publish':
        return call(who, 'POST', `/api/v1/skills?version=2.${i}.0`, archive(name, `planted by ${who}`));
      case 'tag':
        return call(who, 'PUT', `${at}/tags/x${i}`, JSON.stringify({ version }));
      case 'untag':
        return call(who, 'DELETE', `${at}/tags/c${i}`);
      case 'yank':
        return call(who, 'POST', `${at}/versions/${version}/yank`);
      case 'unyank':
        return call(who, 'POST', `${at}/versions/${version}/unyank`);
      case 'revoke':
        return call(who, 'POST', `${at}/versions/${version}/revoke`, JSON.stringify({ reason: `by ${who}` }));
      case 'review':
        return call(who, 'POST', `${at}/versions/${version}/review`, JSON.stringify({ status: 'approved' }));
      case 'approve':
        return call(who, 'POST', `${at}/versions/${version}/approve`, '{}');
      case 'reject':
        return call(who, 'POST', `${at}/versions/${version}/reject`, JSON.stringify({ reason: `by ${who}` }));
    }
  };

  /** Whether the write of cell `i` shows in what the owner reads back. */
  const happened = async (route: Route, prefix: Prefix, name: string, i: number): Promise<boolean> => {
    const owner = OWNER[prefix];
    if (route === 'publish') return (await call(owner, 'GET', `/api/v1/skills/${name}/versions/2.${i}.0`)).status === 200;
    const found = await call(owner, 'GET', `/api/v1/skills/${name}`);
    if (found.status === 404) return false;
    const skill = JSON.parse(found.text) as { tags: Record<string, string>; versions: Array<Record<string, unknown>> };
    const record = skill.versions.find((entry) => entry['version'] === `1.${i}.0`);
    switch (route) {
      case 'tag':
        return skill.tags[`x${i}`] !== undefined;
      case 'untag':
        return record !== undefined && skill.tags[`c${i}`] === undefined;
      case 'yank':
        return record?.['yankedAt'] !== undefined;
      case 'unyank':
        return record !== undefined && record['yankedAt'] === undefined;
      case 'revoke':
        return record?.['revoked'] !== undefined;
      case 'reject':
        return record?.['review'] === 'rejected';
      case 'review':
      case 'approve':
        return record?.['review'] === 'approved';
    }
  };

  before(async () => {
    for (const [who, spec] of Object.entries(PRINCIPALS)) tokens[who] = spec.args && (await createToken(data, spec.args));
    server = await startHttp(['--data', data, '--auth', 'tokens', '--policy', policyFile]);
    base = server.url.replace(/\/mcp$/, '');
    for (const prefix of Object.keys(EXISTING) as Prefix[]) await ok(OWNER[prefix], 'POST', '/api/v1/skills?version=0.1.0', archive(EXISTING[prefix], 'first'));
  });
  after(async () => {
    await server?.stop();
  });

  let cell = 0;
  for (const who of Object.keys(PRINCIPALS)) {
    for (const route of ROUTES) {
      test(`${who} × ${route}`, async () => {
        const spec = PRINCIPALS[who]!;
        // Past the scope check: publish, tag and yank need publish; revoke and review admin, or publish and a grant.
        const scoped = spec.scope === 'publish' || spec.scope === 'admin';
        for (const prefix of Object.keys(EXISTING) as Prefix[]) {
          const i = ++cell;
          const name = EXISTING[prefix];
          const missing = `${prefix}-missing-${i}`;
          // The cell's own version of the existing name: tagged c<i>, yanked first when the cell unyanks.
          await ok(OWNER[prefix], 'POST', `/api/v1/skills?version=1.${i}.0&tag=c${i}`, archive(name, `cell ${i}`));
          if (route === 'unyank') await ok(OWNER[prefix], 'POST', `/api/v1/skills/${name}/versions/1.${i}.0/yank`);

          const onExisting = await write(who, route, name, i);
          const onMissing = await write(who, route, missing, i);
          const label = `${who} ${route} ${name} (${sees(spec, prefix) ? 'visible' : 'hidden'})`;
          const allowed = REVOKING.has(route) ? mayRevoke(spec, prefix) : mayPublish(spec, prefix);

          if (spec.scope === 'none') {
            assert.equal(onExisting.status, 401, label);
          } else if (!scoped) {
            assert.equal(onExisting.status, 403, `${label}: ${onExisting.text}`);
            assert.match(onExisting.text, /scope/, label);
          } else if (!sees(spec, prefix)) {
            // Hidden: the same answer as a name that is not published (or, publishing, as one it may not create).
            assert.equal(onExisting.status, route === 'publish' ? 403 : 404, `${label}: ${onExisting.text}`);
          } else {
            assert.equal(onExisting.status, allowed ? (route === 'publish' ? 201 : 200) : 403, `${label}: ${onExisting.text}`);
          }
          // Whatever the principal, a name it cannot see answers exactly as a name that does not exist.
          if (!sees(spec, prefix) || spec.scope === 'none' || !scoped)
            assert.deepEqual(
              { ...onExisting, text: onExisting.text.replaceAll(name, 'N') },
              { ...onMissing, text: onMissing.text.replaceAll(missing, 'N') },
              label,
            );
          // No answer to a principal that cannot see the name names its versions or tags.
          if (!sees(spec, prefix)) assert.doesNotMatch(onExisting.text, /"tags"|"versions"|latest|sha256:|0\.1\.0/, label);
          // The write happened exactly when allowed.
          assert.equal(await happened(route, prefix, name, i), scoped && allowed, `${label}: happened`);
          // A missing name: created only by a publish the policy allows; any other write to it is a 404 when allowed past the scopes.
          const created = (await call(OWNER[prefix], 'GET', `/api/v1/skills/${missing}`)).status === 200;
          assert.equal(created, route === 'publish' && scoped && mayPublish(spec, prefix), `${label}: ${missing} created`);
          if (scoped && route !== 'publish' && sees(spec, prefix)) assert.equal(onMissing.status, 404, `${label}: on ${missing}: ${onMissing.text}`);
        }
      });
    }
  }

  test('the admin API’s policy write needs the admin scope; nothing else changes the policy', async () => {
    for (const who of Object.keys(PRINCIPALS)) {
      const answer = await call(who, 'PUT', '/api/v1/admin/policy', POLICY);
      const spec = PRINCIPALS[who]!;
      assert.equal(answer.status, spec.scope === 'none' ? 401 : spec.scope === 'admin' ? 200 : 403, `${who}: ${answer.text}`);
    }
  });
});
