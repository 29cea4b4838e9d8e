// The doctor's assistant session: registered through the identity-provider proxy's route (docs/internal-routes.md), as
// the proxy reports a connected agent, so that assistant credentials can be admitted.
import { randomUUID } from 'node:crypto';
import type { Profile } from '../../../contract/profile.js';
import { PERMISSIONS } from '../../../contract/scopes.js';
import { proxyPayload } from '../../lib/credential-formats.js';
import { createDpopKey, type DpopKey } from '../../lib/dpop.js';
import type { ShopHttp, ShopResponse } from '../transport/http.js';
import { SPECIAL_PATHS } from '../../../contract/routes.js';

export const REGISTER = SPECIAL_PATHS.recordConnectedAgent;

/** An assistant session the probes act in; `registered` is false when the deployment has no record of it. */
export interface AssistantSession {
  sub: string;
  sessionId: string;
  key: DpopKey;
  registered: boolean;
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
