// Assistant sessions as the identity-provider proxy reports them (docs/internal-routes.md), for the checks and for
// `explore` alike: a fresh identity, the report that registers it (placed as the profile's conventions say), and the call
// that sends it. What a refusal means is the caller's: a check fails the route's clause, `explore` stops the step.
// No engine here: the caller passes what posts a request.
import { randomUUID } from 'node:crypto';
import type { Profile } from '../../contract/profile.js';
import { PERMISSIONS } from '../../contract/scopes.js';
import { SPECIAL_PATHS } from '../../contract/routes.js';
import { PROXY_REPORTS, proxyPayload } from './credential-formats.js';
import type { JsonObject } from './jws.js';
import { failSetup } from './assert.js';

/** Every account permission an assistant session can hold (spec, Scope translation). */
export const ALL_PERMISSIONS: readonly string[] = PERMISSIONS;

export interface AssistantIdentity {
  /** The account the session is signed in to; null for a signed-out session. */
  sub: string | null;
  sessionId: string;
  agentId: string;
  /** The agent's client at the identity-provider proxy (the session's `client_id`). */
  clientId: string;
  /** The session's live scopes (permissions) as registered. */
  permissions: readonly string[];
}

export interface ProvisionOptions {
  /** The account; defaults to a fresh subject (a new, empty, active account). Ignored when signedIn is false. */
  sub?: string;
  /** Live scopes of the session; defaults to every permission. */
  permissions?: readonly string[];
  /** true (default): the proxy reports the agent connected and the session signed in; false: a signed-out session. */
  signedIn?: boolean;
  sessionId?: string;
  agentId?: string;
  clientId?: string;
}

/** What sends a report: a POST with headers and a JSON body, answered with a status and a text. */
export type Post = (path: string, o: { headers: Record<string, string>; json: unknown }) => Promise<{ status: number; text: string }>;

/** What the caller does when the proxy's secret is not declared, or a report is refused. */
export interface ProxyOutcomes {
  noSecret(): never;
  refused(path: string, res: { status: number; text: string }): never;
}

/** The clause of each identity-provider proxy route (spec, Public and special routes). */
const PROXY_ROUTE_CLAUSE: Readonly<Record<string, string>> = {
  [SPECIAL_PATHS.registerSignedOutAssistantSession]: 'END-PUBLIC-11',
  [SPECIAL_PATHS.recordConnectedAgent]: 'END-PUBLIC-12',
  [SPECIAL_PATHS.recordAgentAuthorization]: 'END-PUBLIC-13',
};

/**
 * A refused report, where the profile claims assistants: a failure of the refusing route's clause, never a skip (the
 * checks' and `explore`'s answer alike).
 */
export function refusedReport(path: string, res: { status: number; text: string }): never {
  return failSetup(
    `the identity-provider proxy route ${path} refused the suite's report, so no assistant session can be provisioned`,
    '2xx',
    `${res.status} ${res.text.slice(0, 200)}`,
    { clause: PROXY_ROUTE_CLAUSE[path] ?? 'END-PUBLIC-12' },
  );
}

const idSuffix = () => randomUUID().replace(/-/g, '');

/** A fresh identity; `freshSubject` names a new account when none is given. */
export function newIdentity(o: ProvisionOptions, freshSubject: () => string): AssistantIdentity {
  const signedIn = o.signedIn ?? true;
  return {
    sub: signedIn ? (o.sub ?? freshSubject()) : null,
    sessionId: o.sessionId ?? `asst_sess_${idSuffix()}`,
    agentId: o.agentId ?? `asst_agent_${idSuffix()}`,
    clientId: o.clientId ?? `asst_client_${idSuffix()}`,
    permissions: [...(o.permissions ?? ALL_PERMISSIONS)],
  };
}

/** The report that registers the identity: the connected-agent report when signed in, else the signed-out session's. */
export function registration(identity: AssistantIdentity): { path: string; report: JsonObject } {
  if (identity.sub !== null)
    return {
      path: SPECIAL_PATHS.recordConnectedAgent,
      report: {
        subject: identity.sub,
        agent_id: identity.agentId,
        client_id: identity.clientId,
        permissions: identity.permissions,
        session_id: identity.sessionId,
      },
    };
  return {
    path: SPECIAL_PATHS.registerSignedOutAssistantSession,
    report: { session_id: identity.sessionId, client_id: identity.clientId, scopes: identity.permissions },
  };
}

/** Sends a report of the proxy with its secret, placed as the deployment takes it; a non-2xx answer is `refused`. */
export async function reportToProxy(
  post: Post,
  profile: Pick<Profile, 'conventions' | 'secrets'>,
  path: string,
  report: JsonObject,
  outcomes: ProxyOutcomes,
): Promise<{ status: number; text: string }> {
  const secret = profile.secrets.proxyIdpSecret;
  if (secret === null) return outcomes.noSecret();
  const res = await post(path, {
    headers: { 'x-proxy-idp-secret': secret },
    json: proxyPayload(profile.conventions, PROXY_REPORTS[path]!, report),
  });
  if (res.status < 200 || res.status > 299) return outcomes.refused(path, res);
  return res;
}

/** Registers a fresh assistant session through the proxy's report (signed in by default). */
export async function provisionSession(
  post: Post,
  profile: Pick<Profile, 'conventions' | 'secrets'>,
  o: ProvisionOptions,
  freshSubject: () => string,
  outcomes: ProxyOutcomes,
): Promise<AssistantIdentity> {
  const identity = newIdentity(o, freshSubject);
  const { path, report } = registration(identity);
  await reportToProxy(post, profile, path, report, outcomes);
  return identity;
}
