/**
 * What a plain stdio `serve DIR` must not load before its first answer (issue 20), as a pattern over a module's path:
 * packages in node_modules, or our own packages' builds. Shared by the trace (load-trace-start.ts) and the test that
 * reads the bundle's metafile (serve-start-loads.test.ts).
 */
export const DEFERRED = String.raw`\/node_modules\/(tar|yauzl|better-sqlite3|jose|pg|gpt-tokenizer|hono|@hono\/node-server|@modelcontextprotocol\/node|@modelcontextprotocol\/client|markdown-it|diff|semver)\/|\/packages\/(web|registry|client)\/dist\/`;
