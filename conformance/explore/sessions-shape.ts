// Guest-session shapes for `explore`: a guest caller's Guest-Session value with its format varied (prefix, cart id,
// signature, the whole value), carried otherwise (the other carrier, twice, not at all), and sent with another access
// token (none, the customer's). A shape is symbolic and JSON-serialisable (it is stored in replay files): each member is
// absent (as minted: `gs1.<own cart id>.<HMAC under GUEST_SESSION_KEY>` in the target's carrier, with the storefront's
// token) or the name of one variation, never a value, so one shape resolves on any profile.
// The catalogue, the arbitrary, the description and whose cart an accepted shape acts on are here; buildSession
// (sessions-build.ts) makes the request's headers; expectedOfSession (sessions-expect.ts) says from the spec alone what
// must be answered; sessions.ts is the entry.
import type fc from 'fast-check';
import { describeShape, fieldsOf, namesOf, shapeArbitrary, variationNames, type ShapeOf } from './shapes.js';
import { HEADERS } from '../../contract/headers.js';
import type { ArtifactCarrier } from '../engine/transport/target.js';

/** The spec's carrier of a guest session: "a `Guest-Session` header" (Caller kinds; Credentials per consumer). */
export const GUEST_SESSION_CARRIER: ArtifactCarrier = { in: 'header', name: HEADERS.guestSession };

/** Whether a target's carrier is the spec's own (a deployment may declare a cookie instead: then the header is "the other one"). */
export const isSpecCarrier = (c: ArtifactCarrier): boolean =>
  c.in === 'header' && c.name.toLowerCase() === HEADERS.guestSession.toLowerCase();

/**
 * Every variation, by what it varies, with the label a report shows (spec, Resources > Guest session value:
 * `gs1.<uuid>.<signature>`, a lowercase UUID, a 43-character base64url HMAC-SHA256; Authentication > Guest sessions).
 */
export const SESSION_VARIATIONS = {
  prefix: { other: 'another prefix (guest.)', absent: 'no prefix', version: 'another version (gs2.)', 'upper-case': 'GS1.' },
  uuid: {
    'not-uuid': 'not a UUID, signed as written',
    'upper-case': 'upper-case hex, signed as written',
    'no-hyphens': 'hex digits without hyphens, signed as written',
    'other-guest': "another guest's cart id with its own valid signature",
    new: 'a cart id nobody used, validly signed',
  },
  signature: {
    altered: 'a character changed',
    'altered-late': 'a character of its second half changed',
    'case-flipped': 'every letter in the other case',
    'other-key': 'made with another key',
    'previous-key': 'made with the previous guest key',
    'other-uuid': "another cart id's valid signature",
    truncated: 'truncated to 42 characters',
    padded: 'base64 padding (=) added',
    absent: 'no signature part',
  },
  value: { empty: 'an empty value', whitespace: 'whitespace around it' },
  carrier: {
    other: 'in the other carrier (a cookie for a header, a header for a cookie)',
    twice: "twice: it, then another guest's valid session",
    absent: 'no session at all',
  },
  token: { none: 'no access token', customer: "the customer's token instead of the storefront's" },
} as const;

export type SessionField = keyof typeof SESSION_VARIATIONS;
export const SESSION_FIELDS = fieldsOf(SESSION_VARIATIONS);
export type SessionVariationOf<F extends SessionField> = keyof (typeof SESSION_VARIATIONS)[F] & string;

/** A guest session as a shape: each member absent (as minted) or the name of its variation. */
export type SessionShape = ShapeOf<typeof SESSION_VARIATIONS>;

/** The members that make the value itself (what an empty value or no session at all leaves nothing of). */
const FORMAT_FIELDS: readonly SessionField[] = ['prefix', 'uuid', 'signature'];

/**
 * Whether every variation of a shape still means something: an empty value has no prefix, id or signature to vary; a
 * session that is not sent has no value at all.
 */
export function isMeaningfulSession(shape: SessionShape): boolean {
  const format = FORMAT_FIELDS.some((f) => shape[f] !== undefined);
  if (shape.value === 'empty' && format) return false;
  if (shape.carrier === 'absent' && (format || shape.value !== undefined)) return false;
  return true;
}

/** Every `field:variation` name (what the arbitrary must reach). */
export const sessionVariationNames = (): string[] => variationNames(SESSION_VARIATIONS);

/** The `field:variation` names a shape holds. */
export const sessionVariationNamesOf = (shape: SessionShape): string[] => namesOf(SESSION_VARIATIONS, shape);

/**
 * Session shapes: one variation most of the time, sometimes two or three of different members (so that combinations
 * are judged, the order of the spec's refusals among them), sometimes none (the guest's own session as minted).
 */
export function sessionShapeArbitrary(): fc.Arbitrary<SessionShape> {
  return shapeArbitrary<SessionShape>(SESSION_VARIATIONS, (shape) => (isMeaningfulSession(shape) ? shape : undefined));
}

/** One short line for reports: `uuid: upper-case hex, signed as written, carrier: no session at all`; `as minted`. */
export function describeSession(shape: SessionShape): string {
  return describeShape(SESSION_VARIATIONS, shape, { none: 'as minted' });
}

/**
 * Whose cart a request of this shape acts on, had the deployment accepted it: the guest's own, another guest's (a valid
 * session of that cart), a cart nobody had (a new cart id, or no session: a guest read without one sees an empty cart),
 * or the customer's account cart (the customer's token with no guest header). Undefined where nobody can say: no token,
 * two sessions at once, or the spec's header where the target declared a cookie (a deployment may read either).
 */
export type SessionActsAs = 'own' | 'other' | 'new' | 'customer';

export function actsAsOfSession(shape: SessionShape, carrier: ArtifactCarrier = GUEST_SESSION_CARRIER): SessionActsAs | undefined {
  if (shape.token === 'none' || shape.carrier === 'twice') return undefined;
  if (shape.token === 'customer') return 'customer';
  if (shape.carrier === 'other' && !isSpecCarrier(carrier)) return undefined;
  if (shape.carrier === 'absent' || shape.carrier === 'other' || shape.value === 'empty') return 'new';
  if (shape.uuid === 'other-guest') return 'other';
  return shape.uuid === 'new' ? 'new' : 'own';
}
