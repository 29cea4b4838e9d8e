// Spec part 3, States and transitions: an account in `deleting`, `deleted` or `contact_transition` is refused with 401
// account_access_ended and an invalid_token challenge, whichever account-bound caller speaks for it, before guards and
// input validation. The seed holds one account in each state (docs/seed.md; ENDED_ACCOUNTS of _shared/seed-data.ts).
import { check, test, type Shop } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { judgeCases } from '../engine/runner/cases.js';
import { expectChallenge, expectProblem, expectSuccess, fail, inCase } from '../lib/assert.js';
import { cartLine } from './_shared/cart-lines.js';
import { ENDED_ACCOUNTS } from './_shared/seed-data.js';

/** The ended accounts, read inside a check (a profile that declares none skips it). */
const ended = () =>
  [
    { sub: ENDED_ACCOUNTS.deleting, state: 'deleting', clause: 'STA-LIFE-1' },
    { sub: ENDED_ACCOUNTS.deleted, state: 'deleted', clause: 'STA-LIFE-2' },
    { sub: ENDED_ACCOUNTS.contactTransition, state: 'contact_transition', clause: 'STA-LIFE-3' },
  ] as const;
type EndedAccount = ReturnType<typeof ended>[number];

/**
 * Judges the control (an active account), if any, and every ended account, each a case on its own clause: a server that
 * refuses one state wrongly is blamed for that state, not for the first state judged. Each is its own account: they go at
 * once, the control's failure first, then the states' in their order.
 */
async function judgeStates(judge: (account: EndedAccount) => Promise<void>, control?: () => Promise<void>): Promise<void> {
  const cases: readonly (EndedAccount | null)[] = control ? [null, ...ended()] : ended();
  await judgeCases(cases, (account) => (account === null ? control!() : judge(account)));
}

/** Requests an account-bound caller makes: cart read and write (the body is the target's own), a catalog read. */
const REQUESTS: readonly [string, (shop: Shop, token: string) => Promise<ShopResponse>][] = [
  ['GET /v1/cart', (shop, token) => shop.http.get('/v1/cart', { token })],
  ['POST /v1/cart/items', (shop, token) => shop.http.post('/v1/cart/items', { token, json: cartLine() })],
  ['GET /v1/catalog/collections', (shop, token) => shop.http.get('/v1/catalog/collections', { token })],
];

/**
 * The answers to REQUESTS, in their order, for one token: the reads first, at once (the cart's read still before the write
 * to that cart; the catalog read touches no cart), then the write.
 */
async function sendRequests(shop: Shop, token: string): Promise<ShopResponse[]> {
  const answers: ShopResponse[] = new Array<ShopResponse>(REQUESTS.length);
  const reads = REQUESTS.flatMap(([what, send], i) => (what.startsWith('GET ') ? [{ send, i }] : []));
  await Promise.all(reads.map(async ({ send, i }) => (answers[i] = await send(shop, token))));
  for (const [i, [what, send]] of REQUESTS.entries()) if (!what.startsWith('GET ')) answers[i] = await send(shop, token);
  return answers;
}

/** 401 account_access_ended with an error="invalid_token" challenge; these tokens are plain Bearer, so the scheme is Bearer. */
function expectAccessEnded(shop: Shop, res: ShopResponse, { clause, what }: { clause: string; what: string }): void {
  inCase(what, () => {
    expectProblem(res, { status: 401, error: 'account_access_ended', docsUrl: shop.docsUrl, clause });
    expectChallenge(res, { scheme: 'Bearer', error: 'invalid_token', clause: 'ERR-TABLE-5' });
  });
}

test(
  ...check(
    {
      id: 'states.ended.customer',
      title:
        'a customer token of an account in deleting, deleted or contact_transition is 401 account_access_ended with an invalid_token challenge',
      clauses: ['STA-LIFE-1', 'STA-LIFE-2', 'STA-LIFE-3', 'ERR-TABLE-5', 'AUTH-ACTIVE-1'],
      seed: true,
    },
    async (shop) => {
      // Control: the same requests succeed for an active account (a fresh subject, provisioned active). The control and
      // the states are other accounts: they go at once, the control's failure first.
      const active = await shop.mint.customer({ sub: shop.subject('cust') });
      await judgeStates(
        async ({ sub, state, clause }) => {
          const answers = await sendRequests(shop, await shop.mint.customer({ sub }));
          for (const [i, [what]] of REQUESTS.entries())
            expectAccessEnded(shop, answers[i]!, { clause, what: `${state} (${sub}), customer, ${what}` });
        },
        async () =>
          expectSuccess(await shop.http.get('/v1/cart', { token: active }), {
            what: 'control: an active account reads its cart',
            clause: 'AUTH-ACTIVE-1',
          }),
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'states.ended.delegated',
      title:
        'a delegated token of an account in deleting, deleted or contact_transition is 401 account_access_ended with an invalid_token challenge',
      clauses: ['STA-LIFE-1', 'STA-LIFE-2', 'STA-LIFE-3', 'ERR-TABLE-5', 'AUTH-ACTIVE-1'],
      requires: ['delegated'],
      seed: true,
    },
    async (shop) => {
      const active = await shop.mint.delegated({ sub: shop.subject('cust') });
      await judgeStates(
        async ({ sub, state, clause }) => {
          const answers = await sendRequests(shop, await shop.mint.delegated({ sub }));
          for (const [i, [what]] of REQUESTS.entries())
            expectAccessEnded(shop, answers[i]!, { clause, what: `${state} (${sub}), delegated, ${what}` });
        },
        async () =>
          expectSuccess(await shop.http.get('/v1/cart', { token: active }), {
            what: 'control: a delegated caller of an active account reads its cart',
            clause: 'AUTH-ACTIVE-1',
          }),
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'states.ended.before-validation',
      title: 'an ended account is refused before input validation: an invalid body still gets 401 account_access_ended',
      clauses: ['AUTH-TOKEN-13', 'ERR-TABLE-5'],
      seed: true,
    },
    async (shop) => {
      const invalid = { variant_id: 42, quantity: -1, unexpected: true };
      // An invalid body writes nothing, and each request is another account: the control and the states go at once,
      // the control's failure first.
      const post = async (sub: string) => shop.http.post('/v1/cart/items', { token: await shop.mint.customer({ sub }), json: invalid });
      await judgeStates(
        async ({ sub, state }) =>
          expectAccessEnded(shop, await post(sub), { clause: 'AUTH-TOKEN-13', what: `${state} (${sub}) with an invalid body` }),
        async () => {
          const control = await post(shop.subject('cust'));
          // Control: the body is refused for an active account (validation: 400 invalid_request in the spec's table; any 4xx but 401 will do).
          if (control.status < 400 || control.status > 499 || control.status === 401) {
            fail(
              'control: the invalid body from an active account: status',
              'a 4xx refusal other than 401',
              `${control.status} ${control.text.slice(0, 300)}`,
              { clause: 'AUTH-TOKEN-13' },
            );
          }
        },
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'states.ended.challenge.reference',
      title: 'account_access_ended carries exactly WWW-Authenticate: Bearer error="invalid_token", on the diagnostic read too',
      clauses: ['ERR-TABLE-5', 'STA-LIFE-1', 'STA-LIFE-2', 'STA-LIFE-3'],
      level: 'reference',
      seed: true,
    },
    async (shop) => {
      await judgeStates(async ({ sub, state, clause }) => {
        const res = await shop.http.get('/v1/me', { token: await shop.mint.customer({ sub }) });
        inCase(`${state} (${sub}), customer, GET /v1/me`, () => {
          expectProblem(res, { status: 401, error: 'account_access_ended', docsUrl: shop.docsUrl, clause });
          const header = res.headers.get('www-authenticate');
          if (header !== 'Bearer error="invalid_token"')
            fail('WWW-Authenticate', 'Bearer error="invalid_token"', header, { clause: 'ERR-TABLE-5' });
        });
      });
    },
  ),
);
