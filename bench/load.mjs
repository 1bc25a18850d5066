#!/usr/bin/env node
// Load generator: CONCURRENCY keep-alive HTTP connections, each sending one MCP request at a time (a real JSON-RPC
// request shaped as the SDK client sends it, for the 2026-07-28 or the 2025-11-25 wire) for DURATION seconds.
// It speaks raw HTTP rather than through the SDK client so that the client side is not the bottleneck.
// Usage: node bench/load.mjs URL ERA(modern|legacy) METHOD(read|list) DURATION_S CONCURRENCY TARGETS_JSON_FILE
import { Agent, request } from 'node:http';
import { readFileSync } from 'node:fs';

const [url, era, kind, durationText, concurrencyText, targetsFile] = process.argv.slice(2);
const targets = JSON.parse(readFileSync(targetsFile, 'utf8'));
const duration = Number(durationText) * 1000;
const concurrency = Number(concurrencyText);
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const endpoint = new URL(url);

function build(id, target) {
  const method = kind === 'read' ? 'resources/read' : 'skills/list';
  let params = kind === 'read' ? { uri: target } : target === null ? {} : { cursor: target };
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  if (era === 'modern') {
    headers['mcp-protocol-version'] = '2026-07-28';
    headers['mcp-method'] = method;
    if (kind === 'read') headers['mcp-name'] = target;
    params = {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    };
  } else {
    headers['mcp-protocol-version'] = '2025-11-25';
  }
  return { headers, body: JSON.stringify({ jsonrpc: '2.0', id, method, params }) };
}

function send(id, target) {
  const { headers, body } = build(id, target);
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        host: endpoint.hostname,
        port: endpoint.port,
        path: endpoint.pathname,
        method: 'POST',
        headers: { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          resolve(res.statusCode === 200 && text.includes('"result"') && !text.includes('"error"'));
        });
      },
    );
    req.on('error', () => resolve(false));
    req.end(body);
  });
}

let ok = 0;
let failed = 0;
let id = 1;
const until = Date.now() + duration;
const started = performance.now();
let seed = 12345;
const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (Date.now() < until) {
      const target = targets[Math.floor(random() * targets.length)];
      if (await send(id++, target)) ok++;
      else failed++;
    }
  }),
);
const seconds = (performance.now() - started) / 1000;
process.stdout.write(`${JSON.stringify({ ok, failed, perSecond: ok / seconds })}\n`);
agent.destroy();
