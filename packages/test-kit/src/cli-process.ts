import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';

// This file runs from packages/test-kit/dist/src: the repository is four folders up.
const here = dirname(fileURLToPath(import.meta.url));
/** The bundled CLI that the installed `skillport` command runs (scripts/bundle-cli.mjs, part of `npm run build`). */
export const BUNDLED_CLI = resolve(here, '../../../cli/dist/bundle/skillport.js');
/**
 * The built CLI entry the tests run: the plain build, so that a trace of module
 * loads names packages; SKILLPORT_TEST_BUNDLE=1 runs every CLI test on the bundle instead.
 */
export const CLI = process.env['SKILLPORT_TEST_BUNDLE'] === '1' ? BUNDLED_CLI : resolve(here, '../../../cli/dist/src/bin.js');
export const REPO = resolve(here, '../../../..');
export const EXAMPLES = join(REPO, 'examples/skills');
export const CORPUS = resolve(REPO, '../shared/corpus/skills');

export type Era = 'legacy' | 'modern';

/** What a raw stdio client (one that writes JSON-RPC lines itself) sends first: initialize, then initialized. */
export const STDIO_HANDSHAKE: readonly unknown[] = [
  { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
];

export interface RunningServer {
  url: string;
  proc: ChildProcess;
  stderr(): string;
  stop(): Promise<void>;
}

/** How a test's server is launched: `cache: true` keeps the caches (give `--cache-dir`), which tests otherwise turn off. */
export interface LaunchOptions {
  cache?: boolean;
  env?: NodeJS.ProcessEnv;
  /**
   * Runs the server in a user namespace of its own whose inotify watch limit is this (`unshare -U -r`): the kernel's
   * real ENOSPC, without taking a single watch from the user's other processes. See `canLimitWatches`.
   */
  inotifyWatches?: number;
}

/** Whether `LaunchOptions.inotifyWatches` works here (unshare present, user namespaces allowed). */
export function canLimitWatches(): boolean {
  const run = spawnSync('unshare', ['-U', '-r', 'sh', '-c', 'echo 8 > /proc/sys/user/max_inotify_watches'], { stdio: 'ignore' });
  return run.status === 0;
}

/** The command and arguments that run the CLI with `args`, in a namespace of its own when `launch` asks for one. */
function cliCommand(args: string[], launch: LaunchOptions): [string, string[]] {
  if (launch.inotifyWatches === undefined) return [process.execPath, [CLI, ...args]];
  const limit = Math.floor(launch.inotifyWatches);
  return ['unshare', ['-U', '-r', 'sh', '-c', `echo ${limit} > /proc/sys/user/max_inotify_watches && exec "$0" "$@"`, process.execPath, CLI, ...args]];
}

/** Starts `skillport serve --http --port 0 ...args` as a real process and waits for its URL. */
export async function startHttp(args: string[], env: NodeJS.ProcessEnv = {}, launch: LaunchOptions = {}): Promise<RunningServer> {
  const [command, argv] = cliCommand(['serve', '--http', '--port', '0', ...(launch.cache ? [] : ['--no-cache']), ...args], launch);
  const proc = spawn(command, argv, {
    env: { ...process.env, NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 120 s:\n${stderr}`)), 120_000);
    proc.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = / on (http:\/\/\S+)/.exec(stderr);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]!);
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${stderr}`));
    });
  });
  return {
    url,
    proc,
    stderr: () => stderr,
    stop: () =>
      new Promise<void>((done) => {
        if (proc.exitCode !== null) return done();
        proc.once('exit', () => done());
        proc.kill('SIGTERM');
      }),
  };
}

/** Runs the CLI to completion; `input`, when given, is its stdin (else stdin is closed); `cwd` its working folder. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}, input?: string, cwd?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const proc = spawn(process.execPath, [CLI, ...args], {
      ...(cwd !== undefined ? { cwd } : {}),
      env: { ...process.env, NO_COLOR: '1', ...env },
      stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (input !== undefined) proc.stdin!.end(input);
    let stdout = '';
    let stderr = '';
    proc.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // 'close', not 'exit': the pipes may still hold output when the process has exited.
    proc.on('close', (code) => done({ code: code ?? 1, stdout, stderr }));
  });
}

export type ClientOptions = NonNullable<ConstructorParameters<typeof Client>[1]>;

function clientOptions(era: Era, extra: ClientOptions = {}): ClientOptions {
  return era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } }, ...extra } : extra;
}

export async function connectHttp(url: string, era: Era, extra?: ClientOptions): Promise<Client> {
  const client = new Client({ name: 'skillport-test', version: '1.0.0' }, clientOptions(era, extra));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** Starts `skillport serve ...args` over stdio under a real MCP client. */
export async function connectStdio(args: string[], era: Era, extra?: ClientOptions, launch: LaunchOptions = {}): Promise<{ client: Client; stderr(): string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, 'serve', ...(launch.cache ? [] : ['--no-cache']), ...args],
    env: { ...(process.env as Record<string, string>), NO_COLOR: '1', ...(launch.env as Record<string, string> | undefined) },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'skillport-test', version: '1.0.0' }, clientOptions(era, extra));
  await client.connect(transport);
  return { client, stderr: () => stderr };
}
