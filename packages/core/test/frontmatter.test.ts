import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import { join } from 'node:path';
import { FrontmatterError, inspectSkillFolder, parseFrontmatterYaml, parseSkillMarkdown, splitFrontmatter } from '../src/index.js';
import { makeTree, removeTrees, skillMd } from './helpers.js';

/** Asserts that `fn` throws a FrontmatterError whose message equals (string) or matches (RegExp) `expected`. */
function refuses(fn: () => unknown, expected: string | RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof FrontmatterError, `expected a FrontmatterError, got ${String(error)}`);
    if (typeof expected === 'string') assert.equal(error.message, expected);
    else assert.match(error.message, expected);
    return true;
  });
}

/** Runs parseFrontmatterYaml in a worker thread; a run longer than `timeoutMs` is stopped and reported as a timeout. */
function parseInWorker(yaml: string, timeoutMs: number): Promise<{ name?: string; message?: string; timedOut?: boolean; ms: number }> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    import(workerData.module).then(({ parseFrontmatterYaml }) => {
      const started = performance.now();
      try {
        parseFrontmatterYaml(workerData.yaml);
        parentPort.postMessage({ name: 'none', ms: performance.now() - started });
      } catch (error) {
        parentPort.postMessage({ name: error.name, message: error.message, ms: performance.now() - started });
      }
    });`;
  const worker = new Worker(code, { eval: true, workerData: { module: new URL('../src/index.js', import.meta.url).href, yaml } });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void worker.terminate();
      resolve({ timedOut: true, ms: timeoutMs });
    }, timeoutMs);
    worker.once('message', (result: { name?: string; message?: string; ms: number }) => {
      clearTimeout(timer);
      void worker.terminate();
      resolve(result);
    });
    worker.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

describe('splitting SKILL.md', () => {
  test('plain LF file: frontmatter, body and the body line', () => {
    const parsed = parseSkillMarkdown('---\nname: pdf\ndescription: Reads PDFs.\n---\n# PDF\n\nText.\n');
    assert.deepEqual(parsed.frontmatter, { name: 'pdf', description: 'Reads PDFs.' });
    assert.equal(parsed.body, '# PDF\n\nText.\n');
    assert.equal(parsed.bodyLine, 5);
  });

  test('a UTF-8 BOM and CRLF line ends are accepted', () => {
    const parsed = parseSkillMarkdown('\uFEFF---\r\nname: pdf\r\ndescription: |\r\n  one\r\n  two\r\n---\r\nbody\r\n');
    assert.deepEqual(parsed.frontmatter, { name: 'pdf', description: 'one\ntwo\n' });
    assert.equal(parsed.body, 'body\r\n');
    assert.equal(parsed.bodyLine, 7);
  });

  test('CRLF without a BOM, and a closing --- at the very end of the file', () => {
    assert.deepEqual(parseSkillMarkdown('---\r\nname: pdf\r\n---\r\n').frontmatter, { name: 'pdf' });
    const parsed = parseSkillMarkdown('---\nname: pdf\n---');
    assert.deepEqual(parsed.frontmatter, { name: 'pdf' });
    assert.equal(parsed.body, '');
  });

  test('--- inside a value does not end the frontmatter', () => {
    const parsed = parseSkillMarkdown(
      [
        '---',
        'name: pdf',
        'description: "Splits on --- markers"',
        "license: '---'",
        'compatibility: a---b',
        'metadata:',
        '  note: |',
        '    first',
        '    ---',
        '    last',
        '---',
        'body',
      ].join('\n'),
    );
    assert.deepEqual(parsed.frontmatter, {
      name: 'pdf',
      description: 'Splits on --- markers',
      license: '---',
      compatibility: 'a---b',
      metadata: { note: 'first\n---\nlast\n' },
    });
    assert.equal(parsed.body, 'body');
  });

  test('a BOM-less file not starting with --- is refused with the skills-ref message', () => {
    refuses(() => parseSkillMarkdown('name: pdf\n---\n'), 'SKILL.md must start with YAML frontmatter (---)');
    refuses(() => parseSkillMarkdown('\n---\nname: pdf\n---\n'), 'SKILL.md must start with YAML frontmatter (---)');
    refuses(() => parseSkillMarkdown(''), 'SKILL.md must start with YAML frontmatter (---)');
    refuses(() => parseSkillMarkdown('---name: pdf\n---\n'), 'SKILL.md must start with YAML frontmatter (---)');
  });

  test('an unclosed frontmatter is refused with the skills-ref message', () => {
    refuses(() => parseSkillMarkdown('---\nname: pdf\ndescription: x\n'), 'SKILL.md frontmatter not properly closed with ---');
    refuses(() => parseSkillMarkdown('---'), 'SKILL.md frontmatter not properly closed with ---');
    refuses(() => parseSkillMarkdown('---\r\nname: pdf\r\n'), 'SKILL.md frontmatter not properly closed with ---');
  });

  test('frontmatter larger than the cap is refused before it is parsed', () => {
    const fits = `---\na: ${'x'.repeat(96)}\n---\n`; // the YAML is exactly 100 bytes
    assert.equal(splitFrontmatter(fits, 100).yaml.length, 100);
    refuses(() => splitFrontmatter(`---\na: ${'x'.repeat(97)}\n---\n`, 100), 'SKILL.md frontmatter exceeds 100 bytes');
    refuses(() => splitFrontmatter(`---\na: ${'x'.repeat(10_000)}\n`, 100), /^SKILL\.md frontmatter exceeds 100 bytes/);
    // Bytes, not characters: 40 three-byte characters are 120 bytes.
    refuses(() => splitFrontmatter(`---\na: ${'€'.repeat(40)}\n---\n`, 100), 'SKILL.md frontmatter exceeds 100 bytes');
  });
});

describe('YAML 1.2 core schema typing', () => {
  test('numbers, booleans and null as YAML 1.2 core types them; YAML 1.1 forms stay strings', () => {
    const value = parseFrontmatterYaml(
      [
        'version: 1.0',
        'count: 42',
        'hex: 0x1F',
        'octal: 0o17',
        'leading-zero: 010',
        'on: yes',
        'answer: No',
        'short: y',
        'flag: true',
        'nothing: null',
        'tilde: ~',
        'date: 2024-01-31',
        'stamp: 2001-12-14t21:59:43.10-05:00',
        'sexagesimal: 12:30',
        'underscored: 1_000',
      ].join('\n'),
    );
    assert.deepEqual(value, {
      version: 1,
      count: 42,
      hex: 31,
      octal: 15,
      'leading-zero': 10,
      on: 'yes',
      answer: 'No',
      short: 'y',
      flag: true,
      nothing: null,
      tilde: null,
      date: '2024-01-31',
      stamp: '2001-12-14t21:59:43.10-05:00',
      sexagesimal: '12:30',
      underscored: '1_000',
    });
    assert.equal(typeof value['version'], 'number');
    assert.equal(typeof value['date'], 'string');
  });

  test('merge keys are not YAML 1.2: `<<` is an ordinary key', () => {
    assert.deepEqual(parseFrontmatterYaml('base: &b {k: v}\nchild:\n  <<: *b\n'), { base: { k: 'v' }, child: { '<<': { k: 'v' } } });
  });

  test('aliases within the cap resolve', () => {
    assert.deepEqual(parseFrontmatterYaml('a: &x [1, 2]\nb: *x\n'), { a: [1, 2], b: [1, 2] });
  });
});

describe('refused YAML', () => {
  test('duplicate keys, at the top level and nested', () => {
    refuses(() => parseFrontmatterYaml('name: a\nname: b\n'), /^Invalid YAML in frontmatter(?: at line \d+, column \d+)?: .*unique/);
    refuses(() => parseFrontmatterYaml('"name": a\nname: b\n'), /^Invalid YAML in frontmatter(?: at line \d+, column \d+)?: .*unique/);
    refuses(() => parseFrontmatterYaml('metadata:\n  k: 1\n  k: 2\n'), /^Invalid YAML in frontmatter(?: at line \d+, column \d+)?: .*unique/);
  });

  test('keys differing only in case are distinct, not duplicates', () => {
    assert.deepEqual(parseFrontmatterYaml('a: 1\nA: 2\n'), { a: 1, A: 2 });
  });

  test('an alias bomb is refused, not expanded', async () => {
    const lines = ['l0: &l0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i <= 12; i++)
      lines.push(
        `l${i}: &l${i} [${Array(10)
          .fill(`*l${i - 1}`)
          .join(', ')}]`,
      );
    const yaml = `${lines.join('\n')}\n`;
    // Parsed in a worker, so that a regression (expanding 10^13 nodes, which never ends) fails the test instead of
    // hanging the run. The deadline is a hang guard, generous for a loaded machine; speed is not asserted here.
    const outcome = await parseInWorker(yaml, 60_000);
    assert.equal(outcome.name, 'FrontmatterError', JSON.stringify(outcome));
    assert.match(outcome.message ?? '', /^Invalid YAML in frontmatter(?: at line \d+, column \d+)?: /);
  });

  test('deep nesting is refused, not a crash', () => {
    refuses(
      () => parseFrontmatterYaml(`a: ${'['.repeat(100)}${']'.repeat(100)}\n`),
      /^Invalid YAML in frontmatter(?: at line \d+, column \d+)?: nesting too deep$/,
    );
    // Deep enough to exhaust the parser's stack: still a FrontmatterError, never a crash.
    refuses(() => parseFrontmatterYaml(`a: ${'['.repeat(1000)}${']'.repeat(1000)}\n`), /^Invalid YAML in frontmatter(?: at line \d+, column \d+)?: [^\n]+$/);
    let nested = '';
    for (let i = 0; i < 100; i++) nested += `${' '.repeat(i)}k:\n`;
    refuses(() => parseFrontmatterYaml(`${nested}${' '.repeat(100)}v\n`), /^Invalid YAML in frontmatter(?: at line \d+, column \d+)?: nesting too deep$/);
  });

  test('frontmatter that is not a mapping is refused with the skills-ref message', () => {
    for (const yaml of ['', '# just a comment\n', 'null\n', '- a\n- b\n', 'just text\n', '42\n', 'true\n', '"quoted"\n', '[]\n']) {
      refuses(() => parseFrontmatterYaml(yaml), 'SKILL.md frontmatter must be a YAML mapping');
    }
    refuses(() => parseSkillMarkdown('---\n---\nbody\n'), 'SKILL.md frontmatter must be a YAML mapping');
    refuses(() => parseSkillMarkdown('---\n- name\n- pdf\n---\n'), 'SKILL.md frontmatter must be a YAML mapping');
  });

  test('.inf, -.inf, .nan and overflowing floats are refused: frontmatter must survive JSON', () => {
    refuses(() => parseFrontmatterYaml('a: .inf\n'), 'Invalid YAML in frontmatter: Infinity cannot be represented in JSON');
    refuses(() => parseFrontmatterYaml('a: -.INF\n'), 'Invalid YAML in frontmatter: -Infinity cannot be represented in JSON');
    refuses(() => parseFrontmatterYaml('a: .NaN\n'), 'Invalid YAML in frontmatter: NaN cannot be represented in JSON');
    refuses(() => parseFrontmatterYaml('metadata:\n  deep: [1, .inf]\n'), 'Invalid YAML in frontmatter: Infinity cannot be represented in JSON');
    refuses(() => parseFrontmatterYaml('a: 1.0e+400\n'), 'Invalid YAML in frontmatter: Infinity cannot be represented in JSON');
  });

  test('non-JSON values from tags (!!binary, !!set) are refused', () => {
    refuses(() => parseFrontmatterYaml('a: !!binary aGVsbG8=\n'), /^Invalid YAML in frontmatter(?: at line \d+, column \d+)?: unsupported value/);
    refuses(() => parseFrontmatterYaml('a: !!set {x}\n'), /^Invalid YAML in frontmatter(?: at line \d+, column \d+)?: unsupported value/);
  });

  test('syntax errors, several documents and unresolved aliases say "Invalid YAML in frontmatter:" on one line', () => {
    for (const yaml of ['a: [1, 2\n', 'a: b: c\n', 'a: "unterminated\n', 'a: b\n---\nc: d\n', 'a: *nowhere\n']) {
      refuses(() => parseFrontmatterYaml(yaml), /^Invalid YAML in frontmatter(?: at line \d+, column \d+)?: [^\n]+$/);
    }
  });

  test('a --- line inside a multi-line quoted value ends the frontmatter (a YAML document marker), leaving invalid YAML', () => {
    refuses(
      () => parseSkillMarkdown('---\nname: pdf\ndescription: "one\n---\ntwo"\n---\nbody\n'),
      /^Invalid YAML in frontmatter(?: at line \d+, column \d+)?: /,
    );
  });

  test('a control character in a decoded value or key, escaped or raw, is refused with its key and line', () => {
    const escaped = (key: string, code: string) => `frontmatter ${key} at line 3 contains a control character (${code}, written as an escape): remove it`;
    for (const escape of ['\\0', '\\x00', '\\u0000'])
      refuses(() => parseSkillMarkdown(`---\nname: pdf\ndescription: "Reads PDFs.${escape} Use when asked."\n---\n`), escaped("'description'", 'U+0000'));
    refuses(() => parseSkillMarkdown('---\nname: pdf\ndescription: "Clears \\e[2J the screen."\n---\n'), escaped("'description'", 'U+001B'));
    refuses(() => parseSkillMarkdown('---\nname: pdf\ndescription: "a\\rb"\n---\n'), escaped("'description'", 'U+000D'));
    refuses(
      () => parseSkillMarkdown('---\nname: pdf\ndescription: Reads PDFs.\nmetadata:\n  tags: [ok, "b\\x07"]\n---\n'),
      "frontmatter 'metadata.tags[1]' at line 5 contains a control character (U+0007, written as an escape): remove it",
    );
    refuses(() => parseSkillMarkdown('---\nname: pdf\n"k\\x01": v\n---\n'), escaped("key 'k?'", 'U+0001'));
    // Written as it is (a NUL byte is refused earlier, as a binary file).
    refuses(
      () => parseSkillMarkdown('---\nname: pdf\ndescription: |\n  Reads \u0008PDFs.\n---\n'),
      "frontmatter 'description' at line 3 contains a control character (U+0008): remove it",
    );
    // Tab and line feed are text; CRLF line ends decode to line feeds.
    assert.deepEqual(parseSkillMarkdown('---\r\nname: pdf\r\ndescription: "a\\tb"\r\nmetadata:\r\n  notes: |\r\n    one\r\n    two\r\n---\r\n').frontmatter, {
      name: 'pdf',
      description: 'a\tb',
      metadata: { notes: 'one\ntwo\n' },
    });
  });

  test('a skill whose frontmatter holds a control character is not served; the skills beside it are', () => {
    const base = makeTree({ 'nul/SKILL.md': '---\nname: nul\ndescription: "Hides\\0 this."\n---\n\n# x\n', 'fine/SKILL.md': skillMd('fine') });
    try {
      const nul = inspectSkillFolder(join(base, 'nul'));
      assert.equal(nul.skill, undefined);
      assert.deepEqual(
        nul.problems.map((problem) => [problem.severity, problem.message]),
        [['error', "frontmatter 'description' at line 3 contains a control character (U+0000, written as an escape): remove it"]],
      );
      assert.ok(inspectSkillFolder(join(base, 'fine')).skill);
    } finally {
      removeTrees();
    }
  });

  test('the YAML parse result is a plain JSON-safe object', () => {
    const value = parseFrontmatterYaml('name: pdf\nmetadata:\n  a: "1"\nlist: [1, two, {three: 3}]\n');
    assert.deepEqual(JSON.parse(JSON.stringify(value)), value);
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
  });
});
