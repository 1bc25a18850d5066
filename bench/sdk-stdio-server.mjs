#!/usr/bin/env node
// The stdio baseline: the MCP TypeScript SDK's own minimal skills server (loadSkills(dir) + catalog.attach, served
// with serveStdio), as its docs show it. Not part of skillport.
// Usage: node bench/sdk-stdio-server.mjs DIR
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { loadSkills } from '@modelcontextprotocol/server/ext/skills/node';

const catalog = await loadSkills(process.argv[2], { onWarning: () => {} });
serveStdio(() => {
  const server = new McpServer({ name: 'sdk-baseline', version: '1.0.0' });
  catalog.attach(server);
  return server;
});
