// The doctor's trust probes: for every caller kind the profile claims, a credential as that caller presents it, on a read
// the kind may use. Any answer but 401 or 503 proves that the deployment verified the token and classified its client: a
// 403 caller_not_allowed comes after verification. Assistant credentials need a live session, registered through the
// identity-provider proxy's route (docs/internal-routes.md); without one the probe can only show that the deployment does
// not refuse the token the way it refuses a forged copy of it (same claims and kid, a foreign signature).
import { operatorAttribution } from '../../lib/credential-formats.js';
import { randomUUID } from 'node:crypto';
import type { CallerKind } from '../../../contract/callers.js';
import { HEADERS } from '../../../contract/headers.js';
import { OPERATIONS_BY_ID } from '../../../contract/operations.js';
import type { Profile } from '../../../contract/profile.js';
import { dpopProof, type DpopKey } from '../../lib/dpop.js';
import { browserSessionValue } from '../../lib/credential-formats.js';
import { signDraft } from '../../lib/jws.js';
import { audienceOf, createForeignKey, type Audience, type Minter, type TokenDraft } from '../../lib/mint.js';
import { errorCode, meaningOfRefusal, type RefusalMeaning } from './doctor-refusals.js';
import { nonceOf } from '../../rules/05-authentication.js';
import type { AssistantSession } from './doctor-session.js';
import type { ShopHttp, ShopResponse } from '../transport/http.js';
import type { ArtifactCarrier } from '../transport/target.js';

export { errorCode };

type Sign = (draft: TokenDraft) => Promise<string>;

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
  artifactHeaders: { invitedAgentContext: string; assistantBrowserSession: ArtifactCarrier };
  /** The audience to mint the kind's token with, when another than the profile's is tried. */
  audience?: Audience;
}

export interface Probe {
  kind: string;
  /** The caller kind whose token is probed: its audiences (profile `audiences.callers`) are the ones tried. */
  caller: CallerKind;
  /** The clause of the read the probe makes: a refusal that does not say the token is untrusted breaks it. */
  route: string;
  /** Sent in the DPoP scheme. */
  dpop?: boolean;
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
  /** What the refusal means: distrust (exit 3) or a violation of the clause of the refusing route (exit 1). */
  meaning?: RefusalMeaning | { kind: 'unanswered' };
  /** When the token was refused for its audience: the profile's audience for the kind, and another that the deployment accepts. */
  audiences?: { refused: Audience; accepted: Audience };
}

const CATALOG = OPERATIONS_BY_ID.get('listCollections')!.path;
const CATALOG_CLAUSE = 'END-OPS-LISTCOLLECTIONS-1';
/** Every path under /v1/ops/* is operator-only, and an operator is admitted there. */
const OPS_CLAUSE = 'PUR-SERVE-5';
const OPS_READ = 'searchOpsOrders';

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const ofClient = (env: string, value: string) => `${env}=${value}`;

/** The audience option of a draft: the one being tried, else the kind's own. */
const aud = (e: ProbeEnv) => (e.audience ? { audience: e.audience } : {});

/** The read most probes make, with the credential's `headers`: the catalog, which every caller kind of the storefront list may read. */
const readCatalog = async (e: ProbeEnv, headers: Record<string, string>) => ({
  what: `GET ${CATALOG}`,
  res: await e.http.get(CATALOG, { headers }),
});

/** A session token of the assistant session, signed by `sign`. */
const assistantToken = (e: ProbeEnv, s: AssistantSession) =>
  e.sign(e.mint.draft.assistant({ sub: s.sub, jkt: s.key.thumbprint, sid: s.sessionId, ...aud(e) }));

/**
 * A probe of a forwarder of the live assistant session: its own machine token plus the session's original artifact
 * (`headers`), on the catalog read.
 */
const assistantForwarder = (
  kind: string,
  settings: Probe['settings'],
  headers: (e: ProbeEnv) => Promise<Record<string, string>>,
): Probe => ({
  kind,
  caller: 'assistant',
  route: CATALOG_CLAUSE,
  claimed: (c) => c.assistants,
  needsSession: true,
  settings,
  send: async (e) => readCatalog(e, await headers(e)),
});

export const PROBES: readonly Probe[] = [
  {
    kind: 'customer',
    caller: 'customer',
    route: CATALOG_CLAUSE,
    claimed: () => true,
    settings: (p) => [ofClient('WEBSITE_CLIENT_ID', p.clients.website)],
    send: async (e) => readCatalog(e, bearer(await e.sign(e.mint.draft.customer({ sub: e.subject, ...aud(e) })))),
  },
  {
    kind: 'guest',
    caller: 'guest',
    route: CATALOG_CLAUSE,
    claimed: (c) => c.guests,
    settings: (p) => [ofClient('STOREFRONT_CLIENT_ID', p.clients.storefront)],
    send: async (e) => readCatalog(e, bearer(await e.sign(e.mint.draft.guest(aud(e))))),
  },
  {
    kind: 'operator',
    caller: 'operator',
    route: OPS_CLAUSE,
    claimed: (c) => c.operators,
    settings: (p) => [ofClient('BACKOFFICE_CLIENT_ID', p.clients.backoffice)],
    send: async (e) => ({
      what: `GET ${e.opsPath}`,
      res: await e.http.get(e.opsPath, {
        headers: { ...bearer(await e.sign(e.mint.draft.operator(aud(e)))), [HEADERS.operator]: operatorAttribution(e.mint.profile) },
      }),
    }),
  },
  {
    kind: 'delegated',
    caller: 'delegated',
    route: CATALOG_CLAUSE,
    claimed: (c) => c.delegated,
    settings: (p) => {
      const audience = audienceOf(p, 'delegated');
      return [
        ofClient('AGENT_PROTOCOL_CLIENT_ID', p.clients.agentProtocol),
        ofClient(audience === 'agent' ? 'AGENT_AUDIENCE' : 'API_AUDIENCE', p.audiences[audience]),
      ];
    },
    send: async (e) => readCatalog(e, bearer(await e.sign(e.mint.draft.delegated({ sub: e.subject, ...aud(e) })))),
  },
  {
    kind: 'invited-agent',
    caller: 'invited-agent',
    route: CATALOG_CLAUSE,
    claimed: (c) => c.invitedAgents,
    settings: (p) => [
      ofClient('WEB_AGENT_FORWARDER_CLIENT_ID', p.clients.webAgentForwarder),
      "WEB_SESSION_CONTEXT_KEY (the profile's secrets.webSessionContextKey)",
    ],
    send: async (e) => {
      const forwarder = await e.sign(e.mint.draft.invitedAgentForwarder(aud(e)));
      const context = await e.mint.invitedAgentContext({
        sub: e.subject,
        agentId: `doctor_agent_${randomUUID()}`,
        permissions: [],
        forwarderToken: forwarder,
      });
      return readCatalog(e, { ...bearer(forwarder), [e.artifactHeaders.invitedAgentContext]: context });
    },
  },
  {
    kind: 'assistant',
    caller: 'assistant',
    route: CATALOG_CLAUSE,
    dpop: true,
    claimed: (c) => c.assistants,
    needsSession: true,
    settings: (p) => [ofClient('PERSONAL_AGENT_PROXY_CLIENT_ID', p.clients.personalAgentProxy)],
    send: async (e) => ({
      what: `GET ${CATALOG} (DPoP)`,
      res: await dpopGet(e.http, CATALOG, await assistantToken(e, e.session!), e.session!.key),
    }),
  },
  assistantForwarder(
    'assistant (MCP agent forwarder)',
    (p) => [ofClient('MCP_AGENT_FORWARDER_CLIENT_ID', p.clients.mcpAgentForwarder)],
    async (e) => ({
      ...bearer(await e.sign(e.mint.draft.mcpAgentForwarder())),
      [HEADERS.assistantSubject]: await assistantToken(e, e.session!),
    }),
  ),
  assistantForwarder(
    'assistant browser (web agent forwarder)',
    (p) => [ofClient('WEB_AGENT_FORWARDER_CLIENT_ID', p.clients.webAgentForwarder)],
    async (e) => ({
      ...bearer(await e.sign(e.mint.draft.invitedAgentForwarder())),
      ...carried(
        e.artifactHeaders.assistantBrowserSession,
        browserSessionValue(e.profile.conventions, e.session!.sessionId, e.profile.secrets.webSessionContextKey),
      ),
    }),
  ),
];

/** An artifact as request headers: in its header, or as the cookie the deployment declares (`Cookie: <name>=<value>`). */
const carried = (c: ArtifactCarrier, value: string): Record<string, string> =>
  c.in === 'cookie' ? { cookie: `${c.name}=${value}` } : { [c.name]: value };

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
  const nonce = nonceOf(first.headers);
  return first.status === 401 && nonce && errorCode(first) === 'use_dpop_nonce' ? send(nonce) : first;
}

/** The path of the operator read the deployment describes (by operationId), else the contract's. */
export function operatorReadPath(description: unknown): string {
  const paths = (description as { paths?: Record<string, Record<string, { operationId?: unknown }>> } | undefined)?.paths;
  const reads = Object.entries(paths ?? {}).filter(
    ([path, item]) => path.startsWith('/v1/ops/') && !path.includes('{') && item && typeof item === 'object' && 'get' in item,
  );
  // The spec shows no operator operation: any described read under /v1/ops/ that names no record, the reference's search
  // first where it is described, and the reference's path where the document describes none.
  const own = reads.find(([, item]) => item.get?.operationId === OPS_READ) ?? reads[0];
  return own?.[0] ?? OPERATIONS_BY_ID.get(OPS_READ)!.path;
}

/**
 * Runs one probe. A refusal (401, 503, no answer) fails it, and says what it means (meaningOfRefusal). For an assistant
 * probe without a registered session, a 401 that differs from the answer to a forged copy still shows the signature was
 * accepted. A token refused as untrusted is minted again for the kind's other audiences (the profile's
 * `audiences.callers`, else both) before the probe concludes: the one accepted is named.
 */
export async function runProbe(p: Probe, env: Omit<ProbeEnv, 'sign'>): Promise<TrustResult> {
  const genuine: Sign = (d) => env.mint.sign(d);
  let sent;
  try {
    sent = await p.send({ ...env, sign: genuine });
  } catch (err) {
    return { kind: p.kind, ok: false, detail: `no answer (${(err as Error).message})`, meaning: { kind: 'unanswered' } };
  }
  const { what, res } = sent;
  if (res.status !== 401 && res.status !== 503) return { kind: p.kind, ok: true, detail: `${what}: ${res.status}` };
  const meaning = meaningOfRefusal(res, p.route, p.dpop);
  const refused: TrustResult = { kind: p.kind, ok: false, detail: `${what}: ${describeAnswer(res)}`, refusal: res, meaning };
  if (meaning.kind === 'violation') return { ...refused, detail: `${refused.detail}: ${meaning.why}` };
  if (meaning.kind === 'outage') return refused;

  if (p.needsSession && env.session?.registered === false) {
    const foreign = await createForeignKey();
    const forged = await p.send({ ...env, sign: (d) => signDraft(d, foreign.privateKey) }).catch(() => undefined);
    if (forged && describeAnswer(forged.res) !== describeAnswer(res)) {
      return { kind: p.kind, ok: true, detail: `${what}: ${describeAnswer(res)}, unlike a forged copy: the signature is accepted` };
    }
    return { ...refused, detail: `${refused.detail}, as for a forged copy` };
  }
  const minted = env.audience ?? audienceOf(env.profile, p.caller);
  const others = (env.profile.audiences.callers?.[p.caller] ?? (['api', 'agent'] as const)).filter((a) => a !== minted);
  for (const audience of others) {
    const again = await p.send({ ...env, sign: genuine, audience }).catch(() => undefined);
    if (again && again.res.status !== 401 && again.res.status !== 503)
      return {
        ...refused,
        detail: `${refused.detail}; for the ${audience} audience (${env.profile.audiences[audience]}): ${again.res.status}`,
        audiences: { refused: minted, accepted: audience },
      };
  }
  return refused;
}

export { CATALOG };
