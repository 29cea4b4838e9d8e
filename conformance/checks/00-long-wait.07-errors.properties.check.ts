// Spec part 7, Errors, property-based: whatever a client sends, the answer to a failure is a problem document and never a
// 5xx. The three properties are one request per generated value, judged in turn (a failing value is shrunk from the
// answers that came before it), so at a long round trip they are among the longest checks: the `00-long-wait.` prefix
// starts them first (docs/conformance.md, "How long a run takes against a remote deployment").
import fc from 'fast-check';
import { check, test, type Shop } from '../engine/check.js';
import type { ShopResponse } from '../engine/http.js';
import { expectProblem, fail } from '../lib/assert.js';
import { findChallenge, parseChallenges, type Challenge } from '../lib/www-authenticate.js';

// The run's --seed drives the generator, so a failing input is reproduced by running again with the same seed.
const PROPERTY_RUNS = 40;

async function expectProblemOrSuccess(shop: Shop, res: ShopResponse, { clause }: { clause: string }): Promise<void> {
  if (res.status >= 500) fail('client input must never cause a 5xx', '< 500', res.status, { clause });
  if (res.status >= 400) expectProblem(res, { status: res.status, error: String(res.body?.error ?? ''), docsUrl: shop.docsUrl, clause });
}

function withSeed(shop: Shop) {
  return { seed: shop.params.seed, numRuns: PROPERTY_RUNS, endOnFailure: true };
}

test(
  ...check(
    {
      id: 'err.property.bodies',
      title: 'arbitrary JSON bodies on a cart write get a problem document, never a 5xx',
      clauses: ['ERR-PROBLEM-1', 'ERR-PROBLEM-4', 'AUTH-ORDER-1'],
    },
    async (shop) => {
      const token = await shop.mint.customer({ sub: shop.subject('cust') });
      await fc.assert(
        fc.asyncProperty(fc.jsonValue({ maxDepth: 3 }), async (value) => {
          const res = await shop.http.post('/v1/cart/items', {
            token,
            body: JSON.stringify(value),
            headers: { 'content-type': 'application/json' },
          });
          await expectProblemOrSuccess(shop, res, { clause: 'ERR-PROBLEM-1' });
        }),
        withSeed(shop),
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'err.property.guest-sessions',
      title: 'arbitrary Guest-Session values are refused with invalid_guest_session, never a 5xx',
      clauses: ['ERR-TABLE-6', 'ERR-PROBLEM-1'],
      requires: ['guests'],
    },
    async (shop) => {
      const token = await shop.mint.guest();
      const printable = fc.string({ unit: fc.constantFrom(...'gs1.-_abcdef0123456789ABCDEF=+/ '.split('')), minLength: 1, maxLength: 90 });
      await fc.assert(
        fc.asyncProperty(
          printable.filter((v) => v.trim() === v && v.length > 0),
          async (value) => {
            const res = await shop.http.get('/v1/cart', { token, headers: { 'guest-session': value } });
            expectProblem(res, { status: 401, error: 'invalid_guest_session', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-6' });
          },
        ),
        withSeed(shop),
      );
    },
  ),
);

/**
 * A malformed or rejected token's challenge (Errors: "challenge in the scheme chosen from the request"): which scheme the
 * request chose is not judged here (Challenge scheme has its own checks), only that a Bearer or DPoP challenge names
 * error="invalid_token".
 */
function expectInvalidTokenChallenge(res: ShopResponse): void {
  const header = res.headers.get('www-authenticate');
  if (header === null) fail('WWW-Authenticate on a rejected token', 'a Bearer or DPoP challenge', null, { clause: 'ERR-TABLE-2' });
  let challenges: Challenge[] = [];
  try {
    challenges = parseChallenges(header!);
  } catch {
    fail('WWW-Authenticate syntax', 'RFC 9110 challenges', header, { clause: 'ERR-TABLE-2' });
  }
  const named = ['Bearer', 'DPoP'].map((scheme) => findChallenge(challenges, scheme)).filter((c) => c !== undefined);
  if (!named.some((c) => c.params.error === 'invalid_token'))
    fail('WWW-Authenticate on a rejected token', 'a Bearer or DPoP challenge with error="invalid_token"', header, {
      clause: 'ERR-TABLE-2',
    });
}

test(
  ...check(
    {
      id: 'err.property.authorization',
      title: 'arbitrary Authorization values are refused with 401 invalid_token and an invalid_token challenge, never a 5xx',
      clauses: ['ERR-TABLE-2', 'ERR-PROBLEM-1'],
    },
    async (shop) => {
      // Bearer only: under DPoP a server may rightly answer invalid_dpop_proof (no proof) before looking at the token.
      const token68 = fc.string({ unit: fc.constantFrom(...'abcXYZ012-._~+/='.split('')), minLength: 1, maxLength: 200 });
      const segment = fc.base64String({ maxLength: 80 }).map((s) => s.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'));
      const jwtish = fc.tuple(segment, segment, segment).map((p) => p.join('.'));
      await fc.assert(
        fc.asyncProperty(fc.constantFrom('Bearer', 'bearer', 'BEARER'), fc.oneof(token68, jwtish), async (scheme, credential) => {
          const res = await shop.http.get('/v1/catalog/collections', { headers: { authorization: `${scheme} ${credential}` } });
          expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-2' });
          expectInvalidTokenChallenge(res);
        }),
        withSeed(shop),
      );
    },
  ),
);
