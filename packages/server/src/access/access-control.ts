import type { IncomingMessage } from 'node:http';
import { AuditLog } from './audit.js';
import { JwtRejected, JwtVerifier } from './jwt.js';
import type { JwtOptions } from './jwt.js';
import { Metrics } from './metrics.js';
import { OPEN_POLICY } from './policy.js';
import { PolicyFile } from './policy-file.js';
import { ANONYMOUS, hasScope } from './principal.js';
import type { Principal, Scope } from './principal.js';
import { AccessStore } from './store.js';
import { ViewCache } from './views.js';

/**
 * Identity, visibility and audit for one server (docs/security.md): how a request's principal is established
 * (`auth`), what it may see (the policy, applied through per-principal views), and what it did (audit, metrics).
 * Changes (a policy edit, a token created or revoked by another process) are announced to `onChange` listeners,
 * which tell the sessions they affect.
 */
export type AuthMode = 'none' | 'tokens' | 'jwt';

export interface AccessOptions {
  auth?: AuthMode;
  /** Where access.db (tokens, audit) lives; needed by `tokens`, optional otherwise (no audit log without it). */
  dataDir?: string;
  /** The visibility policy (YAML); without one every skill is public. */
  policyFile?: string;
  jwt?: JwtOptions;
  /** The principal of stdio connections, and of every HTTP request with `--auth none`. Default: anonymous. */
  principal?: Principal;
  /** The resource URL announced in protected resource metadata (default: from the request's Host). */
  resourceUrl?: string;
  onWarning?: (message: string) => void;
}

export type AuthResult =
  | { principal: Principal }
  | { status: 401; error?: 'invalid_token'; description: string };

export class AccessConfigError extends Error {
  override name = 'AccessConfigError';
}

export class AccessControl {
  readonly auth: AuthMode;
  readonly store: AccessStore | undefined;
  readonly policyFile: PolicyFile | undefined;
  readonly views = new ViewCache();
  readonly metrics = new Metrics();
  readonly audit: AuditLog;
  readonly jwt: JwtVerifier | undefined;
  readonly configured: Principal;
  #listeners: Array<(what: 'policy' | 'tokens') => void> = [];
  #poll: NodeJS.Timeout | undefined;
  #dataVersion = 0;

  private constructor(readonly options: AccessOptions, store: AccessStore | undefined, policyFile: PolicyFile | undefined, jwt: JwtVerifier | undefined) {
    this.auth = options.auth ?? 'none';
    this.store = store;
    this.policyFile = policyFile;
    this.jwt = jwt;
    this.configured = options.principal ?? ANONYMOUS;
    this.audit = new AuditLog(store, this.metrics, (message) => options.onWarning?.(message));
    this.views.setPolicy(policyFile?.policy ?? OPEN_POLICY);
    policyFile?.onChange((policy) => {
      this.views.setPolicy(policy);
      this.#emit('policy');
    });
  }

  /** Checks the configuration and opens what it names; every problem is an AccessConfigError with one line. */
  static open(options: AccessOptions = {}): AccessControl {
    const auth = options.auth ?? 'none';
    if (auth === 'tokens' && options.dataDir === undefined) throw new AccessConfigError('--auth tokens needs --data DIR (where the tokens are kept)');
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
    if (options.dataDir !== undefined) {
      try {
        store = AccessStore.open(options.dataDir);
      } catch (error) {
        throw new AccessConfigError(`cannot open the access store: ${(error as Error).message}`);
      }
    }
    let policyFile: PolicyFile | undefined;
    if (options.policyFile !== undefined) {
      try {
        policyFile = new PolicyFile(options.policyFile, (message) => options.onWarning?.(message));
      } catch (error) {
        store?.close();
        const message = (error as Error).message;
        const code = (error as NodeJS.ErrnoException).code;
        throw new AccessConfigError(code === 'ENOENT' ? `--policy ${options.policyFile}: no such file` : code !== undefined ? `--policy ${options.policyFile}: ${message}` : message);
      }
    }
    return new AccessControl(options, store, policyFile, jwt);
  }

  /** True when anything restricts what callers see or must present (so global figures are not shown openly). */
  get restricted(): boolean {
    return this.auth !== 'none' || !this.views.open;
  }

  /** Starts watching the policy file and the token table (another process may create or revoke tokens). */
  watch(): void {
    this.policyFile?.watch();
    if (this.store !== undefined && this.#poll === undefined) {
      this.#dataVersion = this.store.dataVersion();
      this.#poll = setInterval(() => {
        try {
          const version = this.store!.dataVersion();
          if (version !== this.#dataVersion) {
            this.#dataVersion = version;
            this.#emit('tokens');
          }
        } catch {
          // a closed store: nothing to watch
        }
      }, 250);
      this.#poll.unref();
    }
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
      const checked = this.store!.checkToken(token);
      if ('principal' in checked) return checked;
      this.metrics.error('unauthorized');
      return { status: 401, error: 'invalid_token', description: `The token is ${checked.error === 'invalid' ? 'not valid' : checked.error}` };
    }
    try {
      return { principal: await this.jwt!.verify(token) };
    } catch (error) {
      this.metrics.error('unauthorized');
      return { status: 401, error: 'invalid_token', description: error instanceof JwtRejected ? `The token is not accepted: ${error.message}` : 'The token cannot be verified' };
    }
  }

  /** Whether a principal established earlier still holds (its token not revoked nor expired since). */
  stillValid(principal: Principal): boolean {
    if (principal.via !== 'token' || principal.tokenId === undefined || this.store === undefined) return true;
    const record = this.store.token(principal.tokenId);
    return record !== undefined && record.revokedAt === undefined && (record.expiresAt === undefined || Date.parse(record.expiresAt) > Date.now());
  }

  allows(principal: Principal, scope: Scope): boolean {
    return hasScope(principal, scope);
  }

  close(): void {
    if (this.#poll !== undefined) clearInterval(this.#poll);
    this.#poll = undefined;
    this.policyFile?.close();
    this.audit.flush();
    this.store?.close();
  }
}
