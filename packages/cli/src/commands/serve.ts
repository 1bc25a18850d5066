import { folderScanLines, scanServedFolders, scanServedFoldersInWorker } from './serve-scan.js';
import type { Command } from 'commander';
import { Option } from 'commander';
import { DEFAULT_LIMITS, escapeControls } from '@skillport/core';
import type { FolderProblem } from '@skillport/core';
import type { SkillportServer } from '@skillport/server';
import { allowedOrigins } from '@skillport/server';
import { arg, exitWait, repeatable } from '../kit.js';
import { ConfigError, loadConfig } from '../config.js';
import type { RemoteSpec } from '../config.js';
import type { ExitCode } from '../kit.js';
import { openSources, sourceLabel } from '../sources.js';
import { environment } from '../environment.js';
import { userSettings } from '../user-config.js';
import type { Environment } from '../environment.js';
import { groupServeHelp } from '../serve-help.js';
import { displayPath, displayUrl, formatProblem, paint, parsePort, parsePositiveInt, parseSize, plural } from '../output.js';
import { progressLine } from '../progress.js';
import type { ScanCounts } from '../progress.js';
import { accessOptions, addAccessOptions } from './access-options.js';
import type { AccessFlags } from './access-options.js';
import { addLimitOptions, limitOptions, trustedProxyOptions } from './limit-options.js';
import type { LimitFlags } from './limit-options.js';

interface ServeOptions extends AccessFlags, LimitFlags {
  http?: boolean;
  port: number;
  host: string;
  allowedHost: string[];
  allowField: string[];
  allowedOrigin: string[];
  prefix?: string;
  strict?: boolean;
  /** false with --no-first-page-early: over HTTP, a cold start answers the first skills/list page before the whole scan. */
  firstPageEarly?: boolean;
  /** --no-scan: skip the scanner over the served folders and at activation. */
  scan?: boolean;
  watch: boolean;
  maxFiles: number;
  maxBytes: number;
  pageSize: number;
  ttl: number;
  cacheScope: 'public' | 'private';
  cacheDir?: string;
  cache: boolean;
  fastPath: boolean;
  directRoute: boolean;
  web: boolean;
  /** `search`: GET /readyz also waits for the search index. */
  readyWhen?: string;
  quiet?: boolean;
  /** `none`, or a comma-separated set of core, full, asm (a config file may also give a list). */
  tools: string | string[];
  /** asm's single-skill fast path: off (undefined/false), on at 300 tokens (true), or on at this many tokens. */
  asmFastPath?: boolean | number;
  asmFastPathMax: number;
  vision?: boolean;
  catalogMax: number;
  unmet: 'list' | 'omit';
  textMax: number;
  binaryMax: number;
  prompts: boolean;
  index: boolean;
  indexArchives: boolean;
  instructionsCatalog?: boolean;
  config?: string;
  template: string[];
  data?: string;
  trustedKeys?: string;
  requireSignatures?: boolean;
  registryTag?: string;
  remote: string[];
  gitInterval: number;
  embeddings?: string;
  embeddingsModel: string;
}

export function registerServe(program: Command, exit: ExitCode): void {
  const serve_ = program
    .command('serve')
    .description('Serve skill folders and skill archives over MCP: stdio by default, Streamable HTTP with --http.')
    .argument(
      '[sources...]',
      'skill folders (one skill, a folder of skills, or a tree of them), skill archives (.skill, .zip, .tar.gz) and git repositories (git+https://host/repo.git#main:skills, git:./repo#v1); several merge',
    )
    .option(
      '--template <uri=dir>',
      'a template skill family, e.g. "skill://docs/{product}/SKILL.md=./docs" (one skill per product folder); repeatable',
      (spec: string, all: string[]) => [...all, spec],
      [] as string[],
    )
    .option(
      '--remote <url>',
      'a static HTTP host publishing an Agent Skills discovery index; repeatable (headers, tokens, timeouts: --config)',
      (url: string, all: string[]) => [...all, url],
      [] as string[],
    )
    .option(
      '--git-interval <seconds>',
      'git sources: how often the ref is asked for (0: only on a webhook, and at once for a local repository when its ref moves)',
      arg(parseSeconds),
      60,
    )
    .option('-c, --config <file>', 'settings from a JSON or YAML file (also an agentskills-mcp-server server.json); flags win')
    .option('--http', 'serve Streamable HTTP instead of stdio')
    .option('-p, --port <port>', 'HTTP port (0 picks a free one)', arg(parsePort), 3333)
    .option('--host <host>', 'HTTP address to bind (use 0.0.0.0 to listen on every interface)', '127.0.0.1')
    .option('--allowed-host <name>', 'an extra Host/Origin name to accept over HTTP (DNS-rebinding protection); repeatable', repeatable(), [] as string[])
    .option(
      '--allowed-origin <origin>',
      "a browser origin besides this server's own whose requests are served (a browser MCP client: http://localhost:6274); repeatable",
      (value: string, previous: string[] | undefined) => (arg(allowedOrigins)(value), repeatable()(value, previous)),
      [] as string[],
    )
    .option('--prefix <path>', 'serve every skill under skill://<path>/')
    .option('--strict', 'refuse to start when any skill has a problem (a high scan finding included), and (with --data) refuse to publish skills with warnings')
    .option(
      '--allow-field <name>',
      'accept this frontmatter field without a warning; repeatable (also allowFields in the user config)',
      repeatable(),
      [] as string[],
    )
    .option(
      '--no-scan',
      'do not scan the served skills for hidden text, injected instructions, exfiltration and the like (no warnings at start, no <skill_scan> at activation)',
    )
    .option('--no-watch', 'do not watch the folders for changes')
    .option('--max-files <n>', 'files per skill before it is refused', arg(parsePositiveInt('--max-files')), 512)
    .option('--max-bytes <size>', 'bytes per skill before it is refused (e.g. 16MiB)', arg(parseSize), 16 * 1024 * 1024)
    .option('--page-size <n>', 'entries per skills/list and directory page', arg(parsePositiveInt('--page-size')), 100)
    .option(
      '--ttl <ms>',
      'ttlMs: how long 2026-07-28 clients may cache listings and files',
      arg((text) => {
        const value = Number(text);
        if (!Number.isInteger(value) || value < 0) throw new Error('--ttl must be a whole number of milliseconds');
        return value;
      }),
      10_000,
    )
    .addOption(new Option('--cache-scope <scope>', 'cacheScope announced to clients').choices(['public', 'private']).default('public'))
    .option('--cache-dir <dir>', 'where the digest cache lives (default: ~/.cache/skillport)')
    .option('--no-cache', 'do not keep a digest cache between runs')
    .option(
      '--tools <set>',
      "tool surface for clients that only call tools: none, core (list_skills, activate_skill, read_skill_resource), full (+ outline and sections), asm (agentskills-mcp-server's tools and skills:// resources), or a comma-separated mix such as core,asm",
      arg(parseTools),
      'core',
    )
    .option('--asm-fast-path', 'asm: when the server has one small skill, serve its body in the catalog resources and do not register the four body tools')
    .option('--asm-fast-path-max <tokens>', 'asm: the largest body (in tokens) the fast path inlines', arg(parsePositiveInt('--asm-fast-path-max')), 300)
    .option('--vision', 'return images from read_skill_resource as MCP image content')
    .addOption(
      new Option(
        '--unmet <mode>',
        "catalogs written for a model (tool descriptions, instructions, the session catalog) list or omit skills whose requirements are unmet (a policy's unmet: wins)",
      )
        .choices(['list', 'omit'])
        .default('list'),
    )
    .option('--catalog-max <n>', "put the catalog in activate_skill's description up to this many skills", arg(parsePositiveInt('--catalog-max')), 50)
    .option('--text-max <size>', 'largest text one read_skill_resource call returns', arg(parseSize), 256 * 1024)
    .option(
      '--embeddings <url>',
      "an OpenAI-compatible embeddings endpoint (e.g. http://127.0.0.1:11434/v1): list_skills fuses its meaning-based ranking with the lexical one, and falls back to lexical when it is down; or 'builtin': the sentence encoder shipped with skillport reorders the lexical hits (each skill embedded once in the background, about 70 ms of CPU a skill)",
    )
    .option('--embeddings-model <name>', 'the model --embeddings asks for', 'text-embedding-3-small')
    .option('--binary-max <size>', 'largest binary inlined (base64) by read_skill_resource', arg(parseSize), 64 * 1024)
    .option('--no-prompts', 'do not offer skills as MCP prompts')
    .option('--no-index', 'do not serve the draft-era discovery index skill://index.json')
    .option('--no-index-archives', 'list skills from archives as skill-md entries in skill://index.json, not as archive entries')
    .option('--instructions-catalog', 'add the compact skill catalog to the server instructions')
    .option('--no-web', 'do not serve the web catalog (pages for people at /) with --http')
    .option('--no-fast-path', 'answer every HTTP request through the SDK handler (diagnostics)')
    .option('--no-direct-route', 'take every POST /mcp through the router and its middleware, not the direct route (diagnostics)')
    .option(
      '--no-first-page-early',
      'over HTTP, a cold start waits for the whole scan before its first answer (by default it answers the first skills/list page as soon as its folders are read; every other request waits for the whole catalog)',
    )
    .addOption(new Option('--ready-when <what>', 'GET /readyz also waits for this: search (the search index is complete)').choices(['search']))
    .option(
      '--data <dir|url>',
      'serve the registry kept in DIR (created when missing), or in PostgreSQL (postgres://…, shared by replicas), beside any folders; with --http, also its /api/v1',
    )
    .option('--trusted-keys <file>', 'registry: public keys (PEM) whose signatures are trusted')
    .option('--require-signatures', 'registry: refuse to publish or serve versions no trusted key signed')
    .option('--registry-tag <tag>', 'registry: the tag whose version is listed (default latest)')
    .option('-q, --quiet', 'print only errors on stderr');
  addLimitOptions(addAccessOptions(serve_))
    .addHelpText(
      'after',
      `
Examples:
  skillport serve ./skills                      stdio, for a client that starts the server itself
  skillport serve --http ./skills               http://127.0.0.1:3333/mcp
  skillport serve --http --prefix acme a/ b/    two folders merged under skill://acme/
  skillport serve --http --auth tokens --data ./data --policy policy.yaml ./skills
                                                tokens from skillport token create; who sees what: docs/security.md
  SKILLPORT_TOKEN=... skillport serve --http --data ./registry   a registry (publish with skillport publish)
  skillport serve pdf.skill docs.zip ./skills   archives beside a folder (reloaded when they change)
  skillport serve --remote https://example.com  the skills example.com publishes (/.well-known/agent-skills/)
  skillport serve --http git+https://github.com/acme/skills.git#main:skills
                                                a repository's branch, followed (docs/git.md)

Problems in skill folders are reported once on stderr; a skill is served when a lenient reading is safe.`,
    )
    .action(async (dirs: string[], options: ServeOptions, command: Command) => {
      let identity: { name?: string; instructions?: string } = {};
      const templates: Array<{ uriTemplate: string; dir: string; description?: string }> = [];
      const remotes: RemoteSpec[] = options.remote.map((url) => ({ url }));
      for (const spec of options.template) {
        const at = spec.lastIndexOf('=');
        if (at <= 0) {
          process.stderr.write(`skillport: error: --template takes URI=DIR (got ${JSON.stringify(spec)})\n`);
          exit.set(2);
          return;
        }
        templates.push({ uriTemplate: spec.slice(0, at), dir: spec.slice(at + 1) });
      }
      if (options.config !== undefined) {
        try {
          const config = loadConfig(options.config, (message) => process.stderr.write(`skillport: warning: ${message}\n`));
          // The file fills in whatever the command line did not set.
          for (const [key, value] of Object.entries(config.options)) {
            if (command.getOptionValueSource(key) !== 'cli') (options as unknown as Record<string, unknown>)[key] = value;
          }
          // A server.json serves what agentskills-mcp-server served, unless the file or a flag chose the tools.
          if (config.agentskillsServerJson && config.options['tools'] === undefined && command.getOptionValueSource('tools') !== 'cli') options.tools = 'asm';
          dirs = [...config.dirs, ...dirs];
          templates.push(...config.templates);
          remotes.unshift(...config.remotes);
          identity = {
            ...(config.name !== undefined ? { name: config.name } : {}),
            ...(config.instructions !== undefined ? { instructions: config.instructions } : {}),
          };
        } catch (error) {
          if (!(error instanceof ConfigError)) throw error;
          process.stderr.write(`skillport: error: ${escapeControls(error.message, { keepNewlines: true })}\n`);
          exit.set(1);
          return;
        }
      }
      if (dirs.length === 0 && templates.length === 0 && remotes.length === 0 && options.data === undefined) {
        process.stderr.write('skillport: error: give at least one skill folder, --data DIR for a registry, or a --config file that names some\n');
        exit.set(2);
        return;
      }
      try {
        options.tools = parseTools(options.tools);
        if (
          options.asmFastPath !== undefined &&
          typeof options.asmFastPath !== 'boolean' &&
          !(Number.isInteger(options.asmFastPath) && options.asmFastPath > 0)
        ) {
          throw new Error(`asmFastPath takes true, false or a number of tokens (got ${JSON.stringify(options.asmFastPath)})`);
        }
      } catch (error) {
        process.stderr.write(`skillport: error: ${escapeControls((error as Error).message, { keepNewlines: true })}\n`);
        exit.set(2);
        return;
      }
      exit.set(await serve(dirs, options, identity, templates, remotes));
    });
  groupServeHelp(serve_);
}

async function serve(
  dirs: string[],
  options: ServeOptions,
  identity: { name?: string; instructions?: string },
  templates: Array<{ uriTemplate: string; dir: string; description?: string }>,
  remotes: RemoteSpec[],
): Promise<number> {
  // Loaded here, not at the top: other commands (validate) should not pay for the server and the MCP SDK.
  const { SkillportServer, StartupError, startIdleCollector } = await import('@skillport/server');
  const colors = paint(process.stderr);
  // A cold scan on a terminal shows a progress line; any other line first takes it away.
  const progress = progressLine(process.stderr, options.quiet === true);
  const log = (line: string) => {
    progress?.clear();
    process.stderr.write(`${line}\n`);
  };
  let server: SkillportServer;
  // What the check of a restored catalog found before the serving line (see onChange below).
  const found = { added: 0, changed: 0, removed: 0, said: false };
  let access;
  try {
    access = await accessOptions(options, (message) => log(`skillport: ${colors.yellow('warning')}: ${message}`));
  } catch (error) {
    log(`skillport: ${colors.red('error')}: ${(error as Error).message}`);
    return 2;
  }
  if (!options.http && options.auth !== 'none')
    log(`skillport: ${colors.yellow('warning')}: --auth ${options.auth} applies to HTTP; stdio clients are the --principal given (anonymous without one)`);
  if (options.policy !== undefined && options.auth === 'none' && options.principal === undefined) {
    log(
      `skillport: ${colors.yellow('warning')}: --policy without --auth: every caller is anonymous, so each sees only the skills the policy shows to anyone (add --auth tokens|jwt, or --principal)`,
    );
  }
  // Loaded only when --data is given: the registry's store is a native SQLite module, not needed to serve folders.
  const allowFields = [...new Set([...(options.allowField ?? []), ...userSettings().allowFields])];
  let registry: import('@skillport/registry').RegistryPlugin | undefined;
  if (options.data !== undefined) {
    const { registryPlugin } = await import('@skillport/registry');
    const env = environment();
    if (env.token === undefined && env.legacyPublishToken !== undefined)
      log(`skillport: note: SKILLPORT_PUBLISH_TOKEN is the old name of SKILLPORT_TOKEN (still read; rename it)`);
    const publishToken = env.token ?? env.legacyPublishToken;
    registry = registryPlugin({
      ...(publishToken !== undefined ? { publishToken } : {}),
      postgres: postgresTuning(env),
      data: options.data,
      limits: { ...DEFAULT_LIMITS, maxFiles: options.maxFiles, maxBytes: options.maxBytes },
      ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
      ...(options.trustedKeys !== undefined ? { trustedKeys: options.trustedKeys } : {}),
      ...(options.registryTag !== undefined ? { registryTag: options.registryTag } : {}),
      requireSignatures: options.requireSignatures === true,
      // --strict (`strict: true` in a config file) also holds publishes to the letter: warnings refuse a skill.
      strict: options.strict === true,
      ...(allowFields.length > 0 ? { allowFields } : {}),
      onProblem: (message) => log(`skillport: ${colors.yellow('warning')}: ${message}`),
      ...(options.quiet ? {} : { onEvent: (line: string) => log(`skillport: ${line}`) }),
    });
  }
  if (options.cache) {
    // Checked once here, so that the folders' caches and the remote hosts' blob cache are both turned off with one warning.
    const { cacheDirProblem, defaultCacheDir } = await import('@skillport/server');
    const unusable = cacheDirProblem(options.cacheDir ?? defaultCacheDir(environment().xdgCacheHome));
    if (unusable !== undefined) {
      log(`skillport: ${colors.yellow('warning')}: ${unusable}`);
      options.cache = false;
    }
  }
  let embeddings: import('@skillport/server').SkillEmbeddings | import('@skillport/server').SkillMeaning | undefined;
  if (options.embeddings === 'builtin') {
    const { SkillMeaning, defaultCacheDir } = await import('@skillport/server');
    embeddings = new SkillMeaning({ cacheDir: options.cache ? (options.cacheDir ?? defaultCacheDir(environment().xdgCacheHome)) : undefined });
  } else if (options.embeddings !== undefined) {
    const { SkillEmbeddings, defaultCacheDir } = await import('@skillport/server');
    try {
      new URL(options.embeddings);
    } catch {
      log(`skillport: ${colors.red('error')}: --embeddings needs a URL such as http://127.0.0.1:11434/v1 (or builtin), not "${options.embeddings}"`);
      return 2;
    }
    embeddings = new SkillEmbeddings({
      url: options.embeddings,
      model: options.embeddingsModel,
      cacheDir: options.cache ? (options.cacheDir ?? defaultCacheDir(environment().xdgCacheHome)) : undefined,
    });
  }
  const sourceNames = [...dirs.map(sourceLabel), ...templates.map((template) => displayPath(template.dir)), ...remotes.map((remote) => displayUrl(remote.url))];
  if (!options.quiet && sourceNames.length > 0) log(`skillport: ${remotes.length > 0 ? 'loading' : 'scanning'} ${sourceNames.join(', ')}…`);
  // Until the serving line, a skill's own warnings (its SKILL.md: fields, names) are shown for the first few skills
  // and counted past them: a large tree of real skills would otherwise print a screen of them before serving.
  const grouped = new WarningGroup(options.strict ? Number.POSITIVE_INFINITY : STARTUP_WARNINGS_SHOWN);
  const onProblem = (problem: FolderProblem) => {
    if (options.quiet && problem.severity !== 'error') return;
    if (grouped.open && problem.severity === 'warning' && grouped.hold(problem)) return;
    log(formatProblem(problem, colors));
  };
  const sources = await openSources(
    dirs,
    remotes,
    {
      ...options,
      limits: { ...DEFAULT_LIMITS, maxFiles: options.maxFiles, maxBytes: options.maxBytes },
      gitIntervalMs: options.gitInterval * 1000,
      ...(options.quiet ? {} : { onEvent: (line: string) => log(`skillport: ${line}`) }),
    },
    onProblem,
  );
  if (typeof sources === 'string') {
    log(`skillport: ${colors.red('error')}: ${sources}`);
    return 1;
  }
  const providers = sources.providers;
  // The git webhook is served only with a secret to check it against (never open to anyone who can reach the port).
  const webhookSecret = environment().gitWebhookSecret;
  if (webhookSecret !== undefined && sources.git.length > 0 && !options.http)
    log(`skillport: ${colors.yellow('warning')}: SKILLPORT_GIT_WEBHOOK_SECRET is set, but the webhook is served over HTTP only (add --http)`);
  const { gitWebhook } = await import('@skillport/server');
  // --strict: a high finding in a served folder refuses the start, as any other problem does.
  if (options.strict && options.scan !== false && sources.folders.length > 0) {
    const scanned = await scanServedFolders(sources.folders);
    for (const line of folderScanLines(scanned, colors, true, sources.folders)) log(line);
    if (scanned.high.length > 0) {
      for (const provider of providers) await provider.close?.();
      return 1;
    }
  }
  // The HTTP stack and the web catalog load while the first scan runs in its workers (this thread waits for them
  // then): loaded after it, they held the first answer back by a few hundred milliseconds.
  let webModule: Promise<typeof import('@skillport/web')> | undefined;
  if (options.http) {
    SkillportServer.preloadHttp();
    if (options.web) {
      webModule = import('@skillport/web');
      webModule.catch(() => {}); // awaited (and so reported) where the web catalog is made
    }
  }
  try {
    server = await SkillportServer.open({
      dirs: sources.folders,
      providers,
      ...(sources.git.length > 0 ? { health: () => ({ git: sources.git.map((provider) => provider.health()) }) } : {}),
      ...(sources.git.length > 0 && webhookSecret !== undefined ? { publicRoutes: [gitWebhook(webhookSecret, () => sources.git)] } : {}),
      ...(progress ? { onScanProgress: (counts: ScanCounts) => progress.update(counts) } : {}),
      plugins: registry ? [registry] : [],
      ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
      limits: { maxFiles: options.maxFiles, maxBytes: options.maxBytes },
      strict: options.strict === true,
      ...(allowFields.length > 0 ? { allowFields } : {}),
      pageSize: options.pageSize,
      // The page's folders are the scan's first (ADR 0276): the whole catalog comes no later for it.
      firstPageEarly: options.http === true && options.firstPageEarly !== false,
      // The restored catalog's folders are armed (on a worker) while its first snapshot is built.
      ...(options.watch ? { watchEarly: true } : {}),
      unmet: options.unmet,
      ...(options.scan === false ? { scan: false } : {}),
      cacheHint: { ttlMs: options.ttl, cacheScope: options.cacheScope },
      tools: {
        ...toolSet(options.tools),
        asmInlineMaxTokens: fastPathTokens(options.asmFastPath, options.asmFastPathMax),
        vision: options.vision === true,
        catalogInDescriptionMax: options.catalogMax,
        textMax: options.textMax,
        binaryMax: options.binaryMax,
        ...(embeddings !== undefined ? { embeddings } : {}),
      },
      prompts: options.prompts,
      ...searchTuning(),
      ...libraryTuning(),
      ...(options.readyWhen === 'search' ? { readyWhenSearch: true } : {}),
      index: options.index,
      indexArchives: options.indexArchives,
      templates,
      access,
      onAccessChange: (what) => {
        if (!options.quiet) log(`skillport: ${what === 'policy' ? 'policy reloaded' : 'tokens changed'}: sessions whose view changed were told`);
      },
      ...(identity.name !== undefined ? { identity: { name: identity.name } } : {}),
      ...(identity.instructions !== undefined ? { instructions: identity.instructions } : {}),
      instructionsCatalog: options.instructionsCatalog === true,
      cacheDir: options.cache ? (options.cacheDir ?? (await import('@skillport/server')).defaultCacheDir(environment().xdgCacheHome)) : false,
      onProblem,
      onChange: (changes) => {
        if (options.quiet) return;
        // A restored catalog checked against the disk may report changes before the serving line: they belong to
        // it ("checked against the disk: 1 removed"), not to a reload before the server said it serves.
        if (!found.said) {
          found.added += changes.added.length;
          found.changed += changes.changed.length;
          found.removed += changes.removed.length;
          return;
        }
        log(
          `skillport: reloaded: ${changeParts(changes.added.length, changes.changed.length, changes.removed.length)} (${plural(server.catalog.snapshot.size, 'skill')})`,
        );
      },
    });
    progress?.clear();
  } catch (error) {
    progress?.clear();
    if (error instanceof StartupError) {
      log(`skillport: ${colors.red('error')}: ${error.message}`);
      for (const provider of providers) await provider.close?.();
      return 1;
    }
    throw error;
  }
  // Heard from the moment the catalog is in (scanned or restored), before watching and listening: a stop meanwhile
  // (a rolling deploy moving on) closes the server, which saves what the scan found, instead of Node's default that
  // ends the process on the spot; and a restored catalog of 100,000 skills is checked for minutes while it serves.
  let signalled: () => void = () => {};
  const signal = new Promise<'signal'>((resolve) => (signalled = () => resolve('signal')));
  process.once('SIGINT', () => signalled());
  process.once('SIGTERM', () => signalled());

  // The folders a restored catalog serves from are watched now (before the first answer); the walk that arms the
  // rest waits until the server listens: its slices between module loads held listening back by seconds.
  let listening: () => void = () => {};
  const listened = new Promise<void>((resolve) => (listening = resolve));
  if (options.watch) {
    server.watch(listened);
    for (const provider of providers) provider.watch?.();
  }

  // A warm start's search index is decoded before the first answer (the reads above it overlap the arming): done
  // after it, the decode of a large index held every read and every change heard in the first seconds.
  await server.searchRestored();
  // The served folders' watches (opened by a worker for a large restored catalog, beside the decode above) are all
  // open before the first answer: a change to a served file from then on is heard.
  await server.watchArmed();

  let url = 'stdio';
  let stdinEnded = false;
  let onStdinEnd: (() => void) | undefined;
  if (options.http) {
    try {
      // The web catalog is loaded only when served: stdio and --no-web never pay for its Markdown renderer.
      const web = options.web
        ? (await (webModule ?? import('@skillport/web'))).createWebCatalog({
            access: server.access,
            scoped: (principal) => server.scopes.for(principal),
            ...(registry ? { history: registry.history, reviews: registry.reviews } : {}),
            ...(identity.name !== undefined ? { title: identity.name } : {}),
          })
        : undefined;
      const trustedProxies = trustedProxyOptions(options);
      const running = await server.serveHttp({
        host: options.host,
        port: options.port,
        allowedHosts: options.allowedHost,
        allowedOrigins: options.allowedOrigin,
        fastPath: options.fastPath,
        directRoute: options.directRoute,
        limits: limitOptions(options),
        ...(trustedProxies ? { trustedProxies } : {}),
        ...(web ? { web } : {}),
      });
      url = running.url;
      listening();
    } catch (error) {
      log(`skillport: ${colors.red('error')}: cannot listen on ${options.host}:${options.port}: ${(error as Error).message}`);
      await server.close();
      return 1;
    }
  } else {
    server.serveStdio({
      ...(options.maxUriLength !== undefined ? { maxUriLength: options.maxUriLength } : {}),
      onWarning: (message) => log(`skillport: ${colors.yellow('warning')}: ${message}`),
    });
    listening();
    // The client may hang up while start-up is still checking the disk: 'end' is emitted once, so it is heard from
    // here on and acted on when start-up is done (a stdio server whose client is gone must not live on).
    process.stdin.once('end', () => {
      stdinEnded = true;
      onStdinEnd?.();
    });
  }
  // A catalog restored from the last run already answers; what is announced (and whether to run at all) is what
  // the disk holds, as after a cold start (ADR 0004).
  const restored = server.catalog.live.restoredAtStart;
  try {
    if ((await Promise.race([server.verified, signal])) === 'signal') {
      exitWait.stalledOutputMs = OUTPUT_STALL_AT_EXIT_MS;
      await server.close();
      return 0;
    }
  } catch (error) {
    if (!(error instanceof StartupError)) throw error;
    log(`skillport: ${colors.red('error')}: ${error.message}`);
    await server.close();
    return 1;
  }
  const snapshot = server.catalog.snapshot;
  const notServed = server.catalog.live.folderCount - server.catalog.live.snapshot.size;
  const summary = `${snapshot.size} skill${snapshot.size === 1 ? '' : 's'} from ${[...sourceNames, ...server.summaries()].join(', ')}${notServed > 0 ? ` (${notServed} not served: see the errors above)` : ''}`;
  const notes = [
    accessSummary(options, server.access.policySource?.text !== undefined),
    options.watch ? 'watching for changes' : '',
    // The persisted catalog is the folders' (ADR 0004): a server of no folders (a new registry) restored nothing.
    restored && dirs.length + templates.length > 0
      ? `started from the last run's catalog, checked against the disk${found.added + found.changed + found.removed > 0 ? `: ${changeParts(found.added, found.changed, found.removed)}` : ''}`
      : '',
    options.http && sources.git.length > 0 && webhookSecret !== undefined ? `git webhook at ${url.replace(/\/mcp$/, '/api/v1/git/webhook')}` : '',
  ].filter(Boolean);
  const held = grouped.close();
  if (held > 0)
    log(
      `skillport: ${colors.yellow('warning')}: ${plural(held, 'more skill has', 'more skills have')} warnings (served as they are); \`skillport validate ${sourceNames.join(' ')}\` lists them`,
    );
  if (!options.quiet) log(`skillport: serving ${summary} on ${url}${notes.length ? ` (${notes.join('; ')})` : ''}`);
  found.said = true;
  if (!options.quiet && options.http && options.web) log(`skillport: web catalog for people at ${url.replace(/\/mcp$/, '/')}`);
  // The folders' scan findings, in the background: serving does not wait for it.
  // Two seconds on: a client's first answers (and what they load) come first.
  if (!options.quiet && !options.strict && options.scan !== false && sources.folders.length > 0)
    setTimeout(() => {
      void scanServedFoldersInWorker(sources.folders).then(
        (scanned) => {
          for (const line of folderScanLines(scanned, colors, false, sources.folders)) log(line);
        },
        () => undefined,
      );
    }, 2000).unref();

  // Memory held for the peak of a busy spell is given back once the process has been idle for a while (see
  // IdlePolicy): a served process, not the library, decides to force a collection on its own heap.
  const idle = startIdleCollector();
  return new Promise<number>((resolve) => {
    const stop = () => {
      idle.stop();
      // Over stdio the client may have stopped reading, and a supervisor may never read stderr (start-up's error
      // lines for a large tree fill its pipe): what they never took does not keep a stopped server alive.
      exitWait.stalledOutputMs = OUTPUT_STALL_AT_EXIT_MS;
      void server.close().then(() => resolve(0));
    };
    void signal.then(stop);
    if (!options.http) {
      if (stdinEnded) stop();
      else onStdinEnd = stop;
    }
  });
}

/** Once stopped, how long a server waits for the reader of stdout or stderr to take another byte of what it wrote. */
const OUTPUT_STALL_AT_EXIT_MS = 2000;

/** Skills whose own warnings are printed at start-up before the rest are counted. */
const STARTUP_WARNINGS_SHOWN = 5;

/** Start-up warnings about skills' SKILL.md files: the first `shown` skills' are printed, the others counted. */
class WarningGroup {
  open = true;
  readonly #shown = new Set<string>();
  readonly #held = new Set<string>();
  constructor(readonly limit: number) {}

  /** True when the warning is counted instead of printed. */
  hold(problem: FolderProblem): boolean {
    if (!/(^|[\\/])skill\.md$/i.test(problem.path)) return false;
    if (this.#shown.has(problem.path)) return false;
    if (this.#shown.size < this.limit) {
      this.#shown.add(problem.path);
      return false;
    }
    this.#held.add(problem.path);
    return true;
  }

  /** Ends the start-up: later warnings print; answers how many skills' warnings were held. */
  close(): number {
    this.open = false;
    return this.#held.size;
  }
}

/** "2 added, 1 removed": the counts that are not zero. */
function changeParts(added: number, changed: number, removed: number): string {
  return [added ? `${added} added` : '', changed ? `${changed} changed` : '', removed ? `${removed} removed` : ''].filter(Boolean).join(', ');
}

/** What is in force for callers, for the start-up line: the auth mode (who callers are) and the policy file. */
function accessSummary(options: ServeOptions, policyInForce: boolean): string {
  const principal = options.principal === undefined ? '' : ` as ${typeof options.principal === 'string' ? options.principal : "the config's principal"}`;
  // Over stdio, and over HTTP without --auth, every caller is the --principal (anonymous without one).
  const auth = options.http && options.auth !== 'none' ? `auth: ${options.auth}` : `auth: ${options.http ? 'none' : 'stdio'}${principal || ' (anonymous)'}`;
  // Without --policy a replica of a shared database still serves the policy stored there.
  const policy =
    options.policy !== undefined ? `policy: ${displayPath(options.policy)}` : policyInForce ? 'policy: the one stored in the database' : 'no policy';
  return `${auth}, ${policy}`;
}

/**
 * `--tools`: `none`, or a set of surfaces, comma-separated (`core,asm`); a config file may give a list. `full`
 * includes `core`. Normalised to a canonical comma list.
 */
export function parseTools(value: unknown): string {
  const parts = (Array.isArray(value) ? value.map(String) : String(value).split(',')).map((part) => part.trim().toLowerCase()).filter(Boolean);
  const known = new Set(['none', 'core', 'full', 'asm']);
  const unknown = parts.filter((part) => !known.has(part));
  if (unknown.length > 0 || parts.length === 0)
    throw new Error(
      `--tools takes none, core, full, asm or a comma-separated mix such as core,asm (got ${JSON.stringify(Array.isArray(value) ? value.join(',') : value)})`,
    );
  if (parts.includes('none')) {
    if (parts.length > 1) throw new Error('--tools none cannot be combined with other tool sets');
    return 'none';
  }
  return [...new Set(parts)].join(',');
}

function toolSet(tools: string | string[]): { mode: 'none' | 'core' | 'full'; asm: boolean } {
  const parts = new Set(parseTools(tools).split(','));
  return { mode: parts.has('full') ? 'full' : parts.has('core') ? 'core' : 'none', asm: parts.has('asm') };
}

/** Off unless asked for; a config file may also give the ceiling itself (`asmFastPath: 500`). */
function fastPathTokens(value: boolean | number | undefined, max: number): number {
  if (value === true) return max;
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : 0;
}

/**
 * For tests and tuning, not command-line options: SKILLPORT_SEARCH_IDLE_MS, the quiet (ms) the server waits for
 * before building its search index in the background, until the first search (default 250; ADR 0151);
 * SKILLPORT_SEARCH_WAIT_SKILLS and SKILLPORT_SEARCH_WAIT_MS, the largest catalog whose searches wait for the index
 * still being built, and for how long (ADR 0201); SKILLPORT_SEARCH_WORKERS, the worker threads that read and analyse
 * a large batch for the index (0: none, all on the main thread; ADR 0261).
 */
/** The PostgreSQL registry store's pool and blob cache, from SKILLPORT_PG_POOL_MAX and SKILLPORT_PG_BLOB_CACHE_MB. */
function postgresTuning(env: Environment): { poolMax?: number; blobCacheMb?: number } {
  return { ...(env.pgPoolMax !== undefined ? { poolMax: env.pgPoolMax } : {}), ...(env.pgBlobCacheMb !== undefined ? { blobCacheMb: env.pgBlobCacheMb } : {}) };
}

/** What the environment sets of the libraries' own budgets (docs/configuration.md, *library*). */
function libraryTuning(): { pageCacheMb?: number; contentCacheMb?: number; searchWordVectors?: boolean; watchLimit?: number } {
  const { pageCacheMb, contentCacheMb, wordVectors, watchLimit } = environment();
  return {
    ...(pageCacheMb !== undefined ? { pageCacheMb } : {}),
    ...(contentCacheMb !== undefined ? { contentCacheMb } : {}),
    ...(wordVectors ? {} : { searchWordVectors: false }),
    ...(watchLimit !== undefined ? { watchLimit } : {}),
  };
}

function searchTuning(): { searchIdleMs?: number; searchWaitMaxSkills?: number; searchWaitMs?: number; searchWorkers?: number } {
  const { searchIdleMs, searchWaitSkills, searchWaitMs, searchWorkers } = environment();
  return {
    ...(searchWorkers !== undefined ? { searchWorkers } : {}),
    ...(searchIdleMs !== undefined ? { searchIdleMs } : {}),
    ...(searchWaitSkills !== undefined ? { searchWaitMaxSkills: searchWaitSkills } : {}),
    ...(searchWaitMs !== undefined ? { searchWaitMs } : {}),
  };
}

/** `--git-interval`: seconds, 0 or more (fractions allowed, for tests and tight loops on a local mirror). */
function parseSeconds(text: string): number {
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0)
    throw new Error(`--git-interval takes a number of seconds, 0 or more (got ${JSON.stringify(text)})`);
  return value;
}
