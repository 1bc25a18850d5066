import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { describe, test } from 'node:test';
import { CORPUS } from '@skillport/test-kit';
import { SimilarityIndex, nameSimilarity } from '../src/index.js';

describe('near-duplicates', () => {
  test('names one edit apart are close; different names are not', () => {
    assert.ok(nameSimilarity('pdf-tools', 'pdf-tool') >= 0.85);
    assert.ok(nameSimilarity('pdf_tools', 'pdf-tools') === 1);
    assert.ok(nameSimilarity('pdf-tools', 'slack-notify') < 0.5);
  });

  test('descriptions saying the same thing pair up, with the figure; unrelated ones do not', () => {
    const index = new SimilarityIndex([
      { id: 'meeting-analyzer', name: 'meeting-analyzer', description: 'Analyzes meeting transcripts to find action items, decisions and speaker insights.' },
      {
        id: 'meeting-insights-analyzer',
        name: 'meeting-insights-analyzer',
        description: 'Analyzes meeting transcripts and finds decisions, action items and insights about speakers.',
      },
      { id: 'pdf', name: 'pdf', description: 'Extract text and tables from PDF files, fill forms, merge documents.' },
      { id: 'slack', name: 'slack', description: 'Post messages to Slack channels and read threads.' },
    ]);
    const pairs = index.pairs();
    assert.equal(pairs.length, 1, JSON.stringify(pairs));
    assert.deepEqual([pairs[0]!.a, pairs[0]!.b], ['meeting-analyzer', 'meeting-insights-analyzer']);
    assert.equal(pairs[0]!.reason, 'description');
    assert.ok(pairs[0]!.similarity >= 0.72 && pairs[0]!.similarity <= 1);
  });

  test('similarTo compares a new skill with the indexed ones and never with itself', () => {
    const index = new SimilarityIndex([{ id: 'a', name: 'pdf-tools', description: 'Work with PDF files.' }]);
    assert.deepEqual(index.similarTo({ id: 'a', name: 'pdf-tools', description: 'Work with PDF files.' }), []);
    const close = index.similarTo({ id: 'b', name: 'pdf-tool', description: 'Edit spreadsheets.' });
    assert.equal(close[0]?.b, 'a');
    assert.equal(close[0]?.reason, 'name');
  });

  test('skills added after a comparison are compared like those indexed at once; unknown words still weigh', () => {
    const skills = [
      { id: 'a', name: 'csv-report', description: 'Build CSV reports from sales tables and export charts.' },
      { id: 'b', name: 'sales-charts', description: 'Export sales charts and reports from tables.' },
      { id: 'c', name: 'slack', description: 'Post messages to Slack channels and read threads.' },
    ];
    const query = { id: 'new', name: 'sales-report', description: 'Export sales reports and charts from tables.' };
    const grown = new SimilarityIndex(skills.slice(0, 1));
    grown.similarTo(query, { all: true });
    for (const skill of skills.slice(1)) grown.add(skill);
    const once = new SimilarityIndex(skills);
    assert.deepEqual(grown.similarTo(query, { all: true }), once.similarTo(query, { all: true }));
    assert.deepEqual(grown.pairs(), once.pairs());
    const close = once.similarTo(query, { all: true }).find((pair) => pair.b === 'b')!;
    assert.ok(close.description > 0.5, JSON.stringify(close));
    // Words no indexed skill holds meet nothing, but they are part of the new description's length.
    const padded = once.similarTo({ ...query, description: `${query.description} zeppelin quasar` }, { all: true }).find((pair) => pair.b === 'b')!;
    assert.ok(padded.description < close.description, `${padded.description} < ${close.description}`);
  });

  test('the corpus pairs the known near-copies (when the corpus is present)', { skip: !existsSync(CORPUS) && `no corpus at ${CORPUS}` }, async () => {
    const { discoverSkills, inspectSkillFolder } = await import('@skillport/core');
    const skills = discoverSkills(CORPUS)
      .skills.map((s) => inspectSkillFolder(s.dir).skill)
      .filter((s) => s !== undefined)
      .map((s) => ({ id: s.name, name: s.name, description: s.description }));
    const pairs = new SimilarityIndex(skills).pairs();
    const has = (a: string, b: string) => pairs.some((p) => (p.a === a && p.b === b) || (p.a === b && p.b === a));
    assert.ok(has('autoresearch-agent', 'autoresearch'), 'autoresearch pair');
    assert.ok(has('meeting-analyzer', 'meeting-insights-analyzer'), 'meeting pair');
    // The corpus publishes many skills twice (the same skill in several repositories) and families of template
    // descriptions; still, far from every skill has a near-copy.
    assert.ok(pairs.length < skills.length / 2, `${pairs.length} pairs among ${skills.length} skills is not "very close"`);
  });
});
