// DPoP proof validation (RFC 9449 §4.2, §4.3, §7.1, §9, §11): the checks of one proof against the request it came with,
// in a fixed order, each failure named. Pure and synchronous; never imports Express and touches no storage: the replay
// check (the proof's jti, recorded once accepted) is the caller's, after this function accepted the proof.
import { createHash, createPublicKey, verify as verifySignature, type KeyObject } from 'node:crypto';
import { memoize, remember } from '../bounded.js';

export const DPOP_PROOF_TYP = 'dpop+jwt';
/** The only proof algorithm accepted (and announced as `algs="ES256"` in every DPoP challenge). */
export const DPOP_ALG = 'ES256';
/** A P-256 proof with the usual claims is under 1 KiB; anything this long is not one. */
export const MAX_PROOF_CHARS = 8192;
export const MAX_JTI_CHARS = 256;

/** Why a proof was refused: one name per check, so that tests (and logs) can tell the checks apart. */
export type ProofReason =
  | 'missing'
  | 'multiple'
  | 'too_large'
  | 'structure'
  | 'header'
  | 'typ'
  | 'alg'
  | 'crit'
  | 'jwk'
  | 'signature'
  | 'claims'
  | 'jti'
  | 'iat'
  | 'htm'
  | 'htu'
  | 'ath'
  | 'jkt'
  | 'nonce'
  /** Not set by checkDpopProof: the caller's replay check (the jti of this key is already recorded). */
  | 'replay';

export interface ProofFailure {
  ok: false;
  /** `use_dpop_nonce` only for a missing or unaccepted nonce; every other defect is `invalid_dpop_proof`. */
  error: 'invalid_dpop_proof' | 'use_dpop_nonce';
  reason: ProofReason;
  /** Human text for the problem `detail`; says which rule failed, never internals. */
  detail: string;
}

export interface AcceptedProof {
  ok: true;
  jti: string;
  iat: number;
  /** RFC 7638 SHA-256 thumbprint of the proof's `jwk`. */
  thumbprint: string;
}

export interface ProofExpectations {
  /** The request method (`htm` must equal it exactly). */
  method: string;
  /** The request's absolute public URL; query and fragment are ignored (see normaliseHtu). */
  url: string;
  /** The access token the proof travels with: `ath` is then required and must hash it. null: no token. */
  accessToken: string | null;
  /** The token's `cnf.jkt`: the proof key's thumbprint must equal it. null: nothing to bind to. */
  jkt: string | null;
  now: Date;
  /** `iat` may lie at most this many seconds before or after `now`. */
  iatWindowSeconds: number;
  /** Server nonces: the proof must carry one they accept. null: nonces are not used. */
  nonces: { accepts(nonce: string, now: Date): boolean } | null;
}

const fail = (reason: ProofReason, detail: string, error: ProofFailure['error'] = 'invalid_dpop_proof'): ProofFailure => ({
  ok: false,
  error,
  reason,
  detail,
});

const B64URL = /^[A-Za-z0-9_-]+$/;
const COORDINATE = /^[A-Za-z0-9_-]{43}$/; // a P-256 coordinate: 32 bytes, unpadded base64url

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function decodeObject(segment: string): Json | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The one DPoP header of a request (RFC 9449 §4.3: "not more than one DPoP HTTP request header field"), from Node's
 * `rawHeaders` (name, value, name, value…). Two fields, or one field holding a comma-joined list, are refused.
 */
export function singleDpopHeader(rawHeaders: readonly string[]): { ok: true; value: string } | ProofFailure {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'dpop') values.push(rawHeaders[i + 1]!.trim());
  if (values.length === 0 || (values.length === 1 && values[0] === ''))
    return fail('missing', 'A DPoP proof is required: send exactly one DPoP header.');
  if (values.length > 1) return fail('multiple', 'Exactly one DPoP header is allowed.');
  const value = values[0]!;
  if (value.includes(',')) return fail('multiple', 'Exactly one DPoP proof is allowed (the DPoP header holds a list).');
  return { ok: true, value };
}

/**
 * `htu` comparison form (RFC 9449 §4.3 item 9, RFC 3986 §6.2.2-6.2.3): scheme and host lower-cased, the default port
 * dropped, query and fragment removed; the path is kept as written, so a trailing slash matters. undefined for anything
 * that is not an absolute http(s) URL without user information.
 */
export function normaliseHtu(value: string): string | undefined {
  return normalisedHtu(value);
}
// A client names the same few URLs in every proof, and the request URL repeats per route: each parsed once.
const normalisedHtu = memoize(1000, parseHtu);

function parseHtu(value: string): string | undefined {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what an htu must not carry
  if (/[\s\x00-\x1f\x7f]/.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username !== '' || url.password !== '') return undefined;
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** base64url(SHA-256(access token)), unpadded: a proof's `ath` (RFC 9449 §4.2). */
export function accessTokenHash(token: string): string {
  return tokenHash(token);
}
// Every proof of a session names the hash of the same token: computed once per token.
const tokenHash = memoize(1000, (token) => createHash('sha256').update(token, 'utf8').digest('base64url'));

/** RFC 7638 SHA-256 thumbprint of a public EC key: over `{"crv","kty","x","y"}` in that order, no whitespace. */
export function ecThumbprint(jwk: { crv: string; x: string; y: string }): string {
  const canonical = JSON.stringify({ crv: jwk.crv, kty: 'EC', x: jwk.x, y: jwk.y });
  return createHash('sha256').update(canonical, 'utf8').digest('base64url');
}

// A client signs every proof with the same key: importing it (and checking the point) once per key, not per request.
// Bounded; only keys that imported are kept. Pure memoisation: the result depends on x and y alone.
const MAX_IMPORTED_KEYS = 2000;
const IMPORTED_KEYS = new Map<string, { key: KeyObject; thumbprint: string }>();

/** The proof's `jwk`: a public EC P-256 key usable with ES256, or the reason it is not. */
function proofKey(jwk: unknown): { key: KeyObject; thumbprint: string } | ProofFailure {
  if (!isObject(jwk)) return fail('jwk', 'The proof header jwk must be a JSON object.');
  if ('d' in jwk) return fail('jwk', 'The proof header jwk must be a public key (it holds a private part).');
  if (jwk.kty !== 'EC') return fail('jwk', 'The proof header jwk must be an EC key (kty EC).');
  if (jwk.crv !== 'P-256') return fail('jwk', 'The proof header jwk must be on the P-256 curve, as ES256 needs.');
  if (typeof jwk.x !== 'string' || typeof jwk.y !== 'string' || !COORDINATE.test(jwk.x) || !COORDINATE.test(jwk.y)) {
    return fail('jwk', 'The proof header jwk has malformed coordinates.');
  }
  if (jwk.alg !== undefined && jwk.alg !== DPOP_ALG) return fail('jwk', 'The proof header jwk is meant for another algorithm.');
  const cacheKey = `${jwk.x}.${jwk.y}`;
  const known = IMPORTED_KEYS.get(cacheKey);
  if (known) return known;
  try {
    // Import checks that the point lies on the curve.
    const key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }, format: 'jwk' });
    const imported = { key, thumbprint: ecThumbprint({ crv: 'P-256', x: jwk.x, y: jwk.y }) };
    return remember(IMPORTED_KEYS, cacheKey, imported, MAX_IMPORTED_KEYS);
  } catch {
    return fail('jwk', 'The proof header jwk is not a valid P-256 public key.');
  }
}

// A client sends the same header (its key) with every proof: the header segments that passed are kept, bounded.
const ACCEPTED_HEADERS = new Map<string, { key: KeyObject; thumbprint: string }>();

/** The checks of a decoded proof header (`typ`, `alg`, `crit`, `jwk`), in that order; a header that passes is kept. */
function proofHeader(segment: string, header: Json): { key: KeyObject; thumbprint: string } | ProofFailure {
  if (header.typ !== DPOP_PROOF_TYP) return fail('typ', 'The DPoP proof header typ must be dpop+jwt.');
  if (header.alg !== DPOP_ALG) return fail('alg', 'The DPoP proof must be signed with ES256.');
  // No extension is understood, so any critical one is refused (RFC 7515 §4.1.11); b64 only makes sense with crit.
  if ('crit' in header || 'b64' in header) return fail('crit', 'The DPoP proof header may not carry crit or b64.');
  const key = proofKey(header.jwk);
  return 'ok' in key ? key : remember(ACCEPTED_HEADERS, segment, key, MAX_IMPORTED_KEYS);
}

/**
 * ES256 in JWS form: r || s, 32 bytes each (RFC 7518 §3.4); a DER signature or any other length fails. Verified on libuv's
 * thread pool: it is most of a DPoP request's CPU time, and the event loop serves other requests meanwhile.
 */
function signatureVerifies(input: string, signature: Buffer, key: KeyObject): Promise<boolean> {
  if (signature.length !== 64) return Promise.resolve(false);
  return new Promise((resolve) => {
    try {
      verifySignature('sha256', Buffer.from(input, 'ascii'), { key, dsaEncoding: 'ieee-p1363' }, signature, (err, ok) =>
        resolve(!err && ok),
      );
    } catch {
      resolve(false);
    }
  });
}

/**
 * Checks one DPoP proof, in this order: shape (a compact JWS of three parts), header (`typ` dpop+jwt, `alg` ES256, no
 * `crit`, a public P-256 `jwk`), the signature with that key, the claims' types (`jti`, `htm`, `htu`, `iat`, `ath`,
 * `nonce`), then `htm`, `htu`, `ath`, the key binding (`jkt`), the nonce, and last `iat` — so that a proof without a current
 * nonce gets `use_dpop_nonce` (and a fresh nonce) even when its `iat` is stale, while a proof that is wrong in any way a
 * retry cannot fix gets `invalid_dpop_proof`. Extra header members and extra claims are ignored. Does not check replay.
 */
export async function checkDpopProof(proof: string, expect: ProofExpectations): Promise<AcceptedProof | ProofFailure> {
  // [ERR-TABLE-4] every defect of the proof is invalid_dpop_proof; a missing or stale nonce, use_dpop_nonce.
  if (proof.length > MAX_PROOF_CHARS) return fail('too_large', 'The DPoP proof is too large.');
  const parts = proof.split('.');
  if (parts.length !== 3) return fail('structure', 'The DPoP proof must be a compact JWS (three parts).');
  const [h, p, s] = parts as [string, string, string];
  if (!B64URL.test(h) || !B64URL.test(p) || !B64URL.test(s)) return fail('structure', 'The DPoP proof is not base64url-encoded.');
  const accepted = ACCEPTED_HEADERS.get(h);
  const header = accepted ? undefined : decodeObject(h);
  if (!accepted && !header) return fail('header', 'The DPoP proof header is not a JSON object.');
  const claims = decodeObject(p);
  if (!claims) return fail('claims', 'The DPoP proof claims are not a JSON object.');
  const key = accepted ?? proofHeader(h, header!);
  if ('ok' in key) return key;

  if (!(await signatureVerifies(`${h}.${p}`, Buffer.from(s, 'base64url'), key.key)))
    return fail('signature', 'The DPoP proof signature does not verify with its jwk.');

  const { jti, htm, htu, iat, ath, nonce } = claims;
  if (typeof jti !== 'string' || jti.length === 0 || jti.length > MAX_JTI_CHARS)
    return fail('jti', `The DPoP proof needs a jti of 1 to ${MAX_JTI_CHARS} characters.`);
  if (typeof htm !== 'string') return fail('htm', 'The DPoP proof needs an htm claim.');
  if (typeof htu !== 'string') return fail('htu', 'The DPoP proof needs an htu claim.');
  if (typeof iat !== 'number' || !Number.isFinite(iat)) return fail('iat', 'The DPoP proof needs a numeric iat claim.');
  if (nonce !== undefined && typeof nonce !== 'string')
    return fail('nonce', 'The DPoP proof nonce must be a string.', 'invalid_dpop_proof');
  if (ath !== undefined && typeof ath !== 'string') return fail('ath', 'The DPoP proof ath must be a string.');

  if (htm !== expect.method) return fail('htm', 'The DPoP proof htm does not match the request method.');
  const wanted = normaliseHtu(expect.url);
  const given = normaliseHtu(htu);
  if (given === undefined) return fail('htu', 'The DPoP proof htu must be an absolute http(s) URL.');
  if (wanted === undefined || given !== wanted) return fail('htu', 'The DPoP proof htu does not match the request URL.');
  if (expect.accessToken !== null) {
    if (ath === undefined) return fail('ath', 'The DPoP proof needs an ath claim (the hash of the access token).');
    if (ath !== accessTokenHash(expect.accessToken)) return fail('ath', 'The DPoP proof ath does not match the access token.');
  }
  if (expect.jkt !== null && key.thumbprint !== expect.jkt) return fail('jkt', 'The DPoP proof key is not the key the token is bound to.');
  if (expect.nonces !== null) {
    // [ERR-TABLE-4] a proof without a current nonce: use_dpop_nonce, with a fresh nonce on the answer.
    if (nonce === undefined) return fail('nonce', 'A server nonce is required: use the DPoP-Nonce of this response.', 'use_dpop_nonce');
    if (!expect.nonces.accepts(nonce, expect.now))
      return fail('nonce', 'The DPoP nonce is not current: use the DPoP-Nonce of this response.', 'use_dpop_nonce');
  }
  const now = expect.now.getTime() / 1000;
  if (Math.abs(now - iat) > expect.iatWindowSeconds)
    return fail('iat', `The DPoP proof iat is more than ${expect.iatWindowSeconds} seconds away from the server time.`);
  return { ok: true, jti, iat, thumbprint: key.thumbprint };
}
