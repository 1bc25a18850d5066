#!/usr/bin/env node
// Reference ceiling: a bare node:http endpoint answering from memory. Shows what the load generator and this machine
// can do at all. A resources/read gets one fixed JSON-RPC result; with PAGE_JSON (a skills/list result saved from a
// real server), a skills/list is answered with that page, serialised per request as a plain server would.
// Usage: node bench/bare-server.mjs PORT [PAGE_JSON]
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const body = JSON.stringify({
  result: { contents: [{ uri: 'skill://x/SKILL.md', mimeType: 'text/markdown', text: '# x\n'.repeat(200) }] },
  jsonrpc: '2.0',
  id: 1,
});
const page = process.argv[3] ? JSON.parse(readFileSync(process.argv[3], 'utf8')) : undefined;
createServer((req, res) => {
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    const list = page !== undefined && req.headers['mcp-method'] === 'skills/list';
    const text = list ? JSON.stringify({ result: page, jsonrpc: '2.0', id: JSON.parse(Buffer.concat(chunks).toString()).id }) : body;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });
}).listen(Number(process.argv[2]), '127.0.0.1');
