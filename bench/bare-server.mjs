#!/usr/bin/env node
// Reference ceiling: a bare node:http endpoint answering a fixed JSON-RPC result from memory.
// Shows what the load generator and this machine can do at all. Usage: node bench/bare-server.mjs PORT
import { createServer } from 'node:http';

const body = JSON.stringify({ result: { contents: [{ uri: 'skill://x/SKILL.md', mimeType: 'text/markdown', text: '# x\n'.repeat(200) }] }, jsonrpc: '2.0', id: 1 });
createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
}).listen(Number(process.argv[2]), '127.0.0.1');
