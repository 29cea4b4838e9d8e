// A proof shape (proofs-shape.ts) made into an assistant request's credentials: the proof a correct client makes
// (lib/dpop.ts dpopProofDraft: typ dpop+jwt, ES256, its public jwk, a fresh jti, htm and htu of the request, iat now, ath
// of its token, the latest nonce), its header members and claims varied as the shape names, signed as it says (verbatim
// through lib/jws.ts signWith where jose would refuse the header), and sent with the token in the shape's form. The values
// a variation writes live here; what the spec makes of them is proofs-expect.ts's.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createDpopKey, dpopProofDraft, type DpopKey } from '../lib/dpop.js';
import { accessTokenHash, b64url, signWith, type JsonObject, type SigningMaterial } from '../lib/jws.js';
import type { ProofShape } from './proofs-shape.js';

export interface ProofBuildOptions {
  /** The session's key: the one its token's `cnf.jkt` names. */
  key: DpopKey;
  /** The session's DPoP-bound access token. */
  token: string;
  /** The request's method and absolute URL (a query or fragment is not part of `htu`, RFC 9449 §4.2). */
  method: string;
  url: string;
  /** The latest DPoP-Nonce the deployment gave the session (what a correct proof carries), and the one before it. */
  nonce?: string;
  previousNonce?: string;
  /** The last proof the deployment accepted from this session: what `jti: replay` sends again. */
  lastProof?: string;
  /** The clock of `iat` (default: now). */
  now?: () => Date;
}

export interface BuiltProof {
  /** Lower-case names; an array is a repeated header (as `Step['headers']`, exchange.ts). */
  headers: Record<string, string | string[]>;
  /** Whether the proof sent is `lastProof` again (false: a replay was asked for with no earlier proof to resend). */
  replayed: boolean;
}

const FIFTEEN_SECONDS = 15;
const HOUR = 3600;
const OTHER_HOST = 'elsewhere.invalid';

let foreign: Promise<DpopKey> | undefined;
/** One key nobody binds a token to, for a whole run: the "another key" of jwk and signature variations. */
const foreignKey = () => (foreign ??= createDpopKey());

/** The request URI as a correct proof names it: scheme, authority and path, no query or fragment (RFC 9449 §4.2). */
export function htuOf(url: string): string {
  const u = new URL(url);
  return `${u.protocol}//${u.host}${u.pathname}`;
}

/** The htu of a variation (RFC 3986 spellings of the request URI, equal or not). */
function shapedHtu(v: NonNullable<ProofShape['htu']>, url: string): string {
  const u = new URL(url);
  const { protocol, host, pathname } = u;
  const base = htuOf(url);
  switch (v) {
    case 'other-path':
      return `${protocol}//${host}/elsewhere${pathname}`;
    case 'query':
      return `${base}?page=2&q=x`;
    case 'fragment':
      return `${base}#section`;
    case 'trailing-slash':
      return pathname.endsWith('/') && pathname !== '/' ? base.slice(0, -1) : `${base}/`;
    case 'other-scheme':
      return `${protocol === 'https:' ? 'http:' : 'https:'}//${host}${pathname}`;
    case 'other-host':
      return `${protocol}//${OTHER_HOST}${u.port ? `:${u.port}` : ''}${pathname}`;
    case 'upper-case':
      return `${protocol.toUpperCase()}//${host.toUpperCase()}${pathname}`;
    case 'dot-segment':
      return `${protocol}//${host}/elsewhere/..${pathname}`;
    case 'percent-encoded': {
      // The last letter of the path, percent-encoded (an unreserved character: RFC 3986 §2.3, §6.2.2.2).
      const at = pathname.search(/[A-Za-z](?=[^A-Za-z]*$)/);
      if (at < 0) return `${protocol}//${host}${pathname}`;
      const hex = pathname.charCodeAt(at).toString(16).toUpperCase();
      return `${protocol}//${host}${pathname.slice(0, at)}%${hex}${pathname.slice(at + 1)}`;
    }
    case 'relative':
      return pathname;
  }
}

/** The claims and header members each variation writes over the correct proof (undefined: removed). */
function overridesOf(shape: ProofShape, o: ProofBuildOptions, now: number): { header: JsonObject; claims: JsonObject } {
  const header: JsonObject = {};
  const claims: JsonObject = {};
  if (shape.typ)
    header.typ = { absent: undefined, JWT: 'JWT', upper: 'DPoP+JWT', 'media-type': 'application/dpop+jwt', other: 'at+jwt' }[shape.typ];
  if (shape.jwk === 'absent') header.jwk = undefined;
  if (shape.jwk === 'private') header.jwk = o.key.privateJwk;
  if (shape.jti === 'absent') claims.jti = undefined;
  if (shape.jti === 'wrong-type') claims.jti = 12345;
  if (shape.htm) claims.htm = shape.htm === 'lower-case' ? o.method.toLowerCase() : o.method === 'POST' ? 'DELETE' : 'POST';
  if (shape.htu) claims.htu = shapedHtu(shape.htu, o.url);
  if (shape.iat)
    claims.iat = {
      'stale-far': now - HOUR,
      'skew-past': now - FIFTEEN_SECONDS,
      'skew-future': now + FIFTEEN_SECONDS,
      'future-far': now + HOUR,
      string: String(now),
    }[shape.iat];
  if (shape.ath)
    claims.ath = {
      absent: undefined,
      'other-token': accessTokenHash(`${o.token}.another`),
      // Standard base64 of the hash: 44 characters, the last one padding (RFC 4648 §4), never base64url.
      'not-base64url': createHash('sha256').update(o.token, 'utf8').digest('base64'),
    }[shape.ath];
  if (shape.nonce)
    claims.nonce = {
      absent: undefined,
      unissued: randomBytes(32).toString('base64url'),
      previous: o.previousNonce ?? o.nonce,
    }[shape.nonce];
  return { header, claims };
}

/** A signature character changed in the middle of the segment, where all six bits are signature bits. */
function altered(jws: string): string {
  const dot = jws.lastIndexOf('.');
  const sig = jws.slice(dot + 1);
  if (sig === '') return jws;
  const at = Math.floor(sig.length / 2);
  return `${jws.slice(0, dot + 1)}${sig.slice(0, at)}${sig[at] === 'A' ? 'B' : 'A'}${sig.slice(at + 1)}`;
}

/** One fresh proof of the shape's content (its own jti unless the shape drops or replaces it). */
async function freshProof(shape: ProofShape, o: ProofBuildOptions): Promise<string> {
  const now = Math.floor((o.now ?? (() => new Date()))().getTime() / 1000);
  const foreignNeeded = shape.jwk === 'other-key' || shape.jwk === 'unbound' || shape.signature === 'other-key';
  const foreign = foreignNeeded ? await foreignKey() : o.key;
  // The key the jwk names: the foreign one for both jwk variations. The key that signs: the session's for jwk other-key
  // (a jwk other than the signing key), the named one otherwise (unbound: a valid proof of a key the token does not name),
  // and for signature other-key any key but the named one.
  const named = shape.jwk === 'other-key' || shape.jwk === 'unbound' ? foreign : o.key;
  const unnamed = named === o.key ? foreign : o.key;
  const signing = shape.signature === 'other-key' || shape.jwk === 'other-key' ? unnamed : named;
  const { header: h, claims } = overridesOf(shape, o, now);
  const draft = dpopProofDraft({
    key: named,
    htm: o.method,
    htu: htuOf(o.url),
    accessToken: o.token,
    iat: now,
    jti: randomUUID(),
    ...(o.nonce !== undefined ? { nonce: o.nonce } : {}),
    header: h,
    claims,
  });
  const { header, payload } = draft;
  // RFC 9449 §4.3 item 5's alg none: no signature at all.
  if (shape.alg === 'none') return `${b64url(JSON.stringify({ ...header, alg: 'none' }))}.${b64url(JSON.stringify(payload))}.`;
  let signer: SigningMaterial = signing.privateKey;
  if (shape.alg === 'hs256') {
    // The RS/HS confusion: HMAC keyed with the bytes of the proof's own public jwk.
    header.alg = 'HS256';
    signer = new TextEncoder().encode(JSON.stringify(named.publicJwk));
  } else if (shape.alg === 'rs256') header.alg = 'RS256';
  else if (shape.alg === 'absent') delete header.alg;
  // Verbatim, whatever the header says: the algorithm follows the key (lib/jws.ts).
  const jws = await signWith(payload, header, signer);
  return shape.signature === 'altered' ? altered(jws) : jws;
}

/**
 * The `authorization` and `dpop` headers of an assistant's request with a proof of this shape. A replay resends
 * `lastProof` verbatim (`replayed`); with none, a proof is made afresh and `replayed` is false (judge it with
 * `asSent(shape, false)`).
 */
export async function buildProof(shape: ProofShape, o: ProofBuildOptions): Promise<BuiltProof> {
  const replayed = shape.jti === 'replay' && o.lastProof !== undefined && shape.form !== 'no-proof';
  const proof = () => (replayed ? Promise.resolve(o.lastProof!) : freshProof(shape, o));
  const token = o.token;
  switch (shape.form) {
    case undefined:
      return { headers: { authorization: `DPoP ${token}`, dpop: await proof() }, replayed };
    case 'no-proof':
      return { headers: { authorization: `DPoP ${token}` }, replayed };
    case 'two-proofs':
      return { headers: { authorization: `DPoP ${token}`, dpop: [await proof(), await proof()] }, replayed };
    case 'bearer':
      return { headers: { authorization: `Bearer ${token}`, dpop: await proof() }, replayed };
    case 'scheme-lower':
      return { headers: { authorization: `dpop ${token}`, dpop: await proof() }, replayed };
  }
}
