/**
 * A small client for the /api/v1 routes (what the CLI's publish, versions, tag, yank and revoke use). `registry` is
 * the server's base URL (`http://127.0.0.1:3333`; a trailing `/mcp` or `/api/v1` is accepted and dropped).
 */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ApiClientOptions {
  registry: string;
  token?: string;
  fetch?: typeof fetch;
}

export class RegistryClient {
  readonly base: string;
  readonly #token: string | undefined;
  readonly #fetch: typeof fetch;

  constructor(options: ApiClientOptions) {
    let url: URL;
    try {
      url = new URL(options.registry);
    } catch {
      throw new ApiError(0, 'bad_registry', `--registry must be a URL such as http://127.0.0.1:3333 (got ${JSON.stringify(options.registry)})`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ApiError(0, 'bad_registry', `--registry must be an http(s) URL (got ${url.protocol})`);
    url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/(mcp|api\/v1)$/, '');
    url.search = '';
    url.hash = '';
    this.base = url.href.replace(/\/$/, '');
    this.#token = options.token;
    this.#fetch = options.fetch ?? fetch;
  }

  async request<T = Record<string, unknown>>(
    method: string,
    path: string,
    body?: { json?: unknown; bytes?: Uint8Array; contentType?: string },
    query?: URLSearchParams,
  ): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.#token) headers['authorization'] = `Bearer ${this.#token}`;
    let payload: string | Uint8Array | undefined;
    if (body?.json !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body.json);
    } else if (body?.bytes !== undefined) {
      headers['content-type'] = body.contentType ?? 'application/octet-stream';
      payload = body.bytes;
    }
    const url = `${this.base}/api/v1${path}${query && [...query].length > 0 ? `?${query}` : ''}`;
    let response: Response;
    try {
      response = await this.#fetch(url, { method, headers, ...(payload !== undefined ? { body: payload as never } : {}) });
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new ApiError(0, 'unreachable', `cannot reach the registry at ${this.base} (${cause?.code ?? cause?.message ?? (error as Error).message})`);
    }
    const text = await response.text();
    let value: unknown;
    try {
      value = text === '' ? {} : JSON.parse(text);
    } catch {
      throw new ApiError(
        response.status,
        'bad_response',
        `the registry answered ${response.status} with something that is not JSON (is ${this.base} a skillport server?)`,
      );
    }
    if (!response.ok) {
      const error = (value as { error?: { code?: string; message?: string } }).error;
      throw new ApiError(response.status, error?.code ?? 'error', error?.message ?? `HTTP ${response.status}`);
    }
    return value as T;
  }

  publish(archive: Uint8Array, options: { version?: string; tags?: string[]; repository?: string; commit?: string } = {}) {
    const query = new URLSearchParams();
    if (options.version) query.set('version', options.version);
    for (const tag of options.tags ?? []) query.append('tag', tag);
    if (options.repository) query.set('repository', options.repository);
    if (options.commit) query.set('commit', options.commit);
    return this.request('POST', '/skills', { bytes: archive, contentType: 'application/vnd.skillport.skill+gzip' }, query);
  }

  versions(name: string) {
    return this.request('GET', `/skills/${encodeURIComponent(name)}`);
  }

  version(name: string, version: string) {
    return this.request('GET', `/skills/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}`);
  }

  tag(name: string, version: string, tag: string) {
    return this.request('PUT', `/skills/${encodeURIComponent(name)}/tags/${encodeURIComponent(tag)}`, { json: { version } });
  }

  untag(name: string, tag: string) {
    return this.request('DELETE', `/skills/${encodeURIComponent(name)}/tags/${encodeURIComponent(tag)}`);
  }

  yank(name: string, version: string) {
    return this.request('POST', `/skills/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}/yank`);
  }

  unyank(name: string, version: string) {
    return this.request('POST', `/skills/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}/unyank`);
  }

  revoke(name: string, version: string, reason: string) {
    return this.request('POST', `/skills/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}/revoke`, { json: { reason } });
  }

  review(name: string, version: string, status: string) {
    return this.request('POST', `/skills/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}/review`, { json: { status } });
  }

  /** The review queue: versions waiting that the caller may review or published (ADR 0231). */
  pending() {
    return this.request('GET', '/review/pending');
  }

  /** A reviewer's decision: `approve` serves the version and moves its requested tags; `reject` needs a reason. */
  decide(name: string, version: string, decision: 'approve' | 'reject', reason: string) {
    return this.request('POST', `/skills/${encodeURIComponent(name)}/versions/${encodeURIComponent(version)}/${decision}`, { json: { reason } });
  }
}
