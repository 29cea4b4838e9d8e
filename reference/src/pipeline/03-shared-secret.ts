// Stage "shared secret" (spec, Public and special routes): the internal routes' callers are other components holding a
// shared secret, not token holders. The row's `auth` names the secret and where it travels; it is checked before a byte
// of the body is read.
import type { RequestHandler } from 'express';
import type { SharedSecret } from '../../../contract/routes.js';
import { checkSharedSecret } from '../auth/shared-secret.js';
import type { Config } from '../config.js';
import { ProblemError } from '../problem.js';
import { contextAt } from './context.js';
import type { RouteDef } from './route.js';

/** The configuration field of each shared secret. */
export const SECRET_VALUES: { readonly [S in SharedSecret]: (c: Config) => string | null } = {
  IDP_ACTION_SECRET: (c) => c.idpActionSecret,
  PROXY_IDP_SECRET: (c) => c.proxyIdpSecret,
  CONVERSATION_HUB_SECRET: (c) => c.conversationHubSecret,
  ACCOUNT_RECOVERY_SECRET: (c) => c.accountRecoverySecret,
};

/** Closed when unset (404), else the caller's secret, compared in constant time (401). */
export function sharedSecretStage(route: RouteDef): RequestHandler {
  const auth = route.row.auth;
  if (auth.kind !== 'shared-secret') throw new Error(`${route.row.operationId}: the shared-secret stage on a route without one`);
  const { carrier } = auth;
  return (req, res, next) => {
    const { config } = contextAt(res, 'bound').domain;
    const verdict = checkSharedSecret(SECRET_VALUES[auth.secret](config), carrier, (name) => req.get(name));
    // [END-PUBLIC-17] A route whose secret is not configured is closed: it never succeeds.
    if (verdict === 'not_configured')
      throw new ProblemError('not_configured', { detail: 'This route is not configured on this deployment.' });
    // [END-PUBLIC-9] [END-PUBLIC-11] [END-PUBLIC-14] [END-PUBLIC-16] [END-PUBLIC-18] Its own secret only, in its carrier; missing or wrong is refused.
    if (verdict !== 'ok') {
      const where = carrier.kind === 'bearer' ? 'Authorization: Bearer' : carrier.name;
      throw new ProblemError('invalid_credentials', {
        detail: `${verdict === 'missing' ? 'Missing' : 'Wrong'} credential: this route needs its shared secret in ${where}.`,
        // Every 401 carries a challenge (RFC 9110 §15.5.2), the header-carried secret's too.
        challenge:
          carrier.kind === 'bearer'
            ? { kind: 'bearer' as const, error: 'invalid_token' }
            : { kind: 'secret-header' as const, error: 'invalid_credentials', header: carrier.name },
      });
    }
    next();
  };
}
