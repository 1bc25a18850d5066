// The test kit: what the tests of every package share (ADR 0170). Tests of server, registry and client behaviour
// start the real `skillport` CLI process, the way users run the server, and talk to it through real MCP clients.
export * from './cli-process.js';
export * from './tree.js';
export * from './wait.js';
export * from './access.js';
export * from './registry.js';
export * from './static-host.js';
export * from './proxy.js';
export * from './archive-builders.js';
export * from './work.js';
export * from './git.js';
export * from './ports.js';
