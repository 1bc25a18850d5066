#!/usr/bin/env node
// The baseline: the MCP TypeScript SDK's own minimal skills server, exactly as its docs show it
// (loadSkills(dir) + catalog.attach behind createMcpHandler, mounted with toNodeHandler). Not part of skillport.
// Usage: node bench/sdk-server.mjs DIR PORT
import { createServer } from 'node:http';
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server';
import { loadSkills } from '@modelcontextprotocol/server/ext/skills/node';
import { toNodeHandler } from '@modelcontextprotocol/node';

const [dir, port] = process.argv.slice(2);
const catalog = await loadSkills(dir, { onWarning: () => {} });
const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'sdk-baseline', version: '1.0.0' });
  catalog.attach(server);
  return server;
});
createServer(toNodeHandler(handler)).listen(Number(port), '127.0.0.1', () => {
  process.stderr.write(`sdk server: ${catalog.entries.length} skills on http://127.0.0.1:${port}/mcp\n`);
});
