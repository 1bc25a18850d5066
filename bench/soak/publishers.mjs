// Publishers for the registry phases, and the check that every acknowledged publish is there whole.
import { randomBytes } from 'node:crypto';
import { publishTo } from './churn.mjs';
import { rpc, runCli, sha256, sleep } from './lib.mjs';

/**
 * `count` publishers, each publishing new versions of its own skill (pub-<i>) with a random asset of `assetBytes`
 * (incompressible, so a kill often lands mid-publish) to whatever `baseOf()` names at that moment. A publish answered
 * 201 is acknowledged; any other answer is counted by status (0: the connection failed).
 */
export function startPublishers(baseOf, { count = 4, assetBytes = 256 * 1024, prefix = 'pub', pauseMs = 50 } = {}) {
  const acknowledged = [];
  const statuses = {};
  const errors = {};
  let running = true;
  const loops = Array.from({ length: count }, async (_, i) => {
    for (let n = 0; running; n++) {
      const base = baseOf();
      if (!base) {
        await sleep(50);
        n--;
        continue;
      }
      const name = `${prefix}-${i}`;
      const version = `1.0.${n}`;
      const result = await publishTo(base, name, version, { 'assets/data.bin': randomBytes(assetBytes) });
      statuses[result.status] = (statuses[result.status] ?? 0) + 1;
      if (result.status === 201) acknowledged.push({ name, version, packageDigest: result.packageDigest, files: result.files, at: performance.now() });
      else {
        const message = result.body?.error?.message ?? result.error ?? '';
        const key = `${result.status} ${String(message).slice(0, 100)}`;
        errors[key] = (errors[key] ?? 0) + 1;
        await sleep(100);
      }
      await sleep(pauseMs);
    }
  });
  return {
    acknowledged,
    statuses,
    errors,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

/**
 * Every acknowledged publish through a running server: the API names it with the same package digest, and every
 * file read over MCP at its exact-version URI verifies. Returns {checked, lost: [...]}.
 */
export async function verifyAcknowledged(base, url, acknowledged) {
  const lost = [];
  for (const item of acknowledged) {
    const response = await fetch(`${base}/api/v1/skills/${item.name}/versions/${item.version}`).catch(() => undefined);
    const body = response?.ok ? await response.json() : undefined;
    if (body?.packageDigest !== item.packageDigest) {
      lost.push(`${item.name}@${item.version}: API ${response?.status} ${body?.packageDigest ?? ''}`);
      continue;
    }
    for (const file of item.files) {
      const answer = await rpc(url, 'resources/read', { uri: `skill://${item.version}/${item.name}/${file.path}` }, 'modern');
      const content = answer.result?.contents?.[0];
      const bytes = content ? (content.blob !== undefined ? Buffer.from(content.blob, 'base64') : Buffer.from(content.text ?? '', 'utf8')) : undefined;
      if (!bytes || sha256(bytes) !== file.digest) {
        lost.push(`${item.name}@${item.version} ${file.path}: ${answer.error?.message ?? 'bytes differ'}`);
        break;
      }
    }
  }
  return { checked: acknowledged.length, lost };
}

/**
 * Nothing partial: every version the API lists reads whole (every file of its manifest verifies over MCP).
 * Returns {versions, partial: [...]}.
 */
export async function verifyListed(base, url, names) {
  const partial = [];
  let versions = 0;
  for (const name of names) {
    const response = await fetch(`${base}/api/v1/skills/${name}`).catch(() => undefined);
    if (!response?.ok) continue;
    const body = await response.json();
    for (const version of body.versions ?? []) {
      if (version.revokedAt || version.revoked) continue;
      versions++;
      const detail = await (await fetch(`${base}/api/v1/skills/${name}/versions/${version.version}`)).json();
      for (const file of detail.files ?? []) {
        const answer = await rpc(url, 'resources/read', { uri: `skill://${version.version}/${name}/${file.path}` }, 'legacy');
        const content = answer.result?.contents?.[0];
        const bytes = content ? (content.blob !== undefined ? Buffer.from(content.blob, 'base64') : Buffer.from(content.text ?? '', 'utf8')) : undefined;
        if (!bytes || sha256(bytes) !== file.digest) {
          partial.push(`${name}@${version.version} ${file.path}: ${answer.error?.message ?? 'bytes differ'}`);
          break;
        }
      }
    }
  }
  return { versions, partial };
}

/** `skillport store check --verify-blobs --json` on a store: {consistent, problems, orphanBlobs, tempFiles}. */
export async function storeCheck(data) {
  const run = await runCli(['store', 'check', '--data', data, '--verify-blobs', '--json']);
  try {
    const report = JSON.parse(run.stdout);
    return {
      consistent: report.consistent,
      problems: report.problems,
      versions: report.versions,
      orphanBlobs: report.orphanBlobs.length,
      tempFiles: report.tempFiles.length,
    };
  } catch {
    return { consistent: false, problems: [run.stderr.trim().slice(0, 300)] };
  }
}
