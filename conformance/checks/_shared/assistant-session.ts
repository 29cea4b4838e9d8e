// Assistant sessions as the identity-provider proxy reports them (docs/internal-routes.md), and the credentials made
// beside their tokens: the signed-out proxy token and the browser session (formats: profile conventions). A refused report
// fails the route's clause: the profile claims assistants. Checks never share a session: each provisions its own (fresh
// session id, agent id and, by default, a fresh account subject), so workers and reruns agree.
import { randomUUID } from 'node:crypto';
import { notApplicable, type Shop } from '../../engine/runner/check.js';
import { applyOverrides, epochSeconds, signDraft, type JsonObject } from '../../lib/jws.js';
import { audienceOf, PERSONAL_AGENT_ACTOR, type Audience } from '../../lib/mint.js';
import { artifactFormat, browserSessionValue } from '../../lib/credential-formats.js';
import {
  provisionSession,
  refusedReport,
  reportToProxy,
  type AssistantIdentity,
  type Post,
  type ProvisionOptions,
  type ProxyOutcomes,
} from '../../lib/assistant-session.js';
import { SPECIAL_PATHS } from '../../../contract/routes.js';

export { ALL_PERMISSIONS, type AssistantIdentity, type ProvisionOptions } from '../../lib/assistant-session.js';

/** The secret of the identity-provider proxy, or a skip: without it the suite cannot create assistant sessions. */
function proxySecret(shop: Shop): string {
  const secret = shop.profile.secrets.proxyIdpSecret;
  if (secret === null)
    return notApplicable(
      'the profile has no secrets.proxyIdpSecret: the suite cannot register assistant sessions (POST /internal/assistant/...); declare it to judge assistants',
    );
  return secret;
}

/** A check's outcomes of a proxy report: no secret skips (the suite cannot make sessions); a refusal fails the route's clause. */
const outcomes = (shop: Shop): ProxyOutcomes => ({
  noSecret: () => proxySecret(shop) as never,
  refused: refusedReport,
});

const postOf =
  (shop: Shop): Post =>
  (path, o) =>
    shop.http.post(path, o);

async function proxyCall(shop: Shop, path: string, report: JsonObject): Promise<void> {
  await reportToProxy(postOf(shop), shop.profile, path, report, outcomes(shop));
}

/**
 * Registers a fresh assistant session through the internal routes (docs/internal-routes.md): signed in, the connected-agent
 * report with `session_id` (`POST /internal/assistant/agents/connected`); signed out, `POST /internal/assistant/sessions/signed-out`.
 * A refusal of those routes fails the check on the route's clause (the profile claims assistants), with the transcript.
 */
export const provisionAssistantSession = (shop: Shop, o: ProvisionOptions = {}): Promise<AssistantIdentity> =>
  provisionSession(postOf(shop), shop.profile, o, () => shop.subject('asst'), outcomes(shop));

/** The proxy reports that the session signed out (it keeps its id; the account and the scopes go). */
export async function signOutSession(shop: Shop, identity: AssistantIdentity, scopes: readonly string[] = []): Promise<void> {
  await proxyCall(shop, SPECIAL_PATHS.registerSignedOutAssistantSession, {
    session_id: identity.sessionId,
    client_id: identity.clientId,
    scopes,
  });
}

/** The proxy reports a new decision of the account about the agent: `granted` replaces the live scopes, `revoked` signs its sessions out. */
export async function reportAuthorization(
  shop: Shop,
  identity: Pick<AssistantIdentity, 'sub' | 'agentId'>,
  decision: 'granted' | 'revoked',
  permissions: readonly string[] = [],
): Promise<void> {
  if (identity.sub === null) throw new TypeError('a signed-out session has no account to decide for');
  await proxyCall(shop, SPECIAL_PATHS.recordAgentAuthorization, {
    subject: identity.sub,
    agent_id: identity.agentId,
    permissions,
    decision,
  });
}

// --------------------------------------------------------------------------------------- signed-out proxy tokens, browser

export interface SignedOutTokenOptions {
  sid: string;
  jkt: string;
  /** Space-delimited or a list; none by default (a signed-out session has only the base authority). */
  scope?: string | readonly string[];
  audience?: Audience;
  expiresIn?: number;
  /** Include `act: { sub: "personal_agent" }` (default true). */
  act?: boolean;
  claims?: JsonObject;
  header?: JsonObject;
  /** HMAC key; defaults to the profile's proxyIdpSecret (another one forges the token). */
  key?: string | Uint8Array;
}

/**
 * A signed-out proxy token as the identity-provider proxy issues it to an assistant whose session is signed out (the
 * reference's format, docs/assistants.md): JWS HS256 keyed with the UTF-8 bytes of PROXY_IDP_SECRET, header
 * `typ: signed-out-proxy+jwt`; `client_id` the proxy client, `sub` = `<client_id>@clients` (no account), `aud`, `iat`, `exp`,
 * `jti`, `sid`, `cnf.jkt`, and `act: { sub: "personal_agent" }`.
 */
export async function signedOutProxyToken(shop: Shop, o: SignedOutTokenOptions): Promise<string> {
  const key = o.key ?? proxySecret(shop);
  const client = shop.profile.clients.personalAgentProxy;
  const iat = epochSeconds(new Date());
  const scope = o.scope === undefined ? undefined : typeof o.scope === 'string' ? o.scope : o.scope.join(' ');
  const payload: JsonObject = {
    iss: shop.profile.issuer,
    aud: shop.profile.audiences[o.audience ?? audienceOf(shop.profile, 'assistant')],
    sub: `${client}@clients`,
    client_id: client,
    iat,
    exp: iat + (o.expiresIn ?? 300),
    jti: randomUUID(),
    sid: o.sid,
    cnf: { jkt: o.jkt },
    ...((o.act ?? true) ? { act: { sub: PERSONAL_AGENT_ACTOR } } : {}),
    ...(scope !== undefined ? { scope } : {}),
  };
  const format = artifactFormat(shop.profile.conventions, 'signedOutProxyToken');
  return signDraft(
    { header: applyOverrides({ alg: 'HS256', typ: format.typ }, o.header), payload: format.place(applyOverrides(payload, o.claims)) },
    key,
  );
}

/** Header the web agent forwarder carries an assistant's browser session in (the reference's choice, docs/assistants.md). */
export const ASSISTANT_BROWSER_SESSION_HEADER = 'Assistant-Browser-Session';

/** An assistant's browser session (`asb1.<session id>.<MAC>` unless the profile's conventions say otherwise). */
export const browserSession = (shop: Shop, sessionId: string, key: string = shop.profile.secrets.webSessionContextKey): string =>
  browserSessionValue(shop.profile.conventions, sessionId, key);
