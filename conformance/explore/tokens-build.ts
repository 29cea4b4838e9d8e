// A token shape (tokens-shape.ts) made into a request's credentials: the kind's draft from the suite's identity provider
// (lib/mint.ts), its claims and header members varied as the shape names, signed as it says (verbatim through
// lib/jws.ts signWith, for headers jose refuses to write), and presented in the shape's form of the Authorization header.
// The values a variation writes live here; what the spec makes of them is tokens-expect.ts's.
import { createHash } from 'node:crypto';
import type { Operation } from '../../contract/operations.js';
import type { Profile } from '../../contract/profile.js';
import { b64url, signWith, type JsonObject, type SigningMaterial, type TokenDraft } from '../lib/jws.js';
import { createForeignKey, publicKeyAsSecret, type Minter } from '../lib/mint.js';
import { operatorAttribution } from '../lib/credential-formats.js';
import { claimsOf, clientIdOf, mintedClient, type ActSymbol, type SubSymbol } from './tokens-classify.js';
import { defaultOperation, mintedAudience, type TokenKind, type TokenShape } from './tokens-shape.js';

export interface TokenCredentialOptions {
  profile: Profile;
  mint: Minter;
  /** The account subject of a user token (customer, delegated). */
  sub: string;
  /** A guest's Guest-Session and Shopper-IP, sent beside its token (none: a guest read without a session). */
  guestHeaders?: Record<string, string>;
  /** The operation the token is sent to (its API scopes are what `scope: missing-needed` drops); the kind's default read. */
  operation?: Operation;
}

export interface TokenCredentials {
  /** Lower-case names; an array is a repeated header (as `Step['headers']`, exchange.ts). */
  headers: Record<string, string | string[]>;
  /** A query string (without `?`) to append to the path, where the shape puts the token there. */
  query?: string;
}

const OTHER_ISSUER = 'https://issuer.invalid/';
const OTHER_AUDIENCE = 'https://elsewhere.invalid/api';
const UNKNOWN_CLIENT = 'client-nobody-configured';
const UNKNOWN_KID = 'kid-nobody-published';
const UNKNOWN_SCOPE = 'shop:unknown-scope';
const OTHER_ACTOR = 'agent-nobody-configured';
const UPSTREAM_ACTOR = 'upstream-agent';
const PERSONAL_AGENT = 'personal_agent';
/** A key thumbprint nobody holds (43 base64url characters, as RFC 7638 SHA-256 thumbprints are). */
const THUMBPRINT = createHash('sha256').update('shop-conformance token shape').digest('base64url');
const TEN_YEARS = 10 * 365 * 86400;

/** Draft of a kind's sound token (lib/mint.ts), for the audience both builder and judge take (mintedAudience). */
export function draftOf(kind: TokenKind, o: Pick<TokenCredentialOptions, 'profile' | 'mint' | 'sub'>): TokenDraft {
  const audience = mintedAudience(kind, o.profile);
  if (kind === 'customer') return o.mint.draft.customer({ sub: o.sub, audience });
  if (kind === 'delegated') return o.mint.draft.delegated({ sub: o.sub, audience });
  return kind === 'guest' ? o.mint.draft.guest({ audience }) : o.mint.draft.operator({ audience });
}

const toggleSlash = (s: string) => (s.endsWith('/') ? s.slice(0, -1) : `${s}/`);

/** The claims of the shaped token: the draft's with each varied claim written (undefined: removed). */
export function shapedClaims(kind: TokenKind, shape: TokenShape, draft: TokenDraft, o: TokenCredentialOptions): JsonObject {
  const p = o.profile;
  const minted = draft.payload;
  const now = typeof minted.iat === 'number' ? minted.iat : Math.floor(Date.now() / 1000);
  const aud = String(minted.aud);
  const scope = typeof minted.scope === 'string' ? minted.scope : '';
  const needed = (o.operation ?? defaultOperation(kind)).apiScopes;
  const { sub, act } = claimsOf(kind, shape);
  const set: JsonObject = {};
  const put = (name: string, value: unknown) => (set[name] = value);

  if (shape.iss) put('iss', { other: OTHER_ISSUER, slash: toggleSlash(p.issuer), absent: undefined, 'wrong-type': [p.issuer] }[shape.iss]);
  if (shape.aud) {
    const other = p.audiences[mintedAudience(kind, p) === 'api' ? 'agent' : 'api'];
    put(
      'aud',
      {
        other: OTHER_AUDIENCE,
        absent: undefined,
        'array-own': [aud],
        'array-other': [OTHER_AUDIENCE],
        'array-both': [OTHER_AUDIENCE, aud],
        'profile-other': other,
        slash: toggleSlash(aud),
        'wrong-type': 42,
      }[shape.aud],
    );
  }
  if (shape.sub) put('sub', subValue(sub, o));
  if (shape.client_id) {
    const c = claimsOf(kind, shape).client;
    if (c === 'absent') put('client_id', undefined);
    else if (c === 'unknown') put('client_id', UNKNOWN_CLIENT);
    else if (c === 'wrong-type') put('client_id', [clientIdOf(p, mintedClient(kind))]);
    else put('client_id', clientIdOf(p, c));
  }
  if (shape.act) put('act', actValue(shape.act, act, p));

  // Times: a past exp takes iat back with it (an iat after exp would be a second defect), unless iat is varied too.
  if (shape.exp) {
    const exp = {
      'past-seconds': now - 10,
      'past-far': now - 3600,
      'future-far': now + TEN_YEARS,
      string: String(now + 300),
      absent: undefined,
      fractional: now + 300.5,
    }[shape.exp];
    put('exp', exp);
    if (typeof exp === 'number' && exp < now && !shape.iat) put('iat', exp - 300);
  }
  if (shape.nbf) put('nbf', { future: now + 3600, past: now - 60, string: String(now - 60) }[shape.nbf]);
  if (shape.iat) put('iat', { future: now + 3600, 'past-far': now - 86400, absent: undefined, string: String(now) }[shape.iat]);

  if (shape.scope) {
    const words = scope.split(' ').filter(Boolean);
    put(
      'scope',
      {
        absent: undefined,
        empty: '',
        'missing-needed': words.filter((w) => !needed.includes(w)).join(' '),
        'upper-case': scope.toUpperCase(),
        array: words,
        extra: `${scope} ${UNKNOWN_SCOPE}`,
        'extra-spaces': `  ${words.join('   ')} `,
      }[shape.scope],
    );
  }
  if (shape.cnf) put('cnf', { jkt: { jkt: THUMBPRINT }, x5t: { 'x5t#S256': THUMBPRINT }, 'wrong-type': 'jkt', empty: {} }[shape.cnf]);
  if (shape.jti) put('jti', { absent: undefined, 'wrong-type': 12345 }[shape.jti]);
  return overlay(minted, set);
}

function subValue(sub: SubSymbol, o: TokenCredentialOptions): unknown {
  if (typeof sub === 'object') return `${clientIdOf(o.profile, sub.machineOf)}@clients`;
  return { user: o.sub, absent: undefined, empty: '', 'wrong-type': 12345 }[sub];
}

/** The act claim (RFC 8693 §4.1: the outermost actor is the current one). */
function actValue(v: NonNullable<TokenShape['act']>, symbol: ActSymbol, p: Profile): unknown {
  const agent = p.clients.agentProtocol;
  switch (v) {
    case 'absent':
      return undefined;
    case 'malformed':
      return agent;
    case 'sub-wrong-type':
      return { sub: 42 };
    case 'outer-other':
      return { sub: OTHER_ACTOR, act: { sub: agent } };
    case 'deeper':
      return { sub: agent, act: { sub: UPSTREAM_ACTOR } };
    default: {
      const outer = typeof symbol === 'object' ? symbol.outer : 'other';
      return { sub: outer === 'personal_agent' ? PERSONAL_AGENT : outer === 'other' ? OTHER_ACTOR : clientIdOf(p, outer) };
    }
  }
}

/** The JOSE header of the shaped token (alg is the signer's: shapedToken). */
export function shapedHeader(shape: TokenShape, draft: TokenDraft): JsonObject {
  const set: JsonObject = {};
  if (shape.typ)
    set.typ = { JWT: 'JWT', absent: undefined, upper: 'AT+JWT', 'media-type': 'application/at+jwt', dpop: 'dpop+jwt', 'wrong-type': 1 }[
      shape.typ
    ];
  if (shape.kid) set.kid = { unknown: UNKNOWN_KID, absent: undefined, 'wrong-type': 7 }[shape.kid];
  return overlay(draft.header, set);
}

/** `base` with `set` written over it, a member set to undefined removed (what jws.ts applyOverrides does). */
function overlay(base: JsonObject, set: JsonObject): JsonObject {
  const out: JsonObject = { ...base };
  for (const [k, v] of Object.entries(set)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

let foreign: Promise<SigningMaterial> | undefined;
const foreignKey = () => (foreign ??= createForeignKey().then((k) => k.privateKey));

/** The profile's signing key (the minter's, with its private part), for signing headers verbatim. */
export function profileKey(profile: Profile): SigningMaterial {
  const key = profile.signingKeys[0];
  if (!key?.d) throw new TypeError('the profile has no private signing key: the suite cannot mint with it');
  return key as SigningMaterial;
}

/** A signature byte changed: a character in the middle of the segment, whose six bits are all signature bits. */
export function altered(token: string): string {
  const dot = token.lastIndexOf('.');
  const sig = token.slice(dot + 1);
  const at = Math.floor(sig.length / 2);
  const c = sig[at] === 'A' ? 'B' : 'A';
  return `${token.slice(0, dot + 1)}${sig.slice(0, at)}${c}${sig.slice(at + 1)}`;
}

/** The compact token of a kind's shape: claims, header, algorithm and signature as the shape names them. */
export async function shapedToken(kind: TokenKind, shape: TokenShape, o: TokenCredentialOptions): Promise<string> {
  const draft = draftOf(kind, o);
  const payload = shapedClaims(kind, shape, draft, o);
  const header = shapedHeader(shape, draft);
  // RFC 9068 §4's alg none: no signature at all, whatever the signing says.
  if (shape.alg === 'none') return `${b64url(JSON.stringify({ ...header, alg: 'none' }))}.${b64url(JSON.stringify(payload))}.`;
  let key: SigningMaterial = shape.signing === 'other-key' ? await foreignKey() : profileKey(o.profile);
  if (shape.alg === 'hs256-public-key') {
    // The RS/HS confusion: HMAC keyed with the bytes of the issuer's public JWK.
    header.alg = 'HS256';
    key = publicKeyAsSecret(o.profile, 'jwk');
  } else if (shape.alg === 'absent') delete header.alg;
  else if (shape.alg) header.alg = { rs256: 'RS256', es384: 'ES384', 'lower-case': 'es256' }[shape.alg];
  const token = await signWith(payload, header, key);
  if (shape.signing === 'unsigned') return token.slice(0, token.lastIndexOf('.') + 1);
  return shape.signing === 'altered' ? altered(token) : token;
}

/**
 * The credentials a kind's caller sends with a token of this shape: the kind's own headers (a guest's session and address
 * as given; an operator's `Operator` attribution) and the token where the shape's form puts it.
 */
export async function credentialsOfToken(kind: TokenKind, shape: TokenShape, o: TokenCredentialOptions): Promise<TokenCredentials> {
  const token = await shapedToken(kind, shape, o);
  const own: Record<string, string> =
    kind === 'guest' ? { ...(o.guestHeaders ?? {}) } : kind === 'operator' ? { operator: operatorAttribution(o.profile) } : {};
  switch (shape.form) {
    case undefined:
      return { headers: { ...own, authorization: `Bearer ${token}` } };
    case 'bearer-lower':
      return { headers: { ...own, authorization: `bearer ${token}` } };
    case 'spaces':
      return { headers: { ...own, authorization: `Bearer   ${token}` } };
    case 'duplicate-bad-first':
    case 'duplicate-bad-last': {
      const sound = `Bearer ${await o.mint.sign(draftOf(kind, o))}`;
      const shaped = `Bearer ${token}`;
      return { headers: { ...own, authorization: shape.form === 'duplicate-bad-first' ? [shaped, sound] : [sound, shaped] } };
    }
    case 'query':
      return { headers: own, query: `access_token=${encodeURIComponent(token)}` };
    case 'cookie':
      return { headers: { ...own, cookie: `access_token=${token}` } };
    case 'no-scheme':
      return { headers: { ...own, authorization: token } };
    case 'dpop-scheme':
      return { headers: { ...own, authorization: `DPoP ${token}` } };
  }
}
