/**
 * @skillport/server: what a library user needs to serve skills (the server, its options, plugins and routes,
 * providers of skills from elsewhere, access control) and to write a provider or a plugin. Internals (the MCP
 * factory, the fast path, per-principal handlers) are not exported: they change without notice.
 */
// The server.
export { SkillportServer, StartupError, cacheDirProblem, defaultCacheDir, defaultInstructions } from './app.js';
export type { SkillportServerOptions } from './app.js';
export { ServerError } from './errors.js';
export { SERVER_VERSION } from './version.js';
export { IdlePolicy, startIdleCollector } from './memory.js';
export type { CacheHint, ServerIdentity } from './mcp/identity.js';
export { DEFAULT_TOOL_OPTIONS } from './tools/tools.js';
export type { ToolMode, ToolOptions } from './tools/tools.js';
export type { CatalogChanges } from './catalog/live-catalog.js';

// Plugins and HTTP routes beside /mcp (ADR 0060).
export type { ServerPlugin, PluginContext, PluginParts, SkillVersionInfo } from './plugin.js';
export type { PrivateSkills } from './access/views.js';
export type { HttpOptions, RunningHttpServer } from './http/http-server.js';
export { DEFAULT_REQUEST_LIMITS } from './http/limits.js';
export type { RequestLimits } from './http/limits.js';
export { parseTrustedProxy } from './http/client-address.js';
export { allowedOrigins, isOwnOrigin } from './http/guards.js';
export { CSRF_COOKIE, CSRF_FIELD, MAX_FORM_BYTES } from './http/middleware/csrf-names.js';
export type { TrustedProxies } from './http/client-address.js';
export type { HttpApp, HttpContext, HttpEnv, HttpMiddleware, HttpRoutes, PublicRouteKit, PublicRoutes, RouteKit } from './http/routes.js';
export { HttpError, errorBody, methodNotAllowed } from './http/errors.js';

// Skills from elsewhere: providers and the catalog model they fill.
export type { ProviderDelta, SkillLookup, SkillProvider, VersionSelector } from './catalog/composite-catalog.js';
export type { BlobSource, CatalogFile, CatalogSkill, FolderOrigin, SkillEntry, SkillOrigin, StoredOrigin } from './catalog/model.js';
export { META_PACKAGE_DIGEST } from './catalog/model.js';
export { buildCatalogSkill } from './catalog/catalog-skill.js';
export { META_PENDING, META_PROVENANCE, META_VERSION, pendingOf } from './tools/versions.js';
export { MemoryBlobs, ProviderBase, storedCatalogSkill } from './providers/stored-skill.js';
export { ArchiveProvider } from './providers/archive-provider.js';
export { GitProvider, DEFAULT_GIT_INTERVAL_MS } from './providers/git-provider.js';
export type { GitProviderOptions, GitSourceHealth } from './providers/git-provider.js';
export { isGitSource, parseGitSource } from './providers/git/git-source.js';
export { GIT_WEBHOOK_PATH, gitWebhook } from './providers/git/webhook.js';
export type { WebhookTarget } from './providers/git/webhook.js';
export type { GitSourceSpec } from './providers/git/git-source.js';
export { META_PLUGIN, MARKETPLACE_FILE } from './providers/git/marketplace.js';
export { MarketplaceProvider } from './providers/marketplace-provider.js';
export type { MarketplaceProviderOptions } from './providers/marketplace-provider.js';
export type { ArchiveProviderOptions } from './providers/archive-provider.js';
export { HttpProvider, HTTP_DEFAULTS, indexCandidates } from './providers/http-provider.js';
export type { HttpProviderOptions } from './providers/http-provider.js';

// Access control (docs/security.md). SqliteAccessStore loads its native SQLite module only when a store is opened.
export { AccessConfigError } from './access/access-control.js';
export type { AccessOptions, AuthMode } from './access/access-control.js';
export { ACCESS_DB, newTokenRecord, auditLimit, auditEventOf, auditValuesOf, tokenRecordOf } from './access/store.js';
export type { AccessStore, AccessChange, AuditEvent, AuditQuery, TokenRecord, TokenEntry, NewToken, StoredPolicyText } from './access/store.js';
export { SqliteAccessStore } from './access/sqlite-access-store.js';
export { reviewDecision, REVIEW_REASON_MAX } from './access/audit.js';
export type { AuditInput } from './access/audit.js';
export { TokenCache } from './access/token-cache.js';
export { copyAccess } from './access/copy.js';
export type { AccessCopyResult } from './access/copy.js';
export { parsePrincipalSpec, hasScope, ANONYMOUS, SCOPES } from './access/principal.js';
export type { Principal, Scope } from './access/principal.js';
export { parsePolicy, PolicyError } from './access/policy.js';
export { DEFAULT_GATE, gateFor, parseGatePolicy } from './access/gate-policy.js';
export type { GatePolicy, GateSettings, GateSeverity } from './access/gate-policy.js';
export type { PolicyDocument } from './access/policy.js';
export type { JwtOptions, ClaimMapping } from './access/jwt.js';

// For the web catalog (packages/web): the per-principal view it renders, and the helpers it shares with the API.
export type { AccessControl } from './access/access-control.js';
export type { Scoped } from './mcp/scoped.js';
export type { CatalogSnapshot, SnapshotDelta } from './catalog/snapshot.js';
export type { SkillsService } from './mcp/skills-service.js';
export type { WebRoute } from './http/routes.js';
export { CatalogSearch, catalogSearch, searchSkills } from './search/catalog-search.js';
export type { SearchAnswer } from './search/catalog-search.js';
export { describePrincipal } from './http/api-routes.js';
export { principalLabel } from './access/principal.js';
export { readBodyLimited } from './http/body.js';
export { requestPrincipal } from './http/middleware/authenticate.js';
export { parseSince } from '@skillport/core';
export { SkillEmbeddings, fuseRankings } from './search/embeddings.js';
export { SkillMeaning } from './search/sentence-meaning.js';
export type { SkillMeaningOptions } from './search/sentence-meaning.js';
export type { EmbeddingsOptions } from './search/embeddings.js';
