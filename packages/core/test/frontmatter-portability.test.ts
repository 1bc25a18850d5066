import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseSkillMarkdown } from '../src/index.js';

const notesOf = (frontmatter: string, closer = '---'): string[] => {
  const notes: string[] = [];
  parseSkillMarkdown(`---\nname: tool\n${frontmatter}\n${closer}\n\n# Tool\n`, 64 * 1024, notes);
  return notes;
};

describe('frontmatter constructs simpler readers refuse (noted, still parsed)', () => {
  test('each construct is named once', () => {
    assert.deepEqual(notesOf('description: &d Some text\nmetadata:\n  copy: *d'), ['anchors (&name)', 'aliases (*name)']);
    assert.deepEqual(notesOf('description: !!str Tagged'), ['tags (!!str)']);
    assert.deepEqual(notesOf('? description\n: Explicit key'), ['explicit keys (? key)']);
    assert.deepEqual(notesOf('description: |2\n   Indented'), ['block indentation indicators (|2, >1)']);
    assert.deepEqual(notesOf('description: "Two\n  lines"'), ['a quoted value over several lines']);
    assert.deepEqual(notesOf('description: Ends', '...'), ['a document end marker (...) instead of the closing ---']);
  });

  test('plain YAML, block values and look-alike text get no note', () => {
    assert.deepEqual(notesOf('description: Needs Python >3.8 and a |2 pipe; & and * and ! are text'), []);
    assert.deepEqual(notesOf('description: >\n  Folded over\n  two lines.\nmetadata:\n  note: |\n    ? not a key\n    - nor a list'), []);
    assert.deepEqual(notesOf('description: "one line, quoted"\nlicense: \'MIT\''), []);
  });

  test('a key past 1024 characters is refused, explicit or not', () => {
    assert.throws(() => notesOf(`description: x\n? ${'k'.repeat(2000)}\n: v`), /a key longer than 1024 characters/);
  });
});

describe('a SKILL.md saved as UTF-16', () => {
  test('is named so, with or without a byte order mark; a stray NUL in UTF-8 text is still called binary', async () => {
    const { parseManifestBytes } = await import('../src/skill-folder.js');
    const { DEFAULT_LIMITS } = await import('../src/limits.js');
    const text = '---\nname: tool\ndescription: A tool.\n---\n\n# Tool\n';
    for (const bytes of [
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]),
      Buffer.from(text, 'utf16le'),
      Buffer.from(text, 'utf16le').swap16(),
    ]) {
      assert.deepEqual(parseManifestBytes(bytes, DEFAULT_LIMITS), { error: 'SKILL.md is UTF-16 text: save it as UTF-8' });
    }
    const stray = Buffer.from(`${text}x\u0000y`);
    assert.match((parseManifestBytes(stray, DEFAULT_LIMITS) as { error: string }).error, /holds a NUL byte/);
  });
});
