// Assistants (spec, Assistant authority; docs/assistants.md): DPoP-bound session tokens presented directly — single-level
// personal_agent exchanges from the proxy client, or separately verified signed-out proxy tokens — or brought by a
// forwarder with exactly one original artifact (the MCP agent forwarder: the original token in Assistant-Subject; the web
// agent forwarder: the assistant's browser session in Assistant-Browser-Session). Authority is the live session's.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { jwtVerify } from 'jose';
import { HEADERS } from '../../../contract/headers.js';
import { LIMITS } from '../../../contract/limits.js';
import { PERMISSION_API_SCOPES, PERMISSIONS } from '../../../contract/scopes.js';
import type { Config } from '../config.js';
import type { Domain } from '../domain.js';
import type { Bound } from '../pipeline/context.js';
import { invalidRequest, ProblemError } from '../problem.js';
import { recordDpopProof, sharedSecret } from '../store/dpop.js';
import { getAgentAuthorization, getAssistantSession } from '../store/internal.js';
import type { AgentAdmission, AuthenticateArgs } from './agents.js';
import { actChain, classifyCaller, type Classification } from '../auth/classify.js';
import { isConversationPath, peekSegment, PERSONAL_AGENT_ACTOR, SIGNED_OUT_PROXY_TYP } from '../auth/challenge.js';
import { checkDpopProof, singleDpopHeader, type ProofFailure } from '../auth/dpop.js';
import { createDpopNonces, type DpopNonces } from '../auth/dpop-nonce.js';
import { checkIssuedAt, scopesOf, type VerifiedToken } from '../auth/verify-token.js';
import { memoize } from '../bounded.js';
import { describeJoseError } from '../auth/jose-errors.js';

/** Header carrying an assistant's browser session when the web agent forwarder brings it (the reference's choice). */
export const ASSISTANT_BROWSER_SESSION_HEADER = 'Assistant-Browser-Session';
/** Prefix (and version) of browser-session values: `asb1.<session id>.<signature>`. */
export const BROWSER_SESSION_PREFIX = 'asb1';
/** Accepted proofs are remembered for the iat window plus this much, for clocks of instances that disagree a little. */
export const REPLAY_SKEW_SECONDS = 60;
/** Name of the generated nonce key in `server_secrets` (used when DPOP_NONCE_KEY is unset). */
export const NONCE_SECRET_NAME = 'dpop_nonce_key';
/** Signed-out proxy tokens: HMAC-SHA-256 with the UTF-8 bytes of PROXY_IDP_SECRET. */
export const SIGNED_OUT_PROXY_ALGS = ['HS256'];
const MAX_TOKEN_CHARS = 8192;
const SESSION_ID = /^[\x20-\x7E]{1,128}$/; // as the internal routes accept it: 1-128 printable ASCII characters

const invalidToken = (detail: string, cause?: unknown) =>
  new ProblemError('invalid_token', { detail, cause, challenge: { kind: 'chosen', error: 'invalid_token' } });
const proofProblem = (f: ProofFailure) => new ProblemError(f.error, { detail: f.detail, challenge: { kind: 'chosen', error: f.error } });

// ------------------------------------------------------------------------------------------------------------- nonces

/** The nonce issuer of a running reference (DPOP_NONCE_KEY, else a key kept in the database, shared by its instances). */
export function createDpopNoncesFor(config: Domain['config'], db: Domain['db'], now: Date): DpopNonces {
  return createDpopNonces(config.dpopNonceKey ?? sharedSecret(db, NONCE_SECRET_NAME, now), config.dpopNonceLifetimeSeconds);
}

/**
 * First thing of the authenticate stage: a request whose challenge scheme is DPoP gets a fresh `DPoP-Nonce` on every
 * response, whatever happens next ([AUTH-ORDER-4]). The boundary and the output stage write it.
 */
export function startDpopRequest(ctx: Bound): void {
  // [AUTH-ORDER-4] a request with DPoP gets a fresh DPoP-Nonce on every response, success or failure.
  if (ctx.scheme !== 'DPoP' || ctx.dpopNonce !== undefined) return;
  const { domain } = ctx;
  ctx.dpopNonce = domain.dpopNonces.current(domain.clock());
}

// ------------------------------------------------------------------------------------------- signed-out proxy tokens

/** True when the unverified header type says signed-out proxy token (the authenticate stage then verifies it here). */
export function isSignedOutProxyToken(credential: string): boolean {
  return signedOutTyped(credential);
}
// Asked of every bearer credential, and a client sends one token many times: decoded once per token.
const signedOutTyped = memoize(1000, (credential) => isSignedOutTyp(peekSegment(credential, 0)?.typ));

/** `signed-out-proxy+jwt`, or `application/signed-out-proxy+jwt` (the same type, RFC 7515 §4.1.9), in any case. */
function isSignedOutTyp(typ: unknown): boolean {
  if (typeof typ !== 'string') return false;
  const t = typ.toLowerCase();
  return t === SIGNED_OUT_PROXY_TYP || t === `application/${SIGNED_OUT_PROXY_TYP}`;
}

/**
 * Verifies a signed-out proxy token (docs/assistants.md): JWS HS256 keyed with the UTF-8 bytes of PROXY_IDP_SECRET, header
 * `typ: signed-out-proxy+jwt`; `client_id` the proxy client, `sub` = `<client_id>@clients` (no account), `aud` the API or
 * agent audience, `exp` and `iat`, `sid`, `cnf.jkt`; `act`, when present, exactly `{ sub: "personal_agent" }`. Closed
 * (every such token refused) while PROXY_IDP_SECRET is unset.
 */
export async function verifySignedOutProxyToken(credential: string, config: Config, now: Date): Promise<VerifiedToken> {
  // [AUTH-ASST-16] a separately verified signed-out proxy token is also a direct assistant token.
  if (config.proxyIdpSecret === null) throw invalidToken('Signed-out proxy tokens are not accepted: the proxy secret is not configured.');
  if (credential.length > MAX_TOKEN_CHARS) throw invalidToken('The token is too large.');
  let verified;
  try {
    verified = await jwtVerify(credential, new TextEncoder().encode(config.proxyIdpSecret), {
      algorithms: SIGNED_OUT_PROXY_ALGS,
      typ: SIGNED_OUT_PROXY_TYP,
      audience: [config.apiAudience, config.agentAudience],
      currentDate: now,
      requiredClaims: ['exp', 'iat', 'sub', 'client_id', 'sid', 'cnf'],
      clockTolerance: 0,
    });
  } catch (err) {
    throw invalidToken(describeJoseError(err, 'The signed-out proxy token', { algorithms: 'HS256 only' }), err);
  }
  const { payload, protectedHeader } = verified;
  const iatProblem = checkIssuedAt(payload.iat, now);
  if (iatProblem) throw invalidToken(iatProblem.replace('The token', 'The signed-out proxy token'));
  if (payload.client_id !== config.personalAgentProxyClientId)
    throw invalidToken('A signed-out proxy token must be issued to the proxy client.');
  if (payload.sub !== `${config.personalAgentProxyClientId}@clients`)
    throw invalidToken('A signed-out proxy token names no account: sub must be <client_id>@clients.');
  if (payload.act !== undefined) {
    const chain = actChain(payload.act);
    if (!chain || chain.length !== 1 || chain[0] !== PERSONAL_AGENT_ACTOR)
      throw invalidToken('A signed-out proxy token act may only be the single-level personal_agent actor.');
  }
  const cnf = payload.cnf as { jkt?: unknown } | undefined;
  if (!cnf || typeof cnf !== 'object' || typeof cnf.jkt !== 'string' || cnf.jkt.length === 0)
    throw invalidToken('A signed-out proxy token must be bound to a key (cnf.jkt).');
  if (payload.scope !== undefined && typeof payload.scope !== 'string') throw invalidToken('scope must be a string.');
  return { raw: credential, claims: payload as VerifiedToken['claims'], header: protectedHeader as Record<string, unknown> };
}

/** The classification of a verified signed-out proxy token: an assistant with no account. */
export function signedOutProxyCaller(token: VerifiedToken): Classification {
  return {
    kind: 'assistant',
    clientId: token.claims.client_id,
    sub: token.claims.sub,
    actChain: token.claims.act === undefined ? [] : [PERSONAL_AGENT_ACTOR],
  };
}

const isSignedOut = (token: VerifiedToken) => isSignedOutTyp(token.header.typ);

// ------------------------------------------------------------------------------------------------- browser sessions

const browserSignature = (sessionId: string, key: string) =>
  createHmac('sha256', key).update(`${BROWSER_SESSION_PREFIX}.${sessionId}`, 'utf8').digest('base64url');

/** `asb1.<session id>.<base64url HMAC-SHA-256(WEB_SESSION_CONTEXT_KEY, "asb1.<session id>")>` (docs/assistants.md). */
export function signBrowserSession(sessionId: string, key: string): string {
  return `${BROWSER_SESSION_PREFIX}.${sessionId}.${browserSignature(sessionId, key)}`;
}

/** The assistant session id a browser-session value names, or undefined when it is malformed or forged. */
export function verifyBrowserSession(value: string, key: string): string | undefined {
  if (!value.startsWith(`${BROWSER_SESSION_PREFIX}.`)) return undefined;
  const rest = value.slice(BROWSER_SESSION_PREFIX.length + 1);
  const dot = rest.lastIndexOf('.');
  if (dot < 1) return undefined;
  const sessionId = rest.slice(0, dot);
  const signature = Buffer.from(rest.slice(dot + 1), 'utf8');
  if (!SESSION_ID.test(sessionId)) return undefined;
  const expected = Buffer.from(browserSignature(sessionId, key), 'utf8');
  return signature.length === expected.length && timingSafeEqual(signature, expected) ? sessionId : undefined;
}

// ------------------------------------------------------------------------------------------------ authenticate stage

/** The URL a proof's htu must name: PUBLIC_BASE_URL (origin and path prefix) when set, else the Host the request came to. */
export function publicRequestUrl(req: Request, config: Config): string {
  if (config.publicBaseUrl !== null) {
    const base = new URL(config.publicBaseUrl);
    return `${base.protocol}//${base.host}${base.pathname.replace(/\/+$/, '')}${req.path}`;
  }
  return `${req.protocol}://${req.get('host') ?? ''}${req.path}`;
}

/**
 * Authenticate stage, for every request under the DPoP scheme and every assistant token (RFC 9449 §7.1): an assistant
 * token only with the DPoP scheme; a key-bound token (`cnf.jkt`); exactly one DPoP header; a proof valid for this method,
 * URL, token and key, carrying the current server nonce; and, once all that passed, a jti never seen before on any instance
 * sharing the database. A forwarder's Bearer request has no proof: its artifact is verified at admission.
 */
export async function authenticateDpop(args: AuthenticateArgs): Promise<void> {
  const { req, ctx, token, caller } = args;
  const scheme = ctx.presentedScheme;
  startDpopRequest(ctx);
  const { domain } = ctx;
  const { config, db, clock } = domain;
  if (scheme === 'bearer') {
    // [AUTH-ASST-2] [ERR-TABLE-3] assistant session tokens are never accepted as Bearer.
    if (caller.kind === 'assistant' && caller.forwarder === undefined)
      throw invalidToken('An assistant token must be presented with the DPoP scheme and a proof.');
    return;
  }
  const cnf = token.claims.cnf as { jkt?: unknown } | undefined;
  const jkt = cnf && typeof cnf === 'object' ? cnf.jkt : undefined;
  if (typeof jkt !== 'string' || jkt.length === 0)
    throw invalidToken('A token presented with the DPoP scheme must be bound to a key (cnf.jkt).');

  // [AUTH-ASST-1] [ERR-TABLE-4] a DPoP-bound token travels with exactly one valid proof.
  const header = singleDpopHeader(req.rawHeaders);
  if (!header.ok) throw proofProblem(header);
  const now = clock();
  const proof = await checkDpopProof(header.value, {
    method: req.method,
    url: publicRequestUrl(req, config),
    accessToken: token.raw,
    jkt,
    now,
    iatWindowSeconds: config.dpopIatWindowSeconds,
    nonces: domain.dpopNonces,
  });
  if (!proof.ok) throw proofProblem(proof);

  // [AUTH-ASST-11] replay (RFC 9449 §11.1): recorded last, shared by every instance on the file; a store failure refuses (fails closed).
  let fresh: boolean;
  try {
    fresh = recordDpopProof(db, {
      jkt: proof.thumbprint,
      jti: proof.jti,
      expiresAt: new Date((proof.iat + config.dpopIatWindowSeconds + REPLAY_SKEW_SECONDS) * 1000),
    });
  } catch (err) {
    throw new ProblemError('unavailable', {
      detail: 'DPoP proofs cannot be checked for replay right now.',
      headers: { 'Retry-After': String(LIMITS.outageRetryAfterSeconds) },
      cause: err,
    });
  }
  if (!fresh)
    throw proofProblem({
      ok: false,
      error: 'invalid_dpop_proof',
      reason: 'replay',
      detail: 'The DPoP proof was already used (its jti is recorded).',
    });
}

// ------------------------------------------------------------------------------------------------ admit-caller stage

/** A verified original assistant token (direct, or the one a forwarder carries). */
interface AssistantTokenFacts {
  sessionId: string;
  /** The account the token names; null for a signed-out proxy token. */
  sub: string | null;
  scopes: ReadonlySet<string>;
}

function tokenFacts(token: VerifiedToken): AssistantTokenFacts {
  const sid = token.claims.sid;
  if (typeof sid !== 'string' || !SESSION_ID.test(sid))
    throw invalidToken('An assistant token needs sid: the assistant session id (1-128 printable ASCII characters).');
  return { sessionId: sid, sub: isSignedOut(token) ? null : token.claims.sub, scopes: scopesOf(token.claims) };
}

/** The permissions a token's API scopes amount to: a permission is held when every API scope it unlocks is in the token. */
export function permissionsOfScopes(scopes: ReadonlySet<string>): string[] {
  return PERMISSIONS.filter((p) => PERMISSION_API_SCOPES[p].every((s) => scopes.has(s)));
}

/**
 * The live session decides (spec, Authentication > Assistant authority): an unknown session is refused; the session is signed in only when
 * it is signed in to the account the token names (a browser session: to its own account) and that agent's authorization
 * is not revoked. Otherwise — a signed-out token on a signed-in session, a signed-in token on a signed-out session — the
 * assistant acts signed out: no account and no permissions, so only the base catalog and cart authority.
 */
function admitSession(domain: Domain, sessionId: string, token: AssistantTokenFacts | null): Omit<AgentAdmission, 'forwarderScopes'> {
  const session = getAssistantSession(domain.db, sessionId);
  if (!session) throw invalidToken('The assistant session is unknown.');
  const authorization =
    session.subject !== null && session.agent_id !== null ? getAgentAuthorization(domain.db, session.subject, session.agent_id) : undefined;
  const signedIn =
    // [AUTH-ASST-8] [AUTH-ASST-9] a signed-out token or a signed-out session: the assistant acts signed out.
    session.state === 'signed_in' &&
    session.subject !== null &&
    authorization?.decision !== 'revoked' &&
    (token === null || token.sub === session.subject);
  // [AUTH-ASST-6] [AUTH-ASST-7] effective permissions: the token's (mapped from its API scopes) ∩ the session's live scopes;
  // [AUTH-ASST-14] signed out, none: the base catalog and cart authority only.
  const permissions = !signedIn
    ? []
    : token === null
      ? [...session.scopes]
      : permissionsOfScopes(token.scopes).filter((p) => session.scopes.includes(p));
  return {
    kind: 'assistant',
    agentId: session.agent_id ?? session.client_id,
    accountSub: signedIn ? session.subject : null,
    permissions: Object.freeze(permissions),
    signedIn,
    sessionId,
    clientId: session.client_id,
  };
}

/** Verifies the original assistant token a forwarder carries as a direct assistant token would be, but without a proof. */
async function verifyOriginalToken(raw: string, domain: Domain, now: Date): Promise<VerifiedToken> {
  if (isSignedOutProxyToken(raw)) return verifySignedOutProxyToken(raw, domain.config, now);
  const token = await domain.verifier.verify(raw, now);
  let caller: Classification;
  try {
    caller = classifyCaller(
      { clientId: token.claims.client_id, sub: token.claims.sub, act: token.claims.act, aud: [token.claims.aud ?? []].flat() },
      domain.config,
      { invitedAgentContext: false, assistantSubject: false },
    );
  } catch (err) {
    throw invalidToken(`Assistant-Subject: ${err instanceof Error ? err.message : 'not an assistant token.'}`, err);
  }
  if (caller.kind !== 'assistant' || caller.forwarder !== undefined) throw invalidToken('Assistant-Subject must hold an assistant token.');
  const cnf = token.claims.cnf as { jkt?: unknown } | undefined;
  if (!cnf || typeof cnf !== 'object' || typeof cnf.jkt !== 'string')
    throw invalidToken('Assistant-Subject must hold a key-bound (cnf.jkt) assistant session token.');
  return token;
}

const FORWARDED_ARTIFACTS = [HEADERS.assistantSubject, ASSISTANT_BROWSER_SESSION_HEADER, HEADERS.invitedAgentContext] as const;

/** Admit-caller stage: resolves the assistant (direct or forwarded) and the live session it acts in. */
export async function admitAssistant(args: AuthenticateArgs): Promise<AgentAdmission> {
  const { req, ctx, token, caller } = args;
  const { domain } = ctx;
  const now = domain.clock();

  if (caller.forwarder === undefined) {
    // A direct assistant speaks for itself: a forwarder's artifact does not fit it.
    for (const name of FORWARDED_ARTIFACTS) {
      if (req.get(name) !== undefined) {
        throw invalidRequest(
          [{ path: `headers.${name}`, code: 'not_allowed', message: `${name} is not accepted from a direct assistant.` }],
          `The ${name} header is not accepted with this credential.`,
        );
      }
    }
    const facts = tokenFacts(token);
    return { ...admitSession(domain, facts.sessionId, facts), forwarderScopes: null };
  }

  // [AUTH-ASST-18] forwarders hold the channel with their machine token, presented as Bearer; they only forward agents (agent:forward,
  // checked by the guard) and need exactly one original artifact, the one that fits the forwarder.
  if (args.ctx.presentedScheme !== 'bearer') throw invalidToken('A forwarder token is presented with the Bearer scheme.');
  const forwarderScopes = scopesOf(token.claims);
  const subject = req.get(HEADERS.assistantSubject);
  const browser = req.get(ASSISTANT_BROWSER_SESSION_HEADER);
  if (subject !== undefined && browser !== undefined) throw invalidToken('A forwarder token needs exactly one original agent artifact.');
  if (caller.forwarder === 'mcp') {
    // [AUTH-CRED-9] the MCP agent forwarder carries the original token in Assistant-Subject.
    if (subject === undefined) throw invalidToken('The MCP agent forwarder carries the original assistant token in Assistant-Subject.');
    const original = await verifyOriginalToken(subject.trim(), domain, now);
    const facts = tokenFacts(original);
    // [AUTH-CRED-9] this credential pair serves the signed-out assistant only, and a session token is
    // used with DPoP and a proof, never otherwise (Assistant authority): whatever the session, the forwarded assistant
    // acts signed out, so a captured signed-in token without its key reaches no account.
    return {
      ...admitSession(domain, facts.sessionId, facts),
      accountSub: null,
      permissions: Object.freeze([]),
      signedIn: false,
      forwarderScopes,
    };
  }
  if (browser === undefined)
    throw invalidToken(`The web agent forwarder carries the assistant browser session in ${ASSISTANT_BROWSER_SESSION_HEADER}.`);
  // [AUTH-ORDER-7] the conversation variant of the actor stage refuses browser sessions.
  if (isConversationPath(req.path))
    throw new ProblemError('caller_not_allowed', { detail: 'Assistant browser sessions are not admitted to conversations.' });
  // [AUTH-CRED-8] the web agent forwarder carries the assistant's original browser session.
  const sessionId = verifyBrowserSession(browser.trim(), domain.config.webSessionContextKey);
  if (sessionId === undefined) throw invalidToken(`The ${ASSISTANT_BROWSER_SESSION_HEADER} value is malformed or forged.`);
  return { ...admitSession(domain, sessionId, null), forwarderScopes };
}
