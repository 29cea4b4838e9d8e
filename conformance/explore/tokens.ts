// Token shapes (docs/explore.md, "Token shapes"): a sound caller's access token with one claim or JOSE header varied,
// or signed otherwise, and what the spec says the deployment must do with it (Authentication > Token verification, RFC
// 9068 for `at+jwt`, RFC 7519 for `aud`). A shape is named, so that a replay file holds it; it is drawn for the Bearer
// caller kinds (customer, delegated, guest, operator) on a route their kind may use, so that a refusal is the token's.
// Where the spec (or the RFC it rests on) reads two ways the expectation is `either`: never a finding on a conforming
// deployment, and never a 5xx.
import { generateKeyPair, type CryptoKey } from 'jose';
import type { Profile } from '../../contract/profile.js';
import { signWith, unsecured, type JsonObject, type TokenDraft } from '../lib/jws.js';
import type { Minter } from '../lib/mint.js';

export type TokenKind = 'customer' | 'delegated' | 'guest' | 'operator';

export type TokenExpectation =
  | { readonly accept: true; readonly clauses: readonly string[] }
  | { readonly accept: false; readonly statuses: readonly number[]; readonly clauses: readonly string[] }
  | { readonly accept: 'either'; readonly why: string };

interface Variation {
  /** Kinds the variation means something for (all Bearer kinds when absent). */
  readonly kinds?: readonly TokenKind[];
  readonly claims?: (p: Profile, draft: TokenDraft) => JsonObject;
  readonly header?: JsonObject;
  readonly sign?: 'other-key' | 'none' | 'tampered';
  readonly expect: TokenExpectation;
}

const refuse = (clauses: string[], statuses: number[] = [401]): TokenExpectation => ({ accept: false, statuses, clauses });
const either = (why: string): TokenExpectation => ({ accept: 'either', why });
const ELSEWHERE = 'https://elsewhere.invalid/api';
const audienceOf = (draft: TokenDraft) => draft.payload.aud as string;
const toggleSlash = (s: string) => (s.endsWith('/') ? s.slice(0, -1) : `${s}/`);

/** The variations, by name: each one claim, header member or signature changed from the token the kind presents. */
export const TOKEN_VARIATIONS = {
  // AUTH-TOKEN-2: "verifies issuer": another issuer, the same one spelt with(out) its trailing slash (RFC 9068 §4: the
  // issuer identifier MUST exactly match), none.
  'iss-other': { claims: () => ({ iss: 'https://issuer.invalid/' }), expect: refuse(['AUTH-TOKEN-2']) },
  'iss-slash': { claims: (p) => ({ iss: toggleSlash(p.issuer) }), expect: refuse(['AUTH-TOKEN-2']) },
  'iss-absent': { claims: () => ({ iss: undefined }), expect: refuse(['AUTH-TOKEN-2']) },
  // AUTH-TOKEN-4: "verifies audience". An array holding the service's audience is for it (RFC 7519 §4.1.3); one holding
  // only another is not; both at once, whether a deployment takes a token for two audiences is not pinned.
  'aud-array-own': { claims: (_p, d) => ({ aud: [audienceOf(d)] }), expect: { accept: true, clauses: ['AUTH-TOKEN-4'] } },
  'aud-array-other': { claims: () => ({ aud: [ELSEWHERE] }), expect: refuse(['AUTH-TOKEN-4']) },
  'aud-array-both': {
    claims: (_p, d) => ({ aud: [ELSEWHERE, audienceOf(d)] }),
    expect: either('a token for two audiences (RFC 7519 §4.1.3)'),
  },
  'aud-other': { claims: () => ({ aud: ELSEWHERE }), expect: refuse(['AUTH-TOKEN-4']) },
  'aud-absent': { claims: () => ({ aud: undefined }), expect: refuse(['AUTH-TOKEN-4']) },
  // AUTH-TOKEN-5: "type at+jwt". RFC 9068 §4 names application/at+jwt as the same type: either.
  'typ-jwt': { header: { typ: 'JWT' }, expect: refuse(['AUTH-TOKEN-5']) },
  'typ-absent': { header: { typ: undefined }, expect: refuse(['AUTH-TOKEN-5']) },
  'typ-media-type': { header: { typ: 'application/at+jwt' }, expect: either('RFC 9068 §4 names application/at+jwt as at+jwt') },
  // AUTH-TOKEN-6: "verifies expiry": an hour past; none at all is RFC 9068's MUST, not the spec's words: either.
  'exp-past': { claims: () => ({ exp: Math.floor(Date.now() / 1000) - 3600 }), expect: refuse(['AUTH-TOKEN-6']) },
  'exp-absent': {
    claims: () => ({ exp: undefined }),
    expect: either('a token without exp: the spec verifies expiry, RFC 9068 requires exp'),
  },
  'nbf-future': {
    claims: () => ({ nbf: Math.floor(Date.now() / 1000) + 3600 }),
    expect: either('nbf is not among the claims the spec verifies'),
  },
  // AUTH-TOKEN-3: the signature against the published key set: another key, a byte altered, none (alg none).
  'sig-other-key': { sign: 'other-key', expect: refuse(['AUTH-TOKEN-3']) },
  'sig-tampered': { sign: 'tampered', expect: refuse(['AUTH-TOKEN-3']) },
  'alg-none': { sign: 'none', expect: refuse(['AUTH-TOKEN-3']) },
  'kid-unknown': { header: { kid: 'kid-nobody-published' }, expect: either('a kid the key set lacks, over a signature its key verifies') },
  // AUTH-TOKEN-7, 9: client_id absent, unknown: refused, 401 or 403 (Token verification 3).
  'client-absent': { claims: () => ({ client_id: undefined }), expect: refuse(['AUTH-TOKEN-7'], [401, 403]) },
  'client-unknown': {
    claims: () => ({ client_id: 'client-nobody-configured' }),
    expect: refuse(['AUTH-TOKEN-9', 'AUTH-TOKEN-8'], [401, 403]),
  },
  // AUTH-TOKEN-10: an act chain whose outermost actor is not the agent client (the agent client nested under another).
  'act-outer-other': {
    kinds: ['delegated'],
    claims: (p) => ({ act: { sub: 'relay-nobody-configured', act: { sub: p.clients.agentProtocol } } }),
    expect: refuse(['AUTH-TOKEN-10', 'AUTH-TOKEN-8'], [401, 403]),
  },
  // AUTH-TOKEN-12: a website user token carrying act is an invited-agent login, never a customer.
  'act-on-customer': {
    kinds: ['customer'],
    claims: (p) => ({ act: { sub: p.clients.agentProtocol } }),
    expect: refuse(['AUTH-TOKEN-12', 'AUTH-TOKEN-8'], [401, 403]),
  },
} as const satisfies Record<string, Variation>;

export type TokenShape = keyof typeof TOKEN_VARIATIONS;
export const TOKEN_SHAPES = Object.keys(TOKEN_VARIATIONS) as [TokenShape, ...TokenShape[]];
const variationOf = (shape: TokenShape): Variation => TOKEN_VARIATIONS[shape];

/** The shapes that mean something for a kind. */
export const shapesFor = (kind: TokenKind): TokenShape[] => TOKEN_SHAPES.filter((s) => variationOf(s).kinds?.includes(kind) ?? true);

export const expectedOfToken = (shape: TokenShape): TokenExpectation => variationOf(shape).expect;

let otherKey: Promise<CryptoKey> | undefined;

/** The kind's token, shaped: its draft (lib/mint.ts) with the variation's claims and header, signed as the variation says. */
export async function shapedToken(
  mint: Minter,
  kind: TokenKind,
  shape: TokenShape,
  sub: string,
  audience: 'api' | 'agent',
): Promise<string> {
  const v = variationOf(shape);
  const draft =
    kind === 'customer'
      ? mint.draft.customer({ sub })
      : kind === 'delegated'
        ? mint.draft.delegated({ sub, audience })
        : kind === 'guest'
          ? mint.draft.guest()
          : mint.draft.operator();
  const apply = (base: JsonObject, over: JsonObject | undefined) => {
    const out = { ...base };
    for (const [k, value] of Object.entries(over ?? {}))
      if (value === undefined) delete out[k];
      else out[k] = value;
    return out;
  };
  const shaped: TokenDraft = { header: apply(draft.header, v.header), payload: apply(draft.payload, v.claims?.(mint.profile, draft)) };
  if (v.sign === 'none') return unsecured(shaped.payload, { ...shaped.header, alg: 'none' });
  if (v.sign === 'other-key') {
    otherKey ??= generateKeyPair('ES256').then((k) => k.privateKey);
    return signWith(shaped.payload, { ...shaped.header, alg: 'ES256' }, await otherKey);
  }
  const token = await mint.sign(shaped);
  if (v.sign !== 'tampered') return token;
  const last = token.at(-2) === 'A' ? 'B' : 'A';
  return `${token.slice(0, -2)}${last}${token.at(-1)}`;
}

/** A shaped token's answer judged on what the spec says of the shape: accepted (not 401), refused (its statuses), or no 5xx. */
export function judgeTokenAnswer(
  shape: TokenShape,
  status: number,
  error: unknown,
): { clauses: readonly string[]; expected: string } | undefined {
  const e = expectedOfToken(shape);
  if (status >= 500) return { clauses: e.accept === 'either' ? ['AUTH-TOKEN-3'] : e.clauses, expected: 'no 5xx' };
  if (e.accept === true) return status === 401 ? { clauses: e.clauses, expected: 'accepted (not 401)' } : undefined;
  if (e.accept === false)
    return e.statuses.includes(status) && (status !== 401 || error === 'invalid_token' || error === undefined)
      ? undefined
      : { clauses: e.clauses, expected: `${e.statuses.join(' or ')}${e.statuses.includes(401) ? ' invalid_token' : ''}` };
  return undefined;
}
