import { readFileSync } from 'node:fs';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import { SCOPES, checkSubjectName } from './principal.js';
import type { Principal, Scope } from './principal.js';

/**
 * `--auth jwt`: bearer JWTs verified against a JWKS URL (fetched and cached by `jose`, refetched for an unknown
 * key id) or a local key file (PEM public key, JWK or JWKS), with issuer, audience and expiry checks. Only asymmetric
 * algorithms are accepted. Claims map to a principal as documented in docs/security.md ("Claim mapping"):
 *
 * | principal | claim (default) | form |
 * |---|---|---|
 * | user | `sub` | string |
 * | orgs | `orgs` | string or list of strings |
 * | projects | `projects` | string or list of strings |
 * | agent | `agent` | string |
 * | scopes | `scope` (or `scp`) | space-separated string or list; `read`, `publish`, `admin`, also as `skillport:read` |
 *
 * Each claim name can be changed (`claims: {orgs: "groups"}`) and may be a dotted path (`realm.orgs`).
 */
export interface ClaimMapping {
  user: string;
  orgs: string;
  projects: string;
  agent: string;
  scopes: string;
}

export const DEFAULT_CLAIMS: ClaimMapping = { user: 'sub', orgs: 'orgs', projects: 'projects', agent: 'agent', scopes: 'scope' };

export interface JwtOptions {
  /** A JWKS URL (`https://issuer/.well-known/jwks.json`). */
  jwksUrl?: string;
  /** A local public key: PEM (SPKI), a JWK or a JWKS (JSON). */
  keyFile?: string;
  issuer: string | string[];
  audience: string | string[];
  claims?: Partial<ClaimMapping>;
  /** Seconds of clock skew tolerated on exp/nbf (default 30). */
  clockTolerance?: number;
}

const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

export class JwtConfigError extends Error {
  override name = 'JwtConfigError';
}

/** Why a JWT was refused, in a form safe to show the caller (no key material, no claims echoed). */
export class JwtRejected extends Error {
  override name = 'JwtRejected';
}

type Jose = typeof import('jose');
/** jose is loaded on the first token verified: servers without --auth jwt (every stdio server) never load it. */
let jose: Promise<Jose> | undefined;
const loadJose = (): Promise<Jose> => (jose ??= import('jose'));

export class JwtVerifier {
  /** Checked when constructed (configuration errors at start); the jose key set is made on the first verify. */
  readonly #makeKey: (jose: Jose) => JWTVerifyGetKey;
  #key: JWTVerifyGetKey | undefined;
  readonly #claims: ClaimMapping;

  constructor(readonly options: JwtOptions) {
    if (!options.issuer || (Array.isArray(options.issuer) && options.issuer.length === 0))
      throw new JwtConfigError('--auth jwt needs an issuer (--jwt-issuer)');
    if (!options.audience || (Array.isArray(options.audience) && options.audience.length === 0))
      throw new JwtConfigError('--auth jwt needs an audience (--jwt-audience)');
    if ((options.jwksUrl === undefined) === (options.keyFile === undefined))
      throw new JwtConfigError('--auth jwt needs exactly one of --jwks URL or --jwt-key FILE');
    this.#claims = { ...DEFAULT_CLAIMS, ...options.claims };
    if (options.jwksUrl !== undefined) {
      let url: URL;
      try {
        url = new URL(options.jwksUrl);
      } catch {
        throw new JwtConfigError(`--jwks ${options.jwksUrl}: not a URL`);
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new JwtConfigError(`--jwks ${options.jwksUrl}: must be an http(s) URL`);
      this.#makeKey = (jose) => jose.createRemoteJWKSet(url, { timeoutDuration: 5000, cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 });
    } else {
      this.#makeKey = loadKeyFile(options.keyFile!);
    }
  }

  async verify(token: string): Promise<Principal> {
    let payload: JWTPayload;
    const jose = await loadJose();
    try {
      this.#key ??= this.#makeKey(jose);
      ({ payload } = await jose.jwtVerify(token, this.#key, {
        issuer: this.options.issuer,
        audience: this.options.audience,
        algorithms: ALGORITHMS,
        clockTolerance: this.options.clockTolerance ?? 30,
        requiredClaims: ['exp'],
      }));
    } catch (error) {
      throw new JwtRejected(describe(error, jose.errors));
    }
    return this.principalFrom(payload);
  }

  principalFrom(payload: JWTPayload): Principal {
    const claims = this.#claims;
    const user = single(claim(payload, claims.user), claims.user);
    if (user === undefined) throw new JwtRejected(`the token has no "${claims.user}" claim`);
    const agent = single(claim(payload, claims.agent), claims.agent);
    const orgs = list(claim(payload, claims.orgs), claims.orgs).map((org) => safeName('org', org));
    const projects = list(claim(payload, claims.projects), claims.projects).map((project) => safeName('project', project));
    let rawScopes = claim(payload, claims.scopes);
    if (rawScopes === undefined && claims.scopes === 'scope') rawScopes = payload['scp'];
    const scopes = new Set<Scope>();
    for (const value of typeof rawScopes === 'string' ? rawScopes.split(/\s+/) : list(rawScopes, claims.scopes)) {
      const bare = value.startsWith('skillport:') ? value.slice('skillport:'.length) : value;
      if ((SCOPES as readonly string[]).includes(bare)) scopes.add(bare as Scope);
    }
    return {
      via: 'jwt',
      user: safeName('user', user),
      ...(agent !== undefined ? { agent: safeName('agent', agent) } : {}),
      orgs,
      projects,
      scopes,
      ...(typeof payload.exp === 'number' ? { expiresAt: payload.exp * 1000 } : {}),
    };
  }
}

function loadKeyFile(path: string): (jose: Jose) => JWTVerifyGetKey {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new JwtConfigError(`--jwt-key ${path}: ${(error as Error).message}`);
  }
  if (text.includes('-----BEGIN PUBLIC KEY-----')) {
    // The algorithm comes from the token's header (restricted to ALGORITHMS by jwtVerify); the key is imported per algorithm.
    const keys = new Map<string, ReturnType<Jose['importSPKI']>>();
    return (jose) => async (header) => {
      const alg = header.alg ?? '';
      if (!ALGORITHMS.includes(alg)) throw new JwtRejected(`algorithm ${alg} is not accepted`);
      let key = keys.get(alg);
      if (key === undefined) {
        key = jose.importSPKI(text, alg);
        keys.set(alg, key);
      }
      return key;
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new JwtConfigError(`--jwt-key ${path}: neither a PEM public key nor JSON (a JWK or a JWKS)`);
  }
  const keys = json !== null && typeof json === 'object' && Array.isArray((json as { keys?: unknown }).keys) ? (json as { keys: unknown[] }) : { keys: [json] };
  // Arrays are refused here as jose's key-set check would refuse them, so that a bad file stays a start-up error.
  if (keys.keys.some((key) => key === null || typeof key !== 'object' || Array.isArray(key) || 'd' in (key as object))) {
    throw new JwtConfigError(`--jwt-key ${path}: give public keys only (a JWK with "d" is a private key)`);
  }
  return (jose) => jose.createLocalJWKSet(keys as Parameters<Jose['createLocalJWKSet']>[0]);
}

function claim(payload: JWTPayload, path: string): unknown {
  let value: unknown = payload;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function single(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new JwtRejected(`claim "${name}" must be a string`);
  return value;
}

function list(value: unknown, name: string): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw new JwtRejected(`claim "${name}" must be a string or a list of strings`);
  return value as string[];
}

function safeName(kind: string, value: string): string {
  try {
    return checkSubjectName(kind, value);
  } catch (error) {
    throw new JwtRejected(`claim for ${kind}: ${(error as Error).message}`);
  }
}

function describe(error: unknown, errors: Jose['errors']): string {
  if (error instanceof JwtRejected) return error.message;
  if (error instanceof errors.JWTExpired) return 'the token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) return `claim "${error.claim}" is not accepted (${error.reason})`;
  if (error instanceof errors.JWKSNoMatchingKey) return 'no key of the issuer matches the token';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the signature does not verify';
  if (error instanceof errors.JOSEAlgNotAllowed) return "the token's algorithm is not accepted";
  if (error instanceof errors.JWKSTimeout || (error instanceof errors.JOSEError && error.code === 'ERR_JWKS_INVALID'))
    return "the issuer's keys cannot be fetched";
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) return 'the token is malformed';
  return 'the token cannot be verified';
}
