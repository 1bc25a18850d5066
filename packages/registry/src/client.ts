/**
 * What a publisher's machine needs (the CLI's pack, publish, keygen, verify and the API commands): the archive
 * format, signatures and the API client. Nothing here loads the store or its native SQLite module.
 */
export * from './model.js';
export * from './package-format.js';
export * from './signing.js';
export * from './api-client.js';
export { badTagReason } from './store.js';
