/**
 * Test-only, preloaded with `node --import` into a real skillport process: prints `trace: loaded pg <url>` on
 * stderr whenever the PostgreSQL driver is resolved, so a test can show which commands load it.
 */
import { register } from 'node:module';

register(
  'data:text/javascript,' +
    encodeURIComponent(`export async function resolve(specifier, context, next) {
      const resolved = await next(specifier, context);
      if (/\\/node_modules\\/pg\\//.test(resolved.url)) console.error('trace: loaded pg ' + resolved.url);
      return resolved;
    }`),
);
