import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import type { SignatureRecord } from './model.js';

/**
 * Ed25519 signatures over a package digest. The signed message is the UTF-8 bytes of the digest string
 * (`sha256:<64 hex>`): the package digest already covers every file's bytes and path, so signing it signs the
 * whole skill. Keys are PEM (private: PKCS#8, public: SPKI); a key is named by its key id.
 */
export function generateKeyPair(): { privateKey: string; publicKey: string; keyId: string } {
  const pair = generateKeyPairSync('ed25519');
  const publicKey = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  return { privateKey: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicKey, keyId: keyIdOf(pair.publicKey) };
}

/** `ed25519:` + the first 32 hex characters of sha256 over the raw 32-byte public key. */
export function keyIdOf(key: KeyObject | string): string {
  const object = typeof key === 'string' ? createPublicKey(key) : key;
  const raw = object.export({ type: 'spki', format: 'der' }).subarray(-32);
  return `ed25519:${createHash('sha256').update(raw).digest('hex').slice(0, 32)}`;
}

export function loadPrivateKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (error) {
    throw new Error(`not a private key in PEM form (${(error as Error).message})`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`the key is ${key.asymmetricKeyType}, not Ed25519`);
  return key;
}

export function loadPublicKey(pem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (error) {
    throw new Error(`not a public key in PEM form (${(error as Error).message})`);
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`the key is ${key.asymmetricKeyType}, not Ed25519`);
  return key;
}

/** Every public key in a trusted-keys file (any number of PEM blocks; other text is ignored). */
export function parseTrustedKeys(text: string): Map<string, KeyObject> {
  const keys = new Map<string, KeyObject>();
  const blocks = text.match(/-----BEGIN PUBLIC KEY-----[\s\S]*?-----END PUBLIC KEY-----/g) ?? [];
  for (const block of blocks) {
    const key = loadPublicKey(block);
    keys.set(keyIdOf(key), key);
  }
  return keys;
}

export function signDigest(packageDigest: string, privateKeyPem: string): SignatureRecord {
  const privateKey = loadPrivateKey(privateKeyPem);
  const publicKey = createPublicKey(privateKey);
  return {
    algorithm: 'ed25519',
    keyId: keyIdOf(publicKey),
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    signature: sign(null, Buffer.from(packageDigest, 'utf8'), privateKey).toString('base64'),
  };
}

/** Whether `signature` is a valid signature of `packageDigest` by the key it names (its key id must match). */
export function checkSignature(packageDigest: string, signature: SignatureRecord): { valid: true } | { valid: false; reason: string } {
  if (signature.algorithm !== 'ed25519') return { valid: false, reason: `unsupported signature algorithm ${String(signature.algorithm)}` };
  let key: KeyObject;
  try {
    key = loadPublicKey(signature.publicKey);
  } catch (error) {
    return { valid: false, reason: `signature key: ${(error as Error).message}` };
  }
  if (keyIdOf(key) !== signature.keyId) return { valid: false, reason: `signature key id ${signature.keyId} does not match its public key (${keyIdOf(key)})` };
  let ok = false;
  try {
    ok = verify(null, Buffer.from(packageDigest, 'utf8'), key, Buffer.from(signature.signature, 'base64'));
  } catch {
    ok = false;
  }
  return ok ? { valid: true } : { valid: false, reason: `signature by ${signature.keyId} does not verify against ${packageDigest}` };
}

export function isSignatureRecord(value: unknown): value is SignatureRecord {
  if (value === null || typeof value !== 'object') return false;
  const record = value as Record<string, unknown>;
  return (
    record['algorithm'] === 'ed25519' &&
    typeof record['keyId'] === 'string' &&
    typeof record['publicKey'] === 'string' &&
    typeof record['signature'] === 'string' &&
    record['publicKey'].length < 1000 &&
    record['signature'].length < 200 &&
    record['keyId'].length < 100
  );
}
