// The callers the interleavings need beyond a sequence's own (conformance/explore/concurrency.ts): an assistant session
// provisioned through the deployment's internal routes, whose proofs are signed afresh for each request (the `proof`
// scenario sends one of them twice at once), and the guest budget of the profile (the `budget` scenario spends it from
// several connections, each attempt a fresh guest with its own Shopper-IP).
import { randomUUID } from 'node:crypto';
import type { Profile } from '../../contract/profile.js';
import { provisionSession, refusedReport } from '../lib/assistant-session.js';
import { createDpopKey, dpopProof } from '../lib/dpop.js';
import type { World } from './world.js';

export type AssistantHeaders = (r: { method: string; url: string; nonce?: string | undefined }) => Promise<Record<string, string>>;

/**
 * A fresh assistant session on `world`'s deployment and the headers of each of its requests (its bound token and a new
 * proof); undefined when the profile claims no assistants or gives no proxy secret, or the internal routes refuse (the
 * checks judge those routes; the interleaving is then not run).
 */
export async function provisionAssistant(world: World): Promise<AssistantHeaders | undefined> {
  const { profile } = world;
  if (!profile.capabilities.assistants || !profile.secrets.proxyIdpSecret) return undefined;
  const fresh = () => `xpl_${randomUUID().replace(/-/g, '')}`;
  try {
    const identity = await provisionSession((path, o) => world.http.post(path, o), profile, {}, fresh, {
      noSecret: () => {
        throw new Error('no proxy secret');
      },
      refused: refusedReport,
    });
    const key = await createDpopKey();
    const token = await world.mint.assistant({ sub: identity.sub!, sid: identity.sessionId, jkt: key.thumbprint });
    return async ({ method, url, nonce }) => ({
      authorization: `DPoP ${token}`,
      dpop: await dpopProof({ key, htm: method, htu: url, accessToken: token, ...(nonce ? { nonce } : {}) }),
    });
  } catch {
    return undefined;
  }
}

/** The guest budget to spend, with a caller label per attempt (World mints a fresh guest for each), or undefined. */
export function guestBudgetOf(profile: Profile, run: string): { limit: number; caller: (attempt: number) => string } | undefined {
  const limits = profile.rateLimits;
  return limits ? { limit: limits.guestBudget, caller: (attempt) => `guest#budget-${run}-${attempt}` } : undefined;
}
