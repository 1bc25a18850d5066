export { createWebCatalog } from './handler.js';
export type { WebCatalogOptions } from './handler.js';
export type { PendingReview, ReviewQueue, VersionHistory, VersionInfo } from './versions.js';
