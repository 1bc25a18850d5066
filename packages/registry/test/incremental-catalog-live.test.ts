import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { DEFAULT_LIMITS } from '@skillport/core';
import { RegistryService, SqliteStore, registryPlugin } from '../src/index.js';
import type { RegistryProvider } from '../src/index.js';
import { SkillportServer } from '@skillport/server';
import type { CatalogSnapshot } from '@skillport/server';
import { connectHttp, skillMd } from '@skillport/test-kit';

// Issue 13 / ADR 0130: a served catalog kept up to date by deltas (folder rescans, registry publish/yank/tag/revoke)
// must answer exactly like a server started afresh on the same folders and store, through a real MCP client.

const temps: string[] = [];
after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function random(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0x100000000;
  };
}

const entries = (snapshot: CatalogSnapshot) => snapshot.skills.map((skill) => JSON.stringify(skill.entry));

async function open(dir: string, data: string): Promise<SkillportServer> {
  return SkillportServer.open({ dirs: [dir], cacheDir: false, plugins: [registryPlugin({ data, limits: DEFAULT_LIMITS, onProblem: () => {} })] });
}

describe('incremental catalog equals a fresh start (issue 13)', () => {
  test('random folder changes and registry publish/yank/tag/revoke: same listing (entries, digests, _meta) and same pages as a fresh server', async () => {
    const next = random(2026);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    const dir = mkdtempSync(join(tmpdir(), 'skillport-incr-folders-'));
    const data = mkdtempSync(join(tmpdir(), 'skillport-incr-store-'));
    temps.push(dir, data);
    const names = ['alpha', 'beta', 'gamma', 'delta', 'eps'];
    const writeSkill = (rel: string, name: string, text: string) => {
      mkdirSync(join(dir, rel, 'references'), { recursive: true });
      writeFileSync(join(dir, rel, 'SKILL.md'), skillMd(name, `Does ${name} things (${text}). Use when asked.`));
      writeFileSync(join(dir, rel, 'references', 'guide.md'), `guide ${text}\n`);
    };
    writeSkill('alpha', 'alpha', 'folder');
    writeSkill('team/beta', 'beta', 'folder');
    // A folder at an exact-version URI of the registry: shadowed while that version exists.
    writeSkill('1.0.0/gamma', 'gamma', 'impostor');

    const server = await open(dir, data);
    const provider = server.catalog.providers[0] as RegistryProvider;
    const store = SqliteStore.open(data);
    const service = new RegistryService({ store });
    const http = await server.serveHttp({ host: '127.0.0.1', port: 0 });
    const client = await connectHttp(http.url, 'modern');
    const published = new Map<string, string[]>();
    let counter = 0;
    const check = async (label: string, wire: boolean) => {
      await provider.refresh();
      const fresh = await open(dir, data);
      try {
        assert.deepEqual(entries(server.catalog.snapshot), entries(fresh.catalog.snapshot), label);
        if (!wire) return;
        // Through the wire: every page a client walks equals the fresh server's listing.
        const listed: unknown[] = [];
        const skills = new SkillsClient(client);
        let cursor: string | undefined;
        do {
          const page = await skills.list(cursor !== undefined ? { cursor } : undefined);
          listed.push(...page.skills.map((skill) => JSON.parse(JSON.stringify(skill)) as unknown));
          cursor = page.nextCursor;
        } while (cursor !== undefined);
        assert.deepEqual(
          listed,
          entries(fresh.catalog.snapshot).map((text) => JSON.parse(text) as unknown),
          `${label}: skills/list over HTTP`,
        );
      } finally {
        await fresh.close();
      }
    };
    try {
      // The exact version 1.0.0 of gamma claims the folder skill at skill://1.0.0/gamma/SKILL.md; revoked, frees it.
      const gamma = (text: string) => [{ path: 'SKILL.md', bytes: Buffer.from(skillMd('gamma', `Registry gamma ${text}. Use when asked.`)) }];
      await service.publish({ files: gamma('one'), folderName: 'gamma', version: '1.0.0', tags: ['beta'], publisher: 'test' });
      await check('untagged exact version published', true);
      await service.revoke('gamma', '1.0.0', 'test revocation');
      await check('exact version revoked', true);
      for (let step = 0; step < 36; step++) {
        const roll = next();
        const name = pick(names);
        if (roll < 0.35) {
          const version = `2.${counter++}.0`;
          const files = [
            { path: 'SKILL.md', bytes: Buffer.from(skillMd(name, `Registry ${name} ${version}. Use when asked.`)) },
            { path: 'references/guide.md', bytes: Buffer.from(`guide ${version}\n`) },
          ];
          const tags = next() < 0.7 ? ['latest'] : ['beta'];
          await service.publish({ files, folderName: name, version, tags, publisher: 'test' });
          published.set(name, [...(published.get(name) ?? []), version]);
          if (next() < 0.2) await service.publish({ files, folderName: name, version: '1.0.0', tags: [], publisher: 'test' }).catch(() => {});
        } else if (roll < 0.5 && (published.get(name)?.length ?? 0) > 0) {
          await service.yank(name, pick(published.get(name)!)).catch(() => {});
        } else if (roll < 0.55 && (published.get(name)?.length ?? 0) > 0) {
          await service.unyank(name, pick(published.get(name)!)).catch(() => {});
        } else if (roll < 0.62 && (published.get(name)?.length ?? 0) > 0) {
          await service.tag(name, pick(published.get(name)!), 'latest').catch(() => {});
        } else if (roll < 0.65 && (published.get(name)?.length ?? 0) > 0) {
          await service.revoke(name, pick(published.get(name)!), 'test revocation').catch(() => {});
        } else {
          // A folder change: add, edit, rename or delete; then the paths go to the live catalog as a watcher would.
          const rel = pick(['alpha', 'team/beta', 'team/gamma', 'delta', 'x/eps', '1.0.0/gamma']);
          const kind = next();
          if (kind < 0.5) writeSkill(rel, next() < 0.8 ? rel.split('/').at(-1)! : pick(names), `edit ${counter++}`);
          else if (kind < 0.75) {
            const target = `${rel}-moved`;
            try {
              renameSync(join(dir, rel), join(dir, target));
            } catch {
              writeSkill(target, pick(names), `new ${counter++}`);
            }
            await server.catalog.live.reload([join(dir, target)]);
          } else rmSync(join(dir, rel), { recursive: true, force: true });
          await server.catalog.live.reload([join(dir, rel)]);
        }
        await check(`step ${step}`, step % 6 === 5);
      }
      assert.ok(server.catalog.snapshot.overlaySize > 0 || server.catalog.snapshot.generation > 1, 'changes were applied as deltas');
    } finally {
      await client.close();
      store.close();
      await server.close();
    }
  });
});
