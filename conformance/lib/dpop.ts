// DPoP proofs (RFC 9449 §4.2) as an assistant agent sends them, with every header and claim overridable so that the
// negative checks of RFC 9449 §4.3 (wrong typ, wrong alg, private key in `jwk`, foreign signature, stale iat, bad ath…)
// are one option away from a valid proof.
import { randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import { accessTokenHash, applyOverrides, epochSeconds, signDraft, type JsonObject, type SigningMaterial, type TokenDraft } from './jws.js';

export { accessTokenHash };

export interface DpopKey {
  privateKey: CryptoKey;
  publicKey: CryptoKey;
  /** Public part only: what a proof's `jwk` header carries. */
  publicJwk: JWK;
  /** With `d`: for the "private key in the proof" negative. */
  privateJwk: JWK;
  /** RFC 7638 SHA-256 thumbprint of publicJwk: what an access token's `cnf.jkt` names. */
  thumbprint: string;
}

/** A fresh key pair for proofs: ES256, the spec's algorithm, unless a negative asks for another (RS256 names an RSA jwk). */
export async function createDpopKey(alg: 'ES256' | 'RS256' = 'ES256'): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  return {
    privateKey,
    publicKey,
    publicJwk,
    privateJwk: await exportJWK(privateKey),
    thumbprint: await calculateJwkThumbprint(publicJwk, 'sha256'),
  };
}

export interface DpopProofOptions {
  key: DpopKey;
  htm: string;
  /** The target URI as the proof states it; the caller decides its normalisation (that is what htu checks vary). */
  htu: string;
  /** When given, the proof carries `ath` = base64url(SHA-256(accessToken)). */
  accessToken?: string;
  nonce?: string;
  /** Epoch seconds; defaults to now. */
  iat?: number;
  jti?: string;
  now?: () => Date;
  /** Header overrides merged last; `undefined` deletes the member. */
  header?: JsonObject;
  /** Claim overrides merged last; `undefined` deletes the claim. */
  claims?: JsonObject;
  /** Sign with another key than the one the `jwk` header names (the signature then does not verify with the embedded key). */
  signingKey?: DpopKey | SigningMaterial;
  /** Put the private JWK (with `d`) in the `jwk` header, which RFC 9449 §4.3 forbids. */
  exposePrivateKey?: boolean;
}

/** The unsigned proof: header `{ typ: 'dpop+jwt', alg: 'ES256', jwk }` and claims jti, htm, htu, iat, ath?, nonce?. */
export function dpopProofDraft(o: DpopProofOptions): TokenDraft {
  const header = applyOverrides({ typ: 'dpop+jwt', alg: 'ES256', jwk: o.exposePrivateKey ? o.key.privateJwk : o.key.publicJwk }, o.header);
  const base: JsonObject = {
    jti: o.jti ?? randomUUID(),
    htm: o.htm,
    htu: o.htu,
    iat: o.iat ?? epochSeconds((o.now ?? (() => new Date()))()),
  };
  if (o.accessToken !== undefined) base.ath = accessTokenHash(o.accessToken);
  if (o.nonce !== undefined) base.nonce = o.nonce;
  return { header, payload: applyOverrides(base, o.claims) };
}

export async function dpopProof(o: DpopProofOptions): Promise<string> {
  const signer = o.signingKey ?? o.key;
  return signDraft(dpopProofDraft(o), isDpopKey(signer) ? signer.privateKey : signer);
}

function isDpopKey(value: DpopKey | SigningMaterial): value is DpopKey {
  return typeof value === 'object' && value !== null && 'privateKey' in value && 'thumbprint' in value;
}
