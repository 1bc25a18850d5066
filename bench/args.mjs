import { spawnSync } from 'node:child_process';

// Command-line options shared by the bench scripts: `--name value` pairs and `--flag` switches.
export function options(argv = process.argv.slice(2)) {
  return {
    value(name, fallback) {
      const at = argv.indexOf(`--${name}`);
      return at >= 0 && at + 1 < argv.length ? argv[at + 1] : fallback;
    },
    flag(name) {
      return argv.includes(`--${name}`);
    },
  };
}

/** The commit a figure was measured on (`abc1234`, `+dirty` when the tree has changes): every table names it. */
export function measuredCommit() {
  const git = (...args) => spawnSync('git', args, { cwd: new URL('..', import.meta.url), encoding: 'utf8' });
  const head = git('rev-parse', '--short', 'HEAD').stdout.trim() || 'unknown';
  const dirty = git('status', '--porcelain', '--untracked-files=no').stdout.trim() !== '';
  return dirty ? `${head}+dirty` : head;
}

/** The base URL (`http://127.0.0.1:PORT`, no `/mcp`) a spawned `skillport serve --http` prints on stderr once it listens. */
export function servedBase(proc) {
  let stderr = '';
  return new Promise((done, fail) => {
    proc.stderr.on('data', (chunk) => {
      stderr += chunk;
      const match = / on (http:\/\/\S+)\/mcp/.exec(stderr);
      if (match) done(match[1]);
    });
    proc.on('exit', (code) => fail(new Error(`server exited with ${code}: ${stderr}`)));
  });
}
