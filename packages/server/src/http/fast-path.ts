import type { IncomingMessage, ServerResponse } from 'node:http';
import { classifyInboundRequest } from '@modelcontextprotocol/server';
import type { LocatedFile, SkillsService } from '../mcp/skills-service.js';
import type { PageCache } from './page-cache.js';
import { PLACEHOLDER_TEXT, STREAM_MIN_BYTES, streamedParts, writeStreamed } from './streamed-answer.js';
import type { CacheHint, ServerIdentity } from '../mcp/identity.js';
import { listSkills, listSkillsInput } from '../tools/tools.js';
import { META_AVAILABLE } from '../catalog/model.js';
import { hintFromMeta } from '../mcp/availability.js';
import type { AvailableCapabilities } from '@skillport/core';
import type { ToolOptions } from '../tools/tools.js';

/**
 * The HTTP fast path (ADR 0002). The SDK's `createMcpHandler` builds a server instance, Web Request/Response
 * objects and zod-validated contexts for every request: about 2 ms of CPU, which caps it near 500 requests/s on
 * this class of machine whatever the handler does. The four read-only methods that dominate traffic
 * (`resources/read`, `skills/list`, `skills/get`, `resources/directory/read`) are answered here, from the same
 * SkillsService the SDK path uses, when and only when the request is a plain, well-formed single request whose
 * answer is a success. It answers from the caller's own service (its view of the catalog, its audit trail), so it
 * sees exactly what the SDK path would for that principal. Anything else (other methods, batches, unusual headers or `_meta`, any error) goes to the
 * SDK unchanged, so the SDK stays the one authority on protocol edge cases. A test compares both paths answer for
 * answer.
 *
 * `tools/call` of `list_skills` (a search: the tool agents call most) is answered here too, by the tool's own
 * function with arguments validated by the tool's own schema, when the answer is a success: the SDK's tools/call
 * path (a server instance, Web Request objects, zod validation of the whole message) cost as much as the search
 * itself at 10,000 skills. list_skills records nothing in the audit trail on either path; the tools that do
 * (activate_skill, read_skill_resource) stay with the SDK.
 */
export const MODERN_VERSION = '2026-07-28';
export const LEGACY_VERSIONS = new Set(['2025-11-25', '2025-06-18', '2025-03-26']);
const HOT_METHODS = new Set(['resources/read', 'skills/list', 'skills/get', 'resources/directory/read', 'tools/call']);
/** The tools answered here: read-only, no audit, no session state (tools/tools.ts). */
const HOT_TOOLS = new Set(['list_skills']);
/** The placeholder as JSON.stringify writes it inside an answer. */
const PLACEHOLDER_JSON = JSON.stringify(PLACEHOLDER_TEXT);
const ENVELOPE_KEYS = new Set(['io.modelcontextprotocol/protocolVersion', 'io.modelcontextprotocol/clientInfo', 'io.modelcontextprotocol/clientCapabilities']);

export interface FastPathContext {
  service: SkillsService;
  identity: ServerIdentity;
  cacheHint: CacheHint;
  /** The server's tool options (tools/tools.ts): without them, or with tools off, every tools/call goes to the SDK. */
  tools?: Pick<ToolOptions, 'mode' | 'embeddings'>;
  /** `skills/list` pages, serialised once per snapshot (the caller's view), era, cursor and page size. */
  pages: PageCache;
}

type Era = 'modern' | 'legacy';

interface HotRequest {
  era: Era;
  id: string | number;
  method: string;
  params: Record<string, unknown>;
  /** The host's hint (`_meta` dev.skillport/available): answered here as the SDK path answers it (mcp/availability.ts). */
  hint?: AvailableCapabilities;
}

/** Decides whether a parsed body can take the fast path; undefined means "let the SDK answer". */
export function classify(req: IncomingMessage, body: unknown): HotRequest | undefined {
  const plain = plainMessage(body);
  if (plain === undefined) return undefined;
  const { id, method, args } = plain;

  const accept = header(req, 'accept') ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  if (header(req, 'mcp-session-id') !== undefined || header(req, 'last-event-id') !== undefined) return undefined;
  const version = header(req, 'mcp-protocol-version');
  const meta = args['_meta'];
  if (version === MODERN_VERSION) {
    if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) return undefined;
    // The host's availability hint is ours, not the protocol's: the envelope is checked without it.
    const { [META_AVAILABLE]: _hint, ...envelope } = meta as Record<string, unknown>;
    if (envelope['io.modelcontextprotocol/protocolVersion'] !== MODERN_VERSION) return undefined;
    for (const key of Object.keys(envelope)) if (!ENVELOPE_KEYS.has(key)) return undefined;
    const info = envelope['io.modelcontextprotocol/clientInfo'];
    const caps = envelope['io.modelcontextprotocol/clientCapabilities'];
    if (!isPlainObject(info) || typeof info['name'] !== 'string' || typeof info['version'] !== 'string' || !isPlainObject(caps)) return undefined;
    if (!envelopeAccepted(envelope)) return undefined;
    if (header(req, 'mcp-method') !== method) return undefined;
    if (method === 'resources/read' && header(req, 'mcp-name') !== args['uri']) return undefined;
    if (method === 'tools/call' && header(req, 'mcp-name') !== args['name']) return undefined;
    return withHint({ era: 'modern', id, method, params: args }, meta);
  }
  if (version !== undefined && LEGACY_VERSIONS.has(version)) {
    if (meta !== undefined && !(isPlainObject(meta) && Object.keys(meta).every((key) => key === META_AVAILABLE))) return undefined;
    if (header(req, 'mcp-method') !== undefined || header(req, 'mcp-name') !== undefined) return undefined;
    return withHint({ era: 'legacy', id, method, params: args }, meta);
  }
  return undefined;
}

/** The message checks of `classify`: a plain, well-formed single request of a hot method with params that fit. */
function plainMessage(body: unknown): { id: string | number; method: string; args: Record<string, unknown> } | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const message = body as Record<string, unknown>;
  const { jsonrpc, id, method, params } = message;
  if (jsonrpc !== '2.0' || typeof method !== 'string' || !HOT_METHODS.has(method)) return undefined;
  // A number id must be a safe integer: the SDK refuses 2^53 and beyond (they do not survive JSON.parse intact) as an
  // invalid JSON-RPC message, so such a request goes to it for that answer.
  if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) return undefined;
  for (const key of Object.keys(message)) if (!['jsonrpc', 'id', 'method', 'params'].includes(key)) return undefined;
  const p = params === undefined ? {} : params;
  if (p === null || typeof p !== 'object' || Array.isArray(p)) return undefined;
  const args = p as Record<string, unknown>;
  return paramsFit(method, args) ? { id, method, args } : undefined;
}

/**
 * A 2025-era batch's `resources/read` of a large file, as the parts of its answer (http/legacy-json.ts sends them
 * at the reader's pace): through the SDK each element's answer is built whole (~35 MiB for an 11 MB file) before
 * the batch can send it, so ten clients that never read held ~400 MiB. Only a plain read the fast path would take
 * alone, of a file it would stream; anything else (a small file, an error, an unusual message): undefined, and the
 * SDK answers the element.
 */
export async function batchRead(service: SkillsService, message: unknown): Promise<Iterable<Buffer> | undefined> {
  const plain = plainMessage(message);
  if (plain?.method !== 'resources/read') return undefined;
  const meta = plain.args['_meta'];
  if (meta !== undefined && !(isPlainObject(meta) && Object.keys(meta).every((key) => key === META_AVAILABLE))) return undefined;
  const uri = plain.args['uri'] as string;
  let found;
  try {
    found = await service.readFileBytes(uri);
  } catch {
    return undefined; // the SDK produces the error answer
  }
  if (found === undefined || found.bytes.length < STREAM_MIN_BYTES) return undefined;
  // A read that carries `_meta` (a pending or unreviewed version's SKILL.md) is left to the SDK.
  if (service.readMeta(uri) !== undefined) return undefined;
  service.recordRead(uri, 'ok');
  const { bytes, mimeType, text } = found;
  return streamedParts({ result: { contents: [streamedItem(uri, mimeType, text)] }, jsonrpc: '2.0', id: plain.id }, bytes, text);
}

/** A content item whose text or base64 is streamed in the placeholder's place. */
function streamedItem(uri: string, mimeType: string, text: boolean): Record<string, string> {
  return text ? { uri, mimeType, text: PLACEHOLDER_TEXT } : { uri, mimeType, blob: PLACEHOLDER_TEXT };
}

function withHint(hot: HotRequest, meta: unknown): HotRequest {
  const hint = hintFromMeta(meta);
  return hint === undefined ? hot : { ...hot, hint };
}

/**
 * Whether the SDK accepts a 2026-07-28 `_meta` envelope: its members are checked against the spec's schemas
 * (clientInfo an Implementation, clientCapabilities ClientCapabilities, down to nested members), and a request whose
 * envelope fails gets the SDK's -32602. Asked of the SDK's own classifier, so both paths take exactly the same
 * envelopes; the verdict depends on the envelope alone and a client sends the same one with every request, so it is
 * kept by the envelope's JSON (a bounded map: emptied when full).
 */
const envelopeVerdicts = new Map<string, boolean>();
const ENVELOPE_VERDICTS_MAX = 1024;
/**
 * The envelope's JSON, or for the one a client almost always sends (the protocol version, a clientInfo of a name and
 * a version, no capabilities) a key made of those two strings (the name's length first, so no two pairs share one):
 * the same envelope always gets the same key, and a JSON text never starts with NUL, so the two kinds never meet.
 */
function envelopeKey(envelope: Record<string, unknown>): string {
  const info = envelope['io.modelcontextprotocol/clientInfo'] as Record<string, unknown>;
  const caps = envelope['io.modelcontextprotocol/clientCapabilities'] as Record<string, unknown>;
  let members = 0;
  for (const _ in envelope) members++;
  let infoMembers = 0;
  for (const _ in info) infoMembers++;
  let capMembers = 0;
  for (const _ in caps) capMembers++;
  if (members === 3 && infoMembers === 2 && capMembers === 0 && Object.getPrototypeOf(caps) === Object.prototype) {
    const name = info['name'] as string;
    return `\u0000${name.length}\u0000${name}${info['version'] as string}`;
  }
  return JSON.stringify(envelope);
}

// Only envelopes up to this size are kept: the key is the envelope's JSON, and a request body may be megabytes, so
// 1,024 kept keys must not become gigabytes (a real client's envelope is a few hundred bytes).
const ENVELOPE_KEY_MAX_CHARS = 4096;

function envelopeAccepted(envelope: Record<string, unknown>): boolean {
  const key = envelopeKey(envelope);
  let verdict = envelopeVerdicts.get(key);
  if (verdict === undefined) {
    const outcome = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: MODERN_VERSION,
      mcpMethodHeader: 'ping',
      body: { jsonrpc: '2.0', id: 0, method: 'ping', params: { _meta: envelope } },
    });
    verdict = outcome.kind === 'modern' && outcome.classification.revision === MODERN_VERSION;
    if (key.length > ENVELOPE_KEY_MAX_CHARS) return verdict;
    if (envelopeVerdicts.size >= ENVELOPE_VERDICTS_MAX) envelopeVerdicts.clear();
    envelopeVerdicts.set(key, verdict);
  }
  return verdict;
}

// 64 MiB by default: the pages of 100,000 skills are ~142 MB (992 pages of ~143 KB), so a walk of every page misses
// every time and each is serialised again (60 % of the time in the profile of that walk, docs/benchmarks.md); a
// larger budget serves them all as bytes at the cost of that much memory (`ServerOptions.pageCacheMb`).
export const PAGE_CACHE_MB = 64;

/** Answers a hot request, or returns false (nothing written) when the SDK should answer it. */
export async function answer(ctx: FastPathContext, hot: HotRequest, res: ServerResponse): Promise<boolean> {
  if (hot.method === 'skills/list') return answerList(ctx, hot, res);
  if (hot.method === 'tools/call') return answerTool(ctx, hot, res);
  if (hot.method === 'resources/read') return answerRead(ctx, hot, res);
  const result = await compute(ctx, hot);
  if (result === undefined) return false;
  // One message answers one request: plain JSON in both eras, as the SDK path answers it (http/legacy-json.ts).
  const json = JSON.stringify({ result: wrap(ctx, hot, result), jsonrpc: '2.0', id: hot.id });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
  res.end(json);
  return true;
}

/**
 * A resources/read: a small file's answer written whole; a large one's streamed at the reader's pace, its content
 * encoded a window at a time from the file's shared verified bytes (http/streamed-answer.ts), so a client that
 * reads slowly or never holds a window, not the whole answer. The URI is looked up once for the bytes, the `_meta`
 * and the audit record; a hot text file (its bytes and JSON string cached) is answered in the same tick.
 */
async function answerRead(ctx: FastPathContext, hot: HotRequest, res: ServerResponse): Promise<boolean> {
  const { service } = ctx;
  const uri = hot.params['uri'] as string;
  let located: LocatedFile | undefined;
  try {
    located = service.locate(uri);
  } catch {
    return false; // the SDK path produces the error answer
  }
  if (located === undefined) return false;
  // What a pending or unreviewed version's SKILL.md read carries (mcp/server-factory.ts adds it on the SDK path).
  const meta = service.readMetaOf(located);
  const { file } = located.found;
  if (meta === undefined && file !== located.found.skill.artifact && file.size < STREAM_MIN_BYTES) {
    const cached = service.options.content.cachedText(file.digest);
    if (cached !== undefined) {
      service.recordReadOf(uri, located.file, 'ok');
      writeText(ctx, hot, res, uri, file.mimeType, cached.json);
      return true;
    }
  }
  let found;
  try {
    found = await service.readLocated(located);
  } catch {
    return false; // the SDK path produces the error answer
  }
  const { bytes, mimeType, text } = found;
  if (meta !== undefined && bytes.length >= STREAM_MIN_BYTES) return false;
  const marked = meta === undefined ? {} : { _meta: meta };
  service.recordReadOf(uri, located.file, 'ok');
  if (bytes.length < STREAM_MIN_BYTES) {
    if (text) {
      // The text's JSON string is made once while the file is cached (catalog/content.ts), and put where the
      // placeholder is: the same bytes JSON.stringify of the whole answer makes, without escaping the file again.
      const escaped = service.options.content.servedForm(found.digest, bytes, true).json!;
      if (meta === undefined) {
        writeText(ctx, hot, res, uri, mimeType, escaped);
        return true;
      }
      const json = JSON.stringify({ result: wrap(ctx, hot, { contents: [{ uri, mimeType, text: PLACEHOLDER_TEXT, ...marked }] }), jsonrpc: '2.0', id: hot.id });
      const at = json.indexOf(PLACEHOLDER_JSON);
      writeParts(res, [Buffer.from(json.slice(0, at)), escaped, Buffer.from(json.slice(at + PLACEHOLDER_JSON.length))]);
      return true;
    }
    const json = JSON.stringify({
      result: wrap(ctx, hot, { contents: [{ uri, mimeType, blob: bytes.toString('base64'), ...marked }] }),
      jsonrpc: '2.0',
      id: hot.id,
    });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
    res.end(json);
    return true;
  }
  await writeStreamed(res, { result: wrap(ctx, hot, { contents: [streamedItem(uri, mimeType, text)] }), jsonrpc: '2.0', id: hot.id }, bytes, text);
  return true;
}

/**
 * A text file's read answer without `_meta`: the JSON around its content is the same for every file but for the
 * URI, the media type and the id, so it is cut once per era and server identity (`readTemplate`) and filled in
 * with their JSON strings: the bytes JSON.stringify of the whole answer makes (a test compares both).
 */
function writeText(ctx: FastPathContext, hot: HotRequest, res: ServerResponse, uri: string, mimeType: string, escaped: Buffer): void {
  const template = readTemplate(ctx, hot);
  const head = Buffer.from(`${template.head}${JSON.stringify(uri)}${template.afterUri}${JSON.stringify(mimeType)}${template.afterMime}`);
  const tail = Buffer.from(`${template.afterText}${JSON.stringify(hot.id)}}`);
  writeParts(res, [head, escaped, tail]);
}

/** A whole answer from its parts: one writev (node:http corks the socket until the next tick), no copy of the parts. */
function writeParts(res: ServerResponse, parts: Buffer[]): void {
  let length = 0;
  for (const part of parts) length += part.length;
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': length });
  for (let at = 0; at < parts.length - 1; at++) res.write(parts[at]);
  res.end(parts[parts.length - 1]);
}

interface ReadTemplate {
  /** Up to the URI's JSON string. */
  head: string;
  /** Between the URI and the media type. */
  afterUri: string;
  /** Between the media type and the text. */
  afterMime: string;
  /** After the text, up to the id. */
  afterText: string;
}

/** Templates by the identity and cache hint they were cut with, then by era. */
const readTemplates = new WeakMap<ServerIdentity, WeakMap<CacheHint, Map<Era, ReadTemplate>>>();
const TEMPLATE_URI = '\u0000skillport-uri\u0000';
const TEMPLATE_MIME = '\u0000skillport-mime\u0000';

function readTemplate(ctx: FastPathContext, hot: HotRequest): ReadTemplate {
  let byHint = readTemplates.get(ctx.identity);
  if (byHint === undefined) readTemplates.set(ctx.identity, (byHint = new WeakMap()));
  let byEra = byHint.get(ctx.cacheHint);
  if (byEra === undefined) byHint.set(ctx.cacheHint, (byEra = new Map()));
  let template = byEra.get(hot.era);
  if (template === undefined) {
    // The id 0 is the last member: what follows `"id":` is the id and the closing brace.
    const json = JSON.stringify({
      result: wrap(ctx, hot, { contents: [{ uri: TEMPLATE_URI, mimeType: TEMPLATE_MIME, text: PLACEHOLDER_TEXT }] }),
      jsonrpc: '2.0',
      id: 0,
    });
    const uriAt = json.indexOf(JSON.stringify(TEMPLATE_URI));
    const mimeAt = json.indexOf(JSON.stringify(TEMPLATE_MIME), uriAt);
    const textAt = json.indexOf(PLACEHOLDER_JSON, mimeAt);
    if (uriAt < 0 || mimeAt < 0 || textAt < 0 || !json.endsWith('"id":0}')) throw new Error('the read answer template lost a placeholder');
    template = {
      head: json.slice(0, uriAt),
      afterUri: json.slice(uriAt + JSON.stringify(TEMPLATE_URI).length, mimeAt),
      afterMime: json.slice(mimeAt + JSON.stringify(TEMPLATE_MIME).length, textAt),
      afterText: json.slice(textAt + PLACEHOLDER_JSON.length, json.length - '0}'.length),
    };
    byEra.set(hot.era, template);
  }
  return template;
}

/**
 * A 2026-era result as the SDK writes it, members in the SDK's order so the bytes are the same: the skills
 * extension's methods carry their cache hint before `resultType`, resources/read after it.
 */
function wrap(ctx: FastPathContext, hot: HotRequest, result: Record<string, unknown>): Record<string, unknown> {
  if (hot.era !== 'modern') return result;
  const serverInfo = { 'io.modelcontextprotocol/serverInfo': ctx.identity };
  return hot.method === 'resources/read'
    ? { ...result, resultType: 'complete', ttlMs: ctx.cacheHint.ttlMs, cacheScope: ctx.cacheHint.cacheScope, _meta: serverInfo }
    : { ...result, ttlMs: ctx.cacheHint.ttlMs, cacheScope: ctx.cacheHint.cacheScope, resultType: 'complete', _meta: serverInfo };
}

/**
 * A `skills/list` page from bytes made once for this snapshot: everything of the answer but the request id, which
 * is the last member, so the cached prefix is followed by the id and `}` (the same bytes JSON.stringify makes).
 */
function answerList(ctx: FastPathContext, hot: HotRequest, res: ServerResponse): boolean {
  const { service } = ctx;
  const snapshot = service.snapshot;
  const cursor = hot.params['cursor'] as string | undefined;
  // No cursor and an empty one are different requests (the first page; an invalid cursor): `-` or `+cursor`.
  // A hinted page differs only in the availability of skills with requirements: kept apart by the hint's text.
  const hinted = hot.hint === undefined ? '' : `\u0000${JSON.stringify(hot.hint)}`;
  const key = `${hot.era}\u0000${service.options.pageSize}\u0000${ctx.cacheHint.ttlMs}\u0000${ctx.cacheHint.cacheScope}\u0000${ctx.identity.name}\u0000${ctx.identity.version}\u0000${cursor === undefined ? '-' : `+${cursor}`}${hinted}`;
  const prefix = ctx.pages.get(snapshot, key, () => {
    let result: Record<string, unknown>;
    try {
      result = service.listSkillsOf(snapshot, cursor, hot.hint);
    } catch {
      return undefined; // the SDK path produces the error answer
    }
    const json = JSON.stringify({ result: wrap(ctx, hot, result), jsonrpc: '2.0', id: 0 });
    return json.slice(0, json.length - '0}'.length);
  });
  if (prefix === undefined) return false;
  const tail = Buffer.from(`${JSON.stringify(hot.id)}}`);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': prefix.length + tail.length });
  // One writev of both (as in answerRead): no copy of the page (~143 KB at 100,000 skills) per answer.
  res.write(prefix);
  res.end(tail);
  return true;
}

/**
 * A `tools/call` of a hot tool, answered as the SDK's McpServer answers it when the tool succeeds: the tool's result
 * as is (its text content and structuredContent), plus in the 2026 era `resultType` and the server's identity
 * (no cache hint: the SDK gives tools/call none). Invalid arguments, a refusal (`isError`) or a throw: the SDK answers.
 */
async function answerTool(ctx: FastPathContext, hot: HotRequest, res: ServerResponse): Promise<boolean> {
  const mode = ctx.tools?.mode;
  if (mode === undefined || mode === 'none' || hot.params['name'] !== 'list_skills') return false;
  const parsed = listSkillsInput.safeParse(hot.params['arguments'] ?? {});
  if (!parsed.success) return false;
  const { service } = ctx;
  let result;
  try {
    result = await listSkills(service, service.snapshot, parsed.data, ctx.tools?.embeddings, parsed.data.available ?? hot.hint);
  } catch {
    return false;
  }
  if (result.isError) return false;
  const body = hot.era === 'modern' ? { ...result, resultType: 'complete', _meta: { 'io.modelcontextprotocol/serverInfo': ctx.identity } } : result;
  const json = JSON.stringify({ result: body, jsonrpc: '2.0', id: hot.id });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(json) });
  res.end(json);
  return true;
}

async function compute(ctx: FastPathContext, hot: HotRequest): Promise<Record<string, unknown> | undefined> {
  const { service } = ctx;
  const cursor = hot.params['cursor'] as string | undefined;
  const uri = hot.params['uri'] as string;
  try {
    switch (hot.method) {
      case 'skills/get': {
        const skill = service.getSkill(uri, hot.hint);
        return skill === undefined || skill.uri !== uri ? undefined : { skill };
      }
      case 'resources/directory/read':
        return service.readDirectory(uri, cursor);
    }
  } catch {
    return undefined; // the SDK path produces the error answer
  }
  return undefined;
}

function paramsFit(method: string, params: Record<string, unknown>): boolean {
  if (method === 'tools/call') {
    for (const key of Object.keys(params)) if (!['_meta', 'name', 'arguments'].includes(key)) return false;
    const args = params['arguments'];
    return typeof params['name'] === 'string' && HOT_TOOLS.has(params['name']) && (args === undefined || isPlainObject(args));
  }
  const allowed = method === 'skills/list' ? ['_meta', 'cursor'] : method === 'resources/directory/read' ? ['_meta', 'uri', 'cursor'] : ['_meta', 'uri'];
  for (const key of Object.keys(params)) if (!allowed.includes(key)) return false;
  if ('cursor' in params && typeof params['cursor'] !== 'string') return false;
  if (method !== 'skills/list') {
    const uri = params['uri'];
    // Only URIs already in canonical form: anything the SDK might normalise differently is left to it.
    if (typeof uri !== 'string' || !isCanonical(uri)) return false;
  }
  return true;
}

/**
 * Verdicts of `isCanonical` by URI: a client reads the same files again and again, and each verdict parses a URL.
 * Bounded (emptied when full; long URIs are judged each time), so what is kept stays a few hundred KB.
 */
const canonicalVerdicts = new Map<string, boolean>();
const CANONICAL_VERDICTS_MAX = 4096;
const CANONICAL_KEY_MAX_CHARS = 512;

function isCanonical(uri: string): boolean {
  const known = canonicalVerdicts.get(uri);
  if (known !== undefined) return known;
  let verdict: boolean;
  try {
    verdict = new URL(uri).href === uri && !uri.includes('#') && !uri.includes('?');
  } catch {
    verdict = false;
  }
  if (uri.length <= CANONICAL_KEY_MAX_CHARS) {
    if (canonicalVerdicts.size >= CANONICAL_VERDICTS_MAX) canonicalVerdicts.clear();
    canonicalVerdicts.set(uri, verdict);
  }
  return verdict;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
