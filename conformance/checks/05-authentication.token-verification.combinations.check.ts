// Spec part 5, Authentication > Token verification 3-4: the caller kind comes from client_id, sub and act, and any other
// combination (an unknown client_id, an act chain whose outermost actor is not the agent client, a machine token of a
// client with no caller kind, a website user token carrying act) is refused with 401 or 403 even with a valid signature.
import { randomUUID } from 'node:crypto';
import { check, test, type Shop } from '../engine/runner/check.js';
import { judgeCases, mapCases } from '../engine/runner/cases.js';
import { expectNoHeader, expectProblem, expectSuccess, inCase } from '../lib/assert.js';
import { expectInvalidToken, expectRefusedCombination } from '../lib/expect/refusals.js';

// ------------------------------------------------------------------------ Token verification 3-4: caller-kind combinations

const PATHS_EVERY_KIND_READS = ['/v1/cart', '/v1/catalog/products'] as const;

/** Both reads at once, judged in turn. */
async function expectCombinationRefused(shop: Shop, token: string, { what, clause }: { what: string; clause: string }): Promise<void> {
  const answers = await Promise.all(PATHS_EVERY_KIND_READS.map((path) => shop.http.get(path, { token })));
  for (const [i, path] of PATHS_EVERY_KIND_READS.entries())
    inCase(`${what}, GET ${path}`, () => expectRefusedCombination(shop, answers[i]!, { what: 'refusal', clause }));
}

/** Each token is refused on its own reads (nothing is written): each token is a case of its own. */
const expectEachRefused = (shop: Shop, cases: readonly [string, () => Promise<string>][], clause: string): Promise<void> =>
  judgeCases(cases, async ([what, token]) => expectCombinationRefused(shop, await token(), { what, clause }));

test(
  ...check(
    {
      id: 'authentication.kind.unknown-client',
      title: 'a validly signed token of an unknown client_id is refused (401 or 403)',
      clauses: ['AUTH-TOKEN-9', 'AUTH-TOKEN-8'],
    },
    async (shop) => {
      const stranger = `stranger-${randomUUID()}`;
      await expectEachRefused(
        shop,
        [
          ['machine token of an unknown client', () => shop.mint.machine(stranger)],
          ['user token of an unknown client', () => shop.mint.customer({ sub: shop.subject('cust'), claims: { client_id: stranger } })],
        ],
        'AUTH-TOKEN-9',
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.kind.act-outermost-not-agent-client',
      title: 'an act chain whose outermost actor is not the agent-protocol client is refused (401 or 403)',
      clauses: ['AUTH-TOKEN-10', 'AUTH-TOKEN-8'],
    },
    async (shop) => {
      const agent = shop.profile.clients.agentProtocol;
      await expectEachRefused(
        shop,
        [{ sub: 'someone-else' }, { sub: 'someone-else', act: { sub: agent } }, { sub: shop.profile.clients.website }].map((act) => [
          `act ${JSON.stringify(act)}`,
          () => shop.mint.delegated({ sub: shop.subject('cust'), claims: { act } }),
        ]),
        'AUTH-TOKEN-10',
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.kind.machine-without-caller-kind',
      title: 'a validly signed machine token of a client with no caller kind is refused (401 or 403)',
      clauses: ['AUTH-TOKEN-11', 'AUTH-TOKEN-8'],
    },
    async (shop) => {
      const c = shop.profile.clients;
      await expectEachRefused(
        shop,
        [c.website, c.agentProtocol, c.personalAgentProxy].map((client) => [`machine token of ${client}`, () => shop.mint.machine(client)]),
        'AUTH-TOKEN-11',
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.kind.website-token-with-act',
      title: 'a website user token carrying act is never a customer: refused on cart and catalog',
      clauses: ['AUTH-TOKEN-12', 'AUTH-TOKEN-8'],
    },
    async (shop) => {
      const sub = shop.subject('cust');
      // The control first, then the refused tokens (each a case of its own).
      expectSuccess(await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub }) }), {
        what: 'control: the same token without act',
        clause: 'AUTH-TOKEN-12',
      });
      await expectEachRefused(
        shop,
        [{ sub: shop.profile.clients.agentProtocol }, { sub: 'invited_agent_1' }, { sub: shop.profile.clients.website }].map((act) => [
          `website token with act ${JSON.stringify(act)}`,
          () => shop.mint.customer({ sub, claims: { act } }),
        ]),
        'AUTH-TOKEN-12',
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.kind.other-combinations',
      title: 'other claim combinations matching no caller kind are refused (401 or 403)',
      clauses: ['AUTH-TOKEN-8'],
    },
    async (shop) => {
      const c = shop.profile.clients;
      const sub = shop.subject('cust');
      const cases: [string, Promise<string>][] = [
        ['agent-protocol user token without act', shop.mint.delegated({ sub, claims: { act: undefined } })],
        ['user sub on the storefront client', shop.mint.machine(c.storefront, { claims: { sub } })],
        ['user sub on the backoffice client', shop.mint.machine(c.backoffice, { claims: { sub } })],
        [
          'machine sub of another client on the storefront client',
          shop.mint.machine(c.storefront, { claims: { sub: `${c.backoffice}@clients` } }),
        ],
      ];
      await expectEachRefused(
        shop,
        cases.map(([what, token]) => [what, () => token]),
        'AUTH-TOKEN-8',
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.kind.combinations.reference',
      title:
        'refused combinations: 401 invalid_token, except 403 caller_not_allowed (no challenge) for machine tokens of clients with no caller kind',
      clauses: ['AUTH-TOKEN-8', 'AUTH-TOKEN-9', 'AUTH-TOKEN-10', 'AUTH-TOKEN-11', 'AUTH-TOKEN-12'],
      level: 'reference',
    },
    async (shop) => {
      const c = shop.profile.clients;
      const sub = shop.subject('cust');
      const invalid: [string, string, Promise<string>][] = [
        ['AUTH-TOKEN-9', 'unknown client', shop.mint.machine(`stranger-${randomUUID()}`)],
        ['AUTH-TOKEN-10', 'outermost actor', shop.mint.delegated({ sub, claims: { act: { sub: 'someone-else' } } })],
        ['AUTH-TOKEN-12', 'website token with act', shop.mint.customer({ sub, claims: { act: { sub: c.agentProtocol } } })],
        ['AUTH-TOKEN-8', 'delegated without act', shop.mint.delegated({ sub, claims: { act: undefined } })],
        ['AUTH-TOKEN-8', 'user sub on the storefront client', shop.mint.machine(c.storefront, { claims: { sub } })],
        ['AUTH-TOKEN-8', 'machine sub of another client', shop.mint.machine(c.storefront, { claims: { sub: `${c.backoffice}@clients` } })],
        // The spec's guest row does not exclude act; the reference refuses it.
        ['AUTH-TOKEN-8', 'storefront machine token carrying act', shop.mint.guest({ claims: { act: { sub: c.agentProtocol } } })],
      ];
      const machines = [c.website, c.agentProtocol, c.personalAgentProxy].map((client) => shop.mint.machine(client));
      // Refused reads only: every token a case of its own, their answers judged in turn.
      const answers = await mapCases([...invalid.map(([, , token]) => token), ...machines], async (token) =>
        shop.http.get('/v1/cart', { token: await token }),
      );
      for (const [i, [clause, what]] of invalid.entries()) inCase(what, () => expectInvalidToken(shop, answers[i]!, { clause }));
      for (const res of answers.slice(invalid.length)) {
        expectProblem(res, { status: 403, error: 'caller_not_allowed', docsUrl: shop.docsUrl, clause: 'AUTH-TOKEN-11' });
        expectNoHeader(res, 'www-authenticate', { what: 'WWW-Authenticate on caller_not_allowed', clause: 'AUTH-TOKEN-11' });
      }
    },
  ),
);
