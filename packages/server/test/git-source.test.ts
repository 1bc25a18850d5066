import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseGitSource } from '@skillport/server';
import { repositoryKey } from '../src/providers/git/webhook.js';

describe('git source syntax', () => {
  test('URLs and paths, refs and folders', () => {
    assert.deepEqual(parseGitSource('git+https://github.com/acme/skills.git#main:skills/'), {
      url: 'https://github.com/acme/skills.git',
      display: 'https://github.com/acme/skills.git',
      local: false,
      ref: 'main',
      subdir: 'skills',
    });
    assert.deepEqual(parseGitSource('git:./repo#v1.2', '/work'), { url: '/work/repo', display: '/work/repo', local: true, ref: 'v1.2', subdir: '' });
    assert.deepEqual(parseGitSource('git+file:///srv/x.git#:a/b'), { url: '/srv/x.git', display: '/srv/x.git', local: true, subdir: 'a/b' });
    assert.equal(parseGitSource('git+ssh://git@host/o/r.git').url, 'ssh://git@host/o/r.git', "ssh's user name stays");
  });

  test('user info leaves the URL (it would reach argv) and is kept aside', () => {
    const spec = parseGitSource('git+https://me:tok-123@git.example/o/r.git#main');
    assert.equal(spec.url, 'https://git.example/o/r.git');
    assert.equal(spec.display.includes('tok-123'), false);
    assert.deepEqual(spec.userInfo, { username: 'me', password: 'tok-123' });
  });

  test('bad sources are one-line errors', () => {
    assert.throws(() => parseGitSource('git:'), /needs the path/);
    assert.throws(() => parseGitSource('git+https://h/r.git#a..b'), /not a branch, tag or commit/);
    assert.throws(() => parseGitSource('git+https://h/r.git#-x'), /not a branch/);
    assert.throws(() => parseGitSource('git+https://h/r.git#main:../up'), /must stay inside the repository/);
    assert.throws(() => parseGitSource('git+https://h/r.git?x=1'), /no query string/);
    assert.throws(() => parseGitSource('git+https://'), /is not a URL/);
  });

  test('webhook repository names compare across URL forms', () => {
    const key = repositoryKey('https://github.com/Acme/Skills.git');
    assert.equal(repositoryKey('git@github.com:acme/skills.git'), key);
    assert.equal(repositoryKey('ssh://git@github.com/acme/skills'), key);
    assert.equal(repositoryKey('https://user:pw@github.com/acme/skills/'), key);
  });
});
