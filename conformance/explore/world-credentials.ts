// The credentials of a caller label in one sequence (world.ts mints them once per sequence and caller), a guest's own
// headers among them, a guest session or invited-agent context shaped (sessions.ts, contexts.ts), and a step's body
// after its mutation: what a World sends, apart from how it sends it.
import type { Profile } from '../../contract/profile.js';
import { audienceOf, type Minter } from '../lib/mint.js';
import { forgeGuestSession, newGuestSession } from '../lib/guest-session.js';
import { freshShopperIp } from '../lib/shopper.js';
import { operatorAttribution } from '../lib/credential-formats.js';
import type { Step } from './exchange.js';
import type { PlanStep } from './plan.js';
import type { Fixture, RunContext } from './world.js';
import { randomUUID } from 'node:crypto';
import { buildSession, GUEST_SESSION_CARRIER, type SessionShape } from './sessions.js';
import { buildContext, type ContextShape } from './contexts.js';

/** The headers of a caller's credential, minted now (a replay never reuses a run's tokens). */
export async function mintCredentials(
  caller: string,
  ctx: RunContext,
  w: { readonly profile: Profile; readonly mint: Minter; readonly fixture: Fixture },
): Promise<Record<string, string>> {
  const { accounts } = w.fixture;
  const sub = caller.endsWith(':b') ? accounts.b.sub : accounts.a.sub;
  const bearer = (t: string) => ({ authorization: `Bearer ${t}` });
  switch (caller) {
    case 'customer:a':
    case 'customer:b':
      return bearer(await w.mint.customer({ sub }));
    case 'delegated:a':
    case 'delegated:b':
      return bearer(await w.mint.delegated({ sub, audience: audienceOf(w.profile, 'delegated', 'api') }));
    case 'guest:a':
    case 'guest:b': {
      const k = caller === 'guest:a' ? 'a' : 'b';
      return { ...bearer(await w.mint.guest()), 'guest-session': ctx.guestSessions[k], 'shopper-ip': ctx.shopperIps[k] };
    }
    case 'guest:no-session':
      return { ...bearer(await w.mint.guest()), 'shopper-ip': ctx.shopperIps.a };
    case 'guest:forged-session':
      return {
        ...bearer(await w.mint.guest()),
        'guest-session': forgeGuestSession('bad-signature', w.profile.secrets.guestSessionKey),
        'shopper-ip': ctx.shopperIps.a,
      };
    case 'customer:expired':
      return bearer(await w.mint.customer({ sub: accounts.a.sub, expiresIn: -600 }));
    case 'customer:guest-headers':
      return { ...bearer(await w.mint.customer({ sub: accounts.a.sub })), 'guest-session': ctx.guestSessions.a };
    case 'operator':
      return { ...bearer(await w.mint.operator()), operator: operatorAttribution(w.profile) };
    case 'machine:proxy':
      return bearer(await w.mint.machine(w.profile.clients.personalAgentProxy));
    default:
      // The interleavings' budget attempts (interleave-callers.ts): each a fresh guest with a Shopper-IP of its own.
      if (caller.startsWith('guest#'))
        return {
          ...bearer(await w.mint.guest()),
          'guest-session': newGuestSession(w.profile.secrets.guestSessionKey),
          'shopper-ip': freshShopperIp(),
        };
      return {};
  }
}

/** A guest's own headers among its credentials: its Guest-Session and Shopper-IP. */
export const guestHeadersOf = (c: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(c).filter(([k]) => k === 'guest-session' || k === 'shopper-ip'));

/** The body of a step after its mutation (members named by `x-shop-role` where the mutation needs one). */
export function mutateBody(json: unknown, p: PlanStep, roles: Record<string, string | undefined>): Step['body'] {
  const first = Object.values(roles)
    .find((x) => x !== undefined)
    ?.split('/')[1];
  const obj = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined;
  switch (p.mutation) {
    case 'wrong-type':
      return { json: obj && first ? { ...obj, [first]: typeof obj[first] === 'number' ? 'two' : 12345 } : [json] };
    case 'missing-member':
      return { json: {} };
    case 'over-long':
      return { json: obj && first ? { ...obj, [first]: 'x'.repeat(5000) } : 'x'.repeat(5000) };
    case 'bad-escape':
      return { text: JSON.stringify(json).replace(/^\{/, '{"\\q":1,') };
    case 'not-json':
      return { text: 'quantity=1&variant=1' };
    default:
      return { json };
  }
}

/** What a World lends the shaped credentials: its profile, minter, data and a caller's minted credentials. */
interface Lender {
  readonly profile: Profile;
  readonly mint: Minter;
  readonly fixture: Fixture;
  credentials(caller: string, ctx: RunContext): Promise<Record<string, string>>;
}

const tokenOf = (c: Record<string, string>): string => (c.authorization ?? '').replace(/^Bearer /, '');

/**
 * A guest's step headers with its session shaped (sessions.ts): the guest's own cart id, another cart's nobody tracks
 * (so that a session of "another guest" never moves a cart the model knows), its storefront token or its account's
 * customer token. The Shopper-IP goes with the storefront token only.
 */
export async function shapedSessionHeaders(
  shape: SessionShape,
  own: 'a' | 'b',
  ctx: RunContext,
  w: Lender,
): Promise<Record<string, string | string[]>> {
  const built = buildSession(shape, {
    profile: w.profile,
    key: w.profile.secrets.guestSessionKey,
    uuid: ctx.guestSessions[own].split('.')[1]!,
    otherUuid: randomUUID(),
    carrier: GUEST_SESSION_CARRIER,
    guestToken: tokenOf(await w.credentials(`guest:${own}`, ctx)),
    customerToken: tokenOf(await w.credentials(`customer:${own}`, ctx)),
  });
  return { authorization: [], 'guest-session': [], ...(shape.token ? { 'shopper-ip': [] } : {}), ...built.headers };
}

/** An invited agent's step headers with its context (and forwarder token) shaped (contexts.ts). */
export async function shapedContextHeaders(
  shape: ContextShape,
  own: 'a' | 'b',
  w: Lender,
  contextHeader: string,
  lastContext: string | undefined,
): Promise<Record<string, string | string[]>> {
  const built = await buildContext(shape, {
    ...(lastContext !== undefined ? { lastContext } : {}),
    profile: w.profile,
    mint: w.mint,
    sub: w.fixture.accounts[own].sub,
    otherSub: w.fixture.accounts[own === 'a' ? 'b' : 'a'].sub,
    agentId: `xpl_agent_${own}`,
    contextHeader,
  });
  return { authorization: [], [contextHeader.toLowerCase()]: [], ...built.headers };
}
