// Invited agents [AUTH-KIND-10] [AUTH-CRED-5] (spec, Authentication > Customer authority): the web-agent-forwarder machine token
// plus a bearer-bound `invited-agent+jwt` context signed with WEB_SESSION_CONTEXT_KEY (docs/tokens.md, "Invited-agent
// context"; docs/invited-agents.md). The classification already made sure the context came with the web forwarder's
// machine token; this hook verifies the context, binds it to that token and returns the admission snapshot it carries.
import { createHash, timingSafeEqual } from 'node:crypto';
import { jwtVerify, type JWTPayload } from 'jose';
import { HEADERS } from '../../../contract/headers.js';
import { ProblemError } from '../problem.js';
import { findAccount } from '../store/accounts.js';
import { getAgentAuthorization } from '../store/internal.js';
import type { AgentAdmission, AuthenticateArgs } from './agents.js';
import { scopesOf } from '../auth/verify-token.js';
import { describeJoseError } from '../auth/jose-errors.js';

/** Header `typ` of invited-agent contexts (`application/invited-agent+jwt` is the same type, RFC 7515 §4.1.9). */
export const INVITED_AGENT_CONTEXT_TYP = 'invited-agent+jwt';
/** The only algorithm: HMAC-SHA-256 keyed with the UTF-8 bytes of WEB_SESSION_CONTEXT_KEY. */
export const INVITED_AGENT_CONTEXT_ALGS = ['HS256'];
/** Clock skew allowed on `exp`, `nbf`, `iat` and `admitted_at` (seconds). */
export const CONTEXT_CLOCK_TOLERANCE_SECONDS = 5;
/** A context issued longer ago than this is refused whatever its `exp` says (seconds). */
export const CONTEXT_MAX_AGE_SECONDS = 3600;
/** Longest context accepted, in characters (the same bound as access tokens). */
export const MAX_CONTEXT_CHARS = 8192;
/** At most this many permissions (the bound of the internal routes' permission lists). */
export const MAX_CONTEXT_PERMISSIONS = 32;

/** Account states whose access ended (STA-LIFE-1..3); the actor stage answers them. */
const ENDED_STATES: ReadonlySet<string> = new Set(['deleting', 'deleted', 'contact_transition']);
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]{1,64}$/; // RFC 6749 §3.3 scope-token, 1–64 characters
const AGENT_ID = /^[\x21-\x7E]{1,128}$/; // 1–128 printable ASCII characters, no spaces
const JWS_COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

const refuse = (detail: string, cause?: unknown) =>
  new ProblemError('invalid_token', { detail, cause, challenge: { kind: 'chosen', error: 'invalid_token' } });

/** base64url(SHA-256(token)), unpadded: the `ath` binding a context to the access token it travels with. */
export function accessTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('base64url');
}

/** Constant-time equality of two strings (SHA-256 digests of both go to timingSafeEqual, so lengths do not leak). */
function constantTimeEqual(a: string, b: string): boolean {
  const digest = (v: string) => createHash('sha256').update(v, 'utf8').digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** Every value the request carries for `name` (case-insensitive), however many times the header was sent. */
function headerValues(rawHeaders: readonly string[], name: string): string[] {
  const lower = name.toLowerCase();
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === lower) values.push(rawHeaders[i + 1]!);
  return values;
}

/** The verified claims of an invited-agent context, in the shape the admission needs. */
export interface InvitedAgentContext {
  sub: string;
  agentId: string;
  permissions: string[];
  admittedAt: number;
  iat: number;
  exp: number;
  jti: string;
}

/**
 * Verifies one context for the forwarder access token `forwarderToken` (its raw compact form) at `now`. Throws 401
 * invalid_token for any defect; checks no stored state (see admitInvitedAgent for the authorization record).
 */
export async function verifyInvitedAgentContext(
  context: string,
  forwarderToken: string,
  key: string,
  now: Date,
): Promise<InvitedAgentContext> {
  if (context.length > MAX_CONTEXT_CHARS) throw refuse('The invited-agent context is too large.');
  if (!JWS_COMPACT.test(context)) throw refuse('The invited-agent context is not a compact signed JWT.');

  let payload: JWTPayload;
  try {
    // [AUTH-CRED-7] [AUTH-CUST-8] typ invited-agent+jwt under WEB_SESSION_CONTEXT_KEY: a context, never a customer token.
    ({ payload } = await jwtVerify(context, new TextEncoder().encode(key), {
      algorithms: INVITED_AGENT_CONTEXT_ALGS,
      typ: INVITED_AGENT_CONTEXT_TYP,
      currentDate: now,
      clockTolerance: CONTEXT_CLOCK_TOLERANCE_SECONDS,
      maxTokenAge: CONTEXT_MAX_AGE_SECONDS,
      requiredClaims: ['sub', 'agent_id', 'permissions', 'admitted_at', 'iat', 'exp', 'jti', 'ath'],
    }));
  } catch (err) {
    throw refuse(describeJoseError(err, 'The invited-agent context', { algorithms: 'HS256 only' }), err);
  }

  // [AUTH-CRED-6] bound to the bearer it came with: a context lifted onto another forwarder token is refused.
  const { ath } = payload;
  if (typeof ath !== 'string' || !constantTimeEqual(ath, accessTokenHash(forwarderToken))) {
    throw refuse('The invited-agent context is bound to another access token (ath).');
  }

  const { sub, agent_id: agentId, permissions, admitted_at: admittedAt, iat, exp, jti } = payload;
  if (typeof sub !== 'string' || [...sub].length < 1 || [...sub].length > 256)
    throw refuse('The context sub must be an account subject of 1-256 characters.');
  // [AUTH-CUST-8] machine subjects name clients, never accounts: a context cannot make a client an account.
  if (sub.endsWith('@clients')) throw refuse('The context sub must be an account subject, not a machine subject.');
  if (typeof agentId !== 'string' || !AGENT_ID.test(agentId))
    throw refuse('The context agent_id must be 1-128 printable ASCII characters.');
  if (
    !Array.isArray(permissions) ||
    permissions.length > MAX_CONTEXT_PERMISSIONS ||
    !permissions.every((p) => typeof p === 'string' && SCOPE_TOKEN.test(p))
  ) {
    throw refuse(`The context permissions must be an array of at most ${MAX_CONTEXT_PERMISSIONS} scope tokens.`);
  }
  if (typeof jti !== 'string' || jti.length === 0) throw refuse('The context jti must be a non-empty string.');
  // jose has checked that iat and exp are numbers (iat not in the future, exp not past).
  const issuedAt = iat as number;
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (typeof admittedAt !== 'number' || !Number.isSafeInteger(admittedAt) || admittedAt < 0)
    throw refuse('The context admitted_at must be epoch seconds.');
  if (admittedAt > issuedAt + CONTEXT_CLOCK_TOLERANCE_SECONDS || admittedAt > nowSeconds + CONTEXT_CLOCK_TOLERANCE_SECONDS) {
    throw refuse('The context admitted_at is after its issuance.');
  }
  return { sub, agentId, permissions: [...new Set(permissions as string[])], admittedAt, iat: issuedAt, exp: exp as number, jti };
}

/** Admit-caller stage: verifies the context and returns the agent's admission snapshot. */
export async function admitInvitedAgent(args: AuthenticateArgs): Promise<AgentAdmission> {
  const { req, ctx, token, caller } = args;
  const { config, db, clock } = ctx.domain;
  // [AUTH-CUST-9] defence in depth: classification only makes invited agents of the web forwarder's machine token.
  if (
    caller.kind !== 'invited-agent' ||
    caller.clientId !== config.webAgentForwarderClientId ||
    caller.sub !== `${caller.clientId}@clients`
  ) {
    throw refuse('Invited-agent contexts are accepted only with the web-agent-forwarder token.');
  }
  // The forwarder's machine token is a plain bearer token; the context is bound to it by `ath`, not by DPoP.
  if (ctx.presentedScheme !== 'bearer') throw refuse('The web-agent-forwarder token is presented with the Bearer scheme.');

  const values = headerValues(req.rawHeaders, HEADERS.invitedAgentContext);
  if (values.length !== 1) throw refuse('Exactly one Invited-Agent-Context header is needed.');
  const context = values[0]!.trim();
  if (context === '') throw refuse('The Invited-Agent-Context header is empty.');

  const now = clock();
  const verified = await verifyInvitedAgentContext(context, token.raw, config.webSessionContextKey, now);

  // The account's decision about this agent, when the identity-provider proxy recorded one: a revoked authorization
  // refuses every context for that agent and account. With no record (invitations are the storefront's), the snapshot
  // the storefront signed stands on its own. A granted record never widens nor narrows the snapshot. An account whose
  // access ended (its deletion revokes every authorization) is left to the actor stage: 401 account_access_ended.
  const authorization = getAgentAuthorization(db, verified.sub, verified.agentId);
  if (authorization?.decision === 'revoked' && !ENDED_STATES.has(findAccount(db, verified.sub)?.state ?? 'active')) {
    throw refuse("The account revoked this agent's authorization.");
  }

  return {
    kind: 'invited-agent',
    agentId: verified.agentId,
    accountSub: verified.sub,
    // [AUTH-SCOPE-3] kept as signed: unknown permissions are carried but unlock nothing (auth/permissions.ts).
    permissions: Object.freeze(verified.permissions),
    signedIn: true,
    sessionId: null,
    clientId: caller.clientId,
    forwarderScopes: scopesOf(token.claims),
  };
}
