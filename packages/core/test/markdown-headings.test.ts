import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { markdownHeadings } from '../src/index.js';

test('markdownHeadings: empty headings are skipped; a body without headings has none', () => {
  assert.deepEqual(markdownHeadings('#\n## \ntext'), []);
  assert.deepEqual(markdownHeadings(''), []);
});

describe('markdownHeadings', () => {
  test('ATX headings of every level, with closing #s and inline markup stripped', () => {
    const body = [
      '# Title',
      'text',
      '## Use `gh` **first** and _then_ [the docs](https://example.com) ##',
      '### C# tips',
      '#### Four ####   ',
      '##### *Five*',
      '###### Six',
      '####### seven is not a heading',
      '#hashtag is not a heading',
      '   # three spaces in',
      '    # four spaces in is code',
      '## snake_case_name stays',
      '## ~~old~~ new \\*literal\\*',
      '#',
      '##   ##',
    ].join('\n');
    assert.deepEqual(markdownHeadings(body), [
      'Title',
      'Use gh first and then the docs',
      'C# tips',
      'Four',
      'Five',
      'Six',
      'three spaces in',
      'snake_case_name stays',
      'old new *literal*',
    ]);
  });

  test('headings inside fenced code blocks are ignored (``` and ~~~, with info strings)', () => {
    const body = [
      '# Before',
      '```bash title="x"',
      '# a shell comment',
      '```',
      '## Between',
      '~~~python',
      '# a python comment',
      '```',
      '# still inside: a ``` line does not close a ~~~ fence',
      '~~~',
      '## After tilde',
      '````md',
      '```',
      '# inside: a shorter fence does not close a longer one',
      '````',
      '## Last',
      '```',
      '# unclosed fence runs to the end',
    ].join('\n');
    assert.deepEqual(markdownHeadings(body), ['Before', 'Between', 'After tilde', 'Last']);
  });

  test('an inline code span is not a fence', () => {
    assert.deepEqual(markdownHeadings('``` `not a fence` ```\n# Real'), ['Real']);
  });

  test('setext headings are not read', () => {
    assert.deepEqual(markdownHeadings('Title\n=====\n\nSub\n---\n\n## Atx'), ['Atx']);
  });

  test('CRLF and CR line ends', () => {
    assert.deepEqual(markdownHeadings('# One\r\ntext\r\n## Two\r### Three'), ['One', 'Two', 'Three']);
  });

  test('empty body', () => {
    assert.deepEqual(markdownHeadings(''), []);
  });
});

test('a scan keeps at most maxHeadings headings and counts them all; search takes the first 10,000', async () => {
  const { MAX_SEARCHED_HEADINGS, markdownHeadings, scanMarkdown, scanMarkdownAsync } = await import('../src/markdown-headings.js');
  const body = '# a\n\n```\n# not a heading\n```\n# b\n'.repeat(6_000);
  const full = scanMarkdown(body);
  assert.equal(full.headings.length, 12_000);
  assert.equal(full.headingCount, 12_000);
  const capped = await scanMarkdownAsync(body, { maxHeadings: 100 });
  assert.deepEqual(capped.headings, full.headings.slice(0, 100));
  assert.equal(capped.headingCount, 12_000);
  assert.deepEqual([...capped.lineStarts], [...full.lineStarts], 'line starts are kept for every line');
  assert.equal(markdownHeadings(body).length, MAX_SEARCHED_HEADINGS);
});
