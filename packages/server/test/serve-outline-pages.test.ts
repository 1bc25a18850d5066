import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { connectStdio, makeTree, skillMd } from '@skillport/test-kit';

/**
 * get_skill_outline a page at a time, like list_skills: an outline of 40,000 headings was one 3.9 MB answer (20,000:
 * 2.2 MB). Each page holds at most `limit` sections (default 200) and about 64 KiB of text, and its nextCursor leads
 * to the next; walking the pages gives every section once, in order. Over stdio through the SDK client, in both tool
 * surfaces (`full` and `asm`).
 */

const STEPS = 20_000;
const BODY = `# Guide\n\n${'## Step\n\nDo it.\n\n'.repeat(STEPS)}`;
const LONG_TITLE = `# ${'Very long title '.repeat(2000)}\n\nText.\n`;
const PAGE_BOUND = 80 * 1024;

interface Page {
  text: string;
  isError: boolean;
  structured: { totalSections?: number; nextCursor?: string; sections?: Array<{ key: string; title: string }> };
}

async function outline(client: Client, args: Record<string, unknown>): Promise<Page> {
  const result = (await client.callTool({ name: 'get_skill_outline', arguments: args })) as {
    content: Array<{ text: string }>;
    isError?: boolean;
    structuredContent?: Page['structured'];
  };
  return { text: result.content.map((item) => item.text).join(''), isError: result.isError === true, structured: result.structuredContent ?? {} };
}

for (const [surface, ref, keyOf] of [
  ['full', { name: 'many-steps' }, (i: number) => (i === 0 ? 'guide' : i === 1 ? 'guide/step' : `guide/step-${i}`)],
  ['asm', { skill_id: 'many-steps' }, (i: number) => (i === 0 ? 'guide' : i === 1 ? 'step' : `step-${i}`)],
] as const) {
  describe(`get_skill_outline in pages (--tools ${surface})`, () => {
    let client: Client;
    before(async () => {
      const tree = makeTree({
        'many-steps/SKILL.md': skillMd('many-steps', 'A skill of twenty thousand steps.', '', BODY),
        'long-title/SKILL.md': skillMd('long-title', 'A skill with one very long heading.', '', LONG_TITLE),
      });
      ({ client } = await connectStdio(['--tools', surface, '--no-watch', tree], 'legacy'));
    });
    after(async () => client?.close());

    test('the first page is bounded and says how to get the next', async () => {
      const first = await outline(client, ref);
      assert.equal(first.isError, false, first.text);
      assert.ok(first.text.length < PAGE_BOUND, `the first page is ${first.text.length} characters`);
      assert.equal(first.structured.totalSections, STEPS + 1);
      assert.equal(first.structured.sections?.length, 200);
      assert.ok(first.structured.nextCursor, 'a nextCursor');
      assert.ok(first.text.includes(`{"cursor": "${first.structured.nextCursor}"}`), 'the text names the next cursor');
    });

    test('walking the pages gives every section once, in order, each page bounded', async () => {
      const keys: string[] = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await outline(client, { ...ref, limit: 1000, ...(cursor !== undefined ? { cursor } : {}) });
        assert.equal(page.isError, false, page.text);
        assert.ok(page.text.length < PAGE_BOUND, `page ${pages + 1} is ${page.text.length} characters`);
        keys.push(...page.structured.sections!.map((section) => section.key));
        cursor = page.structured.nextCursor;
        pages++;
      } while (cursor !== undefined && pages < 100);
      assert.equal(keys.length, STEPS + 1);
      assert.deepEqual(
        keys,
        Array.from({ length: STEPS + 1 }, (_, i) => keyOf(i)),
      );
    });

    test('a cursor of another skill, or garbage, is refused with a clear line; a long title is shown clipped', async () => {
      const { structured } = await outline(client, ref);
      const other = surface === 'full' ? { name: 'long-title' } : { skill_id: 'long-title' };
      for (const cursor of [structured.nextCursor!, 'garbage', '']) {
        const refused = await outline(client, { ...other, cursor });
        assert.equal(refused.isError, true, refused.text);
        assert.match(refused.text, /That cursor is not one for this skill/);
      }
      const long = await outline(client, other);
      assert.equal(long.isError, false);
      assert.ok(long.text.length < 2000, `${long.text.length} characters`);
      assert.ok(long.structured.sections!.every((section) => section.title.length <= 200));
    });
  });
}
