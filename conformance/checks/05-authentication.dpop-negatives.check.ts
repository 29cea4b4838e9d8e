// Spec part 5, Authentication > Assistant authority, with the DPoP rows of Errors: assistant session tokens are DPoP-bound
// (RFC 9449) and presented with a proof; each defective request of the negative matrix is refused in the DPoP scheme, and
// none spends anything: a correct proof still works after all of them. Every check provisions its own assistant sessions
// through the identity-provider proxy's internal routes (conformance/checks/_shared/assistant.ts), so checks stay isolated.
//
// Levels. The spec's error table allows `invalid_dpop_proof` or `use_dpop_nonce` for a proof or nonce failure; where RFC 9449
// lets a server answer either (a stale `iat` may be answered with a nonce challenge, §11.1), the spec-level check accepts
// both; where it lets a server take the request (a far-off `iat` with a current nonce, timed by the nonce: §4.3 item 11),
// the spec-level check takes a 2xx too; and the reference-level check (`authentication.dpop.negatives.reference`) holds the reference to the code it documents.
import { check, test } from '../engine/runner/check.js';
import { judgeCases } from '../engine/runner/cases.js';
import { expectSuccess, fail, inCase } from '../lib/assert.js';
import { findChallenge } from '../lib/www-authenticate.js';
import { CART, judgeInLanes, readyAgents } from './_shared/dpop-agents.js';
import { expectDpopFailure, expectNonceHeader } from '../lib/expect/dpop.js';
import { challengesOf } from '../lib/expect/refusals.js';
import { NEGATIVES } from './_shared/dpop-negative-matrix.js';

/** The sessions the negative matrix is spread over (judgeInLanes: one lane each). */
const SESSIONS = 8;

for (const level of ['spec', 'reference'] as const) {
  test(
    ...check(
      {
        id: level === 'spec' ? 'authentication.dpop.negatives' : 'authentication.dpop.negatives.reference',
        long: true,
        title:
          level === 'spec'
            ? 'each defective DPoP request is 401 with a single DPoP challenge naming the DPoP error and a DPoP-Nonce; a correct proof works before and after'
            : 'each defective DPoP request gets the reference\'s documented code (invalid_dpop_proof, use_dpop_nonce for an unknown nonce, invalid_token for Bearer) and DPoP challenge with algs="ES256"',
        clauses: ['ERR-TABLE-4', 'AUTH-ORDER-4', 'AUTH-ASST-1', 'AUTH-ASST-2', 'ERR-TABLE-3', 'ERR-TABLE-2'],
        ...(level === 'reference' ? { level } : {}),
        requires: ['assistants'],
      },
      async (shop) => {
        // Each defective request carries the newest nonce of its session (a stale one could be refused for that alone),
        // so the requests of one session go in turn; the matrix is spread over SESSIONS sessions, which share nothing, one
        // lane each (judgeInLanes).
        const agents = await readyAgents(shop, SESSIONS, { clause: 'AUTH-ASST-1' });
        await judgeInLanes(agents, NEGATIVES, async (agent, n) => {
          const res = await n.send(agent, shop);
          const fresh = res.headers.get('dpop-nonce');
          if (fresh) agent.nonce = fresh;
          inCase(n.what, () => {
            if (n.clause === 'ERR-TABLE-3') {
              // Downgrade (spec, Errors): the DPoP challenge with algs, never a Bearer one.
              expectDpopFailure(shop, res, n.spec, { clause: n.clause, nonce: false, algs: true });
              if (findChallenge(challengesOf(res, { clause: n.clause }), 'Bearer'))
                fail('WWW-Authenticate', 'no Bearer challenge', res.headers.get('www-authenticate'), { clause: n.clause });
              return;
            }
            // Where a conforming deployment may take the request (n.mayAccept), a 2xx is no failure at spec level; it still
            // carries its nonce (AUTH-ORDER-4).
            if (level === 'spec' && n.mayAccept && res.status >= 200 && res.status < 300) {
              expectNonceHeader(res, { clause: 'AUTH-ORDER-4' });
              return;
            }
            expectDpopFailure(shop, res, level === 'spec' ? n.spec : [n.reference], {
              clause: n.clause,
              nonce: n.nonce ?? true,
              algs: level === 'reference',
            });
          });
        });
        // None of the refused requests spent anything: the correct proof still works, on every session.
        await judgeCases(agents, async (agent) => {
          expectSuccess((await agent.get(CART)).res, { what: 'a correct proof after all the negatives', clause: 'AUTH-ASST-1' });
        });
      },
    ),
  );
}
