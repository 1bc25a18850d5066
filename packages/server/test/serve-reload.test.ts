import assert from 'node:assert/strict';
import { renameSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createHash } from 'node:crypto';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { connectHttp, connectStdio, eventually, makeTree, skillMd, startHttp } from '@skillport/test-kit';
import type { Era } from '@skillport/test-kit';

async function names(skills: SkillsClient): Promise<string[]> {
  return (await skills.list()).skills.map((skill) => skill.frontmatter.name).sort();
}

describe('hot reload', () => {
  for (const era of ['legacy', 'modern'] as const satisfies readonly Era[]) {
    test(`added, changed and removed skills show up, and clients are told (stdio, ${era})`, async () => {
      const dir = makeTree({ 'alpha/SKILL.md': skillMd('alpha'), 'alpha/notes.md': 'v1\n' });
      let notified = 0;
      const { client } = await connectStdio([dir], era, {
        listChanged: { resources: { onChanged: () => void notified++ } },
      });
      try {
        const skills = new SkillsClient(client);
        assert.deepEqual(await names(skills), ['alpha']);

        // Add a skill: written elsewhere, then moved in (how editors and installers land files).
        const staging = makeTree({ 'beta/SKILL.md': skillMd('beta') });
        renameSync(join(staging, 'beta'), join(dir, 'beta'));
        // How fast is measured in bench/, not here: this only asks that it happens.
        await eventually(async () => ((await names(skills)).includes('beta') ? true : undefined), 5000, 'beta to appear');
        await eventually(async () => (notified > 0 ? true : undefined), 5000, 'list_changed notification');
        // The catalog in activate_skill's description follows too, on this long-lived connection.
        await eventually(
          async () => {
            const activate = (await client.listTools()).tools.find((tool) => tool.name === 'activate_skill');
            return activate?.description?.includes('<name>beta</name>') ? true : undefined;
          },
          5000,
          'activate_skill description to list beta',
        );

        // Change a file: the new digest is listed and the new bytes verify.
        writeFileSync(join(dir, 'alpha/notes.md'), 'v2, longer\n');
        const changed = await eventually(
          async () => {
            const alpha = (await skills.list()).skills.find((skill) => skill.frontmatter.name === 'alpha')!;
            const file = await skills.read(alpha, 'notes.md');
            return Buffer.from(file.bytes).toString() === 'v2, longer\n' ? file : undefined;
          },
          5000,
          'notes.md to change',
        );
        assert.equal(changed.verified, true);

        // Remove a skill.
        rmSync(join(dir, 'beta'), { recursive: true });
        await eventually(async () => ((await names(skills)).includes('beta') ? undefined : true), 5000, 'beta to go');
      } finally {
        await client.close();
      }
    });
  }

  test('a skill made invalid stops being served and comes back when fixed (HTTP, modern)', async () => {
    const dir = makeTree({ 'gamma/SKILL.md': skillMd('gamma'), 'delta/SKILL.md': skillMd('delta') });
    const server = await startHttp([dir]);
    try {
      const skills = new SkillsClient(await connectHttp(server.url, 'modern'));
      assert.deepEqual(await names(skills), ['delta', 'gamma']);
      writeFileSync(join(dir, 'gamma/SKILL.md'), '---\nname: gamma\n---\nno description\n');
      await eventually(async () => ((await names(skills)).join() === 'delta' ? true : undefined), 5000, 'gamma to be withdrawn');
      await eventually(
        async () => (server.stderr().includes('Missing required field in frontmatter: description') ? true : undefined),
        5000,
        'reason on stderr',
      );
      writeFileSync(join(dir, 'gamma/SKILL.md'), skillMd('gamma'));
      await eventually(async () => ((await names(skills)).join() === 'delta,gamma' ? true : undefined), 5000, 'gamma to return');
      // New folders deep in the tree are found too.
      mkdirSync(join(dir, 'team/sub'), { recursive: true });
      writeFileSync(join(dir, 'team/sub/SKILL.md'), skillMd('sub'));
      const uri = await eventually(async () => (await skills.list()).skills.find((skill) => skill.frontmatter.name === 'sub')?.uri, 5000, 'nested new skill');
      assert.equal(uri, 'skill://team/sub/SKILL.md');
    } finally {
      await server.stop();
    }
  });

  test('while files change under load, every byte served matches a manifest published around it', async () => {
    const dir = makeTree({ 'churn/SKILL.md': skillMd('churn'), 'churn/data.txt': 'initial\n' });
    // --ttl 0: the SDK client caches results for ttlMs; this test wants every answer fresh.
    const server = await startHttp([dir, '--ttl', '0']);
    try {
      const client = await connectHttp(server.url, 'modern');
      const skills = new SkillsClient(client);
      const digestOf = async () => {
        const entry = (await skills.get('skill://churn/SKILL.md')).skill;
        return (entry.resources as Array<{ uri: string; digest: string }>).find((r) => r.uri.endsWith('/data.txt'))!.digest;
      };
      // Every version the file will hold, in order (the first is the one written above).
      const versions = ['initial\n', ...Array.from({ length: 600 }, (_, i) => `version ${i} `.repeat(1 + (i % 7)))];
      const sha256 = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;
      const index = new Map(versions.map((version, i) => [sha256(version), i]));
      let stop = false;
      let served = 0;
      let refused = 0;
      const problems: string[] = [];
      const reader = (async () => {
        while (!stop) {
          const before = await digestOf();
          let text: string | undefined;
          try {
            const result = await client.readResource({ uri: 'skill://churn/data.txt' });
            const content = result.contents[0]!;
            text = 'text' in content ? content.text : undefined;
          } catch {
            refused++; // changed between listing and reading: refused, never served
            continue;
          }
          const after = await digestOf();
          const digest = `sha256:${createHash('sha256')
            .update(text ?? '')
            .digest('hex')}`;
          // The read was answered from a snapshot published between the two listings (on a slow machine several
          // versions may be published meanwhile): the bytes must be one of the versions listed in that window.
          const at = (value: string) => index.get(value) ?? -1;
          if (!(at(before) <= at(digest) && at(digest) <= at(after)))
            problems.push(`served ${JSON.stringify(text)} (version ${at(digest)}) outside the versions listed around it (${at(before)} to ${at(after)})`);
          served++;
        }
      })();
      // At least 15 changes, and on until enough reads were served to judge (a loaded machine serves fewer per change).
      for (let i = 0; i < 15 || (served <= 10 && i < 600); i++) {
        writeFileSync(join(dir, 'churn/data.txt'), versions[i + 1]!);
        await new Promise((r) => setTimeout(r, 200));
      }
      stop = true;
      await reader;
      assert.deepEqual(problems, []);
      assert.ok(served > 10, `served ${served}, refused ${refused}`);
      await client.close();
    } finally {
      await server.stop();
    }
  });
});
