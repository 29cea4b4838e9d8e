// A guest-session shape (sessions-shape.ts) made into a request's headers: the value `gs1.<uuid>.<signature>` written as
// the shape says (lib/guest-session.ts signs; the variations here alter), put in the target's carrier or the other one,
// beside the storefront's token, the customer's, or none. The values a variation writes live here; what the spec makes
// of them is sessions-expect.ts's. Shopper-IP is the caller's to add (a guest's only: on a website token it is refused).
import { createHash, randomUUID } from 'node:crypto';
import type { Profile } from '../../contract/profile.js';
import { HEADERS } from '../../contract/headers.js';
import type { ArtifactCarrier } from '../engine/transport/target.js';
import { guestSessionSignature, signGuestSession } from '../lib/guest-session.js';
import type { Minter } from '../lib/mint.js';
import { actsAsOfSession, isSpecCarrier, type SessionActsAs, type SessionShape } from './sessions-shape.js';

export interface SessionBuildOptions {
  profile: Profile;
  /** Not needed to write a value (the tokens come minted); accepted so that every shape builder takes the same world. */
  mint?: Minter;
  /** The guest key the storefront signs with (GUEST_SESSION_KEY). */
  key: string | Uint8Array;
  /** The guest's own cart id (a lowercase UUID). */
  uuid: string;
  /** Another guest's cart id: `uuid: other-guest` is a valid session of that cart, and a second session (`carrier: twice`). */
  otherUuid: string;
  /** Where the target takes the session: the spec's `Guest-Session` header, or what the target declares. */
  carrier: ArtifactCarrier;
  /** The storefront's machine token (the guest's access token). */
  guestToken: string;
  /** A customer's access token (`token: customer`). */
  customerToken: string;
  /** A cart id nobody used (`uuid: new`, `signature: other-uuid`); default random. */
  randomUUID?: () => string;
}

export interface SessionRequest {
  /** Lower-case names; an array is a repeated header (as `Step['headers']`, exchange.ts). */
  headers: Record<string, string | string[]>;
  /** Whose cart an accepted request acts on (sessions-shape.ts actsAsOfSession). */
  actsAs?: SessionActsAs;
}

/** A key nobody holds: the storefront's signature made with it is forged. */
const FOREIGN_KEY = createHash('sha256').update('shop-conformance session shape: a key nobody holds').digest('base64url');

const PREFIXES: Record<NonNullable<SessionShape['prefix']> | 'minted', string> = {
  minted: 'gs1.',
  other: 'guest.',
  absent: '',
  version: 'gs2.',
  'upper-case': 'GS1.',
};

/** A character of base64url other than `c` (the first carries six full bits: a lax decoder cannot ignore it). */
const otherChar = (c: string) => (c === 'A' ? 'B' : 'A');

/** The cart id as the value writes it. */
function idOf(shape: SessionShape, o: SessionBuildOptions, fresh: () => string): string {
  switch (shape.uuid) {
    case undefined:
      return o.uuid;
    case 'not-uuid':
      return `cart-${o.uuid.slice(0, 8)}`;
    case 'upper-case':
      return o.uuid.toUpperCase();
    case 'no-hyphens':
      return o.uuid.replace(/-/g, '');
    case 'other-guest':
      return o.otherUuid;
    case 'new':
      return fresh();
  }
}

/** The signature part (undefined: none), made over the id as written unless the shape says otherwise. */
function signatureOf(shape: SessionShape, id: string, o: SessionBuildOptions, fresh: () => string): string | undefined {
  const key =
    shape.signature === 'other-key'
      ? FOREIGN_KEY
      : shape.signature === 'previous-key'
        ? (o.profile.secrets.guestSessionKeyPrevious ?? FOREIGN_KEY)
        : o.key;
  const sig = guestSessionSignature(shape.signature === 'other-uuid' ? fresh() : id, key);
  switch (shape.signature) {
    case 'altered':
      return `${otherChar(sig[0] ?? 'A')}${sig.slice(1)}`;
    // Character 36 of 43: every bit of it is the HMAC's (only the last character holds unused bits).
    case 'altered-late':
      return `${sig.slice(0, 36)}${otherChar(sig[36] ?? 'A')}${sig.slice(37)}`;
    case 'case-flipped':
      return sig.replace(/[A-Za-z]/g, (c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()));
    case 'truncated':
      return sig.slice(0, 42);
    case 'padded':
      return `${sig}=`;
    case 'absent':
      return undefined;
    default:
      return sig;
  }
}

/** The Guest-Session value of a shape (before its carrier). */
export function sessionValue(shape: SessionShape, o: SessionBuildOptions): string {
  if (shape.value === 'empty') return '';
  const fresh = o.randomUUID ?? randomUUID;
  const id = idOf(shape, o, fresh);
  const sig = signatureOf(shape, id, o, fresh);
  const value = `${PREFIXES[shape.prefix ?? 'minted']}${id}${sig === undefined ? '' : `.${sig}`}`;
  // RFC 9110 §5.5: whitespace around a field value is not part of it (a space and a tab before, two spaces after).
  return shape.value === 'whitespace' ? ` \t${value}  ` : value;
}

/** The carrier that is not the target's: a cookie of the same name for a header, the spec's header for a cookie. */
const otherCarrier = (c: ArtifactCarrier): ArtifactCarrier =>
  c.in === 'header'
    ? { in: 'cookie', name: isSpecCarrier(c) ? HEADERS.guestSession : c.name }
    : { in: 'header', name: HEADERS.guestSession };

function carried(c: ArtifactCarrier, values: readonly string[]): Record<string, string | string[]> {
  if (c.in === 'cookie') return { cookie: values.map((v) => `${c.name}=${v}`).join('; ') };
  return { [c.name.toLowerCase()]: values.length === 1 ? values[0]! : [...values] };
}

/** The headers a request of this shape carries, and whose cart it acts on had the deployment accepted it. */
export function buildSession(shape: SessionShape, o: SessionBuildOptions): SessionRequest {
  const token = shape.token === 'none' ? undefined : shape.token === 'customer' ? o.customerToken : o.guestToken;
  const headers: Record<string, string | string[]> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  const value = sessionValue(shape, o);
  if (shape.carrier === undefined) Object.assign(headers, carried(o.carrier, [value]));
  else if (shape.carrier === 'other') Object.assign(headers, carried(otherCarrier(o.carrier), [value]));
  else if (shape.carrier === 'twice') Object.assign(headers, carried(o.carrier, [value, signGuestSession(o.otherUuid, o.key)]));
  const actsAs = actsAsOfSession(shape, o.carrier);
  return actsAs === undefined ? { headers } : { headers, actsAs };
}
