/**
 * Test-only, preloaded with `node --import` into a real skillport process: prints `trace: loaded <package>` on stderr
 * whenever a package that a plain stdio `serve DIR` should not need before its first answer is resolved (issue 20:
 * archive readers, access control's native module and JWT library, database drivers, the tokenizer, the HTTP stack,
 * the web catalog), so a test can show that start-up leaves them unloaded.
 */
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`const WATCHED = /\\/node_modules\\/(tar|yauzl|better-sqlite3|jose|pg|gpt-tokenizer|hono|@hono\\/node-server|@modelcontextprotocol\\/node)\\/|\\/packages\\/(web|registry)\\/dist\\//;
    export async function resolve(specifier, context, next) {
      const resolved = await next(specifier, context);
      const match = WATCHED.exec(resolved.url);
      if (match) console.error('trace: loaded ' + (match[1] ?? match[2]) + ' ' + resolved.url);
      return resolved;
    }`),
);
