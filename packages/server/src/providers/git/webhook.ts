import { createHmac, timingSafeEqual, createHash } from 'node:crypto';
import { HttpError, methodNotAllowed } from '../../http/errors.js';
import type { PublicRoutes } from '../../http/routes.js';

/**
 * `POST /api/v1/git/webhook`: a git host says a branch moved, and the git sources serving it fetch at once. The caller
 * proves itself with the shared secret (answered before bearer authentication, since a git host has no token): GitHub's
 * `X-Hub-Signature-256` (HMAC-SHA256 of the body), GitLab's `X-Gitlab-Token` (the secret itself), compared in constant
 * time. A missing or wrong one is 401 and audited. A push names its ref and repository; the sources whose repository
 * and ref it names are refreshed (a push that names neither refreshes every source), and the answer (202) does not
 * wait for the fetch: the host gets its reply at once, the new commit is served when fetched.
 */
export const GIT_WEBHOOK_PATH = '/api/v1/git/webhook';
const MAX_BODY = 5 * 1024 * 1024;

/** What the webhook needs of a git source. */
export interface WebhookTarget {
  readonly label: string;
  /** The repository URL (or path) and the full ref it serves, once known. */
  matches(repositories: readonly string[], ref: string | undefined): boolean;
  refresh(): Promise<void>;
}

export function gitWebhook(secret: string, targets: () => readonly WebhookTarget[]): PublicRoutes {
  const key = Buffer.from(secret, 'utf8');
  return (app, kit) => {
    app.post(GIT_WEBHOOK_PATH, async (c) => {
      const body = await kit.readBody(c, MAX_BODY);
      const github = c.req.header('x-hub-signature-256');
      const gitlab = c.req.header('x-gitlab-token');
      const verdict = github !== undefined ? checkHmac(key, body, github) : gitlab !== undefined ? sameSecret(key, gitlab) : 'missing';
      if (verdict !== 'ok') {
        // The surface names the host's scheme (repeats of one kind are folded into one row by the audit log).
        const surface = github !== undefined ? 'github-webhook' : gitlab !== undefined ? 'gitlab-webhook' : 'git-webhook';
        kit.audit({ action: 'webhook', surface, outcome: 'denied', code: verdict === 'missing' ? 'no_signature' : 'bad_signature' });
        throw new HttpError(
          401,
          'unauthorized',
          verdict === 'missing'
            ? 'sign the request: X-Hub-Signature-256 (GitHub) or X-Gitlab-Token (GitLab)'
            : 'the signature does not match the shared secret',
        );
      }
      const event = c.req.header('x-github-event') ?? c.req.header('x-gitlab-event');
      if (event === 'ping') return c.json({ ok: true, pong: true });
      let payload: Record<string, unknown> = {};
      try {
        const parsed = JSON.parse(body.toString('utf8')) as unknown;
        if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) payload = parsed as Record<string, unknown>;
      } catch {
        throw new HttpError(400, 'bad_request', 'the payload is not JSON (set the webhook content type to application/json)');
      }
      const ref = typeof payload['ref'] === 'string' ? payload['ref'] : undefined;
      const repositories = repositoriesOf(payload);
      const chosen = targets().filter((target) => target.matches(repositories, ref));
      // Answered now; the fetch runs on its own (a failure is the source's to report, on stderr and /healthz).
      for (const target of chosen) void target.refresh();
      return c.json({ ok: true, refreshing: chosen.map((target) => target.label) }, 202);
    });
    app.all(GIT_WEBHOOK_PATH, () => methodNotAllowed('POST'));
  };
}

function checkHmac(key: Buffer, body: Buffer, header: string): 'ok' | 'bad' {
  const given = /^sha256=([0-9a-f]{64})$/i.exec(header.trim());
  if (!given) return 'bad';
  const expected = createHmac('sha256', key).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(given[1]!, 'hex')) ? 'ok' : 'bad';
}

/** The token compared through digests of equal length, so neither its length nor its bytes leak in timing. */
function sameSecret(key: Buffer, given: string): 'ok' | 'bad' {
  const digest = (bytes: Buffer) => createHash('sha256').update(bytes).digest();
  return timingSafeEqual(digest(key), digest(Buffer.from(given, 'utf8'))) ? 'ok' : 'bad';
}

/** Every URL and name a GitHub or GitLab push payload gives its repository by. */
function repositoriesOf(payload: Record<string, unknown>): string[] {
  const found: string[] = [];
  for (const holder of [payload['repository'], payload['project']]) {
    if (holder === null || typeof holder !== 'object') continue;
    const record = holder as Record<string, unknown>;
    for (const field of [
      'clone_url',
      'ssh_url',
      'git_url',
      'html_url',
      'url',
      'git_http_url',
      'git_ssh_url',
      'web_url',
      'homepage',
      'full_name',
      'path_with_namespace',
    ]) {
      if (typeof record[field] === 'string') found.push(record[field]);
    }
  }
  return found;
}

/**
 * A repository as host and path, lower-cased, without scheme, user info, port-less `.git` or slashes at the ends:
 * `https://github.com/Acme/Skills.git`, `git@github.com:acme/skills.git` and `ssh://git@github.com/acme/skills` are one.
 */
export function repositoryKey(url: string): string {
  let text = url.trim().toLowerCase();
  const scp = /^[^/@\s]+@([^:/\s]+):(.+)$/.exec(text);
  if (scp) text = `${scp[1]}/${scp[2]}`;
  else text = text.replace(/^[a-z][a-z0-9+.-]*:\/\//, '').replace(/^[^/@]*@/, '');
  return text.replace(/\/+$/, '').replace(/\.git$/, '');
}
