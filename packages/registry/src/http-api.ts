import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBodyLimited } from '@skillport/server';
import type { HttpRoute } from '@skillport/server';
import { blobFiles } from './read-version.js';
import { RegistryError } from './model.js';
import type { VersionRecord } from './model.js';
import { ARCHIVE_MEDIA_TYPE, manifestFor, packSkillArchive } from './package-format.js';
import type { RegistryProvider } from './provider.js';
import type { RegistryService } from './service.js';
import type { WriteAction, WriteAuthorizer } from './auth.js';
import { printable } from './store.js';

/**
 * The registry's JSON API under /api/v1/ (docs/api.md). Reads are open to whoever reaches the server (like MCP);
 * writes go through the WriteAuthorizer before any body is read. Errors are `{"error": {"code", "message"}}`.
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
  canSee?: (req: IncomingMessage, name: string) => boolean;
  /** Told of every write that succeeded, as one line naming what changed and who changed it. */
  onEvent?: (line: string) => void;
}

type Params = Record<string, string>;
type Handler = (req: IncomingMessage, res: ServerResponse, params: Params, query: URLSearchParams) => Promise<void>;

export function registryRoutes(options: ApiOptions): HttpRoute {
  const { service } = options;
  const maxUpload = options.maxUploadBytes ?? service.limits.maxBytes + 4 * 1024 * 1024;
  const routes: Array<{ method: string; pattern: RegExp; keys: string[]; action?: WriteAction; handler: Handler }> = [];
  const route = (method: string, path: string, handler: Handler, action?: WriteAction) => {
    const keys: string[] = [];
    const pattern = new RegExp(`^${path.replace(/\{(\w+)\}/g, (_m, key: string) => (keys.push(key), '([^/]+)'))}/?$`);
    routes.push({ method, pattern, keys, handler, ...(action ? { action } : {}) });
  };

  const canSee = options.canSee ?? (() => true);
  const event = (params: Params, what: string) => options.onEvent?.(`${what} by ${printable(params['principal'] ?? 'anonymous')}`);
  route('GET', '/api/v1/skills', async (req, res) => {
    const names = (await service.store.listNames()).filter((name) => canSee(req, name));
    const skills = [];
    for (const name of names) {
      const tags = Object.fromEntries((await service.store.tags(name)).map((tag) => [tag.tag, tag.version]));
      skills.push({ name, tags });
    }
    send(res, 200, { skills });
  });

  route('GET', '/api/v1/skills/{name}', async (_req, res, params) => {
    const found = await service.versions(params['name']!);
    send(res, 200, { name: found.name, tags: found.tags, versions: found.versions.map((record) => summary(record, service, options.provider)) });
  });

  route('GET', '/api/v1/skills/{name}/versions/{version}', async (_req, res, params) => {
    const record = await service.version(params['name']!, params['version']!);
    send(res, 200, { ...summary(record, service, options.provider), files: record.manifest.files });
  });

  route('GET', '/api/v1/skills/{name}/versions/{version}/archive', async (_req, res, params) => {
    const record = await service.version(params['name']!, params['version']!);
    if (record.revoked) throw new RegistryError(410, 'version_revoked', `${record.name}@${record.version} was revoked on ${record.revoked.at}: ${record.revoked.reason}`);
    const files = await blobFiles(service.store, record);
    const manifest = manifestFor(record.name, files, { version: record.version, provenance: record.provenance, signatures: record.signatures });
    const archive = packSkillArchive(manifest, files);
    res.writeHead(200, { 'content-type': ARCHIVE_MEDIA_TYPE, 'content-length': archive.byteLength, 'content-disposition': `attachment; filename="${record.name}-${record.version}.skill"` });
    res.end(archive);
  });

  route('POST', '/api/v1/skills', async (req, res, params, query) => {
    const body = await readBody(req, maxUpload);
    const tags = query.getAll('tag').flatMap((tag) => tag.split(',')).map((tag) => tag.trim()).filter((tag) => tag !== '');
    const provenance: { repository?: string; commit?: string } = {};
    if (query.get('repository')) provenance.repository = query.get('repository')!;
    if (query.get('commit')) provenance.commit = query.get('commit')!;
    const result = await service.publish({
      archive: body,
      ...(query.get('version') ? { version: query.get('version')! } : {}),
      ...(tags.length > 0 ? { tags } : {}),
      publisher: params['principal']!,
      provenance,
    });
    await options.provider?.refresh();
    if (result.status === 'created') {
      const tagged = result.tags.filter((tag) => tag.version === result.version.version).map((tag) => tag.tag);
      event(params, `published ${result.version.name}@${result.version.version} ${result.version.packageDigest.slice(0, 19)}…${tagged.length ? ` (tags: ${tagged.join(', ')})` : ''}`);
    }
    send(res, result.status === 'created' ? 201 : 200, {
      status: result.status,
      ...summary(result.version, service, options.provider),
      tags: Object.fromEntries(result.tags.map((tag) => [tag.tag, tag.version])),
      files: result.version.manifest.files,
    });
  }, 'publish');

  route('PUT', '/api/v1/skills/{name}/tags/{tag}', async (req, res, params) => {
    const body = await readJson(req);
    if (typeof body['version'] !== 'string') throw new RegistryError(400, 'bad_request', 'send {"version": "<version>"}');
    const tags = await service.tag(params['name']!, body['version'], params['tag']!);
    await options.provider?.refresh();
    event(params, `tagged ${printable(params['name']!)}@${printable(body['version'])} as ${printable(params['tag']!)}`);
    send(res, 200, { name: params['name'], tags: Object.fromEntries(tags.map((tag) => [tag.tag, tag.version])) });
  }, 'tag');

  route('DELETE', '/api/v1/skills/{name}/tags/{tag}', async (_req, res, params) => {
    const tags = await service.untag(params['name']!, params['tag']!);
    await options.provider?.refresh();
    event(params, `removed tag ${printable(params['tag']!)} from ${printable(params['name']!)}`);
    send(res, 200, { name: params['name'], tags: Object.fromEntries(tags.map((tag) => [tag.tag, tag.version])) });
  }, 'tag');

  route('POST', '/api/v1/skills/{name}/versions/{version}/yank', async (_req, res, params) => {
    const record = await service.yank(params['name']!, params['version']!);
    await options.provider?.refresh();
    event(params, `yanked ${record.name}@${record.version}`);
    send(res, 200, summary(record, service, options.provider));
  }, 'yank');

  route('POST', '/api/v1/skills/{name}/versions/{version}/unyank', async (_req, res, params) => {
    const record = await service.unyank(params['name']!, params['version']!);
    await options.provider?.refresh();
    event(params, `unyanked ${record.name}@${record.version}`);
    send(res, 200, summary(record, service, options.provider));
  }, 'yank');

  route('POST', '/api/v1/skills/{name}/versions/{version}/revoke', async (req, res, params) => {
    const body = await readJson(req);
    const record = await service.revoke(params['name']!, params['version']!, typeof body['reason'] === 'string' ? body['reason'] : '');
    await options.provider?.refresh();
    event(params, `revoked ${record.name}@${record.version}: ${printable(record.revoked?.reason ?? '')}`);
    send(res, 200, summary(record, service, options.provider));
  }, 'revoke');

  route('POST', '/api/v1/skills/{name}/versions/{version}/review', async (req, res, params) => {
    const body = await readJson(req);
    const record = await service.review(params['name']!, params['version']!, typeof body['status'] === 'string' ? body['status'] : '');
    await options.provider?.refresh();
    event(params, `review of ${record.name}@${record.version}: ${record.review}`);
    send(res, 200, summary(record, service, options.provider));
  }, 'review');

  return {
    prefix: API_PREFIX,
    async handle(req, res, path) {
      try {
        const url = new URL(req.url ?? '/', 'http://localhost');
        const matching = routes.filter((candidate) => candidate.pattern.test(path));
        if (matching.length === 0) throw new RegistryError(404, 'not_found', `no such API path: ${path.slice(0, 200)} (see docs/api.md)`);
        const found = matching.find((candidate) => candidate.method === req.method);
        if (found === undefined) {
          res.setHeader('allow', matching.map((candidate) => candidate.method).join(', '));
          throw new RegistryError(405, 'method_not_allowed', `${req.method} is not allowed on ${path.slice(0, 200)}`);
        }
        const values = found.pattern.exec(path)!.slice(1);
        const params: Params = {};
        for (const [index, key] of found.keys.entries()) {
          let value: string;
          try {
            value = decodeURIComponent(values[index]!);
          } catch {
            throw new RegistryError(400, 'bad_request', `bad percent-encoding in ${key}`);
          }
          params[key] = value;
        }
        // A hidden name answers like an unpublished one, on reads and writes alike.
        if (params['name'] !== undefined && !canSee(req, params['name'])) {
          req.resume();
          if (params['version'] !== undefined) throw new RegistryError(404, 'version_not_found', `${printable(params['name'])}@${printable(params['version'])} is not published here`);
          throw new RegistryError(404, 'skill_not_found', `no skill named '${printable(params['name'])}' is published here`);
        }
        if (found.action !== undefined) {
          const decision = await options.authorizer.authorizeWrite(req, found.action, params['name'] !== undefined ? { name: params['name'] } : {});
          if (!decision.ok) {
            req.resume();
            throw new RegistryError(decision.status, decision.status === 401 ? 'unauthorized' : decision.status === 503 ? 'writes_disabled' : 'forbidden', decision.message);
          }
          params['principal'] = decision.principal;
        }
        await found.handler(req, res, params, url.searchParams);
      } catch (error) {
        if (res.headersSent) return void res.destroy();
        if (error instanceof RegistryError) return send(res, error.status, { error: { code: error.code, message: error.message } });
        send(res, 500, { error: { code: 'internal', message: `internal error: ${(error as Error).message}` } });
      }
    },
  };
}

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
  if (record.yankedAt) out['yankedAt'] = record.yankedAt;
  if (record.revoked) out['revoked'] = record.revoked;
  if (provider) out['uri'] = provider.exactUri(record.name, record.version) || undefined;
  return out;
}

function send(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
  res.end(body);
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    return Promise.reject(new RegistryError(413, 'too_large', `the upload is ${declared} bytes; this registry takes at most ${limit}`));
  }
  return readBodyLimited(req, limit).then((body) => {
    if (body === undefined) throw new RegistryError(413, 'too_large', `the upload is larger than ${limit} bytes (the limit)`);
    return body;
  });
}

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  const body = await readBody(req, 64 * 1024);
  if (body.byteLength === 0) return {};
  try {
    const value = JSON.parse(body.toString('utf8')) as unknown;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new RegistryError(400, 'bad_request', 'the request body must be a JSON object');
}
