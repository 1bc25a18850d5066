import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { countTokens as tokenizerCount } from 'gpt-tokenizer/encoding/cl100k_base';
import { markdownHeadings, parseSkillMarkdown, scanMarkdown } from '@skillport/core';
import { DEFAULT_WHOLE_BODY_TOKENS, TOKEN_ENCODING, countTokens, findSection, outlineSkill, suggestSections } from '../src/sections.js';
import type { OutlineOptions, SkillOutline } from '../src/sections.js';

const REPO = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../..');
const CORPUS = resolve(REPO, '../shared/corpus/skills');

/** The tokenizer itself, with special-token text counted as text (what countTokens promises). */
const reference = (text: string): number => tokenizerCount(text, { disallowedSpecial: new Set() });

/**
 * Outlines `body` and checks what must hold for every body: the sections' texts in order are the body exactly,
 * keys are unique and well formed, line numbers match the text, and tokens are the real count of each text.
 */
async function outline(body: string, options?: OutlineOptions): Promise<SkillOutline> {
  const result = await outlineSkill(body, options);
  checkInvariants(body, result);
  return result;
}

function checkInvariants(body: string, result: SkillOutline, exactTokens = true): void {
  if (body.trim() === '') assert.deepEqual(result.sections, []);
  else assert.equal(result.sections.map((section) => section.text).join(''), body, 'sections reproduce the body');
  const keys = result.sections.map((section) => section.key);
  assert.equal(new Set(keys).size, keys.length, `keys are unique: ${keys.join(' ')}`);
  let line = 1;
  for (const section of result.sections) {
    assert.match(section.key, /^[a-z0-9]+(?:-[a-z0-9]+)*(?:\/[a-z0-9]+(?:-[a-z0-9]+)*)*$/, `key ${JSON.stringify(section.key)}`);
    assert.equal(section.startLine, line, `${section.key} starts on line ${line}`);
    const breaks = section.text.split(/\r\n|\r|\n/).length - 1;
    const endsWithBreak = /[\r\n]$/.test(section.text);
    assert.equal(section.endLine, line + breaks - (endsWithBreak ? 1 : 0), `${section.key} ends where its text does`);
    line += breaks;
    assert.ok(section.tokens > 0, `${section.key} has tokens`);
    if (exactTokens) assert.equal(section.tokens, reference(section.text), `${section.key}: the tokenizer's count`);
  }
  assert.equal(
    result.totalTokens,
    result.sections.reduce((sum, section) => sum + section.tokens, 0),
  );
}

const keysOf = (result: SkillOutline): string[] => result.sections.map((section) => section.key);
const titlesOf = (result: SkillOutline): string[] => result.sections.map((section) => section.title);

describe('headings', () => {
  test('ATX headings of every level start sections; each runs to the next heading of any level', async () => {
    const body =
      '# Title\n\nIntro.\n\n## Setup\n\nSteps.\n\n### Install dependencies\n\nnpm i\n\n#### Deep\n##### Deeper\n###### Deepest\n\n## Usage\nRun it.\n';
    const result = await outline(body);
    assert.deepEqual(keysOf(result), [
      'title',
      'title/setup',
      'title/setup/install-dependencies',
      'title/setup/install-dependencies/deep',
      'title/setup/install-dependencies/deep/deeper',
      'title/setup/install-dependencies/deep/deeper/deepest',
      'title/usage',
    ]);
    assert.deepEqual(
      result.sections.map((section) => section.level),
      [1, 2, 3, 4, 5, 6, 2],
    );
    assert.equal(result.sections[1]!.text, '## Setup\n\nSteps.\n\n');
    assert.equal(result.sections[3]!.text, '#### Deep\n');
  });

  test('trailing #s are dropped only as a closing sequence', async () => {
    const body = '# Closed #\n## Also closed ##########   \n### Not closed#\n#### Escaped \\#\n##### ###\n';
    const result = await outline(body);
    assert.deepEqual(titlesOf(result), ['Closed', 'Also closed', 'Not closed#', 'Escaped \\#', '']);
    assert.deepEqual(keysOf(result), [
      'closed',
      'closed/also-closed',
      'closed/also-closed/not-closed',
      'closed/also-closed/not-closed/escaped',
      'closed/also-closed/not-closed/escaped/section',
    ]);
  });

  test('what is not an ATX heading', async () => {
    const body = 'Intro\n#hashtag\n####### seven\n    # indented code\n\t# tab-indented\n> # quoted\n   ### three spaces is fine\n';
    const result = await outline(body);
    assert.deepEqual(keysOf(result), ['preamble', 'three-spaces-is-fine']);
  });

  test('setext headings are not sections', async () => {
    const body = 'Title\n=====\n\nText.\n\nSubtitle\n--------\n\nMore.\n\n# Real\n\nBody.\n';
    const result = await outline(body);
    assert.deepEqual(keysOf(result), ['preamble', 'real']);
    assert.equal(result.sections[0]!.text, 'Title\n=====\n\nText.\n\nSubtitle\n--------\n\nMore.\n\n');
  });

  test('an empty heading and a heading with nothing under it are sections of their own', async () => {
    const result = await outline('# A\n## B\n#\n## C\n');
    assert.deepEqual(keysOf(result), ['a', 'a/b', 'section', 'section/c']);
    assert.deepEqual(
      result.sections.map((section) => section.text),
      ['# A\n', '## B\n', '#\n', '## C\n'],
    );
  });

  test('a heading skipping levels nests under the nearest higher one; a lower one climbs back out', async () => {
    const result = await outline('## Two\n#### Four\n### Three\n# One\n### Three again\n');
    assert.deepEqual(keysOf(result), ['two', 'two/four', 'two/three', 'one', 'one/three-again']);
  });
});

describe('code fences and comments', () => {
  test('backtick and tilde fences hide headings', async () => {
    const body = '# Real\n\n```bash\n# a shell comment\n```\n\n~~~\n## not a heading\n~~~\n\n## Also real\n';
    assert.deepEqual(keysOf(await outline(body)), ['real', 'real/also-real']);
  });

  test('a fence closes only with its own character, at least as long', async () => {
    const body = [
      '# Start',
      '~~~~markdown',
      '```',
      '# inside tildes',
      '```',
      '~~~',
      '# still inside: three tildes cannot close four',
      '~~~~~',
      '# After tildes',
      '````',
      '~~~',
      '# inside backticks',
      '```',
      '# still inside: three backticks cannot close four',
      '````',
      '# After backticks',
      '',
    ].join('\n');
    assert.deepEqual(keysOf(await outline(body)), ['start', 'after-tildes', 'after-backticks']);
  });

  test('a closing fence takes nothing after it; an opening backtick fence takes no backtick in its info', async () => {
    const body = '```js\n```js\n# inside\n```\n# After\n``` not `a` fence\n# Heading\n';
    assert.deepEqual(keysOf(await outline(body)), ['preamble', 'after', 'heading']);
  });

  test('an unclosed fence runs to the end of the document', async () => {
    const result = await outline('# Before\n\n```python\n# comment\n\n# Not a heading\n');
    assert.deepEqual(keysOf(result), ['before']);
    assert.equal(result.sections[0]!.endLine, 6);
  });

  test('fences inside list items: opened after a marker, closed indented, or ended with the item', async () => {
    const body = [
      '# Steps',
      '1. ```bash',
      '   # comment in a list fence',
      '   ```',
      '2. Then:',
      '   ```',
      '   # also code',
      '   ```',
      '   Trailing text, and a fence never closed:',
      '   ```',
      '   # code until the list ends',
      '',
      '## Next',
      '',
    ].join('\n');
    assert.deepEqual(keysOf(await outline(body)), ['steps', 'steps/next']);
  });

  test('headings inside HTML comments are ignored; a one-line comment hides nothing after it', async () => {
    const body = '# A\n<!--\n# hidden\n## hidden too\n-->\n## B\n<!-- note --> \n## C\n  <!-- start\n# hidden\nend -->\n## D\n';
    assert.deepEqual(keysOf(await outline(body)), ['a', 'a/b', 'a/c', 'a/d']);
  });

  test('comment markers inside a fence and fence markers inside a comment are text', async () => {
    const body = '# A\n```html\n<!--\n```\n# B\n<!--\n```\n-->\n# C\n';
    assert.deepEqual(keysOf(await outline(body)), ['a', 'b', 'c']);
  });
});

describe('preamble and blank text', () => {
  test('text before the first heading is the preamble', async () => {
    const result = await outline('Read me first.\n\n# Title\nBody.\n');
    assert.deepEqual(keysOf(result), ['preamble', 'title']);
    assert.deepEqual(result.sections[0], {
      key: 'preamble',
      title: 'Preamble',
      level: 0,
      startLine: 1,
      endLine: 2,
      tokens: reference('Read me first.\n\n'),
      text: 'Read me first.\n\n',
    });
  });

  test('a blank preamble is no section: it rides with the first heading', async () => {
    const result = await outline('\n\n# Title\nBody.\n');
    assert.deepEqual(keysOf(result), ['title']);
    assert.equal(result.sections[0]!.text, '\n\n# Title\nBody.\n');
    assert.equal(result.sections[0]!.startLine, 1);
  });

  test('a heading called Preamble never takes the preamble key, with or without a preamble', async () => {
    assert.deepEqual(keysOf(await outline('# Preamble\nx\n')), ['preamble-2']);
    assert.deepEqual(keysOf(await outline('Intro.\n# Preamble\nx\n')), ['preamble', 'preamble-2']);
  });

  test('a body without headings is one preamble section', async () => {
    const body = 'Just instructions.\n\nNo headings at all.\n';
    const result = await outline(body);
    assert.deepEqual(keysOf(result), ['preamble']);
    assert.equal(result.sections[0]!.text, body);
    assert.equal(result.wholeBodyCheaper, true);
  });

  test('an empty or blank body has no sections', async () => {
    for (const body of ['', '\n', '  \n\t\n']) {
      const result = await outline(body);
      assert.deepEqual(result.sections, []);
      assert.equal(result.totalTokens, 0);
      assert.equal(result.wholeBodyCheaper, true);
      assert.equal(result.advice, 'The body is empty: there is nothing to load.');
    }
  });
});

describe('keys', () => {
  test('slugs: lowercase ASCII, punctuation and markup dropped, accents transliterated, other scripts dropped', async () => {
    const body = [
      '# Install **Dependencies** (Linux/macOS)',
      "# Don't Panic!",
      '# Café Größe Ærø',
      '# [Link text](https://example.com) and `code`',
      '# 安装 Setup',
      '# 安装',
      '# ＦＵＬＬ width',
      '',
    ].join('\n');
    assert.deepEqual(keysOf(await outline(body)), [
      'install-dependencies-linux-macos',
      'dont-panic',
      'cafe-grosse-aero',
      'link-text-and-code',
      'setup',
      'section',
      'full-width',
    ]);
  });

  test('duplicates get -2, -3 in document order, past literal ones', async () => {
    const body = '# Example\n# Example\n# Example 2\n# example\n## Sub\n# Example\n## Sub\n';
    assert.deepEqual(keysOf(await outline(body)), ['example', 'example-2', 'example-2-2', 'example-3', 'example-3/sub', 'example-4', 'example-4/sub']);
  });

  test('the same title under different parents needs no suffix', async () => {
    const body = '# Setup\n## Notes\n# Usage\n## Notes\n## Notes\n';
    assert.deepEqual(keysOf(await outline(body)), ['setup', 'setup/notes', 'usage', 'usage/notes', 'usage/notes-2']);
  });

  test('editing one section leaves every other key as it was', async () => {
    const before = 'Intro.\n# Setup\nOld text.\n## Example\nA\n# Usage\n## Example\nB\n## Example\nC\n';
    const after =
      'Intro, rewritten at length with `code` and ```inline fences``` too.\n# Setup\nNew text,\n\nmuch longer.\n\n```\n# code\n```\n## Example\nA\n# Usage\n## Example\nB, changed\n## Example\nC\n';
    const a = await outline(before);
    const b = await outline(after);
    assert.deepEqual(keysOf(b), keysOf(a));
    assert.deepEqual(keysOf(a), ['preamble', 'setup', 'setup/example', 'usage', 'usage/example', 'usage/example-2']);
    assert.deepEqual(keysOf(await outline(before)), keysOf(a), 'the same body gives the same keys');
  });
});

describe('line endings', () => {
  test('CRLF bodies: the same sections and keys as LF, text kept byte for byte', async () => {
    const lf = 'Intro\n\n# A\n\n```\n# code\n```\n\n## B ##\ntext\n\nSetext\n===\n# C\n';
    const crlf = lf.replace(/\n/g, '\r\n');
    const a = await outline(lf);
    const b = await outline(crlf);
    assert.deepEqual(keysOf(b), keysOf(a));
    assert.deepEqual(titlesOf(b), ['Preamble', 'A', 'B', 'C']);
    assert.deepEqual(
      b.sections.map((section) => [section.startLine, section.endLine]),
      a.sections.map((section) => [section.startLine, section.endLine]),
    );
    assert.ok(b.sections[1]!.text.endsWith('```\r\n\r\n'));
  });

  test('lone CRs end lines too; a body without a final line ending keeps its last line', async () => {
    const result = await outline('# A\rtext\r# B\rlast');
    assert.deepEqual(keysOf(result), ['a', 'b']);
    assert.deepEqual(
      result.sections.map((section) => [section.startLine, section.endLine]),
      [
        [1, 2],
        [3, 4],
      ],
    );
  });

  test('a byte order mark does not hide the first heading', async () => {
    assert.deepEqual(keysOf(await outline('\uFEFF# Title\nx\n')), ['title']);
  });
});

describe('tokens', () => {
  test('each section counts as the tokenizer counts its text, and non-empty text is never 0', async () => {
    const body = '# Héllo wörld 👋\n\nSome `code` and 中文字符.\n\n## Special <|endoftext|> text\n\n<|im_start|>\n';
    const result = await outline(body);
    for (const section of result.sections) {
      assert.equal(section.tokens, reference(section.text));
      assert.equal(section.tokens, await countTokens(section.text));
      assert.ok(section.tokens > 0);
    }
    assert.equal(TOKEN_ENCODING, 'cl100k_base');
  });

  test('countTokens', async () => {
    assert.equal(await countTokens(''), 0);
    assert.equal(await countTokens('hello world'), 2);
    assert.equal(await countTokens('a <|endoftext|> b'), reference('a <|endoftext|> b'));
    const prose = readFileSync(fileURLToPath(import.meta.url), 'utf8'); // this file, compiled: long, varied text
    assert.equal(await countTokens(prose), reference(prose));
  });

  test('runs with no break are counted in slices: linear, and within a token per slice of the exact count', async () => {
    for (const run of ['a'.repeat(2000), '中'.repeat(1200), ' '.repeat(3000), '-'.repeat(1500), '😀'.repeat(700), `x${'é'.repeat(999)}y`]) {
      const exact = reference(run);
      const counted = await countTokens(run);
      const slices = Math.ceil(run.length / 256);
      assert.ok(Math.abs(counted - exact) <= slices, `${JSON.stringify(run.slice(0, 3))}: ${counted} vs ${exact}`);
    }
    // 100,000 letters in one run take the tokenizer ~9 s; a million, in slices, a moment ("abcd" is one token).
    const huge = await countTokens(`# Blob\n\n${'abcd'.repeat(250_000)}\n`);
    assert.ok(huge >= 250_000 && huge < 250_000 + 4000, String(huge));
  });

  test('totalTokens is the sum of the sections', async () => {
    const result = await outline('# A\n\ntext\n\n## B\n\nmore\n');
    assert.equal(result.totalTokens, reference('# A\n\ntext\n\n## B\n\nmore\n'));
  });
});

describe('whole body or sections', () => {
  const section = (n: number, words: number): string => `## Part ${n}\n\n${'Lorem ipsum dolor sit amet. '.repeat(words / 5)}\n\n`;

  test('a small body: load it whole', async () => {
    const result = await outline('# A\n\none\n\n# B\n\ntwo\n\n# C\n\nthree\n');
    assert.equal(result.wholeBodyCheaper, true);
    assert.equal(result.advice, `The whole body is ${result.totalTokens} tokens: load it in one call instead of section by section.`);
  });

  test('a big body in many sections: read the outline, then sections', async () => {
    const body = `# Guide\n\n${Array.from({ length: 13 }, (_, i) => section(i + 1, 600)).join('')}`;
    const result = await outline(body);
    assert.ok(result.totalTokens > DEFAULT_WHOLE_BODY_TOKENS);
    assert.equal(result.sections.length, 14);
    assert.equal(result.wholeBodyCheaper, false);
    const total = result.totalTokens.toLocaleString('en-US');
    assert.ok(total.includes(','));
    assert.equal(result.advice, `The body is ${total} tokens in 14 sections: read the outline, then the sections you need.`);
  });

  test('a big body in fewer than 3 sections: load it whole', async () => {
    const result = await outline(`# Guide\n\n${section(1, 2000)}`);
    assert.ok(result.totalTokens > DEFAULT_WHOLE_BODY_TOKENS);
    assert.equal(result.wholeBodyCheaper, true);
    assert.equal(
      result.advice,
      `The whole body is ${result.totalTokens.toLocaleString('en-US')} tokens in 2 sections: load it in one call instead of section by section.`,
    );
  });

  test('the threshold is an option', async () => {
    const body = '# A\n\none\n\n# B\n\ntwo\n\n# C\n\nthree\n';
    assert.equal((await outline(body, { wholeBodyTokens: 5 })).wholeBodyCheaper, false);
    await assert.rejects(outlineSkill(body, { wholeBodyTokens: Number.NaN }), RangeError);
    await assert.rejects(outlineSkill(body, { maxSectionTokens: 0 }), RangeError);
  });
});

describe('maxSectionTokens', () => {
  const paragraph = (n: number): string => `Paragraph ${n}: ${'words and more words '.repeat(20)}\n\n`;
  const body = `# Small\n\nShort.\n\n# Big\n\n${Array.from({ length: 12 }, (_, i) => paragraph(i)).join('')}\`\`\`\n${'code line\n'.repeat(30)}\n${'more code\n'.repeat(30)}\`\`\`\n\n## Child\n\nText.\n`;

  test('unset: sections are never split', async () => {
    assert.deepEqual(keysOf(await outline(body)), ['small', 'big', 'big/child']);
  });

  test('an oversized section is cut into parts at blank lines, never past the cap', async () => {
    const result = await outline(body, { maxSectionTokens: 250 });
    const keys = keysOf(result);
    assert.deepEqual(
      keys.filter((key) => !key.startsWith('big/part-')),
      ['small', 'big', 'big/child'],
      'heading keys do not move',
    );
    assert.ok(keys.includes('big/part-2') && keys.includes('big/part-3'), keys.join(' '));
    for (const section of result.sections) assert.ok(section.tokens <= 250, `${section.key}: ${section.tokens}`);
    const parts = result.sections.filter((section) => section.key.startsWith('big'));
    assert.ok(parts[0]!.text.startsWith('# Big\n'));
    assert.match(parts[1]!.title, /^Big \(part 2 of \d+\)$/);
    for (const part of parts.slice(1, -1)) assert.ok(/^(Paragraph|```)/.test(part.text), `parts start at blocks: ${JSON.stringify(part.text.slice(0, 20))}`);
  });

  test('a block bigger than the cap is cut at line ends; a line bigger than the cap stays whole', async () => {
    const result = await outline(body, { maxSectionTokens: 40 });
    for (const section of result.sections) if (!section.text.includes('words and more')) assert.ok(section.tokens <= 40, `${section.key}: ${section.tokens}`);
    const long = await outline(`# One line\n${'word '.repeat(500)}\n`, { maxSectionTokens: 50 });
    assert.deepEqual(keysOf(long), ['one-line', 'one-line/part-2']);
  });
});

describe('findSection and suggestSections', () => {
  const body = '# Guide\n## Setup\n### Install dependencies\n## Usage\n### Examples\n## Notes\n### Examples\n## FAQ\n';

  test('by exact key, key in any case, title in any case, or a unique key suffix', async () => {
    const result = await outline(body);
    assert.equal(findSection(result, 'guide/setup/install-dependencies')?.title, 'Install dependencies');
    assert.equal(findSection(result, 'Guide/Setup')?.key, 'guide/setup');
    assert.equal(findSection(result, '  install DEPENDENCIES ')?.key, 'guide/setup/install-dependencies');
    assert.equal(findSection(result, 'faq')?.key, 'guide/faq');
    assert.equal(findSection(result, 'setup/install-dependencies')?.key, 'guide/setup/install-dependencies');
    assert.equal(findSection(result, 'usage/examples')?.key, 'guide/usage/examples');
    assert.equal(findSection(result, '#setup')?.key, 'guide/setup');
  });

  test('an ambiguous title or suffix, or an unknown key, finds nothing', async () => {
    const result = await outline(body);
    assert.equal(findSection(result, 'Examples'), undefined);
    assert.equal(findSection(result, 'examples'), undefined);
    assert.equal(findSection(result, 'nope'), undefined);
    assert.equal(findSection(result, ''), undefined);
    assert.equal(findSection(result, 'dependencies'), undefined, 'a suffix counts only at a /');
  });

  test('suggestions: the ambiguous matches, then close keys; at most 3', async () => {
    const result = await outline(body);
    assert.deepEqual(suggestSections(result, 'Examples'), ['guide/usage/examples', 'guide/notes/examples']);
    assert.deepEqual(suggestSections(result, 'guide/setpu'), ['guide/setup']);
    assert.deepEqual(suggestSections(result, 'guide/usagex').slice(0, 1), ['guide/usage']);
    assert.ok(suggestSections(result, 'guide/x').length <= 3);
    assert.deepEqual(suggestSections(result, 'instal-dependencies'), ['guide/setup/install-dependencies']);
    assert.deepEqual(suggestSections(result, 'completely unrelated words'), []);
  });
});

describe('scale and real skills', () => {
  test('a 1 MB body', async () => {
    const chunk = (i: number): string =>
      `## Section ${i}\n\nSome instructions, with \`code\` and a list:\n\n- one\n- two\n\n\`\`\`bash\n# not a heading ${i}\nnpm test\n\`\`\`\n\n`;
    let body = '# Big skill\n\n';
    for (let i = 0; body.length < 1_000_000; i++) body += chunk(i);
    const result = await outlineSkill(body);
    checkInvariants(body, result, false);
    assert.equal(result.sections.length, body.split('## Section ').length);
    assert.equal(result.wholeBodyCheaper, false);
    const split = await outlineSkill(body, { maxSectionTokens: 20 });
    assert.equal(split.sections.map((section) => section.text).join(''), body);
  });

  test('importing the sections module does not load the tokenizer; the first count does', () => {
    const core = new URL('../src/sections.js', import.meta.url).href;
    const hooks = `export async function resolve(specifier, context, next) {
      if (specifier.startsWith('gpt-tokenizer')) throw new Error('tokenizer requested');
      return next(specifier, context);
    }`;
    const script = `
      import { register } from 'node:module';
      register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hooks)}));
      const core = await import(${JSON.stringify(core)});
      console.log('imported', typeof core.outlineSkill);
      await core.countTokens('x').catch((error) => console.log('count:', error.message));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, 'imported function\ncount: tokenizer requested\n');
  });

  test('every SKILL.md of the shared corpus: sections reproduce the body', { skip: existsSync(CORPUS) ? false : `no corpus at ${CORPUS}` }, async () => {
    const files: string[] = [];
    const walk = (dir: string): void => {
      for (const name of readdirSync(dir).sort()) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (name === 'SKILL.md') files.push(path);
      }
    };
    walk(CORPUS);
    assert.ok(files.length >= 700, `${files.length} SKILL.md files`);
    let outlined = 0;
    for (const file of files) {
      let body: string;
      try {
        body = parseSkillMarkdown(readFileSync(file, 'utf8')).body;
      } catch {
        continue;
      }
      const result = await outlineSkill(body);
      try {
        checkInvariants(body, result);
      } catch (error) {
        throw new Error(`${file}: ${(error as Error).message}`);
      }
      outlined++;
    }
    assert.ok(outlined >= 700, `${outlined} bodies outlined`);
  });
});

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

/**
 * Repeated headings: keys used to be found by trying `x`, `x-2`, `x-3`… from 2 each time, so N equal headings cost
 * N²/2 lookups (a 137 KiB SKILL.md of repeated headings took 13 s, 20,000 headings 12.7 s in get_skill_outline).
 * Counted lookups, not time: doubling the headings must about double the work.
 */
describe('keys of repeated headings are found in linear work', () => {
  test('the keys are the same as ever: a literal "x-2" is skipped, never reused', async () => {
    const result = await outlineSkill('# x\n\n# x-2\n\n# x\n\n# x\n\n# Preamble\n\n# x-3\n');
    assert.deepEqual(
      result.sections.map((section) => section.key),
      ['x', 'x-2', 'x-3', 'x-4', 'preamble-2', 'x-3-2'],
    );
  });

  test('40,000 repeated headings: x, x-2 … x-40000, with work that doubles when the headings do', async () => {
    const { countLookups } = await import('@skillport/test-kit');
    await countTokens('warm'); // the tokenizer's own first load is not this test's work
    const work = async (n: number) => (await countLookups(() => outlineSkill('# x\n'.repeat(n)))).lookups;
    const [small, large] = [await work(2000), await work(4000)];
    assert.ok(large / small < 2.5, `lookups for 2,000 headings: ${small}, for 4,000: ${large} (x${(large / small).toFixed(2)})`);
    assert.ok(large < 50 * 4000, `${large} lookups for 4,000 headings`);
    const big = await outlineSkill('# x\n'.repeat(40_000));
    assert.equal(big.sections.length, 40_000);
    assert.deepEqual(
      big.sections.map((section) => section.key),
      Array.from({ length: 40_000 }, (_, i) => (i === 0 ? 'x' : `x-${i + 1}`)),
    );
  });
});

/**
 * Counting a 3 MiB body took ~0.4 s in one go, every other request waiting. It is now counted in pieces cut where
 * the count stays exact, the event loop running between pieces: the counts are the tokenizer's own, and the loop
 * comes round many times while they are made (turns counted, not timed).
 */
describe('long bodies are counted and outlined in turns with other work', () => {
  const row = (i: number) => `| ${i} | cell b${i} | cell c${i} | cell d${i} |\n`;
  const table = `# Data\n\n| n | b | c | d |\n|---|---|---|---|\n${Array.from({ length: 60_000 }, (_, i) => row(i)).join('')}`;
  const prose = `# Notes\n\n${'The quick brown fox jumps over the lazy dog near the river bank.\n'.repeat(50_000)}`;

  test('the count of a 3 MiB table and of 3 MiB of prose is the count in one go', async () => {
    const { turnsDuring } = await import('@skillport/test-kit');
    for (const body of [table, prose]) {
      const { result, turns } = await turnsDuring(() => countTokens(body));
      assert.equal(result, reference(body));
      assert.ok(turns >= 40, `the event loop came round ${turns} times while ${(body.length / 1048576).toFixed(1)} MiB were counted`);
    }
  });

  test('an outline of 3 MiB in one section, and of 40,000 sections, lets the event loop run', async () => {
    const { turnsDuring } = await import('@skillport/test-kit');
    await countTokens('warm');
    const one = await turnsDuring(() => outlineSkill(table));
    assert.equal(one.result.sections.length, 1);
    assert.equal(one.result.totalTokens, reference(table));
    assert.ok(one.turns >= 40, `${one.turns} turns`);
    const many = await turnsDuring(() => outlineSkill('## Step\n\nDo it.\n\n'.repeat(40_000)));
    assert.equal(many.result.sections.length, 40_000);
    assert.ok(many.turns >= 9, `${many.turns} turns`);
  });
});

/**
 * An outline is an object per section: a 16 MiB body of `#` lines has 8 million headings, about a gigabyte held for
 * one request. Past MAX_SECTION_HEADINGS (50,000) headings the rest of the body is read with the last section, and the
 * advice says so; nothing of the body is lost.
 */
test('an outline keeps at most 50,000 sections; the headings after them ride with the last one', async () => {
  const { MAX_SECTION_HEADINGS } = await import('../src/sections.js');
  const body = '# Step\n'.repeat(60_000);
  const result = await outline(body);
  assert.equal(result.sections.length, MAX_SECTION_HEADINGS);
  assert.equal(result.sections.at(-1)!.text, '# Step\n'.repeat(60_000 - MAX_SECTION_HEADINGS + 1));
  assert.match(result.advice, /Only its first 50,000 headings start sections: the 10,000 after them are read with the last section\./);
});
