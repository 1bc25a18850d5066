import assert from 'node:assert/strict';
import { test } from 'node:test';
import { markdownHeadings, outlineSkill, scanMarkdown } from '../src/index.js';

/** Sections and the headings search indexes come from one scanner: a heading is searched exactly when it is a section. */
const BODY = [
  '# Title',
  '<!--',
  '## Hidden in a comment',
  '-->',
  '## Setup',
  '```bash',
  '# a shell comment, not a heading',
  '```',
  '1. ```',
  '   # inside a list item fence',
  '## After the list ##',
  '## Use `gh` **first**',
  '<!-- ## one-line comment -->',
  '## Last',
].join('\n');

test('markdownHeadings: the same headings as the sections, comments and fences left out', async () => {
  const headings = markdownHeadings(BODY);
  assert.deepEqual(headings, ['Title', 'Setup', 'After the list', 'Use gh first', 'Last']);
  const outline = await outlineSkill(BODY);
  const titles = outline.sections.filter((section) => section.key !== 'preamble').map((section) => section.title);
  assert.equal(titles.length, headings.length);
  assert.deepEqual(
    scanMarkdown(BODY).headings.map((heading) => heading.level),
    [1, 2, 2, 2, 2],
  );
});

test('markdownHeadings: empty headings are skipped; a body without headings has none', () => {
  assert.deepEqual(markdownHeadings('#\n## \ntext'), []);
  assert.deepEqual(markdownHeadings(''), []);
});
