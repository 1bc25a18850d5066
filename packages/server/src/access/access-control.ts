import type { IncomingMessage } from 'node:http';
import { AuditLog, DEFAULT_AUDIT_RETENTION_MS } from './audit.js';
import { JwtRejected, JwtVerifier } from './jwt.js';
import type { JwtOptions } from './jwt.js';
import { Metrics } from './metrics.js';
import { OPEN_POLICY } from './policy.js';
import { PolicyFile } from './policy-file.js';
import { StoredPolicy } from './stored-policy.js';
import type { PolicySource } from './policy-source.js';
import { ANONYMOUS, hasScope } from './principal.js';
import type { Principal, Scope } from './principal.js';
import type { AccessChange, AccessStore } from './store.js';
import { TokenCache } from './token-cache.js';
import { ViewCache } from './views.js';

/**
 * Identity, visibility and audit for one server (docs/security.md): how a request's principal is established
 * (`auth`), what it may see (the policy, applied through per-principal views), and what it did (audit, metrics).
 * Changes (a policy edit, a token created or revoked by another process or replica) are announced to `onChange`
 * listeners, which tell the sessions they affect.
 */
export type AuthMode = 'none' | 'tokens' | 'jwt';

export interface AccessOptions {
  auth?: AuthMode;
  /** Where access.db (tokens, audit) lives; needed by `tokens`, optional otherwise (no audit log without it). */
  dataDir?: string;
  /**
   * Opens the access store instead of `dataDir`'s access.db (the PostgreSQL one of `--data postgres://…`, which
   * the server package does not know). The policy then lives in the store too (`policyFile` is imported into it).
   */
  openStore?: () => Promise<AccessStore>;
  /** The visibility policy (YAML); without one every skill is public. */
  policyFile?: string;
  jwt?: JwtOptions;
  /** The principal of stdio connections, and of every HTTP request with `--auth none`. Default: anonymous. */
  principal?: Principal;
  /** The resource URL announced in protected resource metadata (default: from the request's Host). */
  resourceUrl?: string;
  /** How long audit rows are kept (ms); 0 keeps every row. Default DEFAULT_AUDIT_RETENTION_MS (30 days). */
  auditRetentionMs?: number;
  onWarning?: (message: string) => void;
}

export type AuthResult =
  | { principal: Principal }
  | { status: 401; error?: 'invalid_token'; description: string }
  /** The token could not be checked: the access store is unreachable and this replica has not seen the token. */
  | { status: 503; error?: undefined; description: string };

export class AccessConfigError extends Error {
  override name = 'AccessConfigError';
}

export class AccessControl {
  readonly auth: AuthMode;
  readonly store: AccessStore | undefined;
  /** Where the policy comes from and the admin API writes it (a file, or the store); undefined: every skill public. */
  readonly policySource: PolicySource | undefined;
  readonly views = new ViewCache();
  readonly metrics = new Metrics();
  readonly audit: AuditLog;
  readonly jwt: JwtVerifier | undefined;
  readonly configured: Principal;
  readonly tokens: TokenCache | undefined;
  #listeners: Array<(what: 'policy' | 'tokens') => void> = [];
  #unwatch: (() => void) | undefined;
  #watchConnected = true;

  private constructor(
    readonly options: AccessOptions,
    store: AccessStore | undefined,
    policySource: PolicySource | undefined,
    jwt: JwtVerifier | undefined,
  ) {
    this.auth = options.auth ?? 'none';
    this.store = store;
    this.tokens = store === undefined ? undefined : new TokenCache(store);
    this.policySource = policySource;
    this.jwt = jwt;
    this.configured = options.principal ?? ANONYMOUS;
    this.audit = new AuditLog(store, this.metrics, (message) => options.onWarning?.(message));
    this.views.setPolicy(policySource?.policy ?? OPEN_POLICY);
    policySource?.onChange((policy) => {
      this.views.setPolicy(policy);
      this.#emit('policy');
    });
  }

  /** Checks the configuration and opens what it names; every problem is an AccessConfigError with one line. */
  static async open(options: AccessOptions = {}): Promise<AccessControl> {
    const auth = options.auth ?? 'none';
    if (auth === 'tokens' && options.dataDir === undefined && options.openStore === undefined)
      throw new AccessConfigError('--auth tokens needs --data DIR|postgres://… (where the tokens are kept)');
    if (auth !== 'jwt' && options.jwt !== undefined && (options.jwt.jwksUrl !== undefined || options.jwt.keyFile !== undefined)) {
      throw new AccessConfigError('--jwks and --jwt-key apply only with --auth jwt');
    }
    let jwt: JwtVerifier | undefined;
    if (auth === 'jwt') {
      try {
        jwt = new JwtVerifier(options.jwt ?? { issuer: '', audience: '' });
      } catch (error) {
        throw new AccessConfigError((error as Error).message);
      }
    }
    let store: AccessStore | undefined;
    try {
      if (options.openStore !== undefined) store = await options.openStore();
      else if (options.dataDir !== undefined) {
        // Loaded here: a server without access data never loads the native SQLite module.
        const { SqliteAccessStore } = await import('./sqlite-access-store.js');
        store = SqliteAccessStore.open(options.dataDir);
      }
    } catch (error) {
      throw new AccessConfigError(`cannot open the access store: ${(error as Error).message}`);
    }
    let policySource: PolicySource | undefined;
    try {
      if (options.openStore !== undefined && store !== undefined)
        policySource = await StoredPolicy.open(store, options.policyFile, (message) => options.onWarning?.(message));
      else if (options.policyFile !== undefined) policySource = new PolicyFile(options.policyFile, (message) => options.onWarning?.(message));
    } catch (error) {
      await store?.close().catch(() => undefined);
      const message = (error as Error).message;
      const code = (error as NodeJS.ErrnoException).code;
      throw new AccessConfigError(
        code === 'ENOENT' ? `--policy ${options.policyFile}: no such file` : code !== undefined ? `--policy ${options.policyFile}: ${message}` : message,
      );
    }
    return new AccessControl(options, store, policySource, jwt);
  }

  /** True when anything restricts what callers see or must present (so global figures are not shown openly). */
  get restricted(): boolean {
    return this.auth !== 'none' || !this.views.open;
  }

  /** Starts watching the policy and the tokens (another process or replica may create or revoke tokens, or edit the policy). */
  watch(): void {
    this.policySource?.watch();
    this.audit.startRetention(this.options.auditRetentionMs ?? DEFAULT_AUDIT_RETENTION_MS);
    if (this.store !== undefined && this.#unwatch === undefined) {
      this.#unwatch = this.store.watch(
        (change) => this.#changed(change),
        (connected) => {
          this.#watchConnected = connected;
        },
      );
    }
  }

  /** Whether changes made elsewhere are being heard (false while the store's database is away). */
  get watching(): boolean {
    return this.#watchConnected;
  }

  #changed(change: AccessChange): void {
    if (change.kind === 'token' || change.kind === 'all') {
      if (change.kind === 'token') this.tokens?.invalidate(change.id);
      else this.tokens?.invalidateAll();
      this.#emit('tokens');
    }
    // The stored policy's own listener announces it (AccessControl's constructor) when the text did change.
    if ((change.kind === 'policy' || change.kind === 'all') && this.policySource instanceof StoredPolicy) void this.policySource.reload();
  }

  onChange(listener: (what: 'policy' | 'tokens') => void): void {
    this.#listeners.push(listener);
  }

  #emit(what: 'policy' | 'tokens'): void {
    for (const listener of this.#listeners) listener(what);
  }

  /** The caller of an HTTP request. */
  async authenticate(req: IncomingMessage): Promise<AuthResult> {
    if (this.auth === 'none') return { principal: this.configured };
    const header = req.headers.authorization;
    if (header === undefined || header === '') {
      this.metrics.error('unauthorized');
      return { status: 401, description: 'Authentication required: send Authorization: Bearer <token>' };
    }
    const match = /^Bearer\s+([^\s]+)\s*$/i.exec(header);
    if (!match) {
      this.metrics.error('unauthorized');
      return { status: 401, error: 'invalid_token', description: 'The Authorization header must be "Bearer <token>"' };
    }
    return this.authenticateToken(match[1]!);
  }

  /** The principal a bearer token stands for (the web catalog's session cookie holds one). */
  async authenticateToken(token: string): Promise<AuthResult> {
    if (this.auth === 'none') return { principal: this.configured };
    if (this.auth === 'tokens') {
      const checked = await this.tokens!.check(token);
      if ('principal' in checked) return checked;
      if ('unavailable' in checked) {
        this.metrics.error('unavailable');
        return { status: 503, description: 'The token cannot be checked now: the access store is unreachable; try again shortly' };
      }
      this.metrics.error('unauthorized');
      return { status: 401, error: 'invalid_token', description: `The token is ${checked.error === 'invalid' ? 'not valid' : checked.error}` };
    }
    try {
      return { principal: await this.jwt!.verify(token) };
    } catch (error) {
      this.metrics.error('unauthorized');
      return {
        status: 401,
        error: 'invalid_token',
        description: error instanceof JwtRejected ? `The token is not accepted: ${error.message}` : 'The token cannot be verified',
      };
    }
  }

  /** Revokes a token through this server (the web catalog's admin pages): refused here at once, on other replicas through the store. */
  async revokeToken(id: string): Promise<boolean> {
    if (this.store === undefined) return false;
    const revoked = await this.store.revokeToken(id);
    if (revoked) this.#changed({ kind: 'token', id });
    return revoked;
  }

  /** Whether a principal established earlier still holds (its token not revoked nor expired since); true when it cannot be told now. */
  async stillValid(principal: Principal): Promise<boolean> {
    if (principal.via !== 'token' || principal.tokenId === undefined || this.tokens === undefined) return true;
    try {
      return await this.tokens.stillValid(principal.tokenId);
    } catch {
      return true; // the store is away: the next request meets the check again
    }
  }

  allows(principal: Principal, scope: Scope): boolean {
    return hasScope(principal, scope);
  }

  async close(): Promise<void> {
    this.#unwatch?.();
    this.#unwatch = undefined;
    this.policySource?.close();
    this.audit.stopRetention();
    await this.audit.drain();
    await this.store?.close().catch(() => undefined);
  }
}
