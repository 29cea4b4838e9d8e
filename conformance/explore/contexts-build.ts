// An invited-agent context shape (contexts-shape.ts) made into a request's headers: the forwarder's token as the shape
// varies it (lib/mint.ts), the context drafted by the suite's identity provider in the deployment's format (claims placed
// as the profile's conventions say), its claims and JOSE header varied, signed as the shape says (verbatim through
// lib/jws.ts signWith), and carried in the target's context header or elsewhere. The values a variation writes live
// here; what the spec makes of them is contexts-expect.ts's.
import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { Profile } from '../../contract/profile.js';
import { HEADERS } from '../../contract/headers.js';
import { BASE_API_SCOPES, PERMISSIONS } from '../../contract/scopes.js';
import { accessTokenHash, b64url, signWith, type JsonObject } from '../lib/jws.js';
import type { Minter } from '../lib/mint.js';
import { actsAsOfContext, permissionsOf, type ContextActsAs, type ContextShape } from './contexts-shape.js';
import { altered, profileKey } from './tokens-build.js';

export interface ContextBuildOptions {
  profile: Profile;
  mint: Minter;
  /** The account subject the invited agent acts for. */
  sub: string;
  /** Another account's subject (`sub: other-account`): an account the deployment has. */
  otherSub: string;
  /** The invited agent's id. */
  agentId: string;
  /** The header the target takes the context in (Target.header('invitedAgentContext')). */
  contextHeader: string;
  /**
   * The last context the account's invited agent sent with its own forwarder token: what `ath: lifted` sends again with
   * a new one. Without one, a lifted context is made afresh, bound to another forwarder token (the same expectation).
   */
  lastContext?: string;
}

export interface ContextRequest {
  /** Lower-case names; an array is a repeated header (as `Step['headers']`, exchange.ts). */
  headers: Record<string, string | string[]>;
  /** Whose account an accepted request acts for (contexts-shape.ts actsAsOfContext). */
  actsAs?: ContextActsAs;
}

const OTHER_AUDIENCE = 'https://elsewhere.invalid/api';
/** A key nobody holds. */
const FOREIGN_KEY = createHash('sha256').update('shop-conformance context shape: a key nobody holds').digest('base64url');
const TEN_YEARS = 10 * 365 * 86400;

/** The forwarder token the shape sends (`now`: the minter's clock, epoch seconds). */
function forwarderOf(shape: ContextShape, o: ContextBuildOptions, now: number): Promise<string> {
  const { mint } = o;
  switch (shape.forwarder) {
    case undefined:
      return mint.invitedAgentForwarder();
    case 'other-audience':
      return mint.invitedAgentForwarder({ claims: { aud: OTHER_AUDIENCE } });
    case 'expired':
      return mint.invitedAgentForwarder({ claims: { iat: now - 3900, exp: now - 3600 } });
    case 'no-forward-scope':
      return mint.invitedAgentForwarder({ scope: BASE_API_SCOPES });
    case 'storefront':
      return mint.guest();
    case 'mcp-forwarder':
      return mint.mcpAgentForwarder();
    case 'customer':
      return mint.customer({ sub: o.sub });
  }
}

/** The claims the shape writes over the minted ones (reference names; undefined removes one), before placement. */
async function claimOverrides(shape: ContextShape, o: ContextBuildOptions, now: number): Promise<JsonObject> {
  const set: JsonObject = {};
  if (shape.sub)
    set.sub = {
      absent: undefined,
      empty: '',
      'wrong-type': 12345,
      'other-account': o.otherSub,
      unknown: `xpl_unknown_${randomUUID().slice(0, 8)}`,
      machine: `${o.profile.clients.storefront}@clients`,
    }[shape.sub];
  if (shape.agent_id) set.agent_id = { absent: undefined, empty: '', 'wrong-type': 7, other: `${o.agentId}_other` }[shape.agent_id];
  if (shape.permissions) set.permissions = shape.permissions === 'wrong-type' ? PERMISSIONS.join(' ') : permissionsOf(shape);
  // Times: a past exp takes iat (and the admission snapshot) back with it, so that nothing else is out of order, unless
  // iat is varied too; an iat a day ago takes the snapshot with it (a snapshot is never after its issuance).
  const moveIat = (iat: number) => {
    if (!shape.iat) Object.assign(set, { iat, admitted_at: iat });
  };
  if (shape.exp === 'past-seconds') {
    set.exp = now - 3;
    moveIat(now - 300);
  } else if (shape.exp === 'past-far') {
    set.exp = now - 3600;
    moveIat(now - 3900);
  } else if (shape.exp) set.exp = { 'future-far': now + TEN_YEARS, absent: undefined, string: String(now + 300) }[shape.exp];
  if (shape.iat === 'future') set.iat = now + 3600;
  else if (shape.iat === 'past-far') Object.assign(set, { iat: now - 86400, admitted_at: now - 86400 });
  else if (shape.iat === 'absent') set.iat = undefined;
  if (shape.ath === 'other-token' || shape.ath === 'lifted') set.ath = accessTokenHash(await o.mint.invitedAgentForwarder());
  else if (shape.ath) set.ath = { absent: undefined, 'wrong-type': 42 }[shape.ath];
  if (shape.aud) set.aud = { other: OTHER_AUDIENCE, api: o.profile.audiences.api, 'wrong-type': 42 }[shape.aud];
  return set;
}

/** The JOSE header the shape writes (alg is the signer's: signed()). */
function headerOf(shape: ContextShape, minted: JsonObject): JsonObject {
  const header = { ...minted };
  const typ = String(minted.typ);
  if (shape.typ === 'absent') delete header.typ;
  else if (shape.typ)
    header.typ = { JWT: 'JWT', 'at+jwt': 'at+jwt', upper: typ.toUpperCase(), 'media-type': `application/${typ}` }[shape.typ];
  return header;
}

/** The profile's signing key (the identity provider's, with its private part). */
/** The compact context: header, algorithm and signature as the shape names them. */
async function signed(shape: ContextShape, header: JsonObject, payload: JsonObject, profile: Profile): Promise<string> {
  const contextKey = profile.secrets.webSessionContextKey;
  const input = (h: JsonObject) => `${b64url(JSON.stringify(h))}.${b64url(JSON.stringify(payload))}`;
  switch (shape.alg) {
    case 'none':
      return `${input({ ...header, alg: 'none' })}.`;
    case 'hs512': {
      const i = input({ ...header, alg: 'HS512' });
      return `${i}.${createHmac('sha512', Buffer.from(contextKey, 'utf8')).update(i).digest('base64url')}`;
    }
    case 'lower-case':
      return signWith(payload, { ...header, alg: 'hs256' }, contextKey);
    case 'es256':
      return signWith(payload, { ...header, alg: 'ES256' }, profileKey(profile));
  }
  const key = shape.signing === 'other-key' ? FOREIGN_KEY : shape.signing === 'guest-key' ? profile.secrets.guestSessionKey : contextKey;
  const token = await signWith(payload, header, key);
  if (shape.signing === 'unsigned') return token.slice(0, token.lastIndexOf('.') + 1);
  return shape.signing === 'altered' ? altered(token) : token;
}

/** The context of a shape, bound (`ath`) to `forwarder` unless the shape says otherwise. */
export async function shapedContext(shape: ContextShape, o: ContextBuildOptions, forwarder: string, now: number): Promise<string> {
  const draft = o.mint.draft.invitedAgentContext({
    sub: o.sub,
    agentId: o.agentId,
    permissions: PERMISSIONS,
    forwarderToken: forwarder,
    claims: await claimOverrides(shape, o, now),
  });
  return signed(shape, headerOf(shape, draft.header), draft.payload, o.profile);
}

/** The headers a request of this shape carries, and whose account it acts for had the deployment accepted it. */
export async function buildContext(shape: ContextShape, o: ContextBuildOptions): Promise<ContextRequest> {
  const now = Number(o.mint.draft.invitedAgentForwarder().payload.iat);
  const forwarder = await forwarderOf(shape, o, now);
  // AUTH-CRED-6: a context once taken with its own forwarder token, presented with another (a cache of verified
  // contexts must not skip the binding).
  const context = shape.ath === 'lifted' && o.lastContext !== undefined ? o.lastContext : await shapedContext(shape, o, forwarder, now);
  const name = o.contextHeader.toLowerCase();
  const headers: Record<string, string | string[]> = { authorization: `Bearer ${forwarder}` };
  if (shape.carrier === undefined || shape.carrier === 'two-artifacts') headers[name] = context;
  else if (shape.carrier === 'twice') headers[name] = [context, context];
  else if (shape.carrier === 'cookie') headers.cookie = `${o.contextHeader}=${context}`;
  // AUTH-ASST-18: a second original artifact beside the context (a signed-out assistant's Assistant-Subject).
  if (shape.carrier === 'two-artifacts') headers[HEADERS.assistantSubject.toLowerCase()] = await o.mint.customer({ sub: o.sub });
  const actsAs = actsAsOfContext(shape);
  return actsAs === undefined ? { headers } : { headers, actsAs };
}
