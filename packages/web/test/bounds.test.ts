import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderMarkdown } from '../src/markdown.js';
import { lineDiff } from '../src/pages/compare.js';
import { PART_CHARS, PART_HEADINGS, markdownParts } from '../src/parts.js';

/**
 * The compare page's line diff is bounded: Myers' diff costs about (lines) x (edits), and two 8,000-line versions
 * with every line changed took 28 s on the main thread while every other request waited. Past 500 changed lines
 * the page says the files differ and by how many lines instead. The bound is on edits, so it engages the same way
 * on any machine; a 50 ms time bound backs it up.
 */
const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `line ${i} ${tag}`).join('\n');

test('every line changed: past the edit bound, "files differ" with the line counts, no diff table', async () => {
  const out = String(await lineDiff(lines(3000, 'alpha'), lines(3000, 'beta')));
  assert.doesNotMatch(out, /<table class="diff"/);
  // The edit bound on a quiet machine; a loaded one may reach the 50 ms time bound first, and the note says so.
  assert.match(
    out,
    /The files differ \(3,000 lines → 3,000 lines\): (more than 500 lines changed, too many to show line by line here|comparing them line by line took longer than this page allows; reload to try again)\./,
  );
  const big = String(await lineDiff(lines(8000, 'alpha'), lines(8000, 'beta')));
  assert.match(big, /The files differ \(8,000 lines → 8,000 lines\)/);
});

test('a few changes in long files are still shown line by line', async () => {
  const before = lines(8000, 'same');
  const after = before.replace('line 4000 same', 'line 4000 edited').replace('line 7999 same', 'line 7999 edited');
  const out = String(await lineDiff(before, after));
  assert.match(out, /<table class="diff"/);
  assert.match(out, /line 4000 edited/);
  assert.match(out, /⋯ 3997 unchanged lines/);
  assert.match(out, /⋯ 3992 unchanged lines/);
});

test('a diff of two versions is computed once: the same pair again comes from the cache', async () => {
  const { diffCacheStats } = await import('../src/pages/compare.js');
  const before = lines(500, 'v1');
  const after = before.replace('line 10 v1', 'line 10 v2');
  const first = String(await lineDiff(before, after, { from: 'sha256:aa', to: 'sha256:bb' }));
  const hits = diffCacheStats().hits;
  const second = String(await lineDiff(before, after, { from: 'sha256:aa', to: 'sha256:bb' }));
  assert.equal(second, first);
  assert.equal(diffCacheStats().hits, hits + 1);
});

/**
 * A long SKILL.md is rendered a part at a time (a 3 MiB table rendered into 17 MiB of HTML in one view): parts of
 * at most 64 KiB and 1,000 headings, cut before a block or heading where there is one, inside a block otherwise;
 * a table cut keeps its header rows in the next part so that every part is still a table.
 */
const links = { fileHref: () => undefined, rawHref: () => undefined };

test('a 3 MiB table: parts of at most 64 KiB that together are the table, each rendered as a table', async () => {
  const row = (i: number) => `| ${i} | cell b${i} | cell c${i} | cell d${i} |\n`;
  const rows = Math.ceil((3 * 1024 * 1024) / row(99999).length);
  const body = `# Data\n\n| n | b | c | d |\n|---|:--|--:|---|\n${Array.from({ length: rows }, (_, i) => row(i)).join('')}\nAfter the table.\n`;
  const parts = await markdownParts(body);
  assert.ok(parts.length >= 48, `${parts.length} parts`);
  assert.equal(parts.map((part) => body.slice(part.start, part.end)).join(''), body, 'the parts are the body, in order');
  let cells = 0;
  for (const [index, part] of parts.entries()) {
    const text = part.carry + body.slice(part.start, part.end);
    assert.ok(text.length <= PART_CHARS, `part ${index + 1}: ${text.length} characters`);
    if (index > 0 && index < parts.length - 1) assert.equal(part.carry, '| n | b | c | d |\n|---|:--|--:|---|\n', `part ${index + 1} carries the header`);
    const { html } = renderMarkdown(text, links);
    if (index < parts.length - 1) assert.match(html, /^(<h1 id="h-data">Data<\/h1>\n)?<table>\n<thead>/, `part ${index + 1} renders as a table`);
    cells += (html.match(/<td[^>]*>cell b\d+<\/td>/g) ?? []).length;
  }
  assert.equal(cells, rows, 'every row is in exactly one part');
});

test('40,000 headings: parts of 1,000 headings, cut right before a heading', async () => {
  const body = '# x\n'.repeat(40_000);
  const parts = await markdownParts(body);
  assert.equal(parts.length, 40_000 / PART_HEADINGS);
  for (const part of parts) assert.equal(body.slice(part.start, part.end), '# x\n'.repeat(PART_HEADINGS));
});

test('a body of ordinary size is one part; a long one is cut at blank lines outside fences', async () => {
  const small = '# Title\n\nText.\n';
  assert.deepEqual(await markdownParts(small), [{ start: 0, end: small.length, carry: '' }]);
  const paragraph = `${'word '.repeat(200)}\n\n`;
  const fence = `\`\`\`\n${'code line\n\ncode after a blank\n'.repeat(50)}\`\`\`\n\n`;
  const body = `${paragraph.repeat(100)}${fence}`.repeat(3);
  const parts = await markdownParts(body);
  assert.ok(parts.length > 1);
  for (const part of parts.slice(1)) {
    const before = body.slice(0, part.start);
    assert.ok(before.endsWith('\n\n'), 'each part starts after a blank line');
    assert.equal((before.match(/^```$/gm) ?? []).length % 2, 0, 'never inside a fence');
  }
});

test('finding the parts of a 3 MiB body lets the event loop run (turns counted, not timed)', async () => {
  const { turnsDuring } = await import('@skillport/test-kit');
  const body = `# Data\n\n| n | b |\n|---|---|\n${Array.from({ length: 200_000 }, (_, i) => `| ${i} | x |\n`).join('')}`;
  const { result, turns } = await turnsDuring(() => markdownParts(body));
  assert.ok(result.length > 1);
  assert.ok(turns >= 40, `the event loop came round ${turns} times`);
});
