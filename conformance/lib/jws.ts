// Compact JWS building blocks shared by the identity provider (mint.ts) and the DPoP proof builder (dpop.ts).
// Negative checks need tokens no well-behaved library would produce (a header `alg` that does not match the key, `crit`,
// `alg: none`), so besides jose's SignJWT there is a raw signer that writes header and payload verbatim.
import { createHash, createHmac } from 'node:crypto';
import { SignJWT, importJWK, type CryptoKey, type JWK, type JWTHeaderParameters } from 'jose';

export type JsonObject = Record<string, unknown>;

/** What a token can be signed with: an asymmetric private key (CryptoKey or private JWK), or an HMAC secret (bytes, or a string taken as UTF-8). */
export type SigningMaterial = CryptoKey | JWK | Uint8Array | string;

/** An unsigned token: what negative checks alter before signing with the key of their choice. */
export interface TokenDraft {
  header: JsonObject;
  payload: JsonObject;
}

/** Shallow-merges `overrides` over `base`; a value of `undefined` deletes the member (so a check can drop a required claim). */
export function applyOverrides(base: JsonObject, overrides?: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [name, value] of Object.entries(overrides ?? {})) {
    if (value === undefined) delete out[name];
    else out[name] = value;
  }
  return out;
}

export function b64url(input: string | Uint8Array): string {
  return Buffer.from(input).toString('base64url');
}

/** base64url(SHA-256(token)), unpadded: the `ath` of DPoP proofs (RFC 9449 §4.2) and of invited-agent contexts. */
export function accessTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

/** Epoch seconds, the unit of every JWT time claim. */
export function epochSeconds(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}

/** The current time in epoch seconds. */
export const nowSeconds = (): number => epochSeconds(new Date());

const isSecret = (key: SigningMaterial): key is Uint8Array | string => typeof key === 'string' || key instanceof Uint8Array;
const isCryptoKey = (key: SigningMaterial): key is CryptoKey =>
  typeof key === 'object' && key !== null && 'algorithm' in key && 'type' in key && 'usages' in key;

/** Signs `header` and `payload` exactly as given: the algorithm follows the key, never the header, so the two may disagree. */
export async function signWith(payload: JsonObject, header: JsonObject, key: SigningMaterial): Promise<string> {
  const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(payload))}`;
  return `${input}.${b64url(await rawSignature(input, key))}`;
}

/**
 * Signs a draft. A draft whose header jose would accept for this key goes through jose's SignJWT; anything else (an `alg`
 * that does not fit the key, `crit`, `b64`) is written verbatim by `signWith`, so that every header override reaches the wire.
 */
export async function signDraft(draft: TokenDraft, key: SigningMaterial): Promise<string> {
  const { header, payload } = draft;
  const joseCanSign = !('crit' in header) && !('b64' in header) && header.alg === (isSecret(key) ? 'HS256' : 'ES256');
  if (!joseCanSign) return signWith(payload, header, key);
  const joseKey = isSecret(key) ? secretBytes(key) : await asymmetricKey(key);
  return new SignJWT(payload).setProtectedHeader(header as JWTHeaderParameters).sign(joseKey);
}

/** An `alg: none` token: `<b64 header>.<b64 payload>.` (empty signature). Header members merge over `{ alg: 'none', typ: 'at+jwt' }`. */
export function unsecured(payload: JsonObject, header?: JsonObject): string {
  const h = applyOverrides({ alg: 'none', typ: 'at+jwt' }, header);
  return `${b64url(JSON.stringify(h))}.${b64url(JSON.stringify(payload))}.`;
}

function secretBytes(key: Uint8Array | string): Uint8Array {
  return typeof key === 'string' ? new TextEncoder().encode(key) : key;
}

const CURVE_ALGS: Readonly<Record<string, string>> = { 'P-256': 'ES256', 'P-384': 'ES384', 'P-521': 'ES512' };
const CURVE_HASHES: Readonly<Record<string, string>> = { 'P-256': 'SHA-256', 'P-384': 'SHA-384', 'P-521': 'SHA-512' };

async function asymmetricKey(key: CryptoKey | JWK): Promise<CryptoKey> {
  if (isCryptoKey(key)) return key;
  const alg = key.alg ?? (key.crv ? CURVE_ALGS[key.crv] : undefined);
  if (!alg) throw new TypeError('signing JWK needs "alg" or an EC "crv"');
  const imported = await importJWK(key, alg);
  if (imported instanceof Uint8Array) throw new TypeError('a symmetric JWK is not an asymmetric signing key; pass its bytes');
  return imported;
}

async function rawSignature(input: string, key: SigningMaterial): Promise<Uint8Array> {
  const data = new TextEncoder().encode(input);
  if (isSecret(key)) return createHmac('sha256', secretBytes(key)).update(data).digest();
  const cryptoKey = await asymmetricKey(key);
  const algorithm = cryptoKey.algorithm as { name: string; namedCurve?: string };
  switch (algorithm.name) {
    case 'ECDSA': {
      const hash = CURVE_HASHES[algorithm.namedCurve ?? ''] ?? 'SHA-256';
      // WebCrypto yields the IEEE P1363 (r || s) form that JWS wants (RFC 7518 §3.4).
      return new Uint8Array(await crypto.subtle.sign({ name: 'ECDSA', hash }, cryptoKey, data));
    }
    case 'HMAC':
    case 'RSASSA-PKCS1-v1_5':
    case 'Ed25519':
      return new Uint8Array(await crypto.subtle.sign(algorithm.name, cryptoKey, data));
    default:
      throw new TypeError(`cannot sign with a ${algorithm.name} key`);
  }
}
