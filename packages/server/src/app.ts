import { gateFor } from './access/gate-policy.js';
import { globToRegExp } from './access/policy.js';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { resolveLimits } from '@skillport/core';
import type { FolderProblem, SkillLimits } from '@skillport/core';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import type { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { GuardedTransport } from './mcp/request-screen.js';
import { screenedStdin } from './mcp/stdio-lines.js';
import { GatedStdioTransport, StdioBackpressure } from './mcp/stdio-backpressure.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import type { StdioServerHandle } from '@modelcontextprotocol/server/stdio';
import { CONTENT_CACHE_MB, ContentReader } from './catalog/content.js';
import { normaliseRoot, rootProblem } from './catalog/folder-scan.js';
import type { FolderRoot } from './catalog/folder-scan.js';
import { firstPageBudget } from './catalog/first-page.js';
import { EarlyScan } from './catalog/parallel-scan.js';
import { CompositeCatalog } from './catalog/composite-catalog.js';
import type { SkillProvider } from './catalog/composite-catalog.js';
import { LiveCatalog } from './catalog/live-catalog.js';
import type { CatalogChanges } from './catalog/live-catalog.js';
import type { ScanProgress } from './catalog/parallel-scan.js';
import type { HttpOptions, RunningHttpServer } from './http/http-server.js';
import type { HttpRoutes, PublicRoutes } from './http/routes.js';
import { ServerError } from './errors.js';
import type { PluginParts, ServerPlugin } from './plugin.js';
import { McpFactory } from './mcp/server-factory.js';
import type { CacheHint, ServerIdentity } from './mcp/identity.js';
import { SkillsService } from './mcp/skills-service.js';
import { SERVER_VERSION } from './version.js';
import { collectGarbage } from './memory.js';
import { AccessConfigError, AccessControl } from './access/access-control.js';
import type { AccessOptions } from './access/access-control.js';
import type { Principal } from './access/principal.js';
import { ScopedServices, viewChanged } from './mcp/scoped.js';
import type { Scoped } from './mcp/scoped.js';
import type { CatalogSnapshot } from './catalog/snapshot.js';
import { DEFAULT_TOOL_OPTIONS, buildInstructions } from './tools/tools.js';
import type { ToolOptions } from './tools/tools.js';
import { parseTemplate } from './tools/templates.js';
import { decideFastPath } from './tools/asm/fast-path.js';
import type { TemplateFamily } from './tools/templates.js';
import { catalogSearch } from './search/catalog-search.js';
import { Activity } from './activity.js';
import type { CatalogSearch } from './search/catalog-search.js';

export interface SkillportServerOptions {
  /** Folders to serve: a skill folder, a folder of skills, or a tree of them. */
  dirs: string[];
  /** Whether catalogs for a model list skills whose requirements are unmet (`--unmet`; the policy's `unmet` wins). Default `list`. */
  unmet?: 'list' | 'omit';
  /** Scan a skill without a registry scan (folders, git) when it is activated, and tell the model (`<skill_scan>`). Default true. */
  scan?: boolean;
  /** Everything goes under `skill://<prefix>/`. */
  prefix?: string;
  limits?: Partial<SkillLimits>;
  /** Refuse to start when any skill has a problem (instead of serving leniently). */
  strict?: boolean;
  pageSize?: number;
  /**
   * A cold start over HTTP answers its first `skills/list` page once the folders that decide it are read, before
   * the whole scan (ADR 0276); every other request waits for the whole catalog. Not with `strict`.
   */
  firstPageEarly?: boolean;
  /**
   * `watch` will be called: a restored catalog's folders start being watched as soon as it is read (on a worker when
   * many), beside the rest of the start, instead of when `watch` is called.
   */
  watchEarly?: boolean;
  cacheHint?: Partial<CacheHint>;
  /** Where the persistent digest cache lives; `false` turns it off. Default: the user cache folder. */
  cacheDir?: string | false;
  /**
   * Bytes of verified file content and its served forms kept in memory (LRU by digest; default 64 MiB,
   * `CONTENT_CACHE_MB`). `contentCacheMb` says the same in whole MiB (SKILLPORT_CONTENT_CACHE_MB); bytes win.
   */
  contentCacheBytes?: number;
  contentCacheMb?: number;
  /** How long one file read may take before its request is answered with the retryable -32012 (default 30 s). */
  fileReadLimitMs?: number;
  identity?: Partial<ServerIdentity>;
  /** Worker threads for full scans (0: scan on the main thread). Default: up to 2 for a cold start, then 1 (live-catalog.ts). */
  scanThreads?: number;
  /** Told as the first full scan of the folders goes (a progress line on a terminal). */
  onScanProgress?: (progress: ScanProgress) => void;
  /** Replace the generated server instructions. */
  instructions?: string;
  /** Add the compact `<available_skills>` catalog to the generated instructions. */
  instructionsCatalog?: boolean;
  /** The tool surface (`none`, `core`, `full`) and its limits. */
  tools?: Partial<ToolOptions>;
  /** Serve each skill as an MCP prompt (default true). */
  prompts?: boolean;
  /** Serve the draft-era discovery index `skill://index.json` (default true). */
  index?: boolean;
  /** List skills that came as archives as `archive` entries in that index (default true; ADR 0010). */
  indexArchives?: boolean;
  /** Template skill families: `{uriTemplate: 'skill://docs/{product}/SKILL.md', dir, description?}`. */
  templates?: Array<{ uriTemplate: string; dir: string; description?: string }>;
  /** Skills from elsewhere (a registry, archives, a remote host), served beside the folders' (folders win a URI clash). */
  providers?: SkillProvider[];
  /** Identity, visibility and audit (docs/security.md): auth mode, data folder, policy, stdio principal. */
  access?: AccessOptions;
  /** Parts that plug into the server (the registry of `serve --data`): their providers, routes, health, close. */
  plugins?: ServerPlugin[];
  /** Extra HTTP routes beside /mcp (a web catalog at /), mounted on the router by serveHttp (http/routes.ts). */
  routes?: HttpRoutes[];
  /** Routes answered before authentication, which check their callers themselves (the git webhook). */
  publicRoutes?: PublicRoutes[];
  /** Extra JSON for GET /healthz. */
  health?: () => Record<string, unknown>;
  /** GET /readyz: whether this server is ready for traffic (a registry replica: caught up with its database). */
  ready?: () => Promise<{ ready: boolean; reason?: string }>;
  onProblem?: (problem: FolderProblem) => void;
  onChange?: (changes: CatalogChanges) => void;
  /** Told after a policy edit or a token change took effect. */
  onAccessChange?: (what: 'policy' | 'tokens') => void;
  /**
   * Until the first search, the search index is built only after this much quiet (ms without a request in flight
   * or started; default 250, ADR 0151), so that a server nobody searches never makes its readers wait for it.
   */
  searchIdleMs?: number;
  /** Worker threads that read and analyse a large batch for the search index (0: none; default one per core but one, ADR 0261). */
  searchWorkers?: number;
  /** Frontmatter fields the folders' skills may carry without a warning (`serve --allow-field`). */
  allowFields?: readonly string[];
  /** The budget of the HTTP fast path's cache of serialised `skills/list` pages, in MiB (0: no cache; default 64). */
  pageCacheMb?: number;
  /** false: search ranks lexically, without the bundled word vectors (default: with them when installed). */
  searchWordVectors?: boolean;
  /**
   * Watches held before folders inside skills are swept instead of watched (default: half the user's inotify
   * watches; folders outside skills and skill folders are always watched: catalog/tree-watcher.ts, ADR 0252).
   */
  watchLimit?: number;
  /**
   * A search of a catalog of at most this many skills waits for the index still being built at start, up to
   * `searchWaitMs` (defaults: search/catalog-search.ts, WAIT_MAX_SKILLS and WAIT_MS); a larger catalog is answered
   * from what is indexed, saying how much and when to ask again.
   */
  searchWaitMaxSkills?: number;
  searchWaitMs?: number;
  /** GET /readyz also waits for the search index to be complete (`serve --ready-when search`). */
  readyWhenSearch?: boolean;
}

/** The server cannot start: a bad configuration, a missing folder, a URI conflict, a plugin that failed to open. */
export class StartupError extends ServerError {
  override name = 'StartupError';
  constructor(
    message: string,
    readonly problems: FolderProblem[] = [],
  ) {
    super('startup', message);
  }
}

/**
 * One skillport server: a live catalog over the given folders, the skills service over it, and the MCP factory;
 * serve it over stdio, Streamable HTTP, or both.
 */
export class SkillportServer {
  /** Everything served: the folders' live catalog merged with the providers'. */
  readonly catalog: CompositeCatalog;
  readonly service: SkillsService;
  readonly factory: McpFactory;
  readonly identity: ServerIdentity;
  readonly cacheHint: CacheHint;
  readonly tools: ToolOptions;
  /** Who may see what, and the audit trail. */
  readonly access: AccessControl;
  /** Per-principal services (views of the catalog). */
  readonly scopes: ScopedServices;
  #instructions = new WeakMap<CatalogSnapshot, Promise<string>>();
  /** asm's single-skill fast path: decided at the first connection (the catalog is loaded by then), then kept. */
  #asmFastPath: Promise<{ uri: string } | undefined> | undefined;
  #options: SkillportServerOptions;
  #http: RunningHttpServer[] = [];
  #plugins: PluginParts[];
  #stdio: StdioServerHandle[] = [];
  /** Requests being answered (HTTP) and messages (stdio): background work waits for quiet (activity.ts). */
  readonly activity = new Activity();
  #search: CatalogSearch;

  private constructor(options: SkillportServerOptions, catalog: CompositeCatalog, templates: TemplateFamily[], access: AccessControl, plugins: PluginParts[]) {
    this.#options = options;
    this.#plugins = plugins;
    this.catalog = catalog;
    this.access = access;
    this.identity = { name: options.identity?.name ?? 'skillport', version: options.identity?.version ?? SERVER_VERSION };
    // Answers differ by caller once access is restricted: no shared cache may keep one caller's answer for another.
    this.cacheHint = { ttlMs: options.cacheHint?.ttlMs ?? 10_000, cacheScope: access.restricted ? 'private' : (options.cacheHint?.cacheScope ?? 'public') };
    const content = new ContentReader(
      options.contentCacheBytes ?? Math.max(0, options.contentCacheMb ?? CONTENT_CACHE_MB) * 1024 * 1024,
      undefined,
      options.fileReadLimitMs !== undefined ? { readLimitMs: options.fileReadLimitMs } : {},
    );
    // Only a folder file is rescanned; a stored origin's bytes never change under the same digest.
    const onStale = (source: string) => {
      if (isAbsolute(source)) void this.catalog.live.reload([source]);
    };
    /** The whole catalog, unfiltered: for the server's own use (health), never for answering a caller. */
    this.service = new SkillsService({ snapshot: () => this.catalog.snapshot, content, pageSize: options.pageSize ?? 100, onStale });
    this.scopes = new ScopedServices({
      catalog: () => this.catalog.snapshot,
      access,
      content,
      pageSize: options.pageSize ?? 100,
      cacheHint: this.cacheHint,
      onStale,
      ...(options.unmet !== undefined ? { unmet: options.unmet } : {}),
      ...(options.scan === false ? { scan: false } : {}),
    });
    this.tools = { ...DEFAULT_TOOL_OPTIONS, ...options.tools };
    const prompts = options.prompts ?? true;
    this.factory = new McpFactory({
      scoped: (principal) => this.scopes.for(principal),
      principal: access.configured,
      identity: this.identity,
      cacheHint: this.cacheHint,
      instructions: (service) => this.#instructionsFor(service),
      tools: this.tools,
      asmFastPath: () => (this.#asmFastPath ??= decideFastPath(this.service, this.tools.asmInlineMaxTokens)),
      prompts,
      index: options.index ?? true,
      indexArchives: options.indexArchives ?? true,
      templates,
      pageSize: options.pageSize ?? 100,
    });
    // One search index for the server, shared by every view: built in the background from the start, then kept
    // up to date skill by skill as the catalog changes (search/catalog-search.ts).
    const search = catalogSearch(this.service);
    search.pace(this.activity, options.searchIdleMs);
    // The watches' first walk of a large tree (after a warm restart: seconds of readdir) yields to requests too.
    catalog.live.pace(this.activity);
    search.configure({
      ...(options.searchWaitMaxSkills !== undefined ? { waitMaxSkills: options.searchWaitMaxSkills } : {}),
      ...(options.searchWaitMs !== undefined ? { waitMs: options.searchWaitMs } : {}),
      ...(options.searchWordVectors === false ? { wordVectors: false } : {}),
      ...(options.searchWorkers !== undefined ? { workers: options.searchWorkers } : {}),
      log: (message) => options.onProblem?.({ severity: 'warning', message, path: '' }),
    });
    this.#search = search;
    // After an early first page, the index starts from the whole catalog (the swap to it may change nothing).
    setImmediate(() => void catalog.live.complete.then(() => search.follow(this.catalog.snapshot)).catch(() => {}));
    catalog.onChange((changes) => {
      search.follow(this.catalog.snapshot);
      this.#announce();
      options.onChange?.(changes);
    });
    // Private skills (held versions for their publishers and reviewers) change without the catalog changing.
    for (const parts of plugins) {
      if (parts.privateSkills === undefined) continue;
      access.views.addPrivate(parts.privateSkills);
      parts.privateSkills.onChange?.(() => this.#announce());
    }
    access.onChange((what) => {
      if (what === 'tokens') void this.#dropRevoked().catch(() => undefined);
      this.#announce();
      options.onAccessChange?.(what);
    });
  }

  /**
   * Tells the sessions whose view changed (a catalog change, a policy edit) that their lists changed, and no one
   * else: a session must not learn from a notification that something it cannot see has changed.
   */
  #announce(): void {
    const live = new Set<Scoped>(this.factory.liveScopes());
    for (const http of this.#http) for (const entry of http.handlers()) live.add(entry.scoped);
    const affected = new Set<Scoped>();
    for (const scoped of live) if (viewChanged(scoped, this.access)) affected.add(scoped);
    if (affected.size === 0) return;
    this.factory.notifyListChanged((scoped) => affected.has(scoped));
    for (const http of this.#http) {
      for (const entry of http.handlers()) {
        if (!affected.has(entry.scoped)) continue;
        entry.handler.notify.resourcesChanged();
        if (this.tools.mode !== 'none') entry.handler.notify.toolsChanged();
        if (this.#options.prompts ?? true) entry.handler.notify.promptsChanged();
      }
    }
  }

  /** A revoked (or expired) token's open streams are told their lists changed, then closed: its next request gets 401. */
  async #dropRevoked(): Promise<void> {
    for (const http of this.#http) {
      for (const entry of http.handlers()) {
        if (await this.access.stillValid(entry.scoped.principal)) continue;
        entry.handler.notify.resourcesChanged();
        entry.handler.notify.toolsChanged();
        this.scopes.drop(entry.key);
        setTimeout(() => void http.drop(entry.key), 100).unref();
      }
    }
  }

  static async open(options: SkillportServerOptions): Promise<SkillportServer> {
    let families: TemplateFamily[];
    try {
      families = (options.templates ?? []).map((template) => parseTemplate(template.uriTemplate, template.dir, template.description));
    } catch (error) {
      throw new StartupError((error as Error).message);
    }
    // The first page's pass starts now, beside opening the access store and the plugins (their SQLite, their modules).
    const early = SkillportServer.#earlyPage(options, families);
    let access: AccessControl;
    try {
      // Checked before the scan: a bad --auth/--policy/--data should not cost a long scan first.
      access = await AccessControl.open(options.access);
    } catch (error) {
      early?.scan.cancel();
      if (error instanceof AccessConfigError) throw new StartupError(error.message);
      throw error;
    }
    const plugins: PluginParts[] = [];
    // The catalog is built after the plugins are set up: a skill requiring a scope is checked once it exists.
    let current: (() => CatalogSnapshot) | undefined;
    const canSee = (principal: Principal, name: string, uri: string) => {
      if (!access.views.allows(principal, name, uri)) return false;
      const listed = current?.().skill(uri);
      return listed === undefined || access.views.scopesAllow(principal, listed);
    };
    try {
      for (const plugin of options.plugins ?? []) {
        try {
          plugins.push(
            await plugin.setup({
              canSee,
              writeGrants: (principal, name, uri) => access.views.writeGrants(principal, name, uri),
              authenticated: access.auth !== 'none',
              gate: (publisher, name, uri) => gateFor(access.views.policy.gate, publisher, name, uri, globToRegExp),
              visibleSkills: (principal) =>
                (current?.().skills ?? [])
                  .filter((skill) => principal === undefined || canSee(principal, skill.name, skill.uri))
                  .map((skill) => ({ name: skill.name, description: skill.description })),
            }),
          );
        } catch (error) {
          throw new StartupError((error as Error).message);
        }
      }
      const server = await SkillportServer.#open(options, families, access, plugins, early);
      current = () => server.catalog.snapshot;
      return server;
    } catch (error) {
      // No worker of the early scan may outlive a start that failed (a library caller's process could not exit).
      early?.scan.cancel();
      await Promise.all(plugins.map((parts) => parts.close?.()));
      await access.close();
      throw error;
    }
  }

  /** The folders served: each given folder under the prefix, and each template family's under its fixed segments. */
  static #roots(options: SkillportServerOptions, families: TemplateFamily[]): FolderRoot[] {
    return [...options.dirs.map((dir) => normaliseRoot(dir, options.prefix)), ...families.map((family) => normaliseRoot(family.dir, family.prefix.join('/')))];
  }

  /**
   * The cold scan with its early first page (ADR 0276) started before the access store and the plugins open, when
   * this start will be cold: no persisted catalog of these folders to restore. Undefined otherwise (LiveCatalog
   * starts it itself when the restore fails); only the LiveCatalog given the same roots and digest cache uses it.
   */
  static #earlyPage(options: SkillportServerOptions, families: TemplateFamily[]): { roots: FolderRoot[]; scan: EarlyScan } | undefined {
    if (!options.firstPageEarly || options.strict || options.scanThreads === 0) return undefined;
    let roots: FolderRoot[];
    try {
      roots = SkillportServer.#roots(options, families);
    } catch {
      return undefined; // a bad prefix: #open says so
    }
    if (roots.length === 0 || roots.some((root) => rootProblem(root.dir) !== undefined)) return undefined;
    if (
      options.cacheDir !== false &&
      existsSync(
        cacheFiles(
          options.cacheDir,
          roots.map((root) => root.dir),
        ).catalog,
      )
    )
      return undefined;
    const pageSize = options.pageSize ?? 100;
    // The digest cache #open will use (it decides again, and starts its own scan if that differs).
    const cacheDir = typeof options.cacheDir === 'string' ? options.cacheDir : defaultCacheDir();
    const digests =
      options.cacheDir === false || cacheDirProblem(cacheDir) !== undefined
        ? undefined
        : cacheFiles(
            options.cacheDir,
            roots.map((root) => root.dir),
          ).digests;
    const scan = new EarlyScan(roots, digests, {
      limits: resolveLimits(options.limits),
      shards: options.scanThreads ?? Math.min(2, availableParallelism()),
      pageSize,
      maxInspected: firstPageBudget(pageSize),
      allowFields: options.allowFields,
      onProgress: options.onScanProgress,
    });
    return { roots, scan };
  }

  static async #open(
    options: SkillportServerOptions,
    families: TemplateFamily[],
    access: AccessControl,
    plugins: PluginParts[],
    early?: { roots: FolderRoot[]; scan: EarlyScan },
  ): Promise<SkillportServer> {
    const providers = [...plugins.flatMap((parts) => parts.providers ?? []), ...(options.providers ?? [])];
    if (options.dirs.length === 0 && families.length === 0 && providers.length === 0) throw new StartupError('no skill folders given');
    // A template family's folder is served like any other, under the template's fixed segments.
    const roots = early?.roots ?? SkillportServer.#roots(options, families);
    // Decided from the disk before anything else (and before a persisted catalog could answer for a missing folder).
    const missing = roots.map((root) => rootProblem(root.dir)).filter((problem) => problem !== undefined);
    if (missing.length > 0) throw new StartupError(missing.map((problem) => problem.message).join('; '), missing);
    const limits = resolveLimits(options.limits);
    let files =
      options.cacheDir === false
        ? undefined
        : cacheFiles(
            options.cacheDir,
            roots.map((root) => root.dir),
          );
    const cacheDir = typeof options.cacheDir === 'string' ? options.cacheDir : defaultCacheDir();
    const unusable = files === undefined ? undefined : cacheDirProblem(cacheDir);
    if (unusable !== undefined) {
      // A cache only buys speed: without a usable folder the server serves on without one (said once).
      options.onProblem?.({ severity: 'warning', message: unusable, path: cacheDir });
      files = undefined;
    }
    const live = await LiveCatalog.open({
      roots,
      limits,
      ...(options.allowFields?.length ? { allowFields: options.allowFields } : {}),
      ...(options.scanThreads !== undefined ? { scanThreads: options.scanThreads } : {}),
      ...(options.firstPageEarly && !options.strict ? { firstPage: options.pageSize ?? 100 } : {}),
      ...(early ? { earlyScan: early.scan } : {}),
      ...(options.watchLimit !== undefined ? { watchLimit: options.watchLimit } : {}),
      ...(options.watchEarly ? { watchEarly: true } : {}),
      ...(files ? { persistPath: files.catalog, digestCachePath: files.digests } : {}),
      ...(options.onProblem ? { onProblem: options.onProblem } : {}),
      ...(options.onScanProgress ? { onScanProgress: options.onScanProgress } : {}),
    });
    // The persisted catalog may speed a start, never change what it decides (ADR 0004): every start-up decision is
    // made on what the disk holds. A restored catalog that would fail, or any restored catalog under --strict, is
    // checked before anything is served; otherwise it answers at once and the decision is made again once the disk
    // has been read (`verified`, which rejects with the StartupError a cold start would have thrown).
    const verifying = async () => {
      try {
        await live.verify();
      } catch (error) {
        throw new StartupError(`checking the skill folders failed: ${(error as Error).message}`);
      }
    };
    try {
      if (live.restoredAtStart && (options.strict || startupError(live.problems, options.strict) !== undefined)) await verifying();
      const failure = startupError(live.problems, options.strict);
      if (failure !== undefined) throw failure;
    } catch (error) {
      live.close(); // its watcher, and the rest of a first page's scan
      throw error;
    }
    const catalog = new CompositeCatalog(live, providers, options.onProblem);
    const server = new SkillportServer(options, catalog, families, access, plugins);
    // The last run's search index, read before the first catch-up (which then re-indexes only what changed).
    if (files) server.#search.persistTo(files.search);
    access.watch();
    // After an early first page there is little garbage yet (the page's folders): the collection waits for the scan.
    if (!live.partial) collectGarbage();
    // An early first page: what a cold start decides (URI conflicts) is decided once the whole scan is in.
    if (live.partial) {
      server.verified = live.complete.then(
        () => {
          collectGarbage();
          const late = startupError(live.problems, options.strict);
          if (late !== undefined) throw late;
        },
        (error: unknown) => {
          throw new StartupError(`scanning the skill folders failed: ${(error as Error).message}`);
        },
      );
      server.verified.catch(() => {}); // the caller decides (serve exits); never an unhandled rejection
    }
    // A catalog restored from the last run is checked against the disk in the background (see persisted-catalog.ts).
    if (live.unverified) {
      server.verified = verifying().then(() => {
        collectGarbage();
        const late = startupError(live.problems, options.strict);
        if (late !== undefined) throw late;
      });
      server.verified.catch(() => {}); // the caller decides (serve exits); never an unhandled rejection
    }
    return server;
  }

  /**
   * Resolves once the catalog has been checked against the disk (at once after a cold scan); rejects with a
   * StartupError when the disk shows what would have stopped a cold start (a URI conflict, a problem under --strict).
   */
  verified: Promise<void> = Promise.resolve();

  /**
   * Resolves once the last run's search index has been read and caught up with the catalog, or found unusable (at
   * once without one). `serve` waits for it before it answers: decoding a 100,000-skill index holds the main thread
   * for seconds, and done after the first answer it held every read and every change heard then (ADR 0273).
   */
  searchRestored(): Promise<void> {
    return this.#search.restored();
  }

  /**
   * The server instructions follow what the caller sees (its view's size, the single-skill fast path, the optional
   * catalog): built once per view and kept while the view is.
   */
  #instructionsFor(service: SkillsService): Promise<string> {
    if (this.#options.instructions !== undefined) return Promise.resolve(this.#options.instructions);
    const view = service.snapshot;
    let instructions = this.#instructions.get(view);
    if (instructions === undefined) {
      instructions = buildInstructions(service, this.tools, this.#options.instructionsCatalog === true).catch(() => defaultInstructions());
      this.#instructions.set(view, instructions);
    }
    return instructions;
  }

  /** Starts watching the folders; changes are swapped in and announced. */
  watch(walkAfter?: Promise<unknown>): void {
    this.catalog.live.watch(walkAfter);
  }

  /** Resolves once the folders a restored catalog serves from are watched (see LiveCatalog.watchArmed). */
  watchArmed(): Promise<void> {
    return this.catalog.live.watchArmed();
  }

  /**
   * Serves MCP on stdin/stdout; `maxUriLength` bounds the URIs in requests, as over HTTP (http/limits.ts);
   * `onWarning` hears of lines refused unread (over the transport's 10 MiB line bound).
   */
  serveStdio(options: { maxUriLength?: number; onWarning?: (message: string) => void } = {}): StdioServerHandle {
    // Lines that are no JSON-RPC message are answered (mcp/stdio-lines.ts), not dropped by the transport unanswered.
    // Requests are handed to the transport only while the client reads its answers (mcp/stdio-backpressure.ts).
    const gate = new StdioBackpressure(process.stdout);
    const stdio: StdioServerTransport = new GatedStdioTransport(
      gate,
      screenedStdin(gate.lines(process.stdin), (answer) => void stdio.send(answer as unknown as JSONRPCMessage).catch(() => {}), undefined, options.onWarning),
    );
    const handle = serveStdio(
      async () => {
        const server = await this.factory.create();
        this.factory.track(server);
        return server;
      },
      { onerror: () => {}, transport: new GuardedTransport(stdio, options.maxUriLength, () => this.activity.touch()) },
    );
    this.#stdio.push(handle);
    return handle;
  }

  /** Ready to take traffic when the options' check and every plugin's say so (GET /readyz). */
  async #ready(): Promise<{ ready: boolean; reason?: string }> {
    for (const check of [this.#options.ready, ...this.#plugins.map((parts) => parts.ready)]) {
      const state = (await check?.()) ?? { ready: true };
      if (!state.ready) return state;
    }
    if (this.catalog.live.partial)
      return { ready: false, reason: 'the first scan of the skill folders is running: only the first skills/list page is answered yet' };
    if (this.#options.readyWhenSearch && !this.#search.ready) {
      const { indexed, total } = this.#search.state();
      return { ready: false, reason: `the search index is being built: ${indexed} of ${total} skills indexed (--ready-when search)` };
    }
    // Token revocations and policy edits made on other replicas are heard through the access store's listener.
    if (!this.access.watching)
      return {
        ready: false,
        reason:
          'the access store is unreachable: its change listener is reconnecting (token revocations and policy edits from other replicas are not heard meanwhile)',
      };
    return { ready: true };
  }

  /** The audit queue, when events are kept: waiting, dropped, and whether the store refuses them now. */
  #auditHealth(): Record<string, unknown> {
    if (this.access.store === undefined) return {};
    const { queued, dropped, failing } = this.access.audit.state();
    return { audit: { queued, dropped, writing: failing === undefined } };
  }

  /** One line per plugin for a start-up message. */
  summaries(): string[] {
    return this.#plugins.flatMap((parts) => (parts.summary ? [parts.summary()] : []));
  }

  /**
   * Starts loading the HTTP stack without waiting for it: `serve --http` calls this before the first scan, whose
   * workers leave this thread idle, so `serveHttp` finds the modules loaded instead of loading them after the scan.
   */
  static preloadHttp(): void {
    import('./http/http-server.js').catch(() => {}); // a failure is met again, and reported, by serveHttp's own import
  }

  async serveHttp(options: Omit<HttpOptions, 'health'>): Promise<RunningHttpServer> {
    const routes = [...(options.routes ?? []), ...(this.#options.routes ?? []), ...this.#plugins.flatMap((parts) => (parts.routes ? [parts.routes] : []))];
    // Loaded here: a stdio server never pays for the HTTP stack (the SDK's node adapter, Hono) at start.
    const { startHttpServer } = await import('./http/http-server.js');
    const live = this.catalog.live;
    const running = await startHttpServer(
      this.factory,
      { identity: this.identity, cacheHint: this.cacheHint, tools: this.tools, pageCacheMb: this.#options.pageCacheMb },
      {
        ...options,
        ...(live.partial
          ? {
              early: {
                pending: () => live.partial,
                complete: live.complete.then(
                  () => true,
                  () => false,
                ),
                // Another source's skills (a registry) or a filtered view could change the page: those wait.
                firstPage: (service) =>
                  !this.access.restricted && service.snapshot === this.catalog.snapshot && this.catalog.snapshot.size === live.snapshot.size,
              },
            }
          : {}),
        routes,
        publicRoutes: [...(options.publicRoutes ?? []), ...(this.#options.publicRoutes ?? [])],
        health: () =>
          Object.assign(
            {
              skills: this.catalog.snapshot.size,
              generation: this.catalog.snapshot.generation,
              search: this.#search.state(),
              ...(this.catalog.live.watching ? { watching: this.catalog.live.watching } : {}),
              verified: !this.catalog.live.unverified,
              // The first page was answered before the whole scan: `skills` counts what is read so far.
              ...(this.catalog.live.partial ? { partial: true } : {}),
            },
            this.#auditHealth(),
            this.#options.health?.(),
            ...this.#plugins.map((parts) => parts.health?.()),
          ),
        ready: () => this.#ready(),
      },
      { access: this.access, scoped: (principal) => this.scopes.for(principal), activity: this.activity },
    );
    this.#http.push(running);
    return running;
  }

  async close(): Promise<void> {
    await this.#search.close();
    await this.catalog.close();
    await Promise.all([...this.#http.map((http) => http.close()), ...this.#stdio.map((stdio) => stdio.close())]);
    this.#http = [];
    this.#stdio = [];
    await Promise.all(this.#plugins.map((parts) => parts.close?.()));
    await this.access.close();
    await this.service.options.content.close();
  }
}

/** What stops a start: URI conflicts between folders, and under --strict any problem. */
function startupError(problems: FolderProblem[], strict: boolean | undefined): StartupError | undefined {
  const conflicts = problems.filter((problem) => problem.code === 'uri-conflict');
  if (conflicts.length > 0) return new StartupError(`${conflicts.length} URI conflict(s): ${conflicts.map((c) => c.message).join('; ')}`, conflicts);
  if (strict && problems.length > 0) return new StartupError(`--strict: ${problems.length} problem(s) in the skill folders`, problems);
  return undefined;
}

/** The user cache folder skillport keeps its caches in: `skillport` under `base` (the CLI gives XDG_CACHE_HOME), else under ~/.cache. */
export function defaultCacheDir(base?: string): string {
  return join(base || join(homedir(), '.cache'), 'skillport');
}

/**
 * Why a cache folder cannot be used (cannot be created or written: a read-only home, a path under a file), as one
 * line; undefined when it can. Checked by writing, as permissions alone do not tell (root, read-only mounts).
 */
export function cacheDirProblem(dir: string): string | undefined {
  const probe = join(dir, `.probe-${process.pid}`);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(probe, '');
    rmSync(probe, { force: true });
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return `cache folder ${dir} cannot be used (${code ?? (error as Error).message}); serving without a cache (set --cache-dir, or --no-cache)`;
  }
}

/** The digest cache and the persisted catalog for a set of folders, under the user cache folder by default. */
function cacheFiles(dir: string | undefined, roots: string[]): { digests: string; catalog: string; search: string } {
  const base = dir ?? defaultCacheDir();
  const key = createHash('sha256').update(roots.join('\n')).digest('hex').slice(0, 16);
  return { digests: join(base, `digests-${key}.json`), catalog: join(base, `catalog-${key}.json`), search: join(base, `search-${key}.bin`) };
}

export function defaultInstructions(): string {
  return [
    'This server serves Agent Skills (folders of instructions, references and scripts) through the MCP Skills extension.',
    "Call skills/list to see each skill (name, description, files with sha256 digests); read a skill's SKILL.md with resources/read when a task matches its description,",
    'then read only the other files it points to, by their skill:// URIs. Verify each file against its listed digest.',
  ].join(' ');
}
