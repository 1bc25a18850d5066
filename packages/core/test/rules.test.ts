import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ALLOWED_FIELDS, MCP_NAME_PATTERN, checkFrontmatter, countCodePoints, declaredVersion, parseSkillMarkdown } from '../src/index.js';
import type { Problem } from '../src/index.js';

const DESCRIPTION = 'Does things. Use when asked.';
const ALLOWED_LIST = "['allowed-tools', 'compatibility', 'description', 'license', 'metadata', 'name']";

/** The problems for a frontmatter written as YAML (the way a SKILL.md holds it). */
function check(yaml: string, folderName?: string): Problem[] {
  return checkFrontmatter(parseSkillMarkdown(`---\n${yaml}\n---\nbody\n`).frontmatter, folderName).problems;
}

const errors = (...messages: string[]): Problem[] => messages.map((message) => ({ severity: 'error', message }));
const warnings = (...messages: string[]): Problem[] => messages.map((message) => ({ severity: 'warning', message }));

describe('skills-ref messages, exact wording', () => {
  test('a valid frontmatter has no problems and yields name and description', () => {
    const verdict = checkFrontmatter(
      { name: 'pdf-tools', description: DESCRIPTION, license: 'MIT', compatibility: 'Python 3', metadata: { a: 'b' }, 'allowed-tools': 'Read Bash' },
      'pdf-tools',
    );
    assert.deepEqual(verdict, { problems: [], name: 'pdf-tools', description: DESCRIPTION });
  });

  test('unexpected fields: sorted, Python list of the allowed ones', () => {
    assert.equal(`[${ALLOWED_FIELDS.map((field) => `'${field}'`).join(', ')}]`, ALLOWED_LIST);
    assert.deepEqual(
      check(`name: pdf\ndescription: ${DESCRIPTION}\nfoo: 1\nbar: 2`, 'pdf'),
      warnings(`Unexpected fields in frontmatter: bar, foo. Only ${ALLOWED_LIST} are allowed.`),
    );
  });

  test("fields clients document or real skills carry pass verbatim; --allow-field's list passes too", () => {
    const known =
      'argument-hint: "[file]"\ndisable-model-invocation: true\nuser-invocable: false\nmodel: opus\ncontext: fork\nagent: Explore\nrequires: [git]\ncommand: /pdf\ntriggers: [pdf]\nagents: [claude-code]';
    assert.deepEqual(check(`name: pdf\ndescription: ${DESCRIPTION}\n${known}`, 'pdf'), []);
    assert.deepEqual(checkFrontmatter({ name: 'pdf', description: DESCRIPTION, colour: 'blue' }, 'pdf', { allowFields: ['colour'] }).problems, []);
  });

  test('a top-level version is read as the version, with a note to move it under metadata.version', () => {
    assert.deepEqual(
      check(`name: pdf\ndescription: ${DESCRIPTION}\nversion: 1.0`, 'pdf'),
      warnings("Top-level 'version' is read as the version; move it under metadata.version (the specification's place for it)"),
    );
    assert.equal(declaredVersion({ version: 1.5 }), '1.5');
    assert.equal(declaredVersion({ version: '2.0.0', metadata: { version: '3.0.0' } }), '3.0.0');
    assert.equal(declaredVersion({}), undefined);
  });

  test('missing name', () => {
    assert.deepEqual(check(`description: ${DESCRIPTION}`), errors('Missing required field in frontmatter: name'));
  });

  test('name that is not a non-empty string', () => {
    for (const value of ['', '""', "'   '", '123', 'true', '[pdf]', '{a: b}', 'null']) {
      assert.deepEqual(check(`name: ${value}\ndescription: ${DESCRIPTION}`), errors("Field 'name' must be a non-empty string"), `name: ${value}`);
    }
  });

  test('name longer than 64 characters', () => {
    const name = 'a'.repeat(65);
    assert.deepEqual(check(`name: ${name}\ndescription: ${DESCRIPTION}`, name), errors(`Skill name '${name}' exceeds 64 character limit (65 chars)`));
    assert.deepEqual(check(`name: ${'a'.repeat(64)}\ndescription: ${DESCRIPTION}`, 'a'.repeat(64)), []);
  });

  test('uppercase name', () => {
    assert.deepEqual(check(`name: PDF\ndescription: ${DESCRIPTION}`, 'PDF'), errors("Skill name 'PDF' must be lowercase"));
    assert.deepEqual(check(`name: Café\ndescription: ${DESCRIPTION}`, 'Café'), errors("Skill name 'Café' must be lowercase"));
  });

  test('leading or trailing hyphen', () => {
    assert.deepEqual(check(`name: -pdf\ndescription: ${DESCRIPTION}`, '-pdf'), errors('Skill name cannot start or end with a hyphen'));
    assert.deepEqual(check(`name: pdf-\ndescription: ${DESCRIPTION}`, 'pdf-'), errors('Skill name cannot start or end with a hyphen'));
  });

  test('consecutive hyphens', () => {
    assert.deepEqual(check(`name: pdf--tools\ndescription: ${DESCRIPTION}`, 'pdf--tools'), errors('Skill name cannot contain consecutive hyphens'));
  });

  test('invalid characters', () => {
    for (const name of ['pdf_tools', 'pdf.tools', 'pdf tools', 'pdf/tools', 'pdf😀']) {
      assert.deepEqual(
        check(`name: "${name}"\ndescription: ${DESCRIPTION}`, name),
        errors(`Skill name '${name}' contains invalid characters. Only letters, digits, and hyphens are allowed.`),
        name,
      );
    }
  });

  test('several name problems are all reported, in skills-ref order', () => {
    assert.deepEqual(
      check(`name: -Bad--Name_\ndescription: ${DESCRIPTION}`, '-Bad--Name_'),
      errors(
        "Skill name '-Bad--Name_' must be lowercase",
        'Skill name cannot start or end with a hyphen',
        'Skill name cannot contain consecutive hyphens',
        "Skill name '-Bad--Name_' contains invalid characters. Only letters, digits, and hyphens are allowed.",
      ),
    );
  });

  test('directory name must match (a warning: served under the name)', () => {
    assert.deepEqual(check(`name: pdf\ndescription: ${DESCRIPTION}`, 'pdf-skill'), warnings("Directory name 'pdf-skill' must match skill name 'pdf'"));
    // No folder name given: no match rule.
    assert.deepEqual(check(`name: pdf\ndescription: ${DESCRIPTION}`), []);
  });

  test('missing description', () => {
    assert.deepEqual(check('name: pdf', 'pdf'), errors('Missing required field in frontmatter: description'));
  });

  test('description that is not a non-empty string', () => {
    for (const value of ['', '"  "', '5', 'false', '[a, b]', 'null']) {
      assert.deepEqual(check(`name: pdf\ndescription: ${value}`, 'pdf'), errors("Field 'description' must be a non-empty string"), `description: ${value}`);
    }
  });

  test('description longer than 1024 characters', () => {
    assert.deepEqual(check(`name: pdf\ndescription: ${'x'.repeat(1025)}`, 'pdf'), errors('Description exceeds 1024 character limit (1025 chars)'));
    assert.deepEqual(check(`name: pdf\ndescription: ${'x'.repeat(1024)}`, 'pdf'), []);
  });

  test('compatibility that is not a string', () => {
    for (const value of ['3', 'true', '[node]', '{a: b}', 'null']) {
      assert.deepEqual(
        check(`name: pdf\ndescription: ${DESCRIPTION}\ncompatibility: ${value}`, 'pdf'),
        errors("Field 'compatibility' must be a string"),
        value,
      );
    }
  });

  test('compatibility longer than 500 characters', () => {
    assert.deepEqual(
      check(`name: pdf\ndescription: ${DESCRIPTION}\ncompatibility: ${'c'.repeat(501)}`, 'pdf'),
      errors('Compatibility exceeds 500 character limit (501 chars)'),
    );
    assert.deepEqual(check(`name: pdf\ndescription: ${DESCRIPTION}\ncompatibility: ${'c'.repeat(500)}`, 'pdf'), []);
  });

  test('missing name and description together, after the unexpected-fields warning', () => {
    assert.deepEqual(check('title: x'), [
      ...warnings(`Unexpected fields in frontmatter: title. Only ${ALLOWED_LIST} are allowed.`),
      ...errors('Missing required field in frontmatter: name', 'Missing required field in frontmatter: description'),
    ]);
  });
});

describe('Unicode', () => {
  test('limits count code points (as Python len does), not UTF-16 units', () => {
    assert.equal(countCodePoints('😀'), 1);
    assert.equal('😀'.length, 2);
    assert.equal(countCodePoints('a😀é\u0301'), 4);
    assert.deepEqual(check(`name: pdf\ndescription: ${'😀'.repeat(1024)}`, 'pdf'), []);
    assert.deepEqual(check(`name: pdf\ndescription: ${'😀'.repeat(1025)}`, 'pdf'), errors('Description exceeds 1024 character limit (1025 chars)'));
    assert.deepEqual(check(`name: pdf\ndescription: ${DESCRIPTION}\ncompatibility: ${'😀'.repeat(500)}`, 'pdf'), []);
    assert.deepEqual(
      check(`name: pdf\ndescription: ${DESCRIPTION}\ncompatibility: ${'😀'.repeat(501)}`, 'pdf'),
      errors('Compatibility exceeds 500 character limit (501 chars)'),
    );
  });

  test('name length counts code points of astral letters', () => {
    // U+10428 DESERET SMALL LETTER LONG I: a lowercase letter outside the BMP, unchanged by NFKC.
    const letter = '\u{10428}';
    const at64 = checkFrontmatter({ name: letter.repeat(64), description: DESCRIPTION }, undefined).problems;
    assert.ok(!at64.some((problem) => problem.message.includes('character limit')), JSON.stringify(at64));
    const at65 = checkFrontmatter({ name: letter.repeat(65), description: DESCRIPTION }, undefined).problems;
    assert.equal(at65[0]?.message, `Skill name '${letter.repeat(65)}' exceeds 64 character limit (65 chars)`);
  });

  test('the name is NFKC-normalised before the checks, and served in that form', () => {
    const fullwidth = checkFrontmatter({ name: 'ｐｄｆ', description: DESCRIPTION }, 'pdf');
    assert.deepEqual(fullwidth, { problems: [], name: 'pdf', description: DESCRIPTION });
    const ligature = checkFrontmatter({ name: 'ﬁle', description: DESCRIPTION }, 'file');
    assert.deepEqual(ligature, { problems: [], name: 'file', description: DESCRIPTION });
    // The limit applies after normalisation: 33 ligatures are 66 characters.
    const long = checkFrontmatter({ name: 'ﬁ'.repeat(33), description: DESCRIPTION }, undefined).problems;
    assert.deepEqual(long, errors(`Skill name '${'fi'.repeat(33)}' exceeds 64 character limit (66 chars)`));
    // Fullwidth capitals normalise to ASCII capitals, which are then refused.
    assert.deepEqual(checkFrontmatter({ name: 'ＰＤＦ', description: DESCRIPTION }, undefined).problems, errors("Skill name 'PDF' must be lowercase"));
  });

  test('the folder name is NFKC-normalised for the match rule, and quoted as it is', () => {
    assert.deepEqual(checkFrontmatter({ name: 'pdf', description: DESCRIPTION }, 'ｐｄｆ').problems, []);
    assert.deepEqual(
      checkFrontmatter({ name: 'café', description: DESCRIPTION }, 'cafe\u0301').problems.filter((p) => p.severity === 'warning'),
      [],
    );
    assert.deepEqual(
      checkFrontmatter({ name: 'pdf', description: DESCRIPTION }, 'ＰＤＦ').problems,
      warnings("Directory name 'ＰＤＦ' must match skill name 'pdf'"),
    );
  });

  test('non-ASCII lowercase names: valid Agent Skills names, but refused for MCP serving (an error)', () => {
    for (const name of ['café', 'résumé-tool', 'данные', '数据', 'ελληνικά']) {
      const verdict = checkFrontmatter({ name, description: DESCRIPTION }, name);
      // None of the skills-ref name rules fires...
      for (const problem of verdict.problems) {
        assert.doesNotMatch(problem.message, /must be lowercase|hyphen|invalid characters|character limit|must match/, name);
      }
      // ...but the MCP extension's ASCII rule does, as an error.
      assert.equal(verdict.problems.length, 1, JSON.stringify(verdict.problems));
      assert.equal(verdict.problems[0]!.severity, 'error');
      assert.match(verdict.problems[0]!.message, new RegExp(`^Skill name '${name}' .*non-ASCII`));
      assert.ok(!MCP_NAME_PATTERN.test(name));
    }
    // Decomposed input is composed by NFKC before the message quotes it.
    const decomposed = checkFrontmatter({ name: 'cafe\u0301', description: DESCRIPTION }, undefined).problems;
    assert.equal(decomposed.length, 1);
    assert.match(decomposed[0]!.message, /^Skill name 'café' /);
  });

  test('non-ASCII digits and letters normalising to ASCII are fine', () => {
    assert.deepEqual(checkFrontmatter({ name: 'a²', description: DESCRIPTION }, undefined), { problems: [], name: 'a2', description: DESCRIPTION });
  });
});

describe('skillport rules beyond skills-ref', () => {
  test('the MCP name pattern', () => {
    for (const name of ['a', 'pdf', 'pdf-tools', 'a1', '1', 'x'.repeat(64)]) assert.ok(MCP_NAME_PATTERN.test(name), name);
    for (const name of ['', '-a', 'a-', 'a--b', 'A', 'a_b', 'x'.repeat(65), 'é']) assert.ok(!MCP_NAME_PATTERN.test(name), name);
  });

  test('a name with surrounding whitespace is reported and served trimmed', () => {
    const verdict = checkFrontmatter({ name: ' pdf ', description: DESCRIPTION }, 'pdf');
    assert.equal(verdict.name, 'pdf');
    assert.deepEqual(verdict.problems, errors("Skill name ' pdf ' has leading or trailing whitespace"));
  });

  test('empty compatibility is an error (the extension wants 1-500 characters)', () => {
    assert.deepEqual(
      checkFrontmatter({ name: 'pdf', description: DESCRIPTION, compatibility: '' }, undefined).problems,
      errors("Field 'compatibility' must be 1-500 characters when present"),
    );
  });

  test('metadata must map strings to strings', () => {
    assert.deepEqual(
      checkFrontmatter({ name: 'pdf', description: DESCRIPTION, metadata: { a: 'x', b: 1, c: ['y'] } }, undefined).problems,
      errors("Field 'metadata' must map strings to strings (not: b, c)"),
    );
    for (const metadata of ['x', ['a'], null, 3]) {
      assert.deepEqual(
        checkFrontmatter({ name: 'pdf', description: DESCRIPTION, metadata }, undefined).problems,
        errors("Field 'metadata' must be a mapping of strings to strings"),
      );
    }
  });

  test('non-string license and allowed-tools are warnings', () => {
    assert.deepEqual(checkFrontmatter({ name: 'pdf', description: DESCRIPTION, license: 3 }, undefined).problems, warnings("Field 'license' must be a string"));
    assert.deepEqual(
      checkFrontmatter({ name: 'pdf', description: DESCRIPTION, 'allowed-tools': ['Read'] }, undefined).problems,
      warnings("Field 'allowed-tools' must be a space-separated string"),
    );
  });

  test('the verdict carries no name when the name field is unusable', () => {
    const verdict = checkFrontmatter({ name: 5, description: DESCRIPTION }, undefined);
    assert.equal(verdict.name, undefined);
    assert.equal(verdict.description, DESCRIPTION);
  });
});
