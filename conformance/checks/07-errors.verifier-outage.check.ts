// Spec part 7, Errors, the outage row: "A verifier or identity-proxy outage: 503 unavailable with Retry-After: 5" (and its
// repetition in Limits, LIM-RETRY-1). A black box cannot take down what a deployment depends on, unless the deployment
// fetches its keys from the suite: with its JWKS_URI (and the profile's `jwksUri`) pointing at `shop-conformance idp`, the
// check takes that key set down for a while and sends a token with a new `kid` (a cached key set does not hold it). The
// embedded run judges it on a reference configured that way.
//
// Levels. Whether an unknown `kid` makes a deployment fetch its key set again is its own choice: one that tries its cached
// keys whatever the `kid` serves the token, one that refuses an unknown `kid` without fetching answers 401; neither met
// the outage, so the spec level does not judge those answers (the suite's idp does not count fetches). The reference
// fetches again, so at its level a 401 during the outage is the outage answered as a bad token.
//
// Defects it kills: a server that answers 500 when its key set is unreachable, or leaves out Retry-After; at the
// reference level, one that answers 401 invalid_token.
import { randomUUID } from 'node:crypto';
import { check, notApplicable, test, type Shop } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { expectProblem, fail, inCase, is2xx } from '../lib/assert.js';
import { AssistantAgent } from './_shared/assistant.js';
import { idpControlToken, OUTAGE_PATH } from '../lib/mint.js';

/** A deployment may still be cooling down from its last key-set fetch (30 s is usual) before it fetches again. */
const COOL_DOWN_MS = 35_000;

/**
 * Takes the suite's key set down and sends tokens the deployment must verify afresh. `strict` (the reference, which
 * fetches its key set again for an unknown `kid`): the answer must be the 503. Otherwise a success (the deployment tried
 * its cached keys whatever the `kid`) or a 401 (it refused the unknown `kid` without fetching) met no outage: not judged,
 * with the reason; any other answer is judged as the outage's.
 */
async function verifierOutage(shop: Shop, { strict }: { strict: boolean }): Promise<void> {
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
  /** An answer that met no outage (spec level): a note, and true. */
  const metNoOutage = (res: ShopResponse, what: string): boolean => {
    if (strict || (!is2xx(res) && res.status !== 401)) return false;
    shop.info.annotations.push({
      type: 'note',
      description: `${what}: not judged, answered ${res.status} during the outage: ${is2xx(res) ? 'the token was verified with cached keys' : 'the unknown kid was refused without fetching the key set'}, so no outage was met`,
    });
    return true;
  };
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
    const judged = !metNoOutage(res, 'a Bearer token with an unknown kid');
    if (judged) {
      expectProblem(res, { status: 503, error: 'unavailable', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-13' });
      const retryAfter = res.headers.get('retry-after');
      if (retryAfter !== '5') fail('Retry-After of 503 unavailable', '5', retryAfter, { clause: 'ERR-TABLE-13' });
    }
    if (agent) {
      const fresh = await agent.mintToken({ header: { kid: `outage-${randomUUID()}` } });
      const dpop = (await agent.get('/v1/cart', { token: fresh, retryOnNonce: true })).res;
      if (!metNoOutage(dpop, 'an assistant DPoP request with an unknown kid'))
        inCase('an assistant DPoP request with a token to verify afresh', () =>
          expectProblem(dpop, { status: 503, error: 'unavailable', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-13' }),
        );
      else if (!judged) notApplicable('no request met the outage: the deployment served or refused the unknown kid from its cached keys');
    } else if (!judged)
      notApplicable('the request did not meet the outage: the deployment served or refused the unknown kid from its cached keys');
  } finally {
    await shop.http.post(`${outage}?seconds=0`, { headers: control });
  }
}

// The two checks take down the same key set: they run one after the other.
test.describe('verifier outage', () => {
  test.describe.configure({ mode: 'default' });

  test(
    ...check(
      {
        id: 'errors.verifier-outage',
        everyResponse: true,
        title:
          'while the issuer key set is unreachable, a token the deployment must verify afresh gets 503 unavailable with Retry-After: 5 (a success or a 401 met no outage: not judged)',
        clauses: ['ERR-TABLE-13', 'LIM-RETRY-1'],
      },
      (shop) => verifierOutage(shop, { strict: false }),
    ),
  );

  test(
    ...check(
      {
        id: 'errors.verifier-outage.reference',
        everyResponse: true,
        title:
          'while the issuer key set is unreachable, a token with an unknown kid (fetched afresh) gets 503 unavailable with Retry-After: 5',
        clauses: ['ERR-TABLE-13', 'LIM-RETRY-1'],
        level: 'reference',
      },
      (shop) => verifierOutage(shop, { strict: true }),
    ),
  );
});
