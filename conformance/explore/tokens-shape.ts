// Token shapes for `explore`: a Bearer caller's access token with its claims and JOSE header members varied, signed
// otherwise, or presented in another form of the Authorization header. A shape is symbolic and JSON-serialisable (it is
// stored in replay files): each judged claim, header member, the signing and the form is either absent (as minted,
// docs/tokens.md) or the name of one variation, never a value, so one shape resolves on any profile.
// The catalogue of variations and their one-line labels, the arbitrary and the description are here; credentialsOfToken
// (tokens-build.ts) turns a shape into the request's credentials; expectedOfToken (tokens-expect.ts) says from the spec
// alone what must be answered to it; tokens-api.ts re-exports the three.
import fc from 'fast-check';
import type { Profile } from '../../contract/profile.js';
import { OPERATIONS_BY_ID, type Operation } from '../../contract/operations.js';
import { audienceOf, type Audience } from '../lib/mint.js';
import { fieldsOf, type ShapeOf } from './shapes.js';

/** The Bearer caller kinds (assistants and invited agents present other credentials). */
export type TokenKind = 'customer' | 'delegated' | 'guest' | 'operator';
export const TOKEN_KINDS: readonly TokenKind[] = ['customer', 'delegated', 'guest', 'operator'];

/**
 * Every variation, by what it varies, with the label a report shows. Claims first (RFC 9068 §2.2 and the spec's Caller
 * kinds), then the JOSE header members, the signature, and the form of the Authorization header.
 */
export const TOKEN_VARIATIONS = {
  iss: { other: 'another issuer', slash: 'its trailing slash toggled', absent: 'absent', 'wrong-type': 'an array holding it' },
  aud: {
    other: 'another audience',
    absent: 'absent',
    'array-own': 'an array holding its audience',
    'array-other': 'an array holding only another audience',
    'array-both': 'an array holding another audience and its own',
    'profile-other': "the profile's other audience",
    slash: 'its audience with a trailing slash',
    'wrong-type': 'a number',
  },
  sub: {
    absent: 'absent',
    empty: 'empty',
    'wrong-type': 'a number',
    machine: '<its client_id>@clients',
    user: "an account's subject",
    'machine-other': "another client's <client_id>@clients",
  },
  client_id: {
    absent: 'absent',
    unknown: 'a client nobody configured',
    'other-known': 'another configured client',
    'wrong-type': 'an array holding it',
  },
  act: {
    absent: 'absent',
    'outer-other': 'outermost actor another, the agent client nested',
    deeper: 'the agent client over a nested actor',
    assistant: 'personal_agent (an assistant token marker)',
    malformed: 'a string',
    'sub-wrong-type': 'an actor sub that is a number',
    'outer-website': 'outermost actor the website client',
    agent: 'the agent client',
  },
  exp: {
    'past-seconds': 'ten seconds past',
    'past-far': 'an hour past',
    'future-far': 'ten years ahead',
    string: 'a string',
    absent: 'absent',
    fractional: 'a fractional NumericDate',
  },
  nbf: { future: 'an hour ahead', past: 'a minute ago', string: 'a string' },
  iat: { future: 'an hour ahead', 'past-far': 'a day ago', absent: 'absent', string: 'a string' },
  scope: {
    absent: 'absent',
    empty: 'empty',
    'missing-needed': "without the operation's scopes",
    'upper-case': 'upper case',
    array: 'an array',
    extra: 'an unknown scope added',
    'extra-spaces': 'extra spaces around and between',
  },
  cnf: { jkt: 'a DPoP key thumbprint (jkt)', x5t: 'a certificate thumbprint (x5t#S256)', 'wrong-type': 'a string', empty: '{}' },
  jti: { absent: 'absent', 'wrong-type': 'a number' },
  typ: {
    JWT: 'JWT',
    absent: 'absent',
    upper: 'AT+JWT',
    'media-type': 'application/at+jwt',
    dpop: 'dpop+jwt',
    'wrong-type': 'a number',
  },
  alg: {
    none: 'none, no signature',
    'hs256-public-key': 'HS256 keyed with the public key',
    rs256: 'RS256 over an ES256 signature',
    es384: 'ES384 over an ES256 signature',
    absent: 'absent',
    'lower-case': 'es256',
  },
  kid: { unknown: 'a key nobody published', absent: 'absent', 'wrong-type': 'a number' },
  signing: { 'other-key': 'by another key', unsigned: 'no signature', altered: 'signature bytes altered' },
  form: {
    'bearer-lower': 'bearer in lower case',
    spaces: 'three spaces after Bearer',
    'duplicate-bad-first': 'two Authorization headers, this one first',
    'duplicate-bad-last': 'two Authorization headers, a sound one first',
    query: 'the token in the query (access_token), no header',
    cookie: 'the token in a cookie, no header',
    'no-scheme': 'the token without a scheme',
    'dpop-scheme': 'the DPoP scheme without a proof',
  },
} as const;

export type TokenField = keyof typeof TOKEN_VARIATIONS;
export const TOKEN_FIELDS = fieldsOf(TOKEN_VARIATIONS);
export type VariationOf<F extends TokenField> = keyof (typeof TOKEN_VARIATIONS)[F] & string;

/** A token as a shape: each member absent (as minted) or the name of its variation. */
export type TokenShape = ShapeOf<typeof TOKEN_VARIATIONS>;

const USERS: readonly TokenKind[] = ['customer', 'delegated'];
const MACHINES: readonly TokenKind[] = ['guest', 'operator'];

/** Variations that mean something for some kinds only (every other variation applies to the four). */
const ONLY_FOR: { readonly [F in TokenField]?: { readonly [V in VariationOf<F>]?: readonly TokenKind[] } } = {
  // A user token's own client as a machine subject; a machine token's subject as a user's, or as another client's.
  sub: { machine: USERS, user: MACHINES, 'machine-other': MACHINES },
  // Delegated tokens carry an act chain (its absence is a variation); the others carry none (its presence is).
  act: {
    absent: ['delegated'],
    'outer-other': ['delegated', 'guest', 'operator'],
    deeper: ['delegated'],
    malformed: ['delegated'],
    'sub-wrong-type': ['delegated'],
    'outer-website': ['delegated'],
    agent: ['customer', 'guest', 'operator'],
  },
};

/** The variations of a field that apply to a kind. */
export function variationsFor<F extends TokenField>(kind: TokenKind, field: F): VariationOf<F>[] {
  const only = ONLY_FOR[field] as Partial<Record<string, readonly TokenKind[]>> | undefined;
  return (Object.keys(TOKEN_VARIATIONS[field]) as VariationOf<F>[]).filter((v) => only?.[v]?.includes(kind) ?? true);
}

/** Every `field:variation` a kind's shapes can hold (what the arbitrary must reach). */
export const variationNamesFor = (kind: TokenKind): string[] => TOKEN_FIELDS.flatMap((f) => variationsFor(kind, f).map((v) => `${f}:${v}`));

/** The `field:variation` names a shape holds. */
export const variationNamesOf = (shape: TokenShape): string[] =>
  TOKEN_FIELDS.filter((f) => shape[f] !== undefined).map((f) => `${f}:${String(shape[f])}`);

// --- the arbitrary ---------------------------------------------------------------------------------------------------------

/**
 * Token shapes for a kind: one variation most of the time, sometimes two or three of different members (so that
 * combinations are judged, the order of the spec's refusals among them), sometimes none (the token as minted).
 */
export function tokenShapeArbitrary(kind: TokenKind): fc.Arbitrary<TokenShape> {
  const fields = TOKEN_FIELDS.filter((f) => variationsFor(kind, f).length > 0);
  const count = fc.oneof(
    { weight: 1, arbitrary: fc.constant(0) },
    { weight: 12, arbitrary: fc.constant(1) },
    { weight: 4, arbitrary: fc.constant(2) },
    { weight: 2, arbitrary: fc.constant(3) },
  );
  return count.chain((n) =>
    fc.shuffledSubarray(fields, { minLength: n, maxLength: n }).chain((chosen) =>
      fc.tuple(...chosen.map((f) => fc.constantFrom(...variationsFor(kind, f)).map((v) => [f, v] as const))).map((pairs) => {
        const picked = new Map<TokenField, string>(pairs);
        // In the catalogue's order, so that a shape reads (and compares) the same whatever order it was drawn in.
        return Object.fromEntries(TOKEN_FIELDS.filter((f) => picked.has(f)).map((f) => [f, picked.get(f)])) as TokenShape;
      }),
    ),
  );
}

// --- descriptions ------------------------------------------------------------------------------------------------------------

const FIELD_LABELS: Partial<Record<TokenField, string>> = { signing: 'signed', form: 'Authorization' };

/** One short line for reports: `aud: another audience, typ: JWT`; `as minted` for the sound token. */
export function describeToken(shape: TokenShape): string {
  const parts = TOKEN_FIELDS.filter((f) => shape[f] !== undefined).map((f) => {
    const labels = TOKEN_VARIATIONS[f] as Record<string, string>;
    const v = String(shape[f]);
    return `${FIELD_LABELS[f] ?? f}: ${labels[v] ?? v}`;
  });
  return parts.length === 0 ? 'as minted' : parts.join(', ');
}

// --- what both the builder and the judge need to agree on --------------------------------------------------------------------

/**
 * The profile audience a kind's token is minted for: the kind's own (audienceOf); a delegated token for the API audience
 * unless the profile declares otherwise, as explore's delegated callers are (world.ts).
 */
export const mintedAudience = (kind: TokenKind, profile: Profile): Audience =>
  kind === 'delegated' ? audienceOf(profile, 'delegated', 'api') : audienceOf(profile, kind);

/** The read a kind's token is judged on when no operation is named: the cart, or the operators' order search. */
export function defaultOperation(kind: TokenKind): Operation {
  const op = OPERATIONS_BY_ID.get(kind === 'operator' ? 'searchOpsOrders' : 'getCart');
  if (!op) throw new TypeError('contract/operations.ts lacks getCart or searchOpsOrders');
  return op;
}
