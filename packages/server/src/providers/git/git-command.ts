import { spawn } from 'node:child_process';
import { redactUrl } from './git-source.js';

/**
 * Runs the machine's `git` for the git source, never trusting what it fetched: the system and user configuration
 * are not read (a global credential helper, filter or fsmonitor set up for someone's own work must not run for a
 * served repository), hooks point nowhere, the `ext::` transport and submodules are off, and received objects are
 * checked (`fetch.fsckObjects`: `..` and `.git` tree entries are refused by git itself). Nothing is ever checked out,
 * so no smudge/clean filter or `.gitattributes` rule runs. Credentials travel in the environment of the one
 * invocation (`GIT_CONFIG_COUNT`), never in its argv (which `ps` shows to every user) nor in any message.
 */
export interface GitRunOptions {
  /** The repository to run in (`git -C`), if any. */
  cwd?: string;
  /** Bytes written to stdin, then closed. */
  input?: string;
  /** Extra configuration given through the environment (credentials): never on the command line. */
  secretConfig?: Record<string, string>;
  /** Transports allowed for this call (`GIT_ALLOW_PROTOCOL`): a remote source gets no `file`. */
  protocols?: readonly string[];
  timeoutMs?: number;
  /** Past this many bytes of stdout the command is stopped and fails. */
  maxOutputBytes?: number;
  /** Text removed from every message (a token, a URL's user info). */
  redact?: readonly string[];
}

export class GitError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
  ) {
    super(message);
    this.name = 'GitError';
  }
}

const SAFE_CONFIG = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'protocol.ext.allow=never',
  'submodule.recurse=false',
  'fetch.recurseSubmodules=false',
  'fetch.fsckObjects=true',
  'transfer.fsckObjects=true',
  'gc.auto=0',
  'maintenance.auto=false',
  'advice.detachedHead=false',
];

export const DEFAULT_GIT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_OUTPUT = 256 * 1024 * 1024;

/** The environment git runs in: the process's, less every GIT_* variable (a GIT_DIR left set would redirect it). */
function gitEnv(options: GitRunOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GIT_') && key !== 'SSH_ASKPASS') env[key] = value;
  Object.assign(env, {
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '/bin/false',
    GIT_SSH_COMMAND: 'ssh -o BatchMode=yes',
    GIT_ALLOW_PROTOCOL: (options.protocols ?? ['https', 'http', 'ssh', 'git']).join(':'),
    GIT_LFS_SKIP_SMUDGE: '1',
    LC_ALL: 'C',
  });
  const secret = Object.entries(options.secretConfig ?? {});
  if (secret.length > 0) {
    env['GIT_CONFIG_COUNT'] = String(secret.length);
    secret.forEach(([key, value], index) => {
      env[`GIT_CONFIG_KEY_${index}`] = key;
      env[`GIT_CONFIG_VALUE_${index}`] = value;
    });
  }
  return env;
}

export function redactText(text: string, secrets: readonly string[] = []): string {
  let out = redactUrl(text);
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out;
}

/** Runs `git ARGS` and resolves with its stdout; fails with the first lines of stderr, redacted. */
export function runGit(args: readonly string[], options: GitRunOptions = {}): Promise<Buffer> {
  const argv = [...SAFE_CONFIG.flatMap((entry) => ['-c', entry]), ...(options.cwd !== undefined ? ['-C', options.cwd] : []), ...args];
  return new Promise((resolve, reject) => {
    const child = spawn('git', argv, { env: gitEnv(options), stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let failed: GitError | undefined;
    const max = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
    const timer = setTimeout(() => {
      failed = new GitError(`git ${args[0]} took longer than ${Math.round((options.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS) / 1000)} s and was stopped`, null);
      child.kill('SIGKILL');
    }, options.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS);
    child.stdout.on('data', (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > max) {
        failed ??= new GitError(`git ${args[0]} wrote more than ${max} bytes (the limit) and was stopped`, null);
        child.kill('SIGKILL');
        return;
      }
      out.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (err.length < 16_384) err += chunk.toString('utf8');
    });
    child.on('error', (error) => {
      clearTimeout(timer);
      const code = (error as NodeJS.ErrnoException).code;
      reject(new GitError(code === 'ENOENT' ? 'git is not installed (no `git` on PATH)' : `cannot run git: ${error.message}`, null));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (failed !== undefined) return reject(failed);
      if (code !== 0) {
        const lines = redactText(err, options.redact)
          .split('\n')
          .map((line) => line.replace(/^(fatal|error): /, '').trim())
          .filter((line) => line !== '' && !line.startsWith('hint:'));
        return reject(new GitError(`git ${args[0]} failed: ${lines.slice(0, 3).join('; ') || `exit code ${code}`}`, code));
      }
      resolve(Buffer.concat(out));
    });
    child.stdin.on('error', () => {
      /* the command may exit before reading all of its input; its exit code says what happened */
    });
    child.stdin.end(options.input ?? '');
  });
}
