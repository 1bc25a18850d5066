import { execFileSync, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { makeTree, tempFolder } from './tree.js';
import type { TreeSpec } from './tree.js';

/**
 * Real git repositories for the git source's tests: a work tree that commits, and a bare "remote" it pushes to
 * (what `serve git:…` and `install REPO#REF` read). Commits get fixed author data so ids depend on content only.
 */
export interface GitFixture {
  /** The work tree (commits are made here). */
  work: string;
  /** The bare repository pushed to (the remote). */
  bare: string;
  /** Writes files (a `null` value deletes one), commits on the current branch and pushes it; returns the commit id. */
  commit(files: Record<string, string | Uint8Array | null | { symlink: string }>, message?: string): string;
  /** Runs git in the work tree and returns its trimmed output. */
  git(...args: string[]): string;
}

const ENV = {
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.com',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.com',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

export function runGitIn(dir: string, args: readonly string[]): string {
  return execFileSync('git', ['-C', dir, ...args], { env: { ...process.env, ...ENV }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** A work tree on branch `main` with `files` committed, and its bare remote with `main` pushed. */
export function gitFixture(files: TreeSpec, branch = 'main'): GitFixture {
  const root = tempFolder('git');
  const work = join(root, 'work');
  const bare = join(root, 'remote.git');
  execFileSync('git', ['init', '--quiet', '-b', branch, work], { env: { ...process.env, ...ENV } });
  execFileSync('git', ['init', '--quiet', '--bare', '-b', branch, bare], { env: { ...process.env, ...ENV } });
  const git = (...args: string[]) => runGitIn(work, args);
  git('remote', 'add', 'origin', bare);
  const commit: GitFixture['commit'] = (changes, message = 'change') => {
    const written: TreeSpec = {};
    for (const [path, content] of Object.entries(changes)) {
      if (content === null) rmSync(join(work, path), { recursive: true, force: true });
      else written[path] = content;
    }
    makeTree(written, work);
    git('add', '--all');
    git('commit', '--quiet', '--allow-empty', '-m', message);
    const id = git('rev-parse', 'HEAD');
    git('push', '--quiet', '--force', 'origin', `HEAD:refs/heads/${git('rev-parse', '--abbrev-ref', 'HEAD')}`);
    return id;
  };
  commit(files, 'first');
  return { work, bare, commit, git };
}

export interface GitHttpHost {
  /** `http://127.0.0.1:PORT/` : repositories under it by their folder name (`…/remote.git`). */
  url: string;
  /** Every request's Authorization header (undefined when none was sent). */
  authorizations: Array<string | undefined>;
  close(): Promise<void>;
}

/**
 * git's smart HTTP protocol over `git http-backend` (CGI) for the bare repositories under `root`; with `token`, every
 * request must carry HTTP Basic auth whose password is it (401 with a challenge otherwise), as a private host does;
 * `delayMs` holds each answer back (so a test can look at the processes while a fetch is under way).
 */
export async function startGitHttp(root: string, token?: string, delayMs = 0): Promise<GitHttpHost> {
  const authorizations: Array<string | undefined> = [];
  const server = createServer((req, res) => {
    authorizations.push(req.headers.authorization);
    setTimeout(() => answer(req, res), delayMs);
  });
  const answer = (req: IncomingMessage, res: ServerResponse) => {
    if (token !== undefined && !authorised(req, token)) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end('unauthorised');
      return;
    }
    const [path = '/', query = ''] = (req.url ?? '/').split('?');
    const cgi = spawn('git', ['http-backend'], {
      env: {
        ...process.env,
        ...ENV,
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: decodeURIComponent(path),
        QUERY_STRING: query,
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
        REMOTE_ADDR: '127.0.0.1',
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    req.pipe(cgi.stdin);
    let head = Buffer.alloc(0);
    let headerDone = false;
    cgi.stdout.on('data', (chunk: Buffer) => {
      if (headerDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      headerDone = true;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        if (name === 'status') status = Number(value.split(' ')[0]);
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      res.write(head.subarray(end + 4));
    });
    cgi.stdout.on('end', () => res.end());
  };
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    authorizations,
    close: () => new Promise((done) => server.close(() => done())),
  };
}

function authorised(req: IncomingMessage, token: string): boolean {
  const header = req.headers.authorization ?? '';
  if (!header.startsWith('Basic ')) return false;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  return decoded.slice(decoded.indexOf(':') + 1) === token;
}
