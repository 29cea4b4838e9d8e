// Spec part 7, Errors, the outage row: "A verifier or identity-proxy outage: 503 unavailable with Retry-After: 5" (and its
// repetition in Limits, LIM-RETRY-1). A black box cannot take down what a deployment depends on, unless the deployment
// fetches its keys from the suite: with its JWKS_URI (and the profile's `jwksUri`) pointing at `shop-conformance idp`, the
// check takes that key set down for a while and sends a token the deployment must verify afresh (its `kid` is new, so a
// cached key set does not hold it). The embedded run judges it on a reference configured that way.
//
// Defect it kills: a server that answers 401 invalid_token (or 500) when its key set is unreachable, or leaves out
// Retry-After.
import { randomUUID } from 'node:crypto';
import { check, notApplicable, test } from '../engine/check.js';
import { expectProblem, fail, inCase } from '../lib/assert.js';
import { AssistantAgent } from './_shared/assistant.js';
import { idpControlToken, OUTAGE_PATH } from '../lib/mint.js';

/** A deployment may still be cooling down from its last key-set fetch (30 s is usual) before it fetches again. */
const COOL_DOWN_MS = 35_000;

test(
  ...check(
    {
      id: 'errors.verifier-outage',
      everyResponse: true,
      title: 'while the issuer key set is unreachable, a token the deployment must verify afresh gets 503 unavailable with Retry-After: 5',
      clauses: ['ERR-TABLE-13', 'LIM-RETRY-1'],
    },
    async (shop) => {
      const jwksUri = shop.profile.jwksUri;
      if (!jwksUri) {
        notApplicable(
          "the profile has no jwksUri: point the deployment's JWKS_URI (and the profile's jwksUri) at `shop-conformance idp` to judge a verifier outage",
        );
      }
      const outage = `${new URL(jwksUri).origin}${OUTAGE_PATH}`;
      const probe = await shop.http.get(outage);
      if (probe.status !== 200 || typeof probe.body?.outage !== 'boolean') {
        notApplicable(
          `the profile's jwksUri (${jwksUri}) is not served by \`shop-conformance idp\`: its key set cannot be taken down from here`,
        );
      }
      // An assistant session, provisioned before the outage: its DPoP request during the outage is judged too (every rule
      // of every response, a fresh DPoP-Nonce on the 503 included).
      const agent = shop.profile.capabilities.assistants ? await AssistantAgent.create(shop) : undefined;
      const control = { authorization: `Bearer ${idpControlToken(shop.profile)}` };
      const down = await shop.http.post(`${outage}?seconds=60`, { headers: control });
      // The suite's own tool refusing is a harness fault, not the deployment's.
      if (down.status !== 200) throw new Error(`shop-conformance idp refused the outage request: ${down.status}`);
      shop.info.setTimeout(shop.info.timeout + COOL_DOWN_MS);
      try {
        const token = await shop.mint.customer({ sub: shop.subject('outage'), header: { kid: `outage-${randomUUID()}` } });
        const deadline = Date.now() + COOL_DOWN_MS;
        let res = await shop.http.get('/v1/cart', { headers: { authorization: `Bearer ${token}` } });
        while (res.status !== 503 && res.status < 500 && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 2_500));
          res = await shop.http.get('/v1/cart', { headers: { authorization: `Bearer ${token}` } });
        }
        expectProblem(res, { status: 503, error: 'unavailable', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-13' });
        const retryAfter = res.headers.get('retry-after');
        if (retryAfter !== '5') fail('Retry-After of 503 unavailable', '5', retryAfter, { clause: 'ERR-TABLE-13' });
        if (agent) {
          const fresh = await agent.mintToken({ header: { kid: `outage-${randomUUID()}` } });
          const dpop = (await agent.get('/v1/cart', { token: fresh, retryOnNonce: true })).res;
          inCase('an assistant DPoP request with a token to verify afresh', () =>
            expectProblem(dpop, { status: 503, error: 'unavailable', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-13' }),
          );
        }
      } finally {
        await shop.http.post(`${outage}?seconds=0`, { headers: control });
      }
    },
  ),
);
