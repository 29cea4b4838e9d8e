// Invited-agent context shapes for `explore`: an invited agent's signed context (spec, Credentials per consumer: "a
// bearer-bound signed invited-agent context (token type `invited-agent+jwt`)"; Caller kinds: the agent acts "with its
// original admission snapshot"; Customer authority: WEB_SESSION_CONTEXT_KEY) with its claims, JOSE header and signing
// varied, sent with a varied web-agent-forwarder token, in the target's context header or elsewhere. The claims are the
// deployment's format (docs/tokens.md, "Invited-agent context", placed as the profile's conventions say). A shape is
// symbolic and JSON-serialisable (it is stored in replay files): each member absent (as minted) or the name of one
// variation. buildContext (contexts-build.ts) makes the headers; expectedOfContext (contexts-expect.ts) says from the
// spec what must be answered; contexts.ts is the entry.
import type fc from 'fast-check';
import { describeShape, fieldsOf, namesOf, shapeArbitrary, variationNames, type ShapeOf } from './shapes.js';
import { PERMISSION_API_SCOPES, PERMISSIONS } from '../../contract/scopes.js';

/** Every variation, by what it varies, with the label a report shows. */
export const CONTEXT_VARIATIONS = {
  typ: {
    JWT: 'JWT',
    absent: 'absent',
    'at+jwt': 'at+jwt (an access token type)',
    upper: 'its type in upper case',
    'media-type': 'its type as application/<type>',
  },
  alg: {
    none: 'none, no signature',
    hs512: 'HS512 with the context key',
    'lower-case': 'hs256',
    es256: "ES256 with the identity provider's key",
  },
  signing: {
    'other-key': 'by another key',
    'guest-key': 'by the guest session key',
    altered: 'signature bytes altered',
    unsigned: 'no signature',
  },
  sub: {
    absent: 'absent',
    empty: 'empty',
    'wrong-type': 'a number',
    'other-account': "another account's subject",
    unknown: 'an account nobody has',
    machine: 'a machine subject (<client_id>@clients)',
  },
  agent_id: { absent: 'absent', empty: 'empty', 'wrong-type': 'a number', other: 'another agent of the account' },
  permissions: {
    none: 'none (base authority)',
    'read-only': 'assistant:read only',
    'write-only': 'assistant:write only',
    'checkout-only': 'checkout only',
    'no-read': 'assistant:write and checkout',
    'unknown-only': 'an unknown permission only',
    'unknown-extra': 'every permission and an unknown one',
    'api-scopes': 'API scope names instead of permissions',
    'upper-case': 'every permission in upper case',
    absent: 'absent',
    'wrong-type': 'a space-delimited string',
  },
  exp: {
    'past-seconds': 'three seconds past',
    'past-far': 'an hour past',
    'future-far': 'ten years ahead',
    absent: 'absent',
    string: 'a string',
  },
  iat: { future: 'an hour ahead', 'past-far': 'a day ago', absent: 'absent' },
  ath: {
    'other-token': "another forwarder token's hash",
    absent: 'absent',
    'wrong-type': 'a number',
    lifted: "the agent's last context, sent again verbatim with a new forwarder token",
  },
  aud: { other: 'another audience', api: "the service's API audience", 'wrong-type': 'a number' },
  forwarder: {
    'other-audience': 'for another audience',
    expired: 'expired an hour ago',
    'no-forward-scope': 'without agent:forward',
    storefront: "the storefront's token instead",
    'mcp-forwarder': "the MCP agent forwarder's token instead",
    customer: "the account's customer token instead",
  },
  carrier: {
    absent: 'no context header',
    twice: 'the context header twice',
    cookie: 'in a cookie instead of its header',
    'two-artifacts': 'beside an Assistant-Subject artifact',
  },
} as const;

export type ContextField = keyof typeof CONTEXT_VARIATIONS;
export const CONTEXT_FIELDS = fieldsOf(CONTEXT_VARIATIONS);
export type ContextVariationOf<F extends ContextField> = keyof (typeof CONTEXT_VARIATIONS)[F] & string;

/** An invited-agent context as a shape: each member absent (as minted) or the name of its variation. */
export type ContextShape = ShapeOf<typeof CONTEXT_VARIATIONS>;

/** The members of the context itself (what a request without the context has none of). */
const CONTENT_FIELDS: readonly ContextField[] = ['typ', 'alg', 'signing', 'sub', 'agent_id', 'permissions', 'exp', 'iat', 'ath', 'aud'];

/**
 * Whether every variation of a shape still means something: a context not sent has no content to vary, nor has one
 * lifted from an earlier request; an algorithm names its own key and signature (none, the identity provider's), so it
 * and the signing do not combine.
 */
export function isMeaningfulContext(shape: ContextShape): boolean {
  if (shape.carrier === 'absent' && CONTENT_FIELDS.some((f) => shape[f] !== undefined)) return false;
  // A lifted context is an earlier one sent verbatim: nothing of its content can be varied.
  if (shape.ath === 'lifted' && CONTENT_FIELDS.some((f) => f !== 'ath' && shape[f] !== undefined)) return false;
  return !(shape.alg !== undefined && shape.signing !== undefined);
}

/** Every `field:variation` name (what the arbitrary must reach). */
export const contextVariationNames = (): string[] => variationNames(CONTEXT_VARIATIONS);

/** The `field:variation` names a shape holds. */
export const contextVariationNamesOf = (shape: ContextShape): string[] => namesOf(CONTEXT_VARIATIONS, shape);

/**
 * Context shapes: one variation most of the time, sometimes two or three of different members (so that combinations
 * are judged, the order of the spec's refusals among them), sometimes none (the context as minted).
 */
export function contextShapeArbitrary(): fc.Arbitrary<ContextShape> {
  return shapeArbitrary<ContextShape>(CONTEXT_VARIATIONS, (shape) => (isMeaningfulContext(shape) ? shape : undefined));
}

/** One short line for reports: `permissions: assistant:read only, forwarder: expired an hour ago`; `as minted`. */
export function describeContext(shape: ContextShape): string {
  return describeShape(CONTEXT_VARIATIONS, shape, { none: 'as minted' });
}

/** A permission no table names (AUTH-SCOPE-10: it unlocks nothing beyond the base scopes). */
export const UNKNOWN_PERMISSION = 'assistant:admin';

/**
 * The permissions a context of this shape carries, as the builder writes them and the judge reads them: an array of
 * names, or undefined where the member is absent or not an array (`permissions: absent`, `wrong-type`).
 */
export function permissionsOf(shape: ContextShape): readonly string[] | undefined {
  switch (shape.permissions) {
    case undefined:
      return PERMISSIONS;
    case 'none':
      return [];
    case 'read-only':
      return ['assistant:read'];
    case 'write-only':
      return ['assistant:write'];
    case 'checkout-only':
      return ['checkout'];
    case 'no-read':
      return ['assistant:write', 'checkout'];
    case 'unknown-only':
      return [UNKNOWN_PERMISSION];
    case 'unknown-extra':
      return [...PERMISSIONS, UNKNOWN_PERMISSION];
    case 'api-scopes':
      // The API scopes the read and write permissions map to, none of which is itself a permission's name.
      return [...PERMISSION_API_SCOPES['assistant:read'], ...PERMISSION_API_SCOPES['assistant:write']];
    case 'upper-case':
      return PERMISSIONS.map((p) => p.toUpperCase());
    case 'absent':
    case 'wrong-type':
      return undefined;
  }
}

/** Whose account an accepted request of this shape acts on: the context's, another account's, one nobody had. */
export type ContextActsAs = 'own' | 'other' | 'new';

export function actsAsOfContext(shape: ContextShape): ContextActsAs | undefined {
  // Another caller kind's token: a guest without a session, or the customer (of the context's own account).
  if (shape.forwarder === 'storefront') return undefined;
  if (shape.sub === 'other-account') return 'other';
  if (shape.sub === 'unknown') return 'new';
  return shape.sub === undefined ? 'own' : undefined;
}
