import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { EXAMPLES, runCli, serve } from './fixture.js';
import type { Served } from './fixture.js';

/**
 * The hostile inputs of an outside probe, served by the real CLI: each page answers with bounded work and a bounded
 * size, and says what it did not show. Two 8,000-line versions with every line changed (a 28 s diff), a 137 KiB
 * SKILL.md of repeated headings (13 s a view), 40,000 headings (80 s), a 3 MiB table (17 MiB of HTML). How long the
 * event loop stalls while they are served is measured in bench/stall.mjs, not here.
 */
const lines = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `line ${i} ${tag}`).join('\n');
const skill = (name: string, body: string) => `---\nname: ${name}\ndescription: A hostile page for ${name}.\n---\n${body}`;
const tableRow = (i: number) => `| ${i} | cell b${i} | cell c${i} | cell d${i} |\n`;
const TABLE = `# Data\n\n| n | b | c | d |\n|---|---|---|---|\n${Array.from({ length: Math.ceil((3 * 1024 * 1024) / tableRow(99999).length) }, (_, i) => tableRow(i)).join('')}`;

function write(base: string, files: Record<string, string>): string {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(base, path, '..'), { recursive: true });
    writeFileSync(join(base, path), content);
  }
  return base;
}

async function get(base: string, path: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${base}${path}`);
  return { status: response.status, text: await response.text() };
}

describe('web catalog under hostile inputs: bounded pages', () => {
  let server: Served;
  before(async () => {
    const root = mkdtempSync(join(tmpdir(), 'skillport-web-bounds-'));
    const data = join(root, 'data');
    for (const [version, tag] of [
      ['1.0.0', 'alpha'],
      ['2.0.0', 'beta'],
    ] as const) {
      const dir = write(join(root, `release-${version}`), {
        'big-diff/SKILL.md': skill('big-diff', `# Big diff\n\nVersion ${version}.\n`),
        'big-diff/references/data.txt': lines(8000, tag),
        'big-diff/references/small.md': `# Small\n\nRelease ${version}.\n`,
        'many-files/SKILL.md': skill('many-files', `# Many files\n\nVersion ${version}.\n`),
        ...Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`many-files/notes/note-${String(i).padStart(3, '0')}.md`, lines(200, `${tag} ${i}`)])),
      });
      for (const name of ['big-diff', 'many-files']) {
        const published = runCli(['publish', join(dir, name), '--data', data, '--version', version, '-q']);
        assert.equal(published.code, 0, published.stderr);
      }
    }
    const skills = write(join(root, 'skills'), {
      'repeated/SKILL.md': skill('repeated', '# x\n'.repeat(35_500)),
      'many-headings/SKILL.md': skill('many-headings', Array.from({ length: 40_000 }, (_, i) => `## Step ${i % 7}\n`).join('')),
      'huge-table/SKILL.md': skill('huge-table', TABLE),
    });
    server = await serve([EXAMPLES, skills, '--data', data]);
  });
  after(() => server.stop());

  test('compare: two 8,000-line versions with every line changed say "files differ"; the small file is diffed', async () => {
    const page = await get(server.base, '/skills/big-diff/-/compare?from=1.0.0&to=2.0.0');
    assert.equal(page.status, 200);
    // The edit bound stops this diff on a quiet machine; a loaded one may reach the time bound first, and says so.
    assert.match(
      page.text,
      /The files differ \(8,000 lines → 8,000 lines\): (more than 500 lines changed, too many to show line by line here|comparing them line by line took longer than this page allows; reload to try again)\./,
    );
    assert.match(page.text, /<span class="visually-hidden">added: <\/span>Release 2\.0\.0\./);
    assert.ok(page.text.length < 256 * 1024, `${page.text.length} characters`);
  });

  test('compare: 100 files rewritten: line diffs up to about 2 MiB of page, the rest listed as changed', async () => {
    const page = await get(server.base, '/skills/many-files/-/compare?from=1.0.0&to=2.0.0');
    assert.equal(page.status, 200);
    const diffed = (page.text.match(/<table class="diff">/g) ?? []).length;
    const listed = (page.text.match(/not compared line by line here: this page already shows as many line changes as it can/g) ?? []).length;
    // A loaded machine may hit the diff's time bound before its edit bound: such a file says so and counts as tried.
    const timedOut = (page.text.match(/took longer than this page allows; reload to try again/g) ?? []).length;
    assert.ok(diffed + timedOut >= 5 && diffed < 100, `${diffed} files diffed, ${timedOut} timed out`);
    assert.equal(diffed + timedOut + listed, 101, 'every changed file is either diffed, said to have taken too long, or said to be left out');
    assert.ok(page.text.length < 3 * 1024 * 1024, `${page.text.length} characters`);
  });

  test('35,500 repeated headings: a page of 1,000 headings, ids h-x … h-x-1000, an outline of 300 and a count', async () => {
    const page = await get(server.base, '/skills/repeated');
    assert.equal(page.status, 200);
    assert.match(page.text, /Part 1 of 36/);
    assert.equal((page.text.match(/<h1 id="h-x(-\d+)?">x<\/h1>/g) ?? []).length, 1000);
    assert.match(page.text, /<h1 id="h-x-1000">x<\/h1>/);
    assert.match(page.text, /and 700 more headings in this part/);
    const last = await get(server.base, '/skills/repeated?part=36');
    assert.equal((last.text.match(/<h1 id="h-x(-\d+)?">x<\/h1>/g) ?? []).length, 500);
    assert.match(last.text, /Part 36 of 36/);
    assert.match((await get(server.base, '/skills/repeated?part=999')).text, /Part 36 of 36/, 'past the last part: the last');
  });

  test('40,000 headings of seven names: 40 parts, each with its own ids', async () => {
    const page = await get(server.base, '/skills/many-headings?part=40');
    assert.equal(page.status, 200);
    assert.match(page.text, /Part 40 of 40/);
    assert.equal((page.text.match(/<h2 id="h-step-\d(-\d+)?">Step \d<\/h2>/g) ?? []).length, 1000);
  });

  test('a 3 MiB table: parts of at most 64 KiB, each a table, with links between parts and to the whole file', async () => {
    const first = await get(server.base, '/skills/huge-table');
    assert.equal(first.status, 200);
    const parts = Number(/Part 1 of (\d+)/.exec(first.text)?.[1]);
    assert.ok(parts >= 48, `${parts} parts`);
    assert.ok(first.text.length < 1024 * 1024, `the first part's page is ${first.text.length} characters`);
    assert.match(first.text, /href="\/skills\/huge-table\?part=2" rel="next"/);
    assert.match(first.text, /href="\/skills\/huge-table\/-\/raw\/SKILL\.md" download>download it whole<\/a>/);
    const middle = await get(server.base, '/skills/huge-table?part=10');
    assert.match(middle.text, /<table>\n<thead>\n<tr>\n<th>n<\/th>/);
    assert.ok(middle.text.length < 1024 * 1024);
  });
});
