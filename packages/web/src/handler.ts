import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeText } from '@skillport/core';
import { META_VERSION, hasScope, parseSince, requestPrincipal, REVIEW_REASON_MAX, reviewDecision } from '@skillport/server';
import type { AccessControl, CatalogFile, CatalogSkill, CatalogSnapshot, Principal, Scoped, WebRoute } from '@skillport/server';
import { listSkills, originKind, parseFilters } from './catalog.js';
import type { Html } from './html.js';
import { errorBody, layout } from './layout.js';
import type { Viewer } from './layout.js';
import { auditBody, policyBody, reviewBody, tokensBody } from './pages/admin.js';
import { MAX_PAGE_DIFF_BYTES, MAX_PAGE_DIFF_HTML, changedFiles, compareBody, lineDiff, pageFullNote } from './pages/compare.js';
import { fileBody, rawHeaders } from './pages/file.js';
import { homeBody, resultsFragment } from './pages/home.js';
import { signinBody } from './pages/signin.js';
import { renderSkillPart, skillBody } from './pages/skill.js';
import { SESSION_COOKIE, appendCookie, cookie, csrfToken, isHttps, safeNext, securityHeaders, sessionToken, siteOrigin } from './security.js';
import { parseSkillRoute, skillPath } from './urls.js';
import type { ReviewQueue, VersionHistory } from './versions.js';
import { SimilarityIndex } from '@skillport/scan';

/**
 * The web catalog (docs/architecture.md, "The web catalog"): one request handler for every page, mounted by the
 * HTTP server beside /mcp. Each page answers from the caller's view, exactly what MCP would show the same
 * principal (a hidden skill's page is the same 404 as a missing one); with --auth, a browser signs in with a token
 * kept in an HttpOnly cookie.
 */
export interface WebCatalogOptions {
  access: AccessControl;
  /** The caller's services over its view of the catalog (the server's `scopes.for`). */
  scoped(principal: Principal): Scoped;
  /** Published versions, when a registry is served (`serve --data`). */
  history?: VersionHistory;
  /** The registry's review queue (`serve --data`), for the admin review page. */
  reviews?: ReviewQueue;
  /** Shown in the header and titles. Default "skillport". */
  title?: string;
  /** Skills per page on the home page. Default 50. */
  pageSize?: number;
}

// Found through the package's own exports, not relative to this file: the CLI's bundle (scripts/bundle-cli.mjs) runs
// this code from packages/cli/dist/bundle/.
const ASSETS_DIR = new URL('./', import.meta.resolve('@skillport/web/assets/app.js'));
const ASSETS: Record<string, string> = { 'app.js': 'text/javascript; charset=utf-8', 'app.css': 'text/css; charset=utf-8' };
const STALE_FORM = 'The form was stale or came from another site. Reload the page and try again.';
/** The fields of this request's form post, once the router's CSRF check passed them. */
const posted = new WeakMap<IncomingMessage, URLSearchParams>();
const MAX_COMPARE_BYTES = 1024 * 1024;
const AUDIT_LIMIT = 500;
const SESSION_SECONDS = 12 * 3600;

class ChangedError extends Error {
  override name = 'ChangedError';
}

interface Caller {
  principal: Principal | undefined;
  /** Came with the session cookie. */
  fromCookie: boolean;
  /** A cookie was sent but its token no longer holds (revoked, expired). */
  staleCookie: boolean;
}

export function createWebCatalog(options: WebCatalogOptions): WebRoute {
  const { access } = options;
  const title = options.title ?? 'skillport';
  const pageSize = options.pageSize ?? 50;
  const assets = new Map<string, { body: Buffer; type: string; etag: string }>();
  for (const [name, type] of Object.entries(ASSETS)) {
    const body = readFileSync(new URL(name, ASSETS_DIR));
    assets.set(name, { body, type, etag: `"${createHash('sha256').update(body).digest('hex').slice(0, 16)}"` });
  }

  async function identify(req: IncomingMessage): Promise<Caller> {
    if (access.auth === 'none') return { principal: access.configured, fromCookie: false, staleCookie: false };
    const header = req.headers.authorization;
    const bearer = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
    const fromCookie = bearer === undefined ? sessionToken(req) : undefined;
    // A cookie that cannot be a token is cleared and the caller signed out, like a revoked one.
    if (fromCookie === 'malformed') return { principal: undefined, fromCookie: false, staleCookie: true };
    const token = bearer ?? fromCookie;
    if (token === undefined) return { principal: undefined, fromCookie: false, staleCookie: false };
    // The server's one place that turns a request into a principal (the bearer header, else the cookie's token).
    const result = await requestPrincipal(access, req, bearer === undefined ? token : undefined);
    if ('principal' in result) return { principal: result.principal, fromCookie: bearer === undefined, staleCookie: false };
    // Only a token refused (401) is forgotten: a store that cannot be reached now (503) leaves the session for later.
    return { principal: undefined, fromCookie: false, staleCookie: bearer === undefined && result.status === 401 };
  }

  function viewerFor(req: IncomingMessage, res: ServerResponse, caller: Caller): Viewer {
    const principal = caller.principal ?? access.configured;
    return {
      principal,
      authRequired: access.auth !== 'none',
      signedIn: caller.fromCookie,
      admin: caller.principal !== undefined && hasScope(principal, 'admin'),
      reviewer: caller.principal !== undefined && options.reviews !== undefined && (hasScope(principal, 'admin') || hasScope(principal, 'publish')),
      csrf: csrfToken(req, res),
      title,
    };
  }

  function send(req: IncomingMessage, res: ServerResponse, status: number, body: string | Buffer, type: string, extra: Record<string, string> = {}): void {
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    res.writeHead(status, {
      ...securityHeaders(),
      'content-type': type,
      'content-length': String(bytes.length),
      // Pages differ by caller once access is restricted: never kept by a shared cache.
      'cache-control': access.restricted ? 'private, no-store' : 'no-cache',
      vary: 'Cookie, Authorization',
      ...extra,
    });
    res.end(req.method === 'HEAD' ? undefined : bytes);
  }

  function page(
    req: IncomingMessage,
    res: ServerResponse,
    viewer: Viewer,
    status: number,
    titleText: string,
    body: Html,
    section?: 'catalog' | 'admin' | 'review' | 'signin',
  ): void {
    send(req, res, status, layout(viewer, { title: titleText, body, ...(section ? { section } : {}) }).text, 'text/html; charset=utf-8');
  }

  function redirect(res: ServerResponse, location: string): void {
    res.writeHead(303, { ...securityHeaders(), location, 'content-length': '0', 'cache-control': 'no-store' });
    res.end();
  }

  async function readBytes(scoped: Scoped, skill: CatalogSkill, file: CatalogFile): Promise<Buffer> {
    try {
      return await scoped.service.options.content.read(file, skill.origin, file.size <= 256 * 1024);
    } catch (error) {
      // The bytes no longer match the catalog (a file edited since the scan): have it rescanned, answer 503.
      if ((error as Error).name === 'StaleFileError') {
        const source = (error as { source?: unknown }).source;
        if (typeof source === 'string') scoped.service.options.onStale?.(source);
        throw new ChangedError();
      }
      throw error;
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse, path: string, search: string): Promise<boolean> {
    const isWebPath =
      path === '/' ||
      path === '/signin' ||
      path === '/signout' ||
      path.startsWith('/assets/') ||
      path.startsWith('/fragments/') ||
      path.startsWith('/skills/') ||
      path === '/admin' ||
      path.startsWith('/admin/') ||
      path === '/review' ||
      path === '/review/decide';
    if (!isWebPath) return false;
    const method = req.method ?? 'GET';
    const query = new URLSearchParams(search);

    if (path.startsWith('/assets/')) {
      const asset = assets.get(path.slice('/assets/'.length));
      if (asset === undefined || (method !== 'GET' && method !== 'HEAD')) return false;
      if (req.headers['if-none-match'] === asset.etag) {
        res.writeHead(304, { etag: asset.etag });
        res.end();
        return true;
      }
      send(req, res, 200, asset.body, asset.type, { etag: asset.etag, 'cache-control': 'public, max-age=300' });
      return true;
    }

    const caller = await identify(req);
    if (caller.staleCookie) appendCookie(res, cookie(req, SESSION_COOKIE, '', 0));
    const viewer = viewerFor(req, res, caller);

    if (path === '/signin') return signin(req, res, viewer, caller, query, method);
    if (path === '/signout') {
      if (method !== 'POST') return methodNotAllowed(req, res, viewer, 'POST');
      const form = posted.get(req);
      if (form === undefined) return forbidden(req, res, viewer, STALE_FORM);
      appendCookie(res, cookie(req, SESSION_COOKIE, '', 0));
      redirect(res, access.auth === 'none' ? '/' : '/signin');
      return true;
    }

    if (caller.principal === undefined) {
      if (path.startsWith('/fragments/')) {
        send(req, res, 401, 'Sign in first.', 'text/plain; charset=utf-8');
        return true;
      }
      redirect(res, `/signin?next=${encodeURIComponent(path + (search ? `?${search}` : ''))}`);
      return true;
    }
    const principal = caller.principal;
    if (!hasScope(principal, 'read')) return forbidden(req, res, viewer, 'Your token does not have the read scope.');

    if (path === '/admin' || path.startsWith('/admin/')) return admin(req, res, viewer, principal, path, query, method);
    // The review queue is for every reviewer, admin or holder of a policy revoke: grant, and shows publishers their own.
    if (path === '/review' || path === '/review/decide') return review(req, res, viewer, principal, path, query, method);
    if (method !== 'GET' && method !== 'HEAD') return methodNotAllowed(req, res, viewer, 'GET');
    const scoped = options.scoped(principal);
    const view = scoped.service.snapshot;

    if (path === '/' || path === '/fragments/results') {
      const filters = parseFilters(query);
      const result = await listSkills(view, scoped.service, filters, pageSize);
      if (path === '/fragments/results') send(req, res, 200, resultsFragment(filters, result).text, 'text/html; charset=utf-8');
      else page(req, res, viewer, 200, filters.q ? `“${filters.q}”` : 'Skills', homeBody(view, filters, result), 'catalog');
      return true;
    }
    if (path.startsWith('/fragments/')) return false;

    const route = parseSkillRoute(path);
    const skill = route === undefined ? undefined : view.skill(route.uri);
    if (route === undefined || skill === undefined) {
      const refused = route === undefined ? undefined : view.refusal(route.uri);
      if (refused !== undefined) {
        page(req, res, viewer, 410, 'Refused', errorBody(410, refused), 'catalog');
        return true;
      }
      return notFound(req, res, viewer);
    }
    if (route.kind === 'skill') {
      const manifest = skill.files.find((file) => file.uri === skill.uri);
      const text = manifest === undefined ? undefined : decodeText(await readBytes(scoped, skill, manifest));
      scoped.service.record({ action: 'read', surface: 'web', skill, file: 'SKILL.md', outcome: 'ok' });
      const versions = originKind(skill) === 'registry' ? await options.history?.versions(skill.name, principal) : undefined;
      const versionPaths = new Map<string, string>();
      for (const version of versions ?? []) {
        const found = view.version(skill.uri, { version: version.version });
        if (found !== undefined && 'skill' in found) versionPaths.set(version.version, skillPath(found.skill));
      }
      const listedVersion = (skill.entry._meta as Record<string, unknown> | undefined)?.[META_VERSION];
      const origin = `${isHttps(req) ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}`;
      page(
        req,
        res,
        viewer,
        200,
        skill.name,
        skillBody({
          skill,
          shown: await renderSkillPart(skill, text, Number(query.get('part') ?? '1')),
          versions,
          version: typeof listedVersion === 'string' ? listedVersion : undefined,
          versionPaths,
          mcpUrl: `${origin}/mcp`,
          authRequired: access.auth !== 'none',
          comparePath: `${skillPath(skill)}/-/compare`,
          // Signed in, the page says whether the caller's grants meet the skill's requirements.
          availability: caller.principal !== undefined && access.auth !== 'none' ? scoped.service.availability(skill) : undefined,
          scan: versions?.find((v) => v.version === listedVersion)?.scan,
          similar: similarIn(view, skill),
        }),
        'catalog',
      );
      return true;
    }
    if (route.kind === 'file' || route.kind === 'raw') {
      const file = skill.files.find((candidate) => candidate.uri === `${skill.rootUri}/${route.file}`);
      if (file === undefined) return notFound(req, res, viewer);
      const bytes = await readBytes(scoped, skill, file);
      const text = decodeText(bytes);
      scoped.service.record({ action: 'read', surface: 'web', skill, file: file.path, outcome: 'ok' });
      if (route.kind === 'raw') {
        const headers = rawHeaders(file, text !== undefined, query.get('inline') === '1' || req.headers['sec-fetch-dest'] === 'image');
        res.writeHead(200, {
          ...headers,
          'content-length': String(bytes.length),
          'cache-control': access.restricted ? 'private, no-store' : 'no-cache',
          vary: 'Cookie, Authorization',
        });
        res.end(method === 'HEAD' ? undefined : bytes);
        return true;
      }
      page(req, res, viewer, 200, `${file.path} · ${skill.name}`, fileBody(skill, file, text), 'catalog');
      return true;
    }
    return compare(req, res, viewer, scoped, skill, query);
  }

  async function compare(
    req: IncomingMessage,
    res: ServerResponse,
    viewer: Viewer,
    scoped: Scoped,
    skill: CatalogSkill,
    query: URLSearchParams,
  ): Promise<true> {
    const view = scoped.service.snapshot;
    const versions = originKind(skill) === 'registry' ? await options.history?.versions(skill.name) : undefined;
    const choices = (versions ?? []).filter((version) => !version.revoked).map((version) => version.version);
    const from = query.get('from') ?? choices[1] ?? '';
    const to = query.get('to') ?? choices[0] ?? '';
    // A version the registry never had is a 404; a revoked one is refused (410) with its reason.
    const known = new Set((versions ?? []).map((version) => version.version));
    const resolve = (version: string) => (version === '' || !known.has(version) ? undefined : view.version(skill.uri, { version }));
    const a = resolve(from);
    const b = resolve(to);
    for (const [found, version] of [
      [a, from],
      [b, to],
    ] as const) {
      if (found === undefined) {
        page(req, res, viewer, 404, 'Not found', errorBody(404, `${skill.name} has no version ${JSON.stringify(version.slice(0, 64))} here.`), 'catalog');
        return true;
      }
      if ('refused' in found) {
        page(req, res, viewer, 410, 'Refused', errorBody(410, found.refused), 'catalog');
        return true;
      }
    }
    const left = (a as { skill: CatalogSkill }).skill;
    const right = (b as { skill: CatalogSkill }).skill;
    const changes = changedFiles(left, right);
    let budget = MAX_PAGE_DIFF_BYTES;
    let shown = MAX_PAGE_DIFF_HTML;
    for (const change of changes) {
      if (change.status !== 'changed' || change.from!.size > MAX_COMPARE_BYTES || change.to!.size > MAX_COMPARE_BYTES) continue;
      budget -= change.from!.size + change.to!.size;
      if (budget < 0) {
        change.diff = pageFullNote();
        continue;
      }
      const fileA = left.files.find((file) => file.path === change.path)!;
      const fileB = right.files.find((file) => file.path === change.path)!;
      const textA = decodeText(await readBytes(scoped, left, fileA));
      const textB = decodeText(await readBytes(scoped, right, fileB));
      if (textA === undefined || textB === undefined) continue;
      change.diff = lineDiff(textA, textB, { from: fileA.digest, to: fileB.digest });
      shown -= change.diff.text.length;
      if (shown < 0) budget = 0; // the page's HTML is big enough: the files after this one are listed, not diffed
      // Each diff is bounded; between two, other requests get their turn.
      await new Promise((resolve) => setImmediate(resolve));
    }
    scoped.service.record({ action: 'read', surface: 'web', skill: right, outcome: 'ok', detail: `compare ${from}..${to}` });
    page(
      req,
      res,
      viewer,
      200,
      `${skill.name}: ${from} → ${to}`,
      compareBody(skill, from, to, choices.includes(from) && choices.includes(to) ? choices : [...new Set([...choices, from, to])], changes),
      'catalog',
    );
    return true;
  }

  async function signin(req: IncomingMessage, res: ServerResponse, viewer: Viewer, caller: Caller, query: URLSearchParams, method: string): Promise<true> {
    if (access.auth === 'none') {
      redirect(res, '/');
      return true;
    }
    if (method === 'GET' || method === 'HEAD') {
      if (caller.principal !== undefined && caller.fromCookie) {
        redirect(res, safeNext(query.get('next'), siteOrigin(req)));
        return true;
      }
      page(req, res, viewer, 200, 'Sign in', signinBody(viewer.csrf, safeNext(query.get('next'), siteOrigin(req)), undefined, access.auth), 'signin');
      return true;
    }
    if (method !== 'POST') return methodNotAllowed(req, res, viewer, 'GET, POST');
    const form = posted.get(req);
    if (form === undefined) return forbidden(req, res, viewer, STALE_FORM);
    const token = (form?.get('token') ?? '').trim();
    const next = safeNext(form?.get('next') ?? null, siteOrigin(req));
    const result = token === '' ? undefined : await access.authenticateToken(token);
    if (result === undefined || !('principal' in result)) {
      page(
        req,
        res,
        viewer,
        401,
        'Sign in',
        signinBody(viewer.csrf, next, result === undefined ? 'Paste a token.' : result.description, access.auth),
        'signin',
      );
      return true;
    }
    appendCookie(res, cookie(req, SESSION_COOKIE, encodeURIComponent(token), SESSION_SECONDS));
    redirect(res, next);
    return true;
  }

  /**
   * The review queue (ADR 0231): what waits, for reviewers (admin scope: every name they see; a policy `revoke:`
   * grant with the publish scope: those names) and for publishers (their own, without the forms). Decisions are
   * CSRF-checked forms, authorised by the registry per name as the API's are, and audited as action `review`.
   */
  async function review(
    req: IncomingMessage,
    res: ServerResponse,
    viewer: Viewer,
    principal: Principal,
    path: string,
    query: URLSearchParams,
    method: string,
    base = '',
  ): Promise<true> {
    if (path === '/review/decide') {
      if (method !== 'POST') return methodNotAllowed(req, res, viewer, 'POST');
      const form = posted.get(req);
      if (form === undefined) return forbidden(req, res, viewer, STALE_FORM);
      const name = form?.get('name') ?? '';
      const version = form?.get('version') ?? '';
      const decision = form?.get('decision');
      const reason = (form?.get('reason') ?? '').slice(0, REVIEW_REASON_MAX);
      const scoped = options.scoped(principal);
      let notice: string;
      if (options.reviews === undefined || (decision !== 'approved' && decision !== 'rejected')) notice = 'Nothing to decide.';
      else {
        try {
          await options.reviews.decide(name, version, decision, reason, principal);
          notice = `${name}@${version} ${decision}.`;
          // Who decided what is kept in the audit log as well as with the version (the API's decisions are too).
          scoped.service.record(reviewDecision('web', name, version, decision, reason));
        } catch (error) {
          notice = `${name.slice(0, 100)}@${version.slice(0, 100)}: ${(error as Error).message}`;
        }
      }
      redirect(res, `${base}/review?${new URLSearchParams({ notice })}`);
      return true;
    }
    if (method !== 'GET' && method !== 'HEAD') return methodNotAllowed(req, res, viewer, 'GET');
    const pending = options.reviews === undefined ? undefined : await options.reviews.pending(principal);
    const notice = query.get('notice')?.slice(0, 300) ?? undefined;
    page(
      req,
      res,
      viewer,
      200,
      'Review',
      reviewBody(pending, viewer.csrf, notice, { admin: base === '/admin', action: `${base}/review/decide` }),
      base === '/admin' ? 'admin' : 'review',
    );
    return true;
  }

  async function admin(
    req: IncomingMessage,
    res: ServerResponse,
    viewer: Viewer,
    principal: Principal,
    path: string,
    query: URLSearchParams,
    method: string,
  ): Promise<true> {
    // With --auth none the configured principal decides (`--principal ...,scope:admin`), as on /api/v1/admin.
    if (!hasScope(principal, 'admin')) return forbidden(req, res, viewer, 'These pages need the admin scope.');
    if (path === '/admin' || path === '/admin/') {
      redirect(res, '/admin/audit');
      return true;
    }
    // The admin pages' review tab is the review queue's page (kept for its address).
    if (path === '/admin/review' || path === '/admin/review/decide')
      return review(req, res, viewer, principal, path.slice('/admin'.length), query, method, '/admin');
    if (path === '/admin/tokens/revoke') {
      if (method !== 'POST') return methodNotAllowed(req, res, viewer, 'POST');
      const form = posted.get(req);
      if (form === undefined) return forbidden(req, res, viewer, STALE_FORM);
      const id = form?.get('id') ?? '';
      const revoked = access.store !== undefined && /^[0-9a-f]{6,64}$/.test(id) && (await access.revokeToken(id));
      redirect(res, `/admin/tokens?${new URLSearchParams({ notice: revoked ? `Token ${id} revoked.` : `No active token ${id.slice(0, 64)}.` })}`);
      return true;
    }
    if (method !== 'GET' && method !== 'HEAD') return methodNotAllowed(req, res, viewer, 'GET');
    if (path === '/admin/audit') {
      const filters = {
        user: query.get('user')?.trim() ?? '',
        skill: query.get('skill')?.trim() ?? '',
        since: query.get('since')?.trim() ?? '',
        until: query.get('until')?.trim() ?? '',
      };
      let error: string | undefined;
      let events;
      if (access.store !== undefined) {
        await access.audit.flush();
        const since = filters.since === '' ? undefined : parseSince(filters.since);
        const until = filters.until === '' ? undefined : parseSince(filters.until);
        if (filters.since !== '' && since === undefined) error = `Since: "${filters.since.slice(0, 40)}" is not a time (ISO 8601, or 30m, 2h, 7d ago).`;
        else if (filters.until !== '' && until === undefined) error = `Until: "${filters.until.slice(0, 40)}" is not a time.`;
        else {
          events = await access.store.queryAudit({
            ...(since !== undefined ? { since } : {}),
            ...(filters.user !== '' ? { user: filters.user } : {}),
            ...(filters.skill !== '' ? { skill: filters.skill } : {}),
            limit: until === undefined ? AUDIT_LIMIT : 100_000,
          });
          if (until !== undefined) events = events.filter((event) => event.time <= until).slice(-AUDIT_LIMIT);
          events.reverse();
        }
      }
      page(
        req,
        res,
        viewer,
        error ? 400 : 200,
        'Audit log',
        auditBody(filters, access.store === undefined ? undefined : (events ?? []), error, AUDIT_LIMIT),
        'admin',
      );
      return true;
    }
    if (path === '/admin/tokens') {
      const notice = query.get('notice')?.slice(0, 200);
      page(req, res, viewer, 200, 'Tokens', tokensBody((await access.store?.listTokens())?.reverse(), viewer.csrf, notice), 'admin');
      return true;
    }
    if (path === '/admin/policy') {
      page(req, res, viewer, 200, 'Policy', policyBody(access.policySource?.text, { open: access.views.open }), 'admin');
      return true;
    }
    return notFound(req, res, viewer);
  }

  function notFound(req: IncomingMessage, res: ServerResponse, viewer: Viewer): true {
    page(req, res, viewer, 404, 'Not found', errorBody(404, 'There is no skill or page at this address.'));
    return true;
  }

  function forbidden(req: IncomingMessage, res: ServerResponse, viewer: Viewer, message: string): true {
    page(req, res, viewer, 403, 'Not allowed', errorBody(403, message));
    return true;
  }

  function methodNotAllowed(req: IncomingMessage, res: ServerResponse, viewer: Viewer, allow: string): true {
    res.setHeader('allow', allow);
    page(req, res, viewer, 405, 'Method not allowed', errorBody(405, `Use ${allow}.`));
    return true;
  }

  return {
    forms: new Set(['/signout', '/review/decide', '/admin/review/decide', '/admin/tokens/revoke', ...(access.auth === 'none' ? [] : ['/signin'])]),
    async refuseForm(req, res) {
      const caller = await identify(req);
      if (caller.staleCookie) appendCookie(res, cookie(req, SESSION_COOKIE, '', 0));
      forbidden(req, res, viewerFor(req, res, caller), STALE_FORM);
    },
    async handle(req, res, path, search, form) {
      // The form's fields, CSRF-checked by the router; a post without them is refused (fail closed).
      if (form !== undefined) posted.set(req, form);
      try {
        return await handle(req, res, path, search);
      } catch (error) {
        if (res.headersSent) throw error;
        if (error instanceof ChangedError) {
          res.writeHead(503, { ...securityHeaders(), 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'retry-after': '1' });
          res.end('This skill changed on disk since the catalog was read; reload in a moment.');
          return true;
        }
        res.writeHead(500, { ...securityHeaders(), 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
        res.end('Internal error');
        return true;
      }
    },
  };
}

/** One similarity index per view snapshot (the caller's skills only), built on first use. */
const similarity = new WeakMap<object, SimilarityIndex>();

/** Up to five skills of `view` very close to `skill` (never the skill itself, never one outside the view). */
function similarIn(view: CatalogSnapshot, skill: CatalogSkill): Array<{ name: string; path: string; similarity: number; reason: string }> {
  let index = similarity.get(view);
  if (index === undefined) {
    index = new SimilarityIndex(view.skills.map((s) => ({ id: s.uri, name: s.name, description: s.description })));
    similarity.set(view, index);
  }
  return index.similarTo({ id: skill.uri, name: skill.name, description: skill.description }, { limit: 5 }).flatMap((pair) => {
    const other = view.skill(pair.b);
    return other === undefined || other.name === skill.name
      ? []
      : [{ name: other.name, path: skillPath(other), similarity: pair.similarity, reason: pair.reason }];
  });
}
