import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { jsonString } from '../src/catalog/content.js';
import { makeTree, startHttp } from '@skillport/test-kit';
import type { RunningServer } from '@skillport/test-kit';

/**
 * A hot resources/read is written from a template cut once (the JSON around the URI, media type, text and id) and
 * the text's JSON string made from its bytes read as Latin-1 (catalog/content.ts `jsonString`): the answer must be,
 * byte for byte, what the SDK path (JSON.stringify of the whole answer) writes, on a miss and on a hit, for text
 * holding every kind of character JSON escapes or passes through, with ids that need escaping, in both eras.
 */
const awkward = [
  '---',
  'name: bytes',
  'description: "Quotes \\" and a backslash \\\\ in YAML. Use when checking served bytes."',
  '---',
  '',
  '# Ünïcødé “quotes” — ½ € 𝄞 😀 \u2028\u2029 \u00a0',
  'tab\there, carriage return\r\nform feed\f backspace\b bell\u0007 escape\u001b unit separator\u001f delete\u007f',
  '"double" \'single\' \\backslash\\ </script> <!-- --> &amp;',
  '',
].join('\n');

const tree = {
  'bytes/SKILL.md': awkward,
  'bytes/references/crlf.md': 'line one\r\nline two\r\n\ttabbed "quoted"\r\n',
  'bytes/references/bom.md': '\ufeffStarts with a byte order mark.\n',
  'bytes/references/ascii.txt': 'plain ascii with nothing to escape',
  'bytes/references/Q&A notes.md': '# Q&A\n\nA name that is percent-encoded in its URI.\n',
  'bytes/data/values.json': '{"a": "\\u00e9", "b": [1, 2, 3]}\n',
  'bytes/assets/blob.bin': new Uint8Array([0, 1, 2, 255, 254, 0x22, 0x5c]),
  'plain/SKILL.md': '---\nname: plain\ndescription: A plain skill. Use when testing.\n---\n\n# Plain\n',
};

type Era = 'legacy' | 'modern';

function request(era: Era, id: unknown, uri: string): { headers: Record<string, string>; body: string } {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  let params: Record<string, unknown> = { uri };
  if (era === 'modern') {
    headers['mcp-protocol-version'] = '2026-07-28';
    headers['mcp-method'] = 'resources/read';
    headers['mcp-name'] = uri;
    params = {
      uri,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'bytes', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    };
  } else {
    headers['mcp-protocol-version'] = '2025-11-25';
  }
  return { headers, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'resources/read', params }) };
}

async function raw(url: string, era: Era, id: unknown, uri: string): Promise<{ status: number; type: string | null; body: Buffer }> {
  const { headers, body } = request(era, id, uri);
  const response = await fetch(url, { method: 'POST', headers, body });
  return { status: response.status, type: response.headers.get('content-type'), body: Buffer.from(await response.arrayBuffer()) };
}

async function fastCount(server: RunningServer): Promise<number> {
  const health = (await (await fetch(server.url.replace(/\/mcp$/, '/healthz'))).json()) as { requests: { fastPath: number } };
  return health.requests.fastPath;
}

describe('a hot resources/read is byte for byte the SDK path answer', () => {
  let fast: RunningServer;
  let sdk: RunningServer;
  before(async () => {
    const root = makeTree(tree);
    [fast, sdk] = await Promise.all([startHttp([root]), startHttp([root, '--no-fast-path'])]);
  });
  after(async () => {
    await Promise.all([fast.stop(), sdk.stop()]);
  });

  const uris = [
    'skill://bytes/SKILL.md',
    'skill://bytes/references/crlf.md',
    'skill://bytes/references/bom.md',
    'skill://bytes/references/ascii.txt',
    'skill://bytes/references/Q%26A%20notes.md',
    'skill://bytes/data/values.json',
    'skill://bytes/assets/blob.bin',
    'skill://plain/SKILL.md',
  ];
  const ids: unknown[] = [1, 0, 9007199254740991, 'a', '', 'ü "quoted" \\ \u0001 😀'];

  for (const era of ['legacy', 'modern'] as const) {
    test(`every file, first read (a miss) and again (a hit), ids of every kind (${era})`, async () => {
      const before = await fastCount(fast);
      let answered = 0;
      for (const uri of uris) {
        for (const id of ids) {
          const [a, b] = await Promise.all([raw(fast.url, era, id, uri), raw(sdk.url, era, id, uri)]);
          assert.equal(a.status, 200, `${uri} ${JSON.stringify(id)}: ${a.body}`);
          assert.deepEqual({ status: a.status, type: a.type }, { status: b.status, type: b.type }, uri);
          assert.equal(a.body.toString('latin1'), b.body.toString('latin1'), `${era} ${uri} id ${JSON.stringify(id)}`);
          answered++;
        }
      }
      // Every one of them was answered by the fast path (the comparison would be empty otherwise).
      assert.equal((await fastCount(fast)) - before, answered);
    });
  }
});

describe('jsonString', () => {
  test('is JSON.stringify of the UTF-8 text for every code point', () => {
    const points: number[] = [];
    for (let point = 0; point < 0x11000; point++) if (point < 0xd800 || point > 0xdfff) points.push(point);
    points.push(0x10fffd, 0x10ffff);
    const text = String.fromCodePoint(...points);
    const bytes = Buffer.from(text, 'utf8');
    assert.equal(jsonString(bytes).toString('utf8'), JSON.stringify(text));
    assert.ok(jsonString(bytes).equals(Buffer.from(JSON.stringify(text))));
    // Each control character and the two escaped ASCII ones, alone and between other text.
    for (let code = 0; code < 0x80; code++) {
      const one = `a${String.fromCharCode(code)}é`;
      assert.ok(jsonString(Buffer.from(one)).equals(Buffer.from(JSON.stringify(one))), `U+${code.toString(16)}`);
    }
    assert.equal(jsonString(Buffer.alloc(0)).toString(), '""');
  });
});
