import { HttpError, methodNotAllowed, reviewDecision } from '@skillport/server';
import type { HttpApp, HttpContext, HttpRoutes, RouteKit } from '@skillport/server';
import { blobFiles } from './read-version.js';
import { RegistryError, storageFull } from './model.js';
import { DEFAULT_SETTINGS } from './gate.js';
import type { VersionRecord } from './model.js';
import { ARCHIVE_MEDIA_TYPE, manifestFor, packSkillArchive } from './package-format.js';
import type { RegistryProvider } from './provider.js';
import type { RegistryService } from './service.js';
import type { WriteAction, WriteAuthorizer, WriteGuard } from './auth.js';
import { printable } from './store.js';
import { heldFrom } from './service.js';
import type { Neighbour } from './gate.js';
import type { GateSettings } from '@skillport/server';

/**
 * The registry's JSON API under /api/v1/ (docs/api.md), mounted on the server's router (ADR 0060). Reads are open to
 * whoever the server let in (like MCP); writes go through the WriteAuthorizer before any body is read. Errors are
 * `{"error": {"code", "message"}}`: a RegistryError becomes an HttpError with its status and code.
 */
export const API_PREFIX = '/api/v1/';

export interface ApiOptions {
  service: RegistryService;
  provider?: RegistryProvider;
  authorizer: WriteAuthorizer;
  /** Largest request body accepted (a compressed .skill archive). */
  maxUploadBytes?: number;
  /**
   * Whether the caller may see the skill of this name (the server's visibility policy, docs/security.md). A name it
   * may not see answers exactly like a name that is not published; lists leave it out. Default: every name.
   */
  canSee?: (principal: import('@skillport/server').Principal, name: string) => boolean;
  /**
   * What the policy lets the caller write under a name it sees (ADR 0180). Default: publish, tag and yank every
   * name it sees; revoke and review only with the admin scope (or the shared publish token).
   */
  writeGrants?: (principal: import('@skillport/server').Principal, name: string) => { publish: boolean; revoke: boolean };
  /** Told of every write that succeeded, as one line naming what changed and who changed it. */
  onEvent?: (line: string) => void;
  /** The gate's settings for a publisher and a name (the policy's `gate:`; ADR 0230). Default: allow everything. */
  gate?: (principal: import('@skillport/server').Principal | undefined, name: string) => GateSettings;
  /** Skills the caller sees (names and descriptions), for near-duplicate warnings at publish. */
  neighbours?: (principal: import('@skillport/server').Principal | undefined) => readonly Neighbour[];
}

type Params = Record<string, string>;
/** `guard`: for write routes, which names the authorised caller may write (the service asks it per name). */
type Handler = (c: HttpContext, params: Params, guard: WriteGuard) => Promise<Response>;

export function registryRoutes(options: ApiOptions): HttpRoutes {
  return (app, kit) => mountRegistryRoutes(app, kit, options);
}

function mountRegistryRoutes(app: HttpApp, kit: RouteKit, options: ApiOptions): void {
  const { service } = options;
  const maxUpload = options.maxUploadBytes ?? service.limits.maxBytes + 4 * 1024 * 1024;
  const canSee = options.canSee ?? (() => true);
  const writeGrants = options.writeGrants ?? (() => ({ publish: true, revoke: false }));
  const allowed = new Map<string, string[]>();
  const event = (params: Params, what: string) => options.onEvent?.(`${what} by ${printable(params['principal'] ?? 'anonymous')}`);

  /** One route: path parameters checked (400), hidden names answered as missing (404), writes authorised first. */
  const route = (method: string, path: string, handler: Handler, action?: WriteAction) => {
    const pattern = path.replace(/\{(\w+)\}/g, ':$1');
    allowed.set(pattern, [...(allowed.get(pattern) ?? []), method]);
    app.on(method, pattern, async (c) => {
      try {
        return await checked(c, handler, action);
      } catch (error) {
        // The service's and the routes' RegistryErrors carry the status and code the API answers with.
        if (error instanceof RegistryError) throw new HttpError(error.status as HttpError['status'], error.code, error.message);
        const full = storageFull(error);
        if (full) throw new HttpError(507, full.code, full.message);
        throw error;
      }
    });
  };
  const checked = async (c: HttpContext, handler: Handler, action: WriteAction | undefined): Promise<Response> => {
    const params = pathParams(c);
    const principal = kit.principal(c);
    if (action === undefined) {
      // A hidden name answers like an unpublished one.
      if (params['name'] !== undefined && !canSee(principal, params['name'])) {
        if (params['version'] !== undefined)
          throw new RegistryError(404, 'version_not_found', `${printable(params['name'])}@${printable(params['version'])} is not published here`);
        throw new RegistryError(404, 'skill_not_found', `no skill named '${printable(params['name'])}' is published here`);
      }
      return handler(c, params, await viewer(c));
    }
    // Writes: the scopes first (nothing about any name), then the service asks the guard once it knows the name it
    // writes, from the path or from the archive (ADR 0180).
    const decision = await options.authorizer.authorizeWrite(
      { authorization: c.req.header('authorization'), principal },
      action,
      params['name'] !== undefined ? { name: params['name'] } : {},
    );
    if (!decision.ok)
      throw new RegistryError(
        decision.status,
        decision.status === 401 ? 'unauthorized' : decision.status === 503 ? 'writes_disabled' : 'forbidden',
        decision.message,
      );
    params['principal'] = decision.principal;
    const guard: WriteGuard = {
      writer: decision.principal,
      sees: (name) => canSee(principal, name),
      may: (what, name) => {
        const grants = writeGrants(principal, name);
        return what === 'revoke' || what === 'review' ? decision.revokeAny || grants.revoke : grants.publish;
      },
    };
    return handler(c, params, guard);
  };

  /**
   * Who reads, for what reads show of held versions (ADR 0231): a caller the write authoriser accepts for a review is
   * a reviewer of the names it may review, and the publisher of what it published; anyone else sees no held version.
   */
  const viewer = async (c: HttpContext): Promise<WriteGuard> => {
    const principal = kit.principal(c);
    const decision = await options.authorizer.authorizeWrite({ authorization: c.req.header('authorization'), principal }, 'review', {});
    if (!decision.ok) return READ_ONLY;
    return {
      writer: decision.principal,
      sees: (name) => canSee(principal, name),
      may: (what, name) => (what === 'review' || what === 'revoke' ? decision.revokeAny || writeGrants(principal, name).revoke : false),
    };
  };
  /** The versions `guard` may know of: held ones only for their publisher and reviewers. */
  const shown = (records: readonly VersionRecord[], guard: WriteGuard) => records.filter((record) => !heldFrom(record, guard));

  route('GET', '/api/v1/skills', async (c) => {
    const principal = kit.principal(c);
    const names = (await service.store.listNames()).filter((name) => canSee(principal, name));
    const guard = await viewer(c);
    const skills = [];
    for (const name of names) {
      // A name whose every version is held is not published as far as this caller can tell.
      if (shown(await service.store.listVersions(name), guard).length === 0) continue;
      const tags = Object.fromEntries((await service.store.tags(name)).map((tag) => [tag.tag, tag.version]));
      skills.push({ name, tags });
    }
    return c.json({ skills });
  });

  route('GET', '/api/v1/skills/{name}', async (c, params, guard) => {
    const found = await service.versions(params['name']!);
    const versions = shown(found.versions, guard);
    if (versions.length === 0) throw new RegistryError(404, 'skill_not_found', `no skill named '${printable(params['name']!)}' is published here`);
    return c.json({ name: found.name, tags: found.tags, versions: versions.map((record) => summary(record, service, options.provider)) });
  });

  /** A version the caller may know of; a held one is missing to everyone but its publisher and reviewers. */
  const visibleVersion = async (params: Params, guard: WriteGuard): Promise<VersionRecord> => {
    const record = await service.version(params['name']!, params['version']!);
    if (heldFrom(record, guard))
      throw new RegistryError(404, 'version_not_found', `${printable(params['name']!)}@${printable(params['version']!)} is not published here`);
    return record;
  };

  route('GET', '/api/v1/skills/{name}/versions/{version}', async (c, params, guard) => {
    const record = await visibleVersion(params, guard);
    return c.json({ ...summary(record, service, options.provider), files: record.manifest.files, ...(record.gate ? { findings: record.gate.findings } : {}) });
  });

  route('GET', '/api/v1/skills/{name}/versions/{version}/archive', async (c, params, guard) => {
    const record = await visibleVersion(params, guard);
    if (record.revoked)
      throw new RegistryError(410, 'version_revoked', `${record.name}@${record.version} was revoked on ${record.revoked.at}: ${record.revoked.reason}`);
    const files = await blobFiles(service.store, record);
    const manifest = manifestFor(record.name, files, { version: record.version, provenance: record.provenance, signatures: record.signatures });
    const archive = packSkillArchive(manifest, files);
    return c.body(new Uint8Array(archive.buffer as ArrayBuffer, archive.byteOffset, archive.byteLength), 200, {
      'content-type': ARCHIVE_MEDIA_TYPE,
      'content-disposition': `attachment; filename="${record.name}-${record.version}.skill"`,
    });
  });

  route(
    'POST',
    '/api/v1/skills',
    async (c, params, guard) => {
      const body = await readBody(kit, c, maxUpload);
      const query = new URL(c.req.url).searchParams;
      const tags = query
        .getAll('tag')
        .flatMap((tag) => tag.split(','))
        .map((tag) => tag.trim())
        .filter((tag) => tag !== '');
      const provenance: { repository?: string; commit?: string } = {};
      if (query.get('repository')) provenance.repository = query.get('repository')!;
      if (query.get('commit')) provenance.commit = query.get('commit')!;
      const result = await service.publish({
        archive: body,
        ...(query.get('version') ? { version: query.get('version')! } : {}),
        ...(tags.length > 0 ? { tags } : {}),
        publisher: params['principal']!,
        provenance,
        guard,
        gate: (name) => options.gate?.(kit.principal(c), name) ?? DEFAULT_SETTINGS,
        neighbours: () => options.neighbours?.(kit.principal(c)) ?? [],
      });
      await options.provider?.refresh();
      if (result.status === 'created') {
        const tagged = result.tags.filter((tag) => tag.version === result.version.version).map((tag) => tag.tag);
        event(
          params,
          `published ${result.version.name}@${result.version.version} ${result.version.packageDigest.slice(0, 19)}…${tagged.length ? ` (tags: ${tagged.join(', ')})` : ''}`,
        );
      }
      return c.json(
        {
          status: result.status,
          ...summary(result.version, service, options.provider),
          tags: Object.fromEntries(result.tags.map((tag) => [tag.tag, tag.version])),
          files: result.version.manifest.files,
          warnings: result.warnings,
          ...(result.version.gate ? { findings: result.version.gate.findings } : {}),
        },
        result.status === 'created' ? 201 : 200,
      );
    },
    'publish',
  );

  route(
    'PUT',
    '/api/v1/skills/{name}/tags/{tag}',
    async (c, params, guard) => {
      const body = await readJson(kit, c);
      if (typeof body['version'] !== 'string') throw new RegistryError(400, 'bad_request', 'send {"version": "<version>"}');
      const tags = await service.tag(params['name']!, body['version'], params['tag']!, guard);
      await options.provider?.refresh();
      event(params, `tagged ${printable(params['name']!)}@${printable(body['version'])} as ${printable(params['tag']!)}`);
      return c.json({ name: params['name'], tags: Object.fromEntries(tags.map((tag) => [tag.tag, tag.version])) });
    },
    'tag',
  );

  route(
    'DELETE',
    '/api/v1/skills/{name}/tags/{tag}',
    async (c, params, guard) => {
      const tags = await service.untag(params['name']!, params['tag']!, guard);
      await options.provider?.refresh();
      event(params, `removed tag ${printable(params['tag']!)} from ${printable(params['name']!)}`);
      return c.json({ name: params['name'], tags: Object.fromEntries(tags.map((tag) => [tag.tag, tag.version])) });
    },
    'tag',
  );

  route(
    'POST',
    '/api/v1/skills/{name}/versions/{version}/yank',
    async (c, params, guard) => {
      const record = await service.yank(params['name']!, params['version']!, guard);
      await options.provider?.refresh();
      event(params, `yanked ${record.name}@${record.version}`);
      return c.json(summary(record, service, options.provider));
    },
    'yank',
  );

  route(
    'POST',
    '/api/v1/skills/{name}/versions/{version}/unyank',
    async (c, params, guard) => {
      const record = await service.unyank(params['name']!, params['version']!, guard);
      await options.provider?.refresh();
      event(params, `unyanked ${record.name}@${record.version}`);
      return c.json(summary(record, service, options.provider));
    },
    'yank',
  );

  route(
    'POST',
    '/api/v1/skills/{name}/versions/{version}/revoke',
    async (c, params, guard) => {
      const body = await readJson(kit, c);
      const record = await service.revoke(params['name']!, params['version']!, typeof body['reason'] === 'string' ? body['reason'] : '', guard);
      await options.provider?.refresh();
      event(params, `revoked ${record.name}@${record.version}: ${printable(record.revoked?.reason ?? '')}`);
      return c.json(summary(record, service, options.provider));
    },
    'revoke',
  );

  route(
    'POST',
    '/api/v1/skills/{name}/versions/{version}/review',
    async (c, params, guard) => {
      const body = await readJson(kit, c);
      const record = await service.review(params['name']!, params['version']!, typeof body['status'] === 'string' ? body['status'] : '', guard);
      await options.provider?.refresh();
      if (record.review === 'approved' || record.review === 'rejected')
        kit.audit(c, reviewDecision('api', record.name, record.version, record.review, record.gate?.reviewReason ?? ''));
      event(params, `review of ${record.name}@${record.version}: ${record.review}`);
      return c.json(summary(record, service, options.provider));
    },
    'review',
  );

  // The review queue (ADR 0231): what the caller may review or published and is waiting; approve; reject.
  route(
    'GET',
    '/api/v1/review/pending',
    async (c, _params, guard) => {
      const records = await service.pending(guard);
      return c.json({ pending: records.map((record) => ({ ...summary(record, service, options.provider), findings: record.gate?.findings ?? [] })) });
    },
    'review',
  );

  for (const [verb, decision] of [
    ['approve', 'approved'],
    ['reject', 'rejected'],
  ] as const) {
    route(
      'POST',
      `/api/v1/skills/{name}/versions/{version}/${verb}`,
      async (c, params, guard) => {
        const body = await readJson(kit, c);
        const record = await service.decide(params['name']!, params['version']!, decision, typeof body['reason'] === 'string' ? body['reason'] : '', guard);
        await options.provider?.refresh();
        // Kept in the access store's audit log like the web page's decisions (docs/security.md).
        kit.audit(c, reviewDecision('api', record.name, record.version, decision, record.gate?.reviewReason ?? ''));
        event(params, `${decision} ${record.name}@${record.version}${record.gate?.reviewReason ? `: ${printable(record.gate.reviewReason)}` : ''}`);
        return c.json(summary(record, service, options.provider));
      },
      'review',
    );
  }

  // Any other method on a known path: 405 with the methods it takes.
  for (const [pattern, methods] of allowed) app.all(pattern, () => methodNotAllowed(methods.join(', ')));
}

/** The path's parameters, percent-decoded; a bad escape is a 400 (the router would pass it through raw). */
function pathParams(c: HttpContext): Params {
  const params: Params = {};
  for (const [key, raw] of Object.entries(rawParams(c))) {
    try {
      params[key] = decodeURIComponent(raw);
    } catch {
      throw new RegistryError(400, 'bad_request', `bad percent-encoding in ${key}`);
    }
  }
  return params;
}

/** The path parameters as sent, matched again on the raw path (the router hands out decoded values). */
function rawParams(c: HttpContext): Params {
  const keys: string[] = [];
  const pattern = new RegExp(`^${c.req.routePath.replace(/:(\w+)/g, (_m, key: string) => (keys.push(key), '([^/]+)'))}/?$`);
  const match = pattern.exec(new URL(c.req.url).pathname);
  const params: Params = {};
  keys.forEach((key, index) => (params[key] = match?.[index + 1] ?? ''));
  return params;
}

/** Read routes never write: a guard that lets nothing through, should one be asked. */
const READ_ONLY: WriteGuard = { sees: () => false, may: () => false };

function summary(record: VersionRecord, service: RegistryService, provider: RegistryProvider | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {
    name: record.name,
    version: record.version,
    packageDigest: record.packageDigest,
    size: record.manifest.totalBytes,
    fileCount: record.manifest.files.length,
    publishedAt: record.publishedAt,
    publisher: record.publisher,
    signatures: record.signatures.map((signature) => ({ keyId: signature.keyId, trusted: service.isTrusted(signature) })),
    provenance: record.provenance,
    review: record.review,
  };
  if (record.gate) {
    const { findings: _findings, requestedTags, ...gate } = record.gate;
    out['gate'] = { ...gate, ...(record.review === 'pending' && requestedTags ? { requestedTags } : {}) };
  }
  if (record.yankedAt) out['yankedAt'] = record.yankedAt;
  if (record.revoked) out['revoked'] = record.revoked;
  if (provider) out['uri'] = provider.exactUri(record.name, record.version) || undefined;
  return out;
}

async function readBody(kit: RouteKit, c: HttpContext, limit: number): Promise<Buffer> {
  const declared = Number(c.req.header('content-length'));
  if (Number.isFinite(declared) && declared > limit)
    throw new RegistryError(413, 'too_large', `the upload is ${declared} bytes; this registry takes at most ${limit}`);
  try {
    return await kit.readBody(c, limit);
  } catch (error) {
    if (error instanceof HttpError && error.status === 413) throw new RegistryError(413, 'too_large', `the upload is larger than ${limit} bytes (the limit)`);
    throw error;
  }
}

async function readJson(kit: RouteKit, c: HttpContext): Promise<Record<string, unknown>> {
  const body = await readBody(kit, c, 64 * 1024);
  if (body.byteLength === 0) return {};
  try {
    const value = JSON.parse(body.toString('utf8')) as unknown;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new RegistryError(400, 'bad_request', 'the request body must be a JSON object');
}
