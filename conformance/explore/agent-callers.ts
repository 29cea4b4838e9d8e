// The agent callers of a sequence (plan.ts): invited agents (web-agent forwarder plus a signed invited-agent context),
// assistants (a session registered through the identity-provider proxy's routes, a DPoP key and a token bound to it, a
// fresh proof per request carrying the last DPoP-Nonce the deployment gave), an assistant's browser session carried by
// the web-agent forwarder, and the token and proof defects the suite forges for them. Minting is the suite's own
// (lib/mint.ts, lib/dpop.ts, checks/_shared/assistant-session.ts); this file only chooses what each label sends.
import { randomBytes, randomUUID } from 'node:crypto';
import type { ShopHttp } from '../engine/transport/http.js';
import type { Target } from '../engine/transport/target.js';
import type { Profile } from '../../contract/profile.js';
import { credentialsOf, type Credentials } from '../../contract/requests.js';
import { ALL_PERMISSIONS, provisionSession, refusedReport } from '../lib/assistant-session.js';
import { createDpopKey, dpopProof, type DpopKey } from '../lib/dpop.js';
import { browserSessionValue } from '../lib/credential-formats.js';
import { nowSeconds } from '../lib/jws.js';
import type { Minter } from '../lib/mint.js';
import type { Answer, Step } from './exchange.js';
import { proofDefectOf, type ProofDefect } from './plan.js';
import { asSent, buildProof, type ProofShape } from './proofs.js';

/** One assistant session of a sequence: registered at its first request, its key and bound token. */
interface Session {
  id: string;
  key: DpopKey;
  token: string;
  sub: string;
  /** The last DPoP-Nonce an answer carried, and the one before it. */
  nonce?: string;
  previousNonce?: string;
  /** The last proof sent, per "METHOD path" and overall: what a replay sends again. */
  proofs: Map<string, string>;
  last?: string;
}

/** What an agent request is sent with, and whether a 401 use_dpop_nonce may be answered by a retry with the new nonce. */
export interface AgentRequest {
  headers: Record<string, string>;
  retryOnNonce: boolean;
}

export const isAgentCaller = (caller: string): boolean => /^(invited|assistant|browser|forwarder):/.test(caller);
/** A caller with an assistant session, whose answers' nonces the session keeps for its next proof. */
const hasAssistantSession = (caller: string): boolean => caller.startsWith('assistant:');

/**
 * What a caller label presents, as `headers()` (assistants) and the world's minted credentials (every other caller) send
 * it: the Authorization scheme, whether a proof goes with it, whether the token is marked as an assistant's. The rules
 * read a step's request from this (contract/requests.ts): whether it is a DPoP request, its challenge scheme.
 */
export function credentialsOfCaller(caller: string): Credentials {
  if (caller === 'assistant:bearer') return { scheme: 'bearer', proof: false, assistantToken: true };
  if (hasAssistantSession(caller)) return { scheme: 'dpop', proof: proofDefectOf(caller) !== 'none', assistantToken: true };
  // The world mints a Bearer token for these (world.ts mintFor; agent headers above); any other label is sent bare.
  if (/^(customer|delegated|guest|operator|invited|browser|forwarder|machine)\b/.test(caller))
    return { scheme: 'bearer', proof: false, assistantToken: false };
  return { scheme: undefined, proof: false, assistantToken: false };
}

/** The credentials of a step as sent: its caller's, with the step's own Authorization or DPoP header (`[]`: removed) over them. */
export function credentialsOfStep(step: Pick<Step, 'caller' | 'headers'>): Credentials {
  const base = credentialsOfCaller(step.caller);
  const own = credentialsOf(step.headers);
  return {
    ...('authorization' in step.headers ? { scheme: own.scheme, assistantToken: own.assistantToken } : base),
    proof: 'dpop' in step.headers ? own.proof : base.proof,
  };
}

/** The agent callers of one deployment in one sequence (World owns one; reset() forgets them). */
export class AgentCallers {
  private readonly sessions = new Map<'a' | 'b', Promise<Session>>();
  /** The last context each account's sound invited agent sent (what a lifted context sends again: contexts-build.ts). */
  private readonly contexts = new Map<'a' | 'b', string>();

  constructor(
    private readonly o: {
      profile: Profile;
      mint: Minter;
      http: ShopHttp;
      target: () => Promise<Target>;
      subOf: (account: 'a' | 'b') => string;
    },
  ) {}

  /** Whether account a's session has sent a correct proof a replay can send again (a replay needs one to be a replay). */
  async canReplay(): Promise<boolean> {
    const s = this.sessions.get('a');
    return s !== undefined && (await s).last !== undefined;
  }

  reset(): void {
    this.sessions.clear();
    this.contexts.clear();
  }

  /** The last context the account's invited agent sent with its own forwarder token, if it has sent one. */
  lastContext(account: 'a' | 'b'): string | undefined {
    return this.contexts.get(account);
  }

  /** The headers of one request as `caller` (a DPoP proof carries the last nonce the deployment gave the session). */
  async headers(caller: string, method: string, path: string): Promise<AgentRequest> {
    const { mint } = this.o;
    const account = caller.endsWith(':b') ? 'b' : 'a';
    const sub = this.o.subOf(account);
    if (caller.startsWith('invited:')) return { headers: await this.invited(caller, sub), retryOnNonce: false };
    if (caller === 'forwarder:no-artifact')
      return { headers: { authorization: `Bearer ${await mint.invitedAgentForwarder()}` }, retryOnNonce: false };
    const session = await this.session(account);
    if (caller === 'browser:a') {
      const carrier = (await this.o.target()).browserCarrier();
      const value = browserSessionValue(this.o.profile.conventions, session.id, this.o.profile.secrets.webSessionContextKey);
      const artifact: Record<string, string> =
        carrier.in === 'cookie' ? { cookie: `${carrier.name}=${value}` } : { [carrier.name.toLowerCase()]: value };
      return { headers: { authorization: `Bearer ${await mint.invitedAgentForwarder()}`, ...artifact }, retryOnNonce: false };
    }
    if (caller === 'assistant:bearer') return { headers: { authorization: `Bearer ${session.token}` }, retryOnNonce: false };
    const token =
      caller === 'assistant:expired'
        ? await mint.assistant({ sub: session.sub, sid: session.id, jkt: session.key.thumbprint, expiresIn: -600 })
        : session.token;
    const defect = proofDefectOf(caller);
    const proof = await this.proof(session, token, method, path, defect);
    const headers: Record<string, string> = { authorization: `DPoP ${token}`, ...(proof !== undefined ? { dpop: proof } : {}) };
    // A client answers use_dpop_nonce with the new nonce; a proof pinned to a nonce or sent again is what the step tests.
    return { headers, retryOnNonce: defect !== 'replay' && defect !== 'bad-nonce' && defect !== 'none' };
  }

  /**
   * The headers of one request of an assistant session with its proof shaped (proofs.ts): the shape as it goes out, and
   * whether the session holds a nonce the deployment gave it (what a correct proof carries). No retry on use_dpop_nonce:
   * the answer to the shape is what is judged.
   */
  async shaped(
    caller: string,
    method: string,
    path: string,
    shape: ProofShape,
  ): Promise<{ headers: Record<string, string | string[]>; sent: ProofShape; nonceAsked: boolean }> {
    const s = await this.session(caller.endsWith(':b') ? 'b' : 'a');
    // A replay resends the last correct proof of this very request where there is one (else any last one).
    const lastProof = s.proofs.get(`${method} ${path}`) ?? s.last;
    const built = await buildProof(shape, {
      key: s.key,
      token: s.token,
      method,
      url: this.o.http.url(path),
      ...(s.nonce !== undefined ? { nonce: s.nonce } : {}),
      ...(s.previousNonce !== undefined ? { previousNonce: s.previousNonce } : {}),
      ...(lastProof !== undefined ? { lastProof } : {}),
    });
    return { headers: built.headers, sent: asSent(shape, built.replayed), nonceAsked: s.nonce !== undefined };
  }

  /** Keeps the DPoP-Nonce of an answer to a DPoP caller (every such answer carries a fresh one). */
  async answered(caller: string, answer: Answer): Promise<void> {
    if (!hasAssistantSession(caller)) return;
    const nonce = answer.headers['dpop-nonce'];
    if (!nonce) return;
    const s = await this.session(caller.endsWith(':b') ? 'b' : 'a');
    if (s.nonce !== nonce) s.previousNonce = s.nonce;
    s.nonce = nonce;
  }

  /** Whether an answer asks the caller to retry with the nonce it carries (RFC 9449 §8). */
  static asksForNonce(answer: Answer): boolean {
    const error =
      (answer.json as { error?: unknown } | undefined)?.error ?? /error="([^"]+)"/.exec(answer.headers['www-authenticate'] ?? '')?.[1];
    return answer.status === 401 && error === 'use_dpop_nonce' && Boolean(answer.headers['dpop-nonce']);
  }

  private session(account: 'a' | 'b'): Promise<Session> {
    let s = this.sessions.get(account);
    if (!s) this.sessions.set(account, (s = this.register(account)));
    return s;
  }

  /** A fresh session of the account through the proxy's routes (a refusal there is the route's finding, as in the checks). */
  private async register(account: 'a' | 'b'): Promise<Session> {
    const sub = this.o.subOf(account);
    const identity = await provisionSession(
      (path, o) => this.o.http.post(path, o),
      this.o.profile,
      { sub, permissions: ALL_PERMISSIONS },
      () => sub,
      {
        noSecret: () => {
          throw new Error('the profile has no secrets.proxyIdpSecret: no assistant session can be registered');
        },
        refused: refusedReport,
      },
    );
    const key = await createDpopKey();
    const token = await this.o.mint.assistant({ sub, sid: identity.sessionId, jkt: key.thumbprint });
    return { id: identity.sessionId, key, token, sub, proofs: new Map() };
  }

  /** A new proof for the request, with the defect asked for; a replay is the last proof sent for it (else any last one). */
  private async proof(
    s: Session,
    token: string,
    method: string,
    path: string,
    defect: ProofDefect | undefined,
  ): Promise<string | undefined> {
    if (defect === 'none') return undefined;
    const route = `${method} ${path}`;
    if (defect === 'replay') {
      const again = s.proofs.get(route) ?? s.last;
      if (again !== undefined) return again;
    }
    const url = new URL(this.o.http.url(path));
    const htu = `${url.origin}${url.pathname}`;
    const now = nowSeconds();
    const proof = await dpopProof({
      key: s.key,
      htm: defect === 'wrong-htm' ? (method === 'POST' ? 'DELETE' : 'POST') : method,
      // Another URI on the same origin, never the request's own (a fixed path is the request's when it is sent there).
      htu: defect === 'wrong-htu' ? `${url.origin}/elsewhere${url.pathname}` : htu,
      ...(defect === 'no-ath' ? {} : { accessToken: defect === 'bad-ath' ? `${token}x` : token }),
      ...(defect === 'bad-nonce' ? { nonce: randomBytes(32).toString('base64url') } : s.nonce ? { nonce: s.nonce } : {}),
      ...(defect === 'stale-iat' ? { iat: now - 3600 } : defect === 'future-iat' ? { iat: now + 3600 } : {}),
      ...(defect === 'wrong-key' ? { signingKey: await createDpopKey() } : {}),
      jti: randomUUID(),
    });
    if (defect === undefined) {
      s.proofs.set(route, proof);
      s.last = proof;
    }
    return proof;
  }

  /** An invited agent of the account, or one of its forged credentials (context expired or signed with another key, forwarder for another audience). */
  private async invited(caller: string, sub: string): Promise<Record<string, string>> {
    const { mint } = this.o;
    const forwarder = await mint.invitedAgentForwarder(
      caller === 'invited:wrong-audience' ? { claims: { aud: 'https://elsewhere.invalid' } } : {},
    );
    const context = await mint.invitedAgentContext({
      sub,
      agentId: `xpl_agent_${caller.endsWith(':b') ? 'b' : 'a'}`,
      permissions: ALL_PERMISSIONS,
      forwarderToken: forwarder,
      ...(caller === 'invited:expired-context' ? { claims: { iat: nowSeconds() - 900, exp: nowSeconds() - 600 } } : {}),
      ...(caller === 'invited:forged-context' ? { key: `not-the-context-key-${randomUUID()}` } : {}),
    });
    if (caller === 'invited:a' || caller === 'invited:b') this.contexts.set(caller.endsWith(':b') ? 'b' : 'a', context);
    return { authorization: `Bearer ${forwarder}`, [(await this.o.target()).header('invitedAgentContext').toLowerCase()]: context };
  }
}
