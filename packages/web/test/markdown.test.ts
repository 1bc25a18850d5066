import assert from 'node:assert/strict';
import { test } from 'node:test';
import { html, trusted } from '../src/html.js';
import { renderMarkdown } from '../src/markdown.js';
import { safeNext } from '../src/security.js';

/** The renderer on its own: the ways a link or tag could carry script, each checked to come out inert. */
const links = {
  fileHref: (relative: string) => (relative === 'references/guide.md' ? '/skills/x/-/files/references/guide.md' : undefined),
  rawHref: (relative: string) => (relative === 'img/chart.png' ? '/skills/x/-/raw/img/chart.png' : undefined),
};

test('raw HTML in Markdown is text', () => {
  const { html: out } = renderMarkdown('<script>alert(1)</script>\n\n<img src=x onerror=alert(1)>\n\n<b onclick="x()">b</b>', links);
  assert.doesNotMatch(out, /<script|<img|<b /);
  assert.match(out, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
});

test('only http(s), mailto, fragments and known relative files become links', () => {
  const attacks = [
    '[a](javascript:alert(1))',
    '[a](JAVASCRIPT:alert(1))',
    '[a](jav&#x61;script:alert(1))',
    '[a](&#106;avascript:alert(1))',
    '[a](<javascript:alert(1)>)',
    '[a]( javascript:alert(1))',
    '[a](data:text/html,<script>alert(1)</script>)',
    '[a](data:image/svg+xml;base64,PHN2Zz4=)',
    '[a](vbscript:msgbox)',
    '[a](file:///etc/passwd)',
    '[a](//evil.example/x)',
    '[a](\\\\evil.example\\x)',
    '<javascript:alert(1)>',
    '[a][r]\n\n[r]: javascript:alert(1)',
  ];
  for (const attack of attacks) {
    const { html: out } = renderMarkdown(attack, links);
    const hrefs = [...out.matchAll(/href="([^"]*)"/g)].map((match) => match[1]!);
    for (const href of hrefs) assert.match(href, /^(#|\/skills\/|https?:|mailto:)/, `${attack} → ${out}`);
  }
  const ok = renderMarkdown('[web](https://example.com) [mail](mailto:a@example.com) [top](#intro) [guide](references/guide.md) [gone](nope.md)', links).html;
  assert.match(ok, /<a href="https:\/\/example\.com" rel="noopener noreferrer nofollow">web<\/a>/);
  assert.match(ok, /<a href="mailto:a@example\.com">mail<\/a>/);
  assert.match(ok, /<a href="#intro">top<\/a>/);
  assert.match(ok, /<a href="\/skills\/x\/-\/files\/references\/guide\.md">guide<\/a>/);
  assert.match(ok, /<a href="#">gone<\/a>/, 'a relative link to no file of the skill goes nowhere');
});

test('images only from the skill itself; remote ones become their alt text', () => {
  const { html: out } = renderMarkdown(
    '![chart](img/chart.png) ![track](https://evil.example/t.png) ![x](data:image/png;base64,AAAA) ![y](javascript:alert(1))',
    links,
  );
  assert.match(out, /<img src="\/skills\/x\/-\/raw\/img\/chart\.png" alt="chart" loading="lazy">/);
  assert.equal((out.match(/<img/g) ?? []).length, 1);
  assert.match(out, /\[image: track\]/);
});

test('headings get unique ids and make the outline; tables have no inline style; code is escaped', () => {
  const { html: out, outline } = renderMarkdown(
    '# Intro\n\n## Setup\n\n## Setup\n\n| a | b |\n|:-:|--:|\n| 1 | 2 |\n\n```html\n<script>x</script>\n```\n',
    links,
  );
  assert.deepEqual(
    outline.map((item) => [item.level, item.text, item.id]),
    [
      [1, 'Intro', 'h-intro'],
      [2, 'Setup', 'h-setup'],
      [2, 'Setup', 'h-setup-2'],
    ],
  );
  assert.doesNotMatch(out, /style=/);
  assert.match(out, /<th class="align-center">a<\/th>/);
  assert.match(out, /<pre class="code" tabindex="0" data-lang="html"><code>&lt;script&gt;x&lt;\/script&gt;/);
});

test('the html tag escapes every value; only trusted() passes markup', () => {
  const name = '<img src=x onerror=alert(1)>"\'&';
  assert.equal(
    html`<p title="${name}">${name}</p>`.text,
    '<p title="&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;">&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;</p>',
  );
  assert.equal(html`${[name, trusted('<b>ok</b>')]}`.text, '&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&amp;<b>ok</b>');
});

test('after sign-in, only a local path is followed', () => {
  assert.equal(safeNext('/skills/x?y=1'), '/skills/x?y=1');
  for (const next of [null, 'https://evil.example/', '//evil.example/', '/\\evil.example', 'javascript:alert(1)', '/a\r\nSet-Cookie: x=1'])
    assert.equal(safeNext(next), '/');
});

test('heading ids of repeated headings: h-x, h-x-2 …, in work linear in the headings', async () => {
  const { countLookups } = await import('@skillport/test-kit');
  const work = async (n: number) => (await countLookups(() => renderMarkdown('# x\n'.repeat(n), links))).lookups;
  const [small, large] = [await work(2000), await work(4000)];
  assert.ok(large / small < 2.5, `lookups for 2,000 headings: ${small}, for 4,000: ${large} (x${(large / small).toFixed(2)})`);
  const { outline, html: out } = renderMarkdown(`# x-2\n${'# x\n'.repeat(40_000)}`, links);
  assert.equal(outline.length, 40_001);
  assert.deepEqual(
    outline.map((entry) => entry.id),
    ['h-x-2', ...Array.from({ length: 40_000 }, (_, i) => (i === 0 ? 'h-x' : `h-x-${i + 2}`))],
  );
  assert.match(out, /<h1 id="h-x-40001">x<\/h1>\n$/);
});
