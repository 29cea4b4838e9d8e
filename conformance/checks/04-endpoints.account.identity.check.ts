// Spec part 4, Endpoints > Additional route facts, the identity read, at the reference level: the exact body the reference
// answers (docs/account.md, Identity). The spec-level judgements of the identity read are in 04-endpoints.account.reads.
import { check, test } from '../engine/runner/check.js';
import { expectSameJson, expectStatus } from '../lib/assert.js';
import { customerToken } from '../lib/callers.js';
import { ADA, CHLOE } from './_shared/seed-data.js';

test(
  ...check(
    {
      id: 'endpoints.account.identity.reference',
      title: 'getIdentity answers exactly { display_name, self_service_eligible }',
      clauses: ['PUR-BANNER-1', 'END-IDENT-1', 'END-IDENT-2'],
      level: 'reference',
      seed: true,
    },
    async (shop) => {
      for (const [sub, body] of [
        [ADA.sub, { display_name: ADA.name, self_service_eligible: true }],
        [CHLOE.sub, { display_name: CHLOE.name, self_service_eligible: false }],
      ] as const) {
        const res = await shop.http.get('/v1/me/identity', { token: await customerToken(shop, sub) });
        expectStatus(res, 200, { clause: 'PUR-BANNER-1' });
        expectSameJson(res.body, body, { what: `getIdentity of ${sub}`, clause: 'PUR-BANNER-1' });
      }
    },
  ),
);
