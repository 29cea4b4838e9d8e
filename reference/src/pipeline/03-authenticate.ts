// Stage "authenticate" (spec, Authentication > Token verification): reads the token from Authorization only, verifies it and classifies
// the caller. A bad token is answered here, before the body is validated.
import type { RequestHandler } from 'express';
import { HEADERS } from '../../../contract/headers.js';
import { parseAuthorization } from '../auth/challenge.js';
import { classifyCaller } from '../auth/classify.js';
import {
  ASSISTANT_BROWSER_SESSION_HEADER,
  authenticateDpop,
  isSignedOutProxyToken,
  signedOutProxyCaller,
  startDpopRequest,
  verifySignedOutProxyToken,
} from '../admission/assistant.js';
import { scopesOf } from '../auth/verify-token.js';
import { ProblemError } from '../problem.js';
import { contextAt } from './context.js';

const invalidToken = (detail: string) =>
  new ProblemError('invalid_token', { detail, challenge: { kind: 'chosen', error: 'invalid_token' } });

export function authenticateStage(): RequestHandler {
  return async (req, res, next) => {
    const ctx = contextAt(res, 'routed');
    const { domain } = ctx;
    // [AUTH-ORDER-4] a request in the DPoP scheme gets a fresh DPoP-Nonce on every response, failures of this stage included.
    startDpopRequest(ctx);
    // [AUTH-TOKEN-1] [AUTH-ASST-3] [AUTH-ASST-4] the token is read from Authorization only: never the query, a cookie or the body.
    const header = req.get('authorization');
    if (header === undefined || header.trim() === '') {
      // [ERR-TABLE-1] no token: both schemes are offered, unless the path alone already chose DPoP ([AUTH-SCHEME-1]).
      throw new ProblemError('invalid_token', {
        detail: 'An access token is required.',
        challenge: { kind: ctx.scheme === 'DPoP' && req.path.startsWith('/assistant/') ? 'chosen' : 'both', error: 'invalid_token' },
      });
    }
    const auth = parseAuthorization(header);
    if (!auth) throw invalidToken('The Authorization header is malformed.');
    const scheme = auth.scheme.toLowerCase();
    if (scheme !== 'bearer' && scheme !== 'dpop') throw invalidToken('Only the Bearer and DPoP schemes are accepted.');

    // Signed-out proxy tokens are verified separately (their own type and key: admission/assistant.ts).
    // [AUTH-ORDER-10] a bad token is answered here, before the body is validated.
    const signedOut = isSignedOutProxyToken(auth.credential);
    const token = signedOut
      ? await verifySignedOutProxyToken(auth.credential, domain.config, domain.clock())
      : await domain.verifier.verify(auth.credential, domain.clock());
    const cnf = token.claims.cnf as { jkt?: unknown } | undefined;
    if (scheme === 'bearer' && cnf && typeof cnf === 'object' && cnf.jkt !== undefined) {
      // [AUTH-ASST-2] [ERR-TABLE-3] a DPoP-bound token presented as Bearer is a downgrade: refused (an assistant token
      // already chose the DPoP scheme).
      throw invalidToken('A DPoP-bound token must be presented with the DPoP scheme and a proof.');
    }

    // An assistant's original artifact is its token (Assistant-Subject) or its browser session (Assistant-Browser-Session);
    // admitAssistant refuses both at once and the one that does not fit the forwarder.
    const assistantArtifact = req.get(HEADERS.assistantSubject) !== undefined || req.get(ASSISTANT_BROWSER_SESSION_HEADER) !== undefined;
    const caller = signedOut
      ? signedOutProxyCaller(token)
      : classifyCaller(
          { clientId: token.claims.client_id, sub: token.claims.sub, act: token.claims.act, aud: [token.claims.aud ?? []].flat() },
          domain.config,
          { invitedAgentContext: req.get(HEADERS.invitedAgentContext) !== undefined, assistantSubject: assistantArtifact },
        );
    ctx.token = token;
    ctx.caller = caller;
    ctx.presentedScheme = scheme;
    ctx.scopes = scopesOf(token.claims);
    // [AUTH-ASST-1] [AUTH-ASST-11] the DPoP scheme, and assistant tokens however sent: proof, key binding, nonce and replay
    // (admission/assistant.ts).
    if (scheme === 'dpop' || caller.kind === 'assistant')
      await authenticateDpop({ req, res, ctx: contextAt(res, 'authenticated'), token, caller });
    next();
  };
}
