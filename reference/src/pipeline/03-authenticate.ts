// Stage "authenticate" (spec, Token verification): reads the token from Authorization only, verifies it and classifies
// the caller. A bad token is answered here, before the body is validated.
import type { RequestHandler } from 'express';
import { HEADERS } from '../../../contract/headers.js';
import { parseAuthorization } from '../auth/challenge.js';
import { classifyCaller } from '../auth/classify.js';
import { authenticateDpop } from '../auth/assistant.js';
import { scopesOf } from '../auth/verify-token.js';
import { ProblemError } from '../problem.js';
import { contextOf, need } from './context.js';

const invalidToken = (detail: string) => new ProblemError('invalid_token', { detail, challenge: { kind: 'chosen', error: 'invalid_token' } });

export function authenticateStage(): RequestHandler {
  return async (req, res, next) => {
    const ctx = contextOf(res);
    const domain = need(ctx.domain, 'domain');
    const header = req.get('authorization');
    if (header === undefined || header.trim() === '') {
      // No token: both schemes are offered, unless the path alone already chose DPoP (conversations).
      throw new ProblemError('invalid_token', {
        detail: 'An access token is required.',
        challenge: { kind: ctx.scheme === 'DPoP' && req.path.startsWith('/assistant/') ? 'chosen' : 'both', error: 'invalid_token' },
      });
    }
    const auth = parseAuthorization(header);
    if (!auth) throw invalidToken('The Authorization header is malformed.');
    const scheme = auth.scheme.toLowerCase();
    if (scheme !== 'bearer' && scheme !== 'dpop') throw invalidToken('Only the Bearer and DPoP schemes are accepted.');

    const token = await domain.verifier.verify(auth.credential, domain.clock());
    const cnf = token.claims.cnf as { jkt?: unknown } | undefined;
    if (scheme === 'bearer' && cnf && typeof cnf === 'object' && cnf.jkt !== undefined) {
      // A DPoP-bound token presented as Bearer is a downgrade: refused (an assistant token already chose the DPoP scheme).
      throw invalidToken('A DPoP-bound token must be presented with the DPoP scheme and a proof.');
    }

    const caller = classifyCaller(
      { clientId: token.claims.client_id, sub: token.claims.sub, act: token.claims.act, aud: [token.claims.aud ?? []].flat() },
      domain.config,
      { invitedAgentContext: req.get(HEADERS.invitedAgentContext) !== undefined, assistantSubject: req.get(HEADERS.assistantSubject) !== undefined },
    );
    ctx.token = token;
    ctx.caller = caller;
    ctx.scopes = scopesOf(token.claims);
    // The DPoP scheme, and assistant tokens however sent: proof, key binding, nonce and replay (auth/assistant.ts).
    if (scheme === 'dpop' || caller.kind === 'assistant') await authenticateDpop({ req, res, ctx, token, caller, scheme, chosenScheme: ctx.scheme });
    next();
  };
}
