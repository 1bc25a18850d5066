import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { connectHttp, eventually, makeTree, runCli, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';
import { publish, registryUrl, releaseFolder, storeDir } from '@skillport/test-kit';

/** The environment that makes a spawned server pause at `point` (crash-pause.ts, preloaded; the product reads nothing). */
function pauseAt(point: string): NodeJS.ProcessEnv {
  const hook = new URL('./crash-pause.js', import.meta.url).href;
  return { NODE_OPTIONS: `${process.env['NODE_OPTIONS'] ?? ''} --import ${hook}`.trim(), SKILLPORT_CRASH_PAUSE_AT: point };
}
/**
 * A publish lands whole or not at all: a real `skillport serve --data DIR` is SIGKILLed at several points of a
 * large publish (while the upload is arriving, between blob writes, between the last blob and the commit, right
 * after the commit), restarted on the same folder, and checked: no partial version is visible anywhere, the store
 * is consistent, and blobs of the dead publish are reported as orphans, not deleted.
 */
const TOKEN = 'crash-token';

function bigSkill(): string {
  // 4 x 1 MiB of random bytes: incompressible, so the upload and the blob writes take a while.
  return releaseFolder('big-skill', '1.1.0', Object.fromEntries([1, 2, 3, 4].map((i) => [`assets/data-${i}.bin`, randomBytes(1024 * 1024)])));
}

function blobCount(data: string): number {
  let count = 0;
  for (const prefix of readdirSync(join(data, 'blobs', 'sha256'))) count += readdirSync(join(data, 'blobs', 'sha256', prefix)).length;
  return count;
}

async function kill(server: RunningServer): Promise<void> {
  if (server.proc.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    server.proc.once('exit', () => resolve());
    server.proc.kill('SIGKILL');
  });
}

/** After a restart: what the registry shows for big-skill, through the API, MCP and store check. */
async function inspect(
  data: string,
): Promise<{ versions: string[]; latest: string | undefined; listed: unknown; exact11: boolean; check: { code: number; stdout: string } }> {
  const server = await startHttp(['--data', data], { SKILLPORT_PUBLISH_TOKEN: TOKEN });
  try {
    const answer = await fetch(`${registryUrl(server.url)}/api/v1/skills/big-skill`);
    const body = (await answer.json()) as { tags?: Record<string, string>; versions?: Array<{ version: string }> };
    const client = await connectHttp(server.url, 'legacy');
    let listed: unknown;
    let exact11 = true;
    try {
      const entry = (await new SkillsClient(client).list()).skills.find((skill) => skill.frontmatter.name === 'big-skill');
      listed = (entry?._meta as Record<string, unknown> | undefined)?.['dev.skillport/version'];
      await client.readResource({ uri: 'skill://1.1.0/big-skill/SKILL.md' }).catch(() => (exact11 = false));
    } finally {
      await client.close();
    }
    await server.stop();
    const check = await runCli(['store', 'check', '--data', data, '--verify-blobs']);
    return { versions: (body.versions ?? []).map((v) => v.version), latest: body.tags?.['latest'], listed, exact11, check };
  } finally {
    await server.stop();
  }
}

describe('atomic publish: SIGKILL a real server mid-publish', () => {
  const folder = bigSkill();

  for (const point of ['after-blob-1', 'after-blob-3', 'before-commit']) {
    test(`killed at ${point}: no partial version after a restart, store consistent, orphans reported and kept`, async () => {
      const data = storeDir();
      assert.equal((await publish([releaseFolder('big-skill', '1.0.0'), '--data', data, '--version', '1.0.0'])).code, 0);
      const before = blobCount(data);
      const server = await startHttp(['--data', data], { SKILLPORT_PUBLISH_TOKEN: TOKEN, ...pauseAt(point) });
      const publishing = publish([folder, '--registry', registryUrl(server.url), '--token', TOKEN, '--version', '1.1.0']);
      try {
        await eventually(async () => (server.stderr().includes(`test pause at ${point}`) ? true : undefined), 120_000, `pause at ${point}`);
      } finally {
        await kill(server);
      }
      const failed = await publishing;
      assert.equal(failed.code, 1, 'the publisher sees the publish fail');
      const orphans = blobCount(data) - before;
      assert.ok(orphans >= 1, 'blobs were written before the kill');

      const after = await inspect(data);
      assert.deepEqual(after.versions, ['1.0.0']);
      assert.equal(after.latest, '1.0.0');
      assert.equal(after.listed, '1.0.0');
      assert.equal(after.exact11, false, 'no partial 1.1.0 is readable');
      assert.equal(after.check.code, 0, after.check.stdout);
      assert.match(after.check.stdout, /^Consistent: 1 version,/);
      assert.match(after.check.stdout, new RegExp(`${orphans} orphaned blobs? \\(no version references them; left in place\\)`));
      assert.equal(blobCount(data), before + orphans, 'check deletes nothing');

      // Publishing again completes (the blobs already there are reused) and adopts the orphans.
      const retry = await publish([folder, '--data', data, '--version', '1.1.0']);
      assert.equal(retry.code, 0, retry.stderr);
      const clean = await runCli(['store', 'check', '--data', data, '--json']);
      const report = JSON.parse(clean.stdout) as { consistent: boolean; orphanBlobs: string[]; versions: number };
      assert.deepEqual([report.consistent, report.orphanBlobs.length, report.versions], [true, 0, 2]);
    });
  }

  test('killed right after the commit: the version is there whole', async () => {
    const data = storeDir();
    assert.equal((await publish([releaseFolder('big-skill', '1.0.0'), '--data', data, '--version', '1.0.0'])).code, 0);
    const server = await startHttp(['--data', data], { SKILLPORT_PUBLISH_TOKEN: TOKEN, ...pauseAt('after-commit') });
    const publishing = publish([folder, '--registry', registryUrl(server.url), '--token', TOKEN, '--version', '1.1.0']);
    try {
      await eventually(async () => (server.stderr().includes('test pause at after-commit') ? true : undefined), 120_000, 'pause at after-commit');
    } finally {
      await kill(server);
    }
    await publishing;
    const after = await inspect(data);
    assert.deepEqual(after.versions, ['1.0.0', '1.1.0']);
    assert.equal(after.latest, '1.1.0');
    assert.equal(after.exact11, true);
    assert.equal(after.check.code, 0, after.check.stdout);
    assert.doesNotMatch(after.check.stdout, /orphaned/);
  });

  test('killed inside a blob write: the temporary file it leaves is removed when the store is opened again', async () => {
    const data = storeDir();
    assert.equal((await publish([releaseFolder('big-skill', '1.0.0'), '--data', data, '--version', '1.0.0'])).code, 0);
    const server = await startHttp(['--data', data], { SKILLPORT_PUBLISH_TOKEN: TOKEN, ...pauseAt('blob-rename') });
    const publishing = publish([folder, '--registry', registryUrl(server.url), '--token', TOKEN, '--version', '1.1.0']);
    try {
      await eventually(async () => (server.stderr().includes('test pause at blob-rename') ? true : undefined), 120_000, 'pause at blob-rename');
    } finally {
      await kill(server);
    }
    assert.equal((await publishing).code, 1);
    const temps = () => readdirSync(join(data, 'blobs', 'tmp'));
    assert.ok(temps().length >= 1, 'the kill left a temporary blob file');
    // store check changes nothing: it reports the leftovers; a restart of the server removes them.
    const report = JSON.parse((await runCli(['store', 'check', '--data', data, '--json'])).stdout) as { tempFiles: string[] };
    assert.equal(report.tempFiles.length, temps().length);
    const after = await inspect(data);
    assert.deepEqual(temps(), [], "the restart removed the dead writer's temporary files");
    assert.deepEqual(after.versions, ['1.0.0']);
    assert.equal(after.check.code, 0, after.check.stdout);
    assert.doesNotMatch(after.check.stdout, /temporary file/);
  });

  test('killed while the upload is still arriving: nothing is written at all', async () => {
    const data = storeDir();
    assert.equal((await publish([releaseFolder('big-skill', '1.0.0'), '--data', data, '--version', '1.0.0'])).code, 0);
    const before = blobCount(data);
    const out = join(makeTree({}), 'big.skill');
    assert.equal((await runCli(['pack', folder, '--version', '1.1.0', '-o', out])).code, 0);
    const archive = readFileSync(out);
    const server = await startHttp(['--data', data], { SKILLPORT_PUBLISH_TOKEN: TOKEN });
    const url = new URL(`${registryUrl(server.url)}/api/v1/skills`);
    const upload = request({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/vnd.skillport.skill+gzip', 'content-length': archive.byteLength },
    });
    const outcome = new Promise<string>((resolve) => {
      upload.on('error', (error) => resolve(`error: ${error.message}`));
      upload.on('response', (response) => resolve(`status ${response.statusCode}`));
    });
    // Half the bytes, then the server dies with the request open.
    await new Promise<void>((resolve) => upload.write(archive.subarray(0, archive.byteLength / 2), () => resolve()));
    await kill(server);
    assert.match(await outcome, /^error:/);
    upload.destroy();
    const after = await inspect(data);
    assert.deepEqual(after.versions, ['1.0.0']);
    assert.equal(after.check.code, 0, after.check.stdout);
    assert.equal(blobCount(data), before, 'no blob written');
  });
});
