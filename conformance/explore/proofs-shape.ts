// DPoP proof shapes for `explore`: an assistant's request (its DPoP-bound token and a proof, RFC 9449) with the proof's JOSE
// header, claims or signature varied, or the pair presented in another form. A shape is symbolic and JSON-serialisable
// (it is stored in replay files): each member is absent (the proof a correct client sends, lib/dpop.ts: typ dpop+jwt,
// ES256, its public jwk, a fresh jti, the request's method and URI, now, ath of its token, the last DPoP-Nonce it was
// given) or the name of one variation, never a value, so one shape resolves against any deployment.
// The catalogue of variations and their one-line labels, the arbitrary and the description are here; buildProof
// (proofs-build.ts) turns a shape into the request's headers; expectedOfProof (proofs-expect.ts) says from the spec and
// RFC 9449 alone what must be answered to it; proofs.ts is the entry.
import type fc from 'fast-check';
import { describeShape, fieldsOf, shapeArbitrary, type ShapeOf } from './shapes.js';

/**
 * Every variation, by what it varies, with the label a report shows: the proof's JOSE header (RFC 9449 §4.2, §4.3 items
 * 4-7), its claims (items 8-12), its signature, and the form of the request's credentials (item 1; spec, Challenge scheme
 * and Assistant authority).
 */
export const PROOF_VARIATIONS = {
  typ: {
    absent: 'absent',
    JWT: 'JWT',
    upper: 'DPoP+JWT',
    'media-type': 'application/dpop+jwt',
    other: 'at+jwt',
  },
  alg: {
    none: 'none, no signature',
    hs256: 'HS256 keyed with its jwk',
    rs256: 'RS256 over an ES256 signature',
    absent: 'absent',
  },
  jwk: {
    absent: 'absent',
    private: 'the private key (with d)',
    'other-key': 'a key other than the one that signs',
    unbound: "another key, signing too (not the token's cnf.jkt)",
  },
  jti: { absent: 'absent', replay: 'an earlier proof of the session, sent again', 'wrong-type': 'a number' },
  htm: { other: 'another method', 'lower-case': 'the method in lower case' },
  htu: {
    'other-path': 'another path',
    query: 'with a query string',
    fragment: 'with a fragment',
    'trailing-slash': 'its trailing slash toggled',
    'other-scheme': 'the other scheme (http, https)',
    'other-host': 'another host',
    'upper-case': 'scheme and host in upper case',
    'dot-segment': 'a dot segment in the path',
    'percent-encoded': 'an unreserved letter percent-encoded',
    relative: 'the path alone',
  },
  iat: {
    'stale-far': 'an hour ago',
    'skew-past': 'fifteen seconds ago',
    'skew-future': 'fifteen seconds ahead',
    'future-far': 'an hour ahead',
    string: 'a string',
  },
  ath: { absent: 'absent', 'other-token': 'of another token', 'not-base64url': 'padded base64, not base64url' },
  nonce: { absent: 'absent', unissued: 'a nonce never issued', previous: 'the previous nonce' },
  signature: { altered: 'a byte altered', 'other-key': 'by another key than its jwk' },
  form: {
    'no-proof': 'no DPoP header',
    'two-proofs': 'two DPoP headers',
    bearer: 'the Bearer scheme, the proof beside it',
    'scheme-lower': 'dpop <token> (the scheme in lower case)',
  },
} as const;

export type ProofField = keyof typeof PROOF_VARIATIONS;
export const PROOF_FIELDS = fieldsOf(PROOF_VARIATIONS);
export type ProofVariationOf<F extends ProofField> = keyof (typeof PROOF_VARIATIONS)[F] & string;

/**
 * A proof as a shape: each member absent (as a correct client makes it) or the name of its variation. The nonce a correct
 * client sends is the current one (the last DPoP-Nonce the deployment gave): "the current nonce" is the shape without a
 * nonce variation.
 */
export type ProofShape = ShapeOf<typeof PROOF_VARIATIONS>;

/** What the proof itself holds: every field but the form of the request. */
export const PROOF_CONTENT_FIELDS: readonly ProofField[] = PROOF_FIELDS.filter((f) => f !== 'form');

/** Every `field:variation` a shape can hold (what the arbitrary must reach). */
export const PROOF_VARIATION_NAMES: readonly string[] = PROOF_FIELDS.flatMap((f) =>
  Object.keys(PROOF_VARIATIONS[f]).map((v) => `${f}:${v}`),
);

/** The `field:variation` names a shape holds. */
export const proofVariationNamesOf = (shape: ProofShape): string[] =>
  PROOF_FIELDS.filter((f) => shape[f] !== undefined).map((f) => `${f}:${String(shape[f])}`);

/**
 * The shape as it is sent: a replay resends an earlier proof verbatim, so no other variation of the proof's content
 * reaches the wire; without a DPoP header no content does at all; and a replay asked for with no earlier proof to resend
 * (`replayed` false, buildProof) is a proof made afresh. Judge the shape as sent (expectedOfProof reads it this way too).
 */
export function asSent(shape: ProofShape, replayed = true): ProofShape {
  const out: ProofShape = { ...shape };
  const drop = (fields: readonly ProofField[]) => fields.forEach((f) => delete out[f]);
  if (out.form === 'no-proof') drop(PROOF_CONTENT_FIELDS);
  else if (out.jti === 'replay' && !replayed) delete out.jti;
  else if (out.jti === 'replay') drop(PROOF_CONTENT_FIELDS.filter((f) => f !== 'jti'));
  return out;
}

// --- the arbitrary ---------------------------------------------------------------------------------------------------------

/**
 * Proof shapes: one variation most of the time, sometimes two or three of different members (so that combinations are
 * judged), sometimes none (a correct proof). Variations that would not reach the wire (asSent) are dropped, so a drawn
 * shape is what is sent.
 */
export function proofShapeArbitrary(): fc.Arbitrary<ProofShape> {
  return shapeArbitrary<ProofShape>(PROOF_VARIATIONS, (shape) => asSent(shape));
}

// --- descriptions ------------------------------------------------------------------------------------------------------------

const FIELD_LABELS: Partial<Record<ProofField, string>> = { signature: 'signed', form: 'sent as' };

/** One short line for reports: `proof typ: JWT, htu: with a query string`; `a correct proof` for none. */
export function describeProof(shape: ProofShape): string {
  const described = describeShape(PROOF_VARIATIONS, shape, { none: '', labels: FIELD_LABELS });
  return described === '' ? 'a correct proof' : `proof ${described}`;
}
