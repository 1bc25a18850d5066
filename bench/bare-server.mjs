#!/usr/bin/env node
// Reference ceiling: a bare node:http endpoint answering from memory. Shows what the load generator and this machine
// can do at all. A resources/read gets one fixed JSON-RPC result; with PAGE_JSON (a skills/list result saved from a
// real server), a skills/list is answered with that page, serialised per request as a plain server would.
// With CONTENTS_JSON ({uri: content item}, saved from a real server's answers), a resources/read of one of those URIs
// is answered with its content item instead of the fixed body, serialised per request as a plain server would: the
// real answers' sizes, for a second, labelled limit (the fixed body stays the one the read target is judged against).
// Usage: node bench/bare-server.mjs PORT [PAGE_JSON|-] [CONTENTS_JSON]
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const body = JSON.stringify({
  result: { contents: [{ uri: 'skill://x/SKILL.md', mimeType: 'text/markdown', text: '# x\n'.repeat(200) }] },
  jsonrpc: '2.0',
  id: 1,
});
const pageArg = process.argv[3];
const page = pageArg && pageArg !== '-' ? JSON.parse(readFileSync(pageArg, 'utf8')) : undefined;
const contents = process.argv[4] ? new Map(Object.entries(JSON.parse(readFileSync(process.argv[4], 'utf8')))) : undefined;

createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const method = req.headers['mcp-method'];
    let text = body;
    if (page !== undefined && method === 'skills/list') {
      text = JSON.stringify({ result: page, jsonrpc: '2.0', id: JSON.parse(Buffer.concat(chunks).toString()).id });
    } else if (contents !== undefined && method === 'resources/read') {
      const request = JSON.parse(Buffer.concat(chunks).toString());
      const item = contents.get(request.params?.uri);
      text = JSON.stringify(
        item === undefined
          ? { jsonrpc: '2.0', id: request.id, error: { code: -32002, message: 'Resource not found' } }
          : { result: { contents: [item] }, jsonrpc: '2.0', id: request.id },
      );
    }
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });
}).listen(Number(process.argv[2]), '127.0.0.1');
