import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { REFERENCE_CHARS, SkillSearchIndex, decodeIndex, encodeIndex, referenceFiles } from '../src/index.js';
import type { SearchDocument } from '../src/index.js';

const plain = { minConfidence: 0, related: false, situations: false, wordVectors: false } as const;
const ids = (hits: Array<{ id: string }>) => hits.map((hit) => hit.id);

function skill(id: string, body: string, references?: string[]): SearchDocument {
  return { id, name: id, description: `The ${id} skill.`, headings: [], body, ...(references === undefined ? {} : { references }) };
}

describe('reference files are searched with the body', () => {
  test('a word only a reference file holds finds the skill, and the reason says body', () => {
    const index = new SkillSearchIndex(
      [
        skill('triage', 'Diagnose a broken system.', ['# Package managers\n\nAfter a pacman upgrade, roll back with the cache.']),
        skill('other', 'Unrelated text.'),
      ],
      plain,
    );
    const hits = index.search('pacman upgrade broke my laptop');
    assert.deepEqual(ids(hits).slice(0, 1), ['triage']);
    assert.match(hits[0]!.reason, /pacman in body/);
  });

  test('a reference word counts less than the same word in a SKILL.md body', () => {
    const index = new SkillSearchIndex(
      [
        skill('in-body', 'Rotate the keystore when it expires. Filler words here.'),
        skill('in-reference', 'Filler words here.', ['Rotate the keystore when it expires.']),
      ],
      plain,
    );
    assert.deepEqual(ids(index.search('keystore')), ['in-body', 'in-reference']);
  });

  test('past REFERENCE_CHARS characters in all, reference text is not indexed', () => {
    const filler = 'lorem '.repeat(Math.ceil(REFERENCE_CHARS / 6));
    const index = new SkillSearchIndex([skill('long', 'Short body.', [filler, 'zanzibarite appears only here'])], plain);
    assert.deepEqual(index.search('zanzibarite'), []);
    const within = new SkillSearchIndex([skill('short', 'Short body.', ['lorem', 'zanzibarite appears here'])], plain);
    assert.deepEqual(ids(within.search('zanzibarite')), ['short']);
  });

  test('a persisted index keeps what references added, and ranks as a fresh one', () => {
    const documents = [skill('a', 'Alpha body.', ['# Notes\n\nquokka habitats']), skill('b', 'Beta body quokka.')];
    const fresh = new SkillSearchIndex(documents, plain);
    const restored = decodeIndex(Buffer.concat(encodeIndex(fresh, () => 'v1')), plain).index;
    assert.deepEqual(restored.search('quokka'), fresh.search('quokka'));
    assert.equal(ids(restored.search('quokka habitats'))[0], 'a');
  });

  test('bad references are ignored, not thrown on', () => {
    const index = new SkillSearchIndex([{ ...skill('odd', 'Body.'), references: [undefined as unknown as string, 42 as unknown as string, 'wombat'] }], plain);
    assert.deepEqual(ids(index.search('wombat')), ['odd']);
  });
});

describe('referenceFiles', () => {
  test('Markdown files other than SKILL.md, README, LICENSE and CHANGELOG, in path order; hidden folders skipped', () => {
    assert.deepEqual(
      referenceFiles([
        'SKILL.md',
        'references/z.md',
        'README.md',
        'scripts/run.py',
        'references/a.MD',
        'LICENSE.md',
        'docs/CHANGELOG.md',
        '.github/x.md',
        'rules/r.markdown',
      ]),
      ['references/a.MD', 'references/z.md', 'rules/r.markdown'],
    );
  });
});
