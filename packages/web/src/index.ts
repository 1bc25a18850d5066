export { createWebCatalog } from './handler.js';
export type { WebCatalogOptions } from './handler.js';
export type { VersionHistory, VersionInfo } from './versions.js';
