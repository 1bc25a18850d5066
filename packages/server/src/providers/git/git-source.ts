import { existsSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * A git repository named as a source of `serve`, beside folders and archives:
 *
 *   git+https://host/org/repo.git#main:skills      a remote repository, branch `main`, folder `skills/`
 *   git+ssh://git@host/org/repo.git#v1.2           a tag (or any ref); a full commit id pins one commit
 *   git+file:///srv/repos/skills.git               a local repository by URL (the default branch)
 *   git:./skills-repo#main                          a local repository by path (bare or with a work tree)
 *
 * After `#`: the ref (a branch, a tag, `refs/...`, or a commit id; empty: the remote's default branch), then
 * optionally `:` and a folder inside the repository. User info in a URL (`https://user:token@host`) is taken out of
 * the URL and sent as a header, so it never reaches git's argv.
 */
export interface GitSourceSpec {
  /** What git fetches from: an `https://`, `ssh://`, `git://` URL or an absolute local path; no user info. */
  url: string;
  /** How the source is named in messages, /healthz and provenance: the URL without user info. */
  display: string;
  /** The ref asked for; undefined: the remote's default branch (HEAD). */
  ref?: string;
  /** A folder inside the repository, `/`-separated without leading or trailing slash ('' for the root). */
  subdir: string;
  /** A repository on this machine (its refs can be watched). */
  local: boolean;
  /** Credentials given in the URL, moved out of it. */
  userInfo?: { username: string; password: string };
}

export const GIT_SOURCE_PREFIXES = ['git+https://', 'git+http://', 'git+ssh://', 'git+git://', 'git+file://', 'git:'] as const;

export function isGitSource(text: string): boolean {
  return GIT_SOURCE_PREFIXES.some((prefix) => text.startsWith(prefix));
}

/** Parses a git source; throws an Error with a one-line message when it cannot be one. */
export function parseGitSource(text: string, cwd = process.cwd()): GitSourceSpec {
  if (!isGitSource(text)) throw new Error(`not a git source: ${JSON.stringify(text)} (write git+https://…, git+ssh://…, git+file://… or git:PATH)`);
  const hash = text.indexOf('#');
  const base = hash < 0 ? text : text.slice(0, hash);
  const fragment = hash < 0 ? '' : text.slice(hash + 1);
  const colon = fragment.indexOf(':');
  const ref = (colon < 0 ? fragment : fragment.slice(0, colon)).trim();
  const subdir = normaliseSubdir(colon < 0 ? '' : fragment.slice(colon + 1));
  if (ref !== '' && !validRef(ref)) throw new Error(`${JSON.stringify(ref)} is not a branch, tag or commit name git accepts`);
  const common = { ...(ref !== '' ? { ref } : {}), subdir };
  if (base.startsWith('git:')) {
    const path = base.slice(4);
    if (path === '') throw new Error('git: needs the path of a repository (git:./repo#main)');
    const full = isAbsolute(path) ? path : resolve(cwd, path);
    return { url: full, display: full, local: true, ...common };
  }
  const raw = base.slice(4);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(`${JSON.stringify(redactUrl(raw))} is not a URL`);
  }
  let userInfo: GitSourceSpec['userInfo'];
  if (url.username !== '' || url.password !== '') {
    // ssh's user name is no secret (git@host); an https user:token pair is.
    if (url.protocol === 'ssh:' && url.password === '') {
      /* kept in the URL */
    } else {
      userInfo = { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
      url.username = '';
      url.password = '';
    }
  }
  if (url.protocol === 'file:') {
    const path = decodeURIComponent(url.pathname);
    return { url: path, display: path, local: true, ...common };
  }
  if (url.search !== '') throw new Error('a git URL takes no query string');
  const clean = url.href;
  return { url: clean, display: clean, local: false, ...common, ...(userInfo ? { userInfo } : {}) };
}

function normaliseSubdir(text: string): string {
  const parts = text.split('/').filter((part) => part !== '' && part !== '.');
  if (parts.some((part) => part === '..' || part.includes('\\') || part.includes('\0')))
    throw new Error(`the folder ${JSON.stringify(text)} must stay inside the repository`);
  return parts.join('/');
}

/** What `git check-ref-format` refuses, checked here so a bad ref is an error before anything runs. */
function validRef(ref: string): boolean {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(ref)) return false;
  if (ref.startsWith('-') || ref.startsWith('/') || ref.endsWith('/') || ref.endsWith('.') || ref.endsWith('.lock')) return false;
  return !ref.includes('..') && !ref.includes('@{') && !ref.includes('//');
}

export function redactUrl(text: string): string {
  return text.replace(/(\b[a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, '$1');
}

/** A full commit id (SHA-1 or SHA-256 object format). */
export function isCommitId(ref: string): boolean {
  return /^[0-9a-f]{40}$/.test(ref) || /^[0-9a-f]{64}$/.test(ref);
}

/**
 * The git folder of a local repository (where its refs live), for watching: `PATH/.git` for a work tree (or the
 * folder a `.git` file points to), PATH itself for a bare repository. Undefined when neither.
 */
export function localGitDir(path: string): string | undefined {
  try {
    const dotGit = join(path, '.git');
    if (existsSync(dotGit)) {
      if (statSync(dotGit).isDirectory()) return dotGit;
      const line = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, 'utf8'));
      if (line) return resolve(path, line[1]!.trim());
    }
    if (existsSync(join(path, 'HEAD')) && existsSync(join(path, 'objects'))) return path;
  } catch {
    /* unreadable: not watched */
  }
  return undefined;
}
