import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { canonicalSkillUri, compareStrings, encodeSegment, isPlainSkillUri, joinSkillUri, parseSkillUri } from '../src/index.js';

describe('joinSkillUri: canonical encoding', () => {
  const cases: Array<[segments: string[], uri: string]> = [
    [['pdf', 'SKILL.md'], 'skill://pdf/SKILL.md'],
    [['pdf', 'references', 'guide.md'], 'skill://pdf/references/guide.md'],
    [['pdf', 'my notes.md'], 'skill://pdf/my%20notes.md'],
    [['pdf', 'résumé.md'], 'skill://pdf/r%C3%A9sum%C3%A9.md'],
    [['pdf', '数据.txt'], 'skill://pdf/%E6%95%B0%E6%8D%AE.txt'],
    [['pdf', '😀.md'], 'skill://pdf/%F0%9F%98%80.md'],
    [['pdf', '100%.md'], 'skill://pdf/100%25.md'],
    [['pdf', '%41.md'], 'skill://pdf/%2541.md'],
    [['pdf', 'a#b.md'], 'skill://pdf/a%23b.md'],
    [['pdf', 'why?.md'], 'skill://pdf/why%3F.md'],
    [['pdf', 'Q&A.md'], 'skill://pdf/Q&A.md'],
    [['pdf', 'a"b<c>d`e{f}g^h.md'], 'skill://pdf/a%22b%3Cc%3Ed%60e%7Bf%7Dg%5Eh.md'],
    [['pdf', "[x]:@!$'()*+,;=|~-_.md"], "skill://pdf/[x]:@!$'()*+,;=|~-_.md"],
    [['pdf', 'tab\there'], 'skill://pdf/tab%09here'],
    [['pdf', '...'], 'skill://pdf/...'],
    [['pdf', '.hidden'], 'skill://pdf/.hidden'],
  ];
  for (const [segments, uri] of cases) {
    test(`${JSON.stringify(segments)} -> ${uri}`, () => {
      assert.equal(joinSkillUri(segments), uri);
      assert.equal(new URL(uri).href, uri);
      const parsed = parseSkillUri(uri);
      assert.ok(typeof parsed !== 'string', `refused: ${String(parsed)}`);
      assert.deepEqual(parsed.segments, segments);
      assert.equal(parsed.canonical, uri);
    });
  }

  test('`/` and `\\` inside a name, and whole-segment dots, are encoded (never path syntax)', () => {
    assert.equal(encodeSegment('a/b'), 'a%2Fb');
    assert.equal(encodeSegment('a\\b'), 'a%5Cb');
    assert.equal(encodeSegment('.'), '%2E');
    assert.equal(encodeSegment('..'), '%2E%2E');
  });

  test('every ASCII character and a sample of non-ASCII ones round-trip through new URL and parseSkillUri', () => {
    const characters: string[] = [];
    for (let code = 1; code < 0x80; code++) characters.push(String.fromCharCode(code));
    characters.push('é', 'ß', '中', '😀', '\u00A0', '\u200B', '\u2028', '\uFEFF', 'e\u0301', '%2e', '%2F', '%%');
    let checked = 0;
    for (const character of characters) {
      for (const segment of [`a${character}b`, character, `${character}${character}`]) {
        if (segment.includes('/') || segment.includes('\\') || segment === '.' || segment === '..') continue; // not a file name
        const uri = joinSkillUri(['skill', 'dir', segment]);
        assert.equal(new URL(uri).href, uri, JSON.stringify(segment));
        const parsed = parseSkillUri(uri);
        assert.ok(typeof parsed !== 'string', `${JSON.stringify(segment)} refused as ${String(parsed)}`);
        assert.deepEqual(parsed.segments, ['skill', 'dir', segment]);
        assert.equal(parsed.canonical, uri);
        checked++;
      }
    }
    assert.ok(checked > 350, `only ${checked} segments checked`);
  });
});

describe('parseSkillUri / canonicalSkillUri', () => {
  test('other spellings of the same file normalise to the canonical one', () => {
    assert.equal(canonicalSkillUri('skill://pdf/Q%26A.md'), 'skill://pdf/Q&A.md');
    assert.equal(canonicalSkillUri('skill://pdf/Q&A.md'), 'skill://pdf/Q&A.md');
    assert.equal(canonicalSkillUri('skill://pdf/Q%26A.md#top'), 'skill://pdf/Q&A.md');
    assert.equal(canonicalSkillUri('skill://pdf/my notes.md'), 'skill://pdf/my%20notes.md');
    assert.equal(canonicalSkillUri('skill://pdf/r%c3%a9sum%c3%a9.md'), 'skill://pdf/r%C3%A9sum%C3%A9.md');
    assert.equal(canonicalSkillUri('skill://pdf/résumé.md'), 'skill://pdf/r%C3%A9sum%C3%A9.md');
    assert.equal(canonicalSkillUri('skill://%70df/SKILL.md'), 'skill://pdf/SKILL.md');
  });

  test('a fragment is ignored, whatever it holds', () => {
    assert.deepEqual(parseSkillUri('skill://pdf/SKILL.md#section'), { segments: ['pdf', 'SKILL.md'], canonical: 'skill://pdf/SKILL.md' });
    assert.deepEqual(parseSkillUri('skill://pdf/SKILL.md#a?b/../c'), { segments: ['pdf', 'SKILL.md'], canonical: 'skill://pdf/SKILL.md' });
    assert.deepEqual(parseSkillUri('skill://pdf/SKILL.md#'), { segments: ['pdf', 'SKILL.md'], canonical: 'skill://pdf/SKILL.md' });
  });

  test("traversal: '..', '.', encoded dots, encoded slash and backslash, backslash, NUL, empty segments", () => {
    for (const uri of [
      'skill://pdf/../etc/passwd',
      'skill://pdf/%2e%2e/secret',
      'skill://pdf/%2E%2E/secret',
      'skill://pdf/.%2e/secret',
      'skill://../pdf/SKILL.md',
      'skill://pdf/./SKILL.md',
      'skill://pdf/%2e/SKILL.md',
      'skill://pdf/a%2Fb',
      'skill://pdf/a%2fb',
      'skill://pdf/..%2F..%2Fsecret',
      'skill://pdf/a%5Cb',
      'skill://pdf\\..\\secret',
      'skill://pdf/a\\b',
      'skill://pdf/a%00b',
      'skill://pdf//SKILL.md',
      'skill://pdf/SKILL.md/',
      'skill:///pdf/SKILL.md',
    ]) {
      assert.equal(parseSkillUri(uri), 'traversal', uri);
      assert.equal(canonicalSkillUri(uri), undefined, uri);
    }
  });

  test('scheme: anything that is not skill://', () => {
    for (const uri of [
      'http://pdf/SKILL.md',
      'file:///etc/passwd',
      'SKILL://pdf/SKILL.md',
      'skill:pdf/SKILL.md',
      'skills://pdf/SKILL.md',
      '',
      'pdf/SKILL.md',
    ]) {
      assert.equal(parseSkillUri(uri), 'scheme', uri);
    }
    assert.equal(parseSkillUri(42 as unknown as string), 'scheme');
  });

  test("query: a '?' before any fragment", () => {
    for (const uri of ['skill://pdf/SKILL.md?x=1', 'skill://pdf/SKILL.md?', 'skill://pdf?/SKILL.md', 'skill://pdf/SKILL.md?a#b']) {
      assert.equal(parseSkillUri(uri), 'query', uri);
    }
  });

  test('syntax: an empty path and malformed percent-encoding', () => {
    assert.equal(parseSkillUri('skill://'), 'syntax');
    assert.equal(parseSkillUri('skill://#frag'), 'syntax');
    assert.equal(parseSkillUri('skill://pdf/%zz.md'), 'syntax');
    assert.equal(parseSkillUri('skill://pdf/%E9.md'), 'syntax'); // not UTF-8
    assert.equal(parseSkillUri('skill://pdf/100%.md'), 'syntax');
  });
});

describe('compareStrings', () => {
  test('code-unit order', () => {
    assert.deepEqual(['b', 'B', 'a', 'é', '😀', '\uFF5E', 'a/b', 'a-b'].sort(compareStrings), ['B', 'a', 'a-b', 'a/b', 'b', 'é', '😀', '\uFF5E']);
    assert.equal(compareStrings('x', 'x'), 0);
  });
});

describe('the plain fast paths say what the general rules say', () => {
  // The general rules, spelled out here: decode each segment, refuse the traversal tricks, encode each segment again.
  const general = (uri: string) => {
    let rest = uri.slice('skill://'.length);
    const hash = rest.indexOf('#');
    if (hash >= 0) rest = rest.slice(0, hash);
    if (rest.includes('?')) return 'query';
    if (rest === '') return 'syntax';
    if (rest.includes('\\')) return 'traversal';
    const segments: string[] = [];
    for (const part of rest.split('/')) {
      let decoded: string;
      try {
        decoded = decodeURIComponent(part);
      } catch {
        return 'syntax';
      }
      if (decoded === '' || decoded === '.' || decoded === '..' || /[/\\\0]/.test(decoded)) return 'traversal';
      if (/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(decoded)) return 'syntax';
      segments.push(decoded);
    }
    return { segments, canonical: `skill://${segments.map(encodeSegment).join('/')}` };
  };
  // Random URIs over an alphabet of plain characters and every kind of trouble (dots, escapes, separators, non-ASCII).
  const alphabet = ['a', 'Z', '0', '_', '-', '.', '~', '!', '(', "'", '@', ':', '/', '%', '%2F', '%41', '%2E', ' ', '#', '?', '\\', 'é', '😀', '[', ']'];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  test('parseSkillUri and joinSkillUri on 20,000 random URIs', () => {
    for (let round = 0; round < 20_000; round++) {
      let rest = '';
      for (let length = 1 + (next() % 14); length > 0; length--) rest += alphabet[next() % alphabet.length];
      const uri = `skill://${rest}`;
      assert.deepEqual(parseSkillUri(uri), general(uri), uri);
      const segments = rest.split('/');
      assert.equal(joinSkillUri(segments), `skill://${segments.map(encodeSegment).join('/')}`, rest);
    }
  });
});

describe('isPlainSkillUri: the catalog URIs canonicalSkillUri returns as they are', () => {
  test('plain URIs are their own canonical spelling, as parseSkillUri finds it', () => {
    const plain = ['skill://pdf/SKILL.md', 'skill://a/b/c.d.e', "skill://pdf/[x]:@!$'()*+,;=|~-_.md", 'skill://x', 'skill://Q&A/notes.md'];
    for (const uri of plain) {
      assert.equal(isPlainSkillUri(uri), true, uri);
      const parsed = parseSkillUri(uri);
      assert.ok(typeof parsed !== 'string', uri);
      assert.equal(canonicalSkillUri(uri), parsed.canonical, uri);
    }
  });

  test('anything to decode, a dot segment, a fragment, a query, another scheme or spelling is not plain, and still parses as before', () => {
    const other = [
      'skill://pdf/my%20notes.md',
      'skill://pdf/./SKILL.md',
      'skill://pdf/../x/SKILL.md',
      'skill://pdf/.hidden',
      'skill://pdf/SKILL.md#top',
      'skill://pdf/SKILL.md?x=1',
      'skill://pdf//SKILL.md',
      'skill://pdf/SKILL.md/',
      'skill://',
      'SKILL://pdf/SKILL.md',
      'skill:/pdf/SKILL.md',
      'file:///etc/passwd',
      'skill://pdf/a\\b',
      'skill://pdf/résumé.md',
      'skill://pdf/line\nbreak',
    ];
    for (const uri of other) {
      assert.equal(isPlainSkillUri(uri), false, uri);
      const parsed = parseSkillUri(uri);
      assert.equal(canonicalSkillUri(uri), typeof parsed === 'string' ? undefined : parsed.canonical, uri);
    }
    assert.equal(canonicalSkillUri('skill://pdf/SKILL.md#top'), 'skill://pdf/SKILL.md');
    assert.equal(isPlainSkillUri(7 as unknown as string), false);
  });
});
