// The formats of the credentials the suite makes beside its access tokens, which no description document can state: the
// invited-agent context, the signed-out proxy token, an assistant's browser session, and the payloads of the identity-
// provider proxy's reports. The defaults are the reference's (docs/tokens.md, docs/assistants.md, docs/internal-routes.md);
// a deployment that chose otherwise says so in its profile's `conventions` (docs/profile.md). Pure: no network, no engine.
import { createHmac } from 'node:crypto';
import type { Profile } from '../../contract/profile.js';
import { setPointer } from './openapi-schema.js';
import type { JsonObject } from './jws.js';
import { SPECIAL_PATHS } from '../../contract/routes.js';

export type Conventions = NonNullable<Profile['conventions']>;
export type ProxyReport = keyof NonNullable<Conventions['proxyPayloads']>;

export const INVITED_AGENT_CONTEXT_TYP = 'invited-agent+jwt';
export const SIGNED_OUT_PROXY_TYP = 'signed-out-proxy+jwt';
export const BROWSER_SESSION_PREFIX = 'asb1';
/** The `Operator` attribution header's value by default: the spec names the header, not its form (conventions.operatorAttribution). */
export const OPERATOR_ATTRIBUTION = 'conformance@shop.test';

/** The `Operator` attribution header's value the suite sends with every operator request. */
export const operatorAttribution = (profile: Pick<Profile, 'conventions'>): string =>
  profile.conventions?.operatorAttribution ?? OPERATOR_ATTRIBUTION;

/**
 * Moves each member named in `map` to its JSON Pointer; members the map does not name, and named members that are absent
 * (a negative check deleted them), stay as they are. The moves apply in the map's order, to the original members.
 */
export function relocate(value: JsonObject, map: Readonly<Record<string, string>> | undefined): JsonObject {
  if (!map) return value;
  const moved = Object.entries(map).filter(([member]) => Object.hasOwn(value, member));
  let out: unknown = Object.fromEntries(Object.entries(value).filter(([k]) => !moved.some(([m]) => m === k)));
  for (const [member, pointer] of moved) out = setPointer(out, pointer, value[member]);
  return out as JsonObject;
}

/** The header type and claim placement of a signed artifact. */
export function artifactFormat(
  conventions: Conventions | undefined,
  artifact: 'invitedAgentContext' | 'signedOutProxyToken',
): { typ: string; place: (claims: JsonObject) => JsonObject } {
  const c = conventions?.credentials?.[artifact];
  const typ = c?.typ ?? (artifact === 'invitedAgentContext' ? INVITED_AGENT_CONTEXT_TYP : SIGNED_OUT_PROXY_TYP);
  return { typ, place: (claims) => relocate(claims, c?.claims) };
}

/** `<prefix>.<session id>.<base64url HMAC-SHA-256(key, "<prefix>.<session id>")>`: an assistant's browser session. */
export function browserSessionValue(conventions: Conventions | undefined, sessionId: string, key: string): string {
  const signed = `${conventions?.credentials?.browserSession?.prefix ?? BROWSER_SESSION_PREFIX}.${sessionId}`;
  return `${signed}.${createHmac('sha256', key).update(signed, 'utf8').digest('base64url')}`;
}

/** The members of the proxy's reports that carry lists of permissions or scopes. */
const LIST_MEMBERS = ['permissions', 'scopes'];

/**
 * A report of the identity-provider proxy, written with the reference's members and values, as the deployment takes it:
 * its values first (conventions.proxyValues: the decision's words, lists as arrays or space-delimited strings), then its
 * members moved (conventions.proxyPayloads).
 */
export function proxyPayload(conventions: Conventions | undefined, report: ProxyReport, body: JsonObject): JsonObject {
  const values = conventions?.proxyValues;
  const out: JsonObject = { ...body };
  if (values?.lists === 'space-delimited')
    for (const m of LIST_MEMBERS) if (Array.isArray(out[m])) out[m] = (out[m] as unknown[]).join(' ');
  const decision = out.decision;
  if (report === 'agentAuthorization' && (decision === 'granted' || decision === 'revoked'))
    out.decision = values?.decision?.[decision] ?? decision;
  return relocate(out, conventions?.proxyPayloads?.[report]);
}

/** The report an internal proxy route takes. */
export const PROXY_REPORTS: Readonly<Record<string, ProxyReport>> = {
  [SPECIAL_PATHS.recordConnectedAgent]: 'agentConnected',
  [SPECIAL_PATHS.registerSignedOutAssistantSession]: 'sessionSignedOut',
  [SPECIAL_PATHS.recordAgentAuthorization]: 'agentAuthorization',
};
