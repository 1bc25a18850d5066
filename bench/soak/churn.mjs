// Churn for bench/soak.mjs: a tree of skill folders changed every few hundred milliseconds the ways editors and
// tools change files (written in place, `sed -i`, safe-save by rename, folders added, moved and deleted), and a
// registry whose versions are published, tagged, yanked and revoked through its HTTP API.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repo, sha256, sleep, TOKEN } from './lib.mjs';

const GROUPS = ['g0', 'g1', 'g2', 'g3'];

function skillMd(name, revision) {
  return `---\nname: ${name}\ndescription: Churned skill ${name}. Use when the soak test reads it.\n---\n\n# ${name}\n\nRevision ${revision}\n\nRead references/notes.md and references/extra.md.\n`;
}

/** A fresh tree of `count` skills under g0..g3; returns the churner (start/stop, counters, known digests). */
export function makeTree(count, rng) {
  const root = mkdtempSync(join(tmpdir(), 'skillport-soak-tree-'));
  const live = new Map(); // name -> group
  const written = new Map(); // "<name>/<path>" -> Set of digests ever written there
  const counts = { inPlace: 0, sedI: 0, safeSave: 0, added: 0, moved: 0, deleted: 0 };
  let next = 0;
  let revision = 0;
  const remember = (name, path, bytes) => {
    const key = `${name}/${path}`;
    if (!written.has(key)) written.set(key, new Set());
    written.get(key).add(sha256(bytes));
  };
  const dirOf = (name) => join(root, live.get(name), name);
  const write = (name, path, text) => {
    writeFileSync(join(dirOf(name), path), text);
    remember(name, path, Buffer.from(text));
  };
  const add = () => {
    const name = `c-${next++}`;
    live.set(name, rng.pick(GROUPS));
    mkdirSync(join(dirOf(name), 'references'), { recursive: true });
    write(name, 'SKILL.md', skillMd(name, revision++));
    write(name, 'references/notes.md', `notes of ${name}, revision ${revision++}\n`.repeat(1 + rng.int(40)));
    write(name, 'references/extra.md', `extra of ${name}, revision ${revision++}\n`.repeat(1 + rng.int(40)));
  };
  for (let i = 0; i < count; i++) add();

  const ops = {
    inPlace() {
      const name = rng.pick([...live.keys()]);
      // Truncated, then written: a reader may see the empty file in between.
      remember(name, 'references/notes.md', Buffer.alloc(0));
      write(name, 'references/notes.md', `notes of ${name}, revision ${revision++}\n`.repeat(1 + rng.int(40)));
      counts.inPlace++;
    },
    sedI() {
      const name = rng.pick([...live.keys()]);
      const file = join(dirOf(name), 'SKILL.md');
      const run = spawnSync('sed', ['-i', `s/^Revision [0-9]*/Revision ${revision++}/`, file]);
      if (run.status === 0) remember(name, 'SKILL.md', readFileSync(file));
      counts.sedI++;
    },
    safeSave() {
      const name = rng.pick([...live.keys()]);
      const text = `extra of ${name}, revision ${revision++}\n`.repeat(1 + rng.int(40));
      const temp = join(dirOf(name), 'references', `.extra.md.${revision}~`);
      writeFileSync(temp, text);
      remember(name, `references/.extra.md.${revision}~`, Buffer.from(text));
      renameSync(temp, join(dirOf(name), 'references/extra.md'));
      remember(name, 'references/extra.md', Buffer.from(text));
      counts.safeSave++;
    },
    add() {
      add();
      counts.added++;
    },
    move() {
      const name = rng.pick([...live.keys()]);
      const from = dirOf(name);
      const group = rng.pick(GROUPS.filter((g) => g !== live.get(name)));
      mkdirSync(join(root, group), { recursive: true });
      renameSync(from, join(root, group, name));
      live.set(name, group);
      counts.moved++;
    },
    delete() {
      const name = rng.pick([...live.keys()]);
      rmSync(dirOf(name), { recursive: true, force: true });
      live.delete(name);
      counts.deleted++;
    },
  };
  const kinds = Object.keys(ops);

  /** One change, chosen at random, keeping the number of skills near `count`. */
  const step = () => {
    let kind = rng.pick(kinds);
    if (live.size < count * 0.75 && (kind === 'delete' || kind === 'move')) kind = 'add';
    if (live.size > count * 1.25 && kind === 'add') kind = 'delete';
    if (live.size === 0) kind = 'add';
    ops[kind]();
  };

  let timer;
  return {
    root,
    counts,
    step,
    /** Every digest ever written for the file at `uri` (skill://gN/<name>/<path>). */
    known(uri) {
      const match = /^skill:\/\/g\d\/(.+)$/.exec(uri);
      return match ? written.get(decodeURIComponent(match[1])) : undefined;
    },
    start(intervalMs) {
      timer = setInterval(step, intervalMs);
    },
    stop() {
      clearInterval(timer);
    },
    remove() {
      rmSync(root, { recursive: true, force: true });
    },
  };
}

const pkg = await import(join(repo, 'packages/registry/dist/src/client.js'));

/** A `.skill` archive of `name` at `version` whose files say which release they are. */
export function archiveOf(name, version, extra = {}) {
  const files = [
    {
      path: 'SKILL.md',
      bytes: Buffer.from(
        `---\nname: ${name}\ndescription: Registry skill ${name}. Use when the soak test reads it.\n---\n\n# ${name}\n\nRelease ${version}.\n`,
      ),
    },
    { path: 'references/guide.md', bytes: Buffer.from(`guide for ${name} ${version}\n`.repeat(20)) },
    ...Object.entries(extra).map(([path, bytes]) => ({ path, bytes: Buffer.from(bytes) })),
  ];
  const manifest = pkg.manifestFor(name, files, { version });
  return { archive: pkg.packSkillArchive(manifest, files), packageDigest: manifest.packageDigest, files: manifest.files };
}

/** POST a publish; {status, body}. Status 0: the connection failed (the server died). */
export async function publishTo(base, name, version, extra) {
  const { archive, packageDigest, files } = archiveOf(name, version, extra);
  try {
    const response = await fetch(`${base}/api/v1/skills?version=${version}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/vnd.skillport.skill+gzip' },
      body: archive,
      signal: AbortSignal.timeout(60_000),
    });
    const body = await response.json().catch(() => undefined);
    return { status: response.status, body, packageDigest, files };
  } catch (error) {
    return { status: 0, error: String(error?.cause?.code ?? error?.message ?? error), packageDigest, files };
  }
}

async function api(base, method, path, body) {
  try {
    const response = await fetch(`${base}/api/v1/skills/${path}`, {
      method,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

/**
 * Registry churn: every `intervalMs`, one of publish (a new version of reg-0..3), tag `beta`, yank or revoke an
 * older version. Publishes answered 201 are kept in `acknowledged` (to be found again later).
 */
export function registryChurn(base, rng, prefix = 'reg') {
  const counts = { published: 0, tagged: 0, yanked: 0, revoked: 0, failed: {} };
  const acknowledged = [];
  const versions = new Map(); // name -> versions published
  // Every digest a publish tried to write, by `<name>/<path>`: a reader may be served a version published after its
  // listing and superseded before the next one (the bytes are real, only newer than both listings it saw).
  const written = new Map();
  let patch = 0;
  let running = false;
  let loop;
  const fail = (what, status) => (counts.failed[`${what} ${status}`] = (counts.failed[`${what} ${status}`] ?? 0) + 1);
  const step = async () => {
    const name = `${prefix}-${rng.int(4)}`;
    const list = versions.get(name) ?? [];
    const kind = list.length < 2 ? 'publish' : rng.pick(['publish', 'publish', 'tag', 'yank', 'revoke']);
    if (kind === 'publish') {
      const version = `1.0.${patch++}`;
      for (const file of archiveOf(name, version).files) {
        const key = `${name}/${file.path}`;
        if (!written.has(key)) written.set(key, new Set());
        written.get(key).add(file.digest);
      }
      const result = await publishTo(base, name, version);
      if (result.status === 201) {
        counts.published++;
        acknowledged.push({ name, version, packageDigest: result.packageDigest, files: result.files });
        versions.set(name, [...list, version]);
      } else fail('publish', result.status);
      return;
    }
    const version = rng.pick(list.slice(0, -1));
    const status =
      kind === 'tag'
        ? await api(base, 'PUT', `${name}/tags/beta`, { version: rng.pick(list) })
        : kind === 'yank'
          ? await api(base, 'POST', `${name}/versions/${version}/yank`)
          : await api(base, 'POST', `${name}/versions/${version}/revoke`, { reason: 'soak test' });
    if (status === 200) counts[kind === 'tag' ? 'tagged' : kind === 'yank' ? 'yanked' : 'revoked']++;
    else if (!(status === 409 || status === 410)) fail(kind, status); // 409/410: already yanked or revoked
  };
  return {
    counts,
    acknowledged,
    /** Every digest a publish wrote (or tried to) for the file at `uri` (skill://<prefix>-N/<path>, latest version). */
    known(uri) {
      const match = new RegExp(`^skill://(${prefix}-\\d+)/(.+)$`).exec(uri);
      return match ? written.get(`${match[1]}/${decodeURIComponent(match[2])}`) : undefined;
    },
    start(intervalMs) {
      running = true;
      loop = (async () => {
        while (running) {
          await step();
          await sleep(intervalMs);
        }
      })();
    },
    async stop() {
      running = false;
      await loop;
    },
  };
}
