// The doctor's trust probes: for every caller kind the profile claims, a credential as that caller presents it, on a read
// the kind may use. Any answer but 401 or 503 proves that the deployment verified the token and classified its client: a
// 403 caller_not_allowed comes after verification. Assistant credentials need a live session, registered through the
// identity-provider proxy's route (docs/internal-routes.md); without one the probe can only show that the deployment does
// not refuse the token the way it refuses a forged copy of it (same claims and kid, a foreign signature).
import { randomUUID } from 'node:crypto';
import { HEADERS } from '../../contract/headers.js';
import { OPERATIONS_BY_ID } from '../../contract/operations.js';
import type { Profile } from '../../contract/profile.js';
import { PERMISSIONS } from '../../contract/scopes.js';
import { createDpopKey, dpopProof, type DpopKey } from '../lib/dpop.js';
import { browserSessionValue, proxyPayload } from '../lib/credential-formats.js';
import { signDraft } from '../lib/jws.js';
import { createForeignKey, type Minter, type TokenDraft } from '../lib/mint.js';
import { findChallenge, parseChallenges } from '../lib/www-authenticate.js';
import type { ShopHttp, ShopResponse } from './http.js';

type Sign = (draft: TokenDraft) => Promise<string>;

/** An assistant session the probes act in; `registered` is false when the deployment has no record of it. */
export interface AssistantSession {
  sub: string;
  sessionId: string;
  key: DpopKey;
  registered: boolean;
}

interface ProbeEnv {
  http: ShopHttp;
  profile: Profile;
  mint: Minter;
  sign: Sign;
  subject: string;
  session: AssistantSession | null;
  /** Path of an operator read, from the deployment's description when it names one. */
  opsPath: string;
  /** Header names of the agent artifacts, as the deployment's documents (or the profile's conventions) give them. */
  artifactHeaders: { invitedAgentContext: string; assistantBrowserSession: string };
}

export interface Probe {
  kind: string;
  claimed(c: Profile['capabilities']): boolean;
  /** The credential is admitted only for a live assistant session. */
  needsSession?: boolean;
  /** The deployment settings (the reference's names) that make it trust this kind. */
  settings(p: Profile): string[];
  send(env: ProbeEnv): Promise<{ what: string; res: ShopResponse }>;
}

export interface TrustResult {
  kind: string;
  ok: boolean;
  detail: string;
  /** The refusal, when the deployment refused the credential. */
  refusal?: ShopResponse;
}

const CATALOG = OPERATIONS_BY_ID.get('listCollections')!.path;
const OPS_READ = 'searchOpsOrders';
export const REGISTER = '/internal/assistant/agents/connected';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const ofClient = (env: string, value: string) => `${env}=${value}`;

/** A session token of the assistant session, signed by `sign`. */
const assistantToken = (e: ProbeEnv, s: AssistantSession) =>
  e.sign(e.mint.draft.assistant({ sub: s.sub, jkt: s.key.thumbprint, sid: s.sessionId }));

export const PROBES: readonly Probe[] = [
  {
    kind: 'customer',
    claimed: () => true,
    settings: (p) => [ofClient('WEBSITE_CLIENT_ID', p.clients.website)],
    send: async (e) => ({
      what: `GET ${CATALOG}`,
      res: await e.http.get(CATALOG, { headers: bearer(await e.sign(e.mint.draft.customer({ sub: e.subject }))) }),
    }),
  },
  {
    kind: 'guest',
    claimed: (c) => c.guests,
    settings: (p) => [ofClient('STOREFRONT_CLIENT_ID', p.clients.storefront)],
    send: async (e) => ({
      what: `GET ${CATALOG}`,
      res: await e.http.get(CATALOG, { headers: bearer(await e.sign(e.mint.draft.guest())) }),
    }),
  },
  {
    kind: 'operator',
    claimed: (c) => c.operators,
    settings: (p) => [ofClient('BACKOFFICE_CLIENT_ID', p.clients.backoffice)],
    send: async (e) => ({
      what: `GET ${e.opsPath}`,
      res: await e.http.get(e.opsPath, {
        headers: { ...bearer(await e.sign(e.mint.draft.operator())), [HEADERS.operator]: 'shop-conformance-doctor' },
      }),
    }),
  },
  {
    kind: 'delegated',
    claimed: (c) => c.delegated,
    settings: (p) => [ofClient('AGENT_PROTOCOL_CLIENT_ID', p.clients.agentProtocol), ofClient('AGENT_AUDIENCE', p.audiences.agent)],
    send: async (e) => ({
      what: `GET ${CATALOG}`,
      res: await e.http.get(CATALOG, { headers: bearer(await e.sign(e.mint.draft.delegated({ sub: e.subject }))) }),
    }),
  },
  {
    kind: 'invited-agent',
    claimed: (c) => c.invitedAgents,
    settings: (p) => [
      ofClient('WEB_AGENT_FORWARDER_CLIENT_ID', p.clients.webAgentForwarder),
      "WEB_SESSION_CONTEXT_KEY (the profile's secrets.webSessionContextKey)",
    ],
    send: async (e) => {
      const forwarder = await e.sign(e.mint.draft.invitedAgentForwarder());
      const context = await e.mint.invitedAgentContext({
        sub: e.subject,
        agentId: `doctor_agent_${randomUUID()}`,
        permissions: [],
        forwarderToken: forwarder,
      });
      return {
        what: `GET ${CATALOG}`,
        res: await e.http.get(CATALOG, { headers: { ...bearer(forwarder), [e.artifactHeaders.invitedAgentContext]: context } }),
      };
    },
  },
  {
    kind: 'assistant',
    claimed: (c) => c.assistants,
    needsSession: true,
    settings: (p) => [ofClient('PERSONAL_AGENT_PROXY_CLIENT_ID', p.clients.personalAgentProxy)],
    send: async (e) => ({
      what: `GET ${CATALOG} (DPoP)`,
      res: await dpopGet(e.http, CATALOG, await assistantToken(e, e.session!), e.session!.key),
    }),
  },
  {
    kind: 'assistant (MCP agent forwarder)',
    claimed: (c) => c.assistants,
    needsSession: true,
    settings: (p) => [ofClient('MCP_AGENT_FORWARDER_CLIENT_ID', p.clients.mcpAgentForwarder)],
    send: async (e) => {
      const headers = {
        ...bearer(await e.sign(e.mint.draft.mcpAgentForwarder())),
        [HEADERS.assistantSubject]: await assistantToken(e, e.session!),
      };
      return { what: `GET ${CATALOG}`, res: await e.http.get(CATALOG, { headers }) };
    },
  },
  {
    kind: 'assistant browser (web agent forwarder)',
    claimed: (c) => c.assistants,
    needsSession: true,
    settings: (p) => [ofClient('WEB_AGENT_FORWARDER_CLIENT_ID', p.clients.webAgentForwarder)],
    send: async (e) => {
      const headers = {
        ...bearer(await e.sign(e.mint.draft.invitedAgentForwarder())),
        [e.artifactHeaders.assistantBrowserSession]: browserSessionValue(
          e.profile.conventions,
          e.session!.sessionId,
          e.profile.secrets.webSessionContextKey,
        ),
      };
      return { what: `GET ${CATALOG}`, res: await e.http.get(CATALOG, { headers }) };
    },
  },
];

/** The `error` of a problem answer: the body's member, else the challenge's parameter. */
export function errorCode(res: ShopResponse): string | undefined {
  if (typeof res.body?.error === 'string') return res.body.error;
  try {
    const challenges = parseChallenges(res.headers.get('www-authenticate') ?? '');
    return (findChallenge(challenges, 'DPoP') ?? findChallenge(challenges, 'Bearer'))?.params.error;
  } catch {
    return undefined;
  }
}

/** `401 invalid_token "The token signature does not verify."`: the status, the code and the deployment's own detail. */
export function describeAnswer(res: ShopResponse): string {
  const error = errorCode(res);
  const detail = typeof res.body?.detail === 'string' ? ` "${res.body.detail}"` : '';
  return `${res.status}${error ? ` ${error}` : ''}${detail}`;
}

/** A GET in the DPoP scheme with a fresh proof, sent once more with the server's nonce when it asks for one (RFC 9449 §8). */
async function dpopGet(http: ShopHttp, path: string, token: string, key: DpopKey): Promise<ShopResponse> {
  const url = new URL(http.url(path));
  const send = async (nonce?: string) =>
    http.get(path, {
      headers: {
        authorization: `DPoP ${token}`,
        dpop: await dpopProof({ key, htm: 'GET', htu: `${url.origin}${url.pathname}`, accessToken: token, ...(nonce ? { nonce } : {}) }),
      },
    });
  const first = await send();
  const nonce = first.headers.get('dpop-nonce');
  return first.status === 401 && nonce && errorCode(first) === 'use_dpop_nonce' ? send(nonce) : first;
}

/** The path of the operator read the deployment describes (by operationId), else the contract's. */
export function operatorReadPath(description: unknown): string {
  const paths = (description as { paths?: Record<string, Record<string, { operationId?: unknown }>> } | undefined)?.paths;
  for (const [path, item] of Object.entries(paths ?? {})) {
    if (path.includes('{') || !item || typeof item !== 'object') continue;
    if (Object.values(item).some((op) => op && typeof op === 'object' && op.operationId === OPS_READ)) return path;
  }
  return OPERATIONS_BY_ID.get(OPS_READ)!.path;
}

/**
 * Registers a fresh assistant session signed in to a fresh account, as the identity-provider proxy reports a connected
 * agent. Never throws: the session comes back unregistered, with the refusal or the error, when the report is not accepted.
 */
export async function registerSession(
  http: ShopHttp,
  profile: Profile,
): Promise<{ session: AssistantSession; refusal?: ShopResponse; error?: string }> {
  const id = randomUUID().replace(/-/g, '');
  const session: AssistantSession = { sub: `doctor_${id}`, sessionId: `doctor_sess_${id}`, key: await createDpopKey(), registered: false };
  const secret = profile.secrets.proxyIdpSecret;
  if (secret === null) return { session };
  try {
    const res = await http.post(REGISTER, {
      headers: { 'x-proxy-idp-secret': secret },
      json: proxyPayload(profile.conventions, 'agentConnected', {
        subject: session.sub,
        agent_id: `doctor_agent_${id}`,
        client_id: `doctor_client_${id}`,
        permissions: [...PERMISSIONS],
        session_id: session.sessionId,
      }),
    });
    if (res.status >= 200 && res.status < 300) return { session: { ...session, registered: true } };
    return { session, refusal: res };
  } catch (err) {
    return { session, error: (err as Error).message };
  }
}

/**
 * Runs one probe. A refusal (401, 503, no answer) fails it; for an assistant probe without a registered session, a 401
 * that differs from the answer to a forged copy still shows the signature was accepted.
 */
export async function runProbe(p: Probe, env: Omit<ProbeEnv, 'sign'>): Promise<TrustResult> {
  const genuine: Sign = (d) => env.mint.sign(d);
  let sent;
  try {
    sent = await p.send({ ...env, sign: genuine });
  } catch (err) {
    return { kind: p.kind, ok: false, detail: `no answer (${(err as Error).message})` };
  }
  const { what, res } = sent;
  if (res.status !== 401 && res.status !== 503) return { kind: p.kind, ok: true, detail: `${what}: ${res.status}` };
  const refused = { kind: p.kind, ok: false, detail: `${what}: ${describeAnswer(res)}`, refusal: res };
  if (res.status === 503 || !p.needsSession || env.session?.registered !== false) return refused;

  const foreign = await createForeignKey();
  const forged = await p.send({ ...env, sign: (d) => signDraft(d, foreign.privateKey) }).catch(() => undefined);
  if (forged && describeAnswer(forged.res) !== describeAnswer(res)) {
    return { kind: p.kind, ok: true, detail: `${what}: ${describeAnswer(res)}, unlike a forged copy: the signature is accepted` };
  }
  return { ...refused, detail: `${refused.detail}, as for a forged copy` };
}

export { CATALOG };
