// Spec part 7, Errors, property-based: whatever a client sends, the answer to a failure is a problem document and never a
// 5xx. The three properties are one request per generated value, judged in turn; the requests of the values a property
// will see are sent ahead, several at once (AnswersAhead), so at a long round trip a property takes a few round trips, not
// one per value. Flagged `long`, they start first (docs/conformance.md, "How long a run takes against a remote
// deployment").
import fc from 'fast-check';
import { check, test, type Shop } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { mapCases } from '../engine/runner/cases.js';
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

/**
 * The answers to a property's requests, sent ahead. `fc.sample` of the tuple of the property's arbitraries, with the run's
 * seed and number of runs, yields the values `fc.assert` generates, in its order: both draw run `i` from the same seeded
 * generator jumped `i` times with the same size bias (fast-check's toss; `fc.asyncProperty` generates that very tuple).
 * Those requests do not depend on each other (each value is its own request, answered for what it carries: a refused
 * body, session or credential changes nothing), so they are sent as cases of their own (mapCases), each kept under its
 * request's input. The property's body takes the answer kept for its input, once, and sends the request itself when none is left
 * (a value the sample did not foresee, or one that shrinking tries): every value `fc.assert` judges gets the answer to
 * its own request, and `fc.assert` judges them in its order, so the verdict and the reported counterexample are those of
 * the requests sent one after another.
 */
class AnswersAhead {
  /** Per input, the outcomes of the requests sent ahead not yet used: an answer, or what sending it threw. */
  private readonly kept = new Map<string, ({ res: ShopResponse } | { err: unknown })[]>();
  constructor(private readonly send: (input: string) => Promise<ShopResponse>) {}

  /** Sends the requests of `inputs` (a repeated input is sent once per time it comes), each a case of its own. */
  async sendAhead(inputs: readonly string[]): Promise<void> {
    const outcomes = await mapCases(inputs, (input) =>
      this.send(input).then(
        (res) => ({ res }),
        (err: unknown) => ({ err }),
      ),
    );
    inputs.forEach((input, i) => {
      const queue = this.kept.get(input) ?? [];
      queue.push(outcomes[i]!);
      this.kept.set(input, queue);
    });
  }

  /** The answer kept for `input`, each used once (a failed send throws in the property, as it would have), else one sent now. */
  answer(input: string): Promise<ShopResponse> {
    const outcome = this.kept.get(input)?.shift();
    if (!outcome) return this.send(input);
    return 'res' in outcome ? Promise.resolve(outcome.res) : Promise.reject(outcome.err as Error);
  }
}

test(
  ...check(
    {
      id: 'errors.property.bodies',
      long: true,
      title: 'arbitrary JSON bodies on a cart write get a problem document, never a 5xx',
      clauses: ['ERR-PROBLEM-1', 'ERR-PROBLEM-4', 'AUTH-ORDER-1'],
    },
    async (shop) => {
      const token = await shop.mint.customer({ sub: shop.subject('cust') });
      const bodies = fc.jsonValue({ maxDepth: 3 });
      const ahead = new AnswersAhead((body) =>
        shop.http.post('/v1/cart/items', { token, body, headers: { 'content-type': 'application/json' } }),
      );
      await ahead.sendAhead(fc.sample(fc.tuple(bodies), withSeed(shop)).map(([value]) => JSON.stringify(value)));
      await fc.assert(
        fc.asyncProperty(bodies, async (value) => {
          const res = await ahead.answer(JSON.stringify(value));
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
      id: 'errors.property.guest-sessions',
      long: true,
      title: 'arbitrary Guest-Session values are refused with invalid_guest_session, never a 5xx',
      clauses: ['ERR-TABLE-6', 'ERR-PROBLEM-1'],
      requires: ['guests'],
    },
    async (shop) => {
      const token = await shop.mint.guest();
      const printable = fc.string({ unit: fc.constantFrom(...'gs1.-_abcdef0123456789ABCDEF=+/ '.split('')), minLength: 1, maxLength: 90 });
      const sessions = printable.filter((v) => v.trim() === v && v.length > 0);
      const ahead = new AnswersAhead((value) => shop.http.get('/v1/cart', { token, headers: { 'guest-session': value } }));
      await ahead.sendAhead(fc.sample(fc.tuple(sessions), withSeed(shop)).map(([value]) => value));
      await fc.assert(
        fc.asyncProperty(sessions, async (value) => {
          const res = await ahead.answer(value);
          expectProblem(res, { status: 401, error: 'invalid_guest_session', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-6' });
        }),
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
      id: 'errors.property.authorization',
      long: true,
      title: 'arbitrary Authorization values are refused with 401 invalid_token and an invalid_token challenge, never a 5xx',
      clauses: ['ERR-TABLE-2', 'ERR-PROBLEM-1'],
    },
    async (shop) => {
      // Bearer only: under DPoP a server may rightly answer invalid_dpop_proof (no proof) before looking at the token.
      const token68 = fc.string({ unit: fc.constantFrom(...'abcXYZ012-._~+/='.split('')), minLength: 1, maxLength: 200 });
      const segment = fc.base64String({ maxLength: 80 }).map((s) => s.replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_'));
      const jwtish = fc.tuple(segment, segment, segment).map((p) => p.join('.'));
      const schemes = fc.constantFrom('Bearer', 'bearer', 'BEARER');
      const credentials = fc.oneof(token68, jwtish);
      const ahead = new AnswersAhead((authorization) => shop.http.get('/v1/catalog/collections', { headers: { authorization } }));
      await ahead.sendAhead(
        fc.sample(fc.tuple(schemes, credentials), withSeed(shop)).map(([scheme, credential]) => `${scheme} ${credential}`),
      );
      await fc.assert(
        fc.asyncProperty(schemes, credentials, async (scheme, credential) => {
          const res = await ahead.answer(`${scheme} ${credential}`);
          expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-2' });
          expectInvalidTokenChallenge(res);
        }),
        withSeed(shop),
      );
    },
  ),
);
