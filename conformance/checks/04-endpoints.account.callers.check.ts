// Spec part 4, Endpoints > Operations, for the account data operations (profile, addresses, saved cards, orders) and the
// checkout reads (identity, checkout address, checkout methods): which caller kinds each admits (Caller lists by name: the
// account and checkout lists), which API scope each needs, and the refusal of accounts whose access ended (part 3).
//
// Levels. The spec shows no payload shapes and not the scopes of the checkout reads: those are the reference's
// (docs/account.md) and are checked at level reference. The members of the diagnostic list of GET /v1/me are judged at
// spec level only as the target's /openapi.json names them. Probes address ids the seed does not hold, so nothing is
// written.
import { check, learned, notApplicable, test } from '../engine/runner/check.js';
import { credentialsOfClaimedKinds } from '../lib/callers.js';
import { callerGuardCheck, guardRefused } from './_shared/caller-guard.js';
import { brief, expectProblem, expectSuccess, fail, inCase } from '../lib/assert.js';
import { OPERATIONS_BY_ID } from '../../contract/operations.js';
import { ADDRESS } from './_shared/add-address.js';
import { expectRefusal } from '../lib/expect/refusals.js';
import { customerToken, delegatedToken } from '../lib/callers.js';
import { ABSENT_IDS, ENDED_ACCOUNTS } from './_shared/seed-data.js';
import { SPECIAL_PATHS } from '../../contract/routes.js';
import { judgeCases, mapCases } from '../engine/runner/cases.js';

// --- the operations --------------------------------------------------------------------------------------------------

const ACCOUNT_OPS = [
  'getProfile',
  'listAddresses',
  'addAddress',
  'deleteAddress',
  'listPaymentMethods',
  'listOrders',
  'getOrder',
  'cancelOrder',
  'requestReturn',
] as const;
const CHECKOUT_READS = ['getIdentity', 'getCheckoutAddress', 'getCheckoutMethods'] as const;
type Op = (typeof ACCOUNT_OPS)[number] | (typeof CHECKOUT_READS)[number];

/** A request for `op` on ids the seed does not hold: admitted callers get past the guard and then a 4xx, nothing written. */
function requestFor(op: Op): { path: string; json?: unknown } {
  const o = OPERATIONS_BY_ID.get(op);
  if (!o) throw new Error(`contract has no operation ${op}`);
  const path = o.path.replace('{id}', op === 'deleteAddress' ? ABSENT_IDS.address : ABSENT_IDS.order);
  switch (op) {
    case 'addAddress':
      return { path, json: ADDRESS };
    case 'cancelOrder':
      return { path, json: {} };
    case 'requestReturn':
      return { path, json: { reason: 'conformance probe' } };
    default:
      return { path };
  }
}

// --- caller-kind guard of each operation -------------------------------------------------------------------------------

for (const op of [...ACCOUNT_OPS, ...CHECKOUT_READS]) test(...callerGuardCheck(op, () => requestFor(op)));

// --- scopes ------------------------------------------------------------------------------------------------------------

/** Every API scope a signed-in customer can hold (docs/tokens.md), less one. */
const ALL_CUSTOMER_SCOPES = [
  'catalog:read',
  'cart:read',
  'cart:write',
  'account:read',
  'payment_methods:read',
  'orders:read',
  'account:write',
  'orders:write',
];
const without = (scope: string) => ALL_CUSTOMER_SCOPES.filter((s) => s !== scope);

test(
  ...check(
    {
      id: 'endpoints.account.scopes',
      everyResponse: true,
      title:
        'each account operation without its API scope (account:read, account:write, payment_methods:read, orders:read, orders:write) is 403 insufficient_scope naming it',
      clauses: [...ACCOUNT_OPS.map((op) => `END-OPS-${op.toUpperCase()}-1`), 'ERR-TABLE-9', 'AUTH-CUST-1', 'RES-PROBLEM-11'],
    },
    async (shop) => {
      // Each request is its own fresh account (a control's address lands on an account nothing else reads): cases of their
      // own.
      const calls = ACCOUNT_OPS.flatMap((op) => [
        ...OPERATIONS_BY_ID.get(op)!.apiScopes.map((scope) => ({ op, scope })),
        // Control: with every scope the same request passes the guard.
        { op, scope: undefined },
      ]);
      await judgeCases(calls, async ({ op, scope }) => {
        const { path, json } = requestFor(op);
        const token = scope === undefined ? await customerToken(shop) : await customerToken(shop, shop.subject('cust'), without(scope));
        const res = await shop.http.request(OPERATIONS_BY_ID.get(op)!.method, path, { token, ...(json !== undefined ? { json } : {}) });
        if (scope !== undefined)
          expectProblem(res, {
            status: 403,
            error: 'insufficient_scope',
            scope,
            docsUrl: shop.docsUrl,
            clause: `END-OPS-${op.toUpperCase()}-1`,
          });
        else if (guardRefused(res))
          fail(`control: ${op} with every customer scope`, 'past the guard', brief(res), { clause: 'AUTH-CUST-1' });
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.account.scopes.delegated',
      title:
        'a delegated caller missing any one API scope of an account operation (each operation, each of its scopes) is 403 insufficient_scope naming it',
      clauses: ['AUTH-SCOPE-2', 'ERR-TABLE-9', 'END-OPS-LISTORDERS-1', 'END-OPS-ADDADDRESS-1'],
      requires: ['delegated'],
    },
    async (shop) => {
      // Translation yields nothing unless every required scope is granted: each operation, without each of its scopes. Each
      // case is a fresh account, refused: cases of their own.
      const cases = ACCOUNT_OPS.flatMap((op) => OPERATIONS_BY_ID.get(op)!.apiScopes.map((scope) => ({ op, scope })));
      await judgeCases(cases, async ({ op, scope }) => {
        const { method } = OPERATIONS_BY_ID.get(op)!;
        const { path, json } = requestFor(op);
        const token = await delegatedToken(shop, shop.subject('cust'), without(scope));
        const res = await shop.http.request(method, path, { token, ...(json !== undefined ? { json } : {}) });
        inCase(`${op} without ${scope}`, () =>
          expectProblem(res, { status: 403, error: 'insufficient_scope', scope, docsUrl: shop.docsUrl, clause: 'AUTH-SCOPE-2' }),
        );
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.account.scopes.checkout-reads.reference',
      title: 'the checkout reads need account:read (identity, checkout address) and payment_methods:read (checkout methods)',
      clauses: ['END-OPS-GETIDENTITY-1', 'END-OPS-GETCHECKOUTADDRESS-1', 'END-OPS-GETCHECKOUTMETHODS-1', 'ERR-TABLE-9'],
      level: 'reference',
    },
    async (shop) => {
      // Reads, each of its own fresh account: cases of their own.
      const reads = [
        ['/v1/me/identity', 'account:read', 'END-OPS-GETIDENTITY-1'],
        ['/v1/me/checkout-address', 'account:read', 'END-OPS-GETCHECKOUTADDRESS-1'],
        ['/v1/me/checkout-methods', 'payment_methods:read', 'END-OPS-GETCHECKOUTMETHODS-1'],
      ] as const;
      await judgeCases(reads, async ([path, scope, clause]) => {
        const token = await customerToken(shop, shop.subject('cust'), without(scope));
        expectProblem(await shop.http.get(path, { token }), {
          status: 403,
          error: 'insufficient_scope',
          scope,
          docsUrl: shop.docsUrl,
          clause,
        });
      });
    },
  ),
);

// --- active accounts -----------------------------------------------------------------------------------------------------

test(
  ...check(
    {
      id: 'endpoints.account.ended-accounts',
      title: 'an account in deleting, deleted or contact_transition is 401 account_access_ended on every account route and checkout read',
      clauses: ['AUTH-ACTIVE-1', 'ERR-TABLE-5', 'AUTH-ORDER-1'],
      seed: true,
    },
    async (shop) => {
      // The control reads a fresh account of its own: it goes at once with the refused calls below, judged first.
      const control = customerToken(shop).then((token) => shop.http.get('/v1/me/profile', { token }));
      const calls: { token: string; op: Op }[] = [];
      for (const sub of Object.values(ENDED_ACCOUNTS)) {
        const tokens = [await customerToken(shop, sub), ...(shop.profile.capabilities.delegated ? [await delegatedToken(shop, sub)] : [])];
        for (const token of tokens) for (const op of [...ACCOUNT_OPS, ...CHECKOUT_READS]) calls.push({ token, op });
      }
      // Every call is refused and changes nothing: cases of their own, judged in turn once all are in.
      const answers = mapCases(calls, ({ token, op }) => {
        const operation = OPERATIONS_BY_ID.get(op)!;
        // The live actor (lifecycle) is resolved before the guard: a delegated caller of an ended account is told so even on
        // the checkout reads, whose list does not admit it.
        const { path, json } = requestFor(op);
        return shop.http.request(operation.method, path, { token, ...(json !== undefined ? { json } : {}) });
      });
      const [controlAnswer, refusals] = await Promise.all([control, answers]);
      expectSuccess(controlAnswer, { what: 'control: an active account reads its profile', clause: 'AUTH-ACTIVE-1' });
      for (const res of refusals)
        expectProblem(res, { status: 401, error: 'account_access_ended', docsUrl: shop.docsUrl, clause: 'AUTH-ACTIVE-1' });
    },
  ),
);

// --- the diagnostic read -----------------------------------------------------------------------------------------------

// GET /v1/me is served under its own diagnostic list (Caller lists by name), whose members the spec does not show. A
// deployment that names them in its description document (`x-callers` on GET /v1/me in /openapi.json, as the reference's
// does) is held to its word at spec level: each kind named is served, each other kind is refused. Without that member
// the list is unknown and the check does not apply.
test(
  ...check(
    {
      id: 'endpoints.me.diagnostic-list',
      title: 'GET /v1/me serves the caller kinds its description names (x-callers) and refuses the others',
      clauses: ['END-LIST-6'],
    },
    async (shop) => {
      const paths = (learned().documents.general.paths ?? {}) as Record<string, Record<string, Record<string, unknown>> | undefined>;
      const declared = paths['/v1/me']?.get?.['x-callers'];
      if (!Array.isArray(declared) || !declared.every((k) => typeof k === 'string'))
        return notApplicable(
          `${SPECIAL_PATHS.getDescription} names no x-callers on GET /v1/me: the spec does not show the diagnostic list`,
        );
      // A read, each kind its own caller: the kinds are cases of their own.
      await judgeCases(await credentialsOfClaimedKinds(shop), ([kind, who]) =>
        inCase(`${kind} on GET /v1/me (x-callers ${JSON.stringify(declared)})`, async () => {
          const res = await shop.http.get('/v1/me', who);
          if (declared.includes(kind)) expectSuccess(res, { what: 'served', clause: 'END-LIST-6' });
          else expectRefusal(shop, res, { clause: 'END-LIST-6' });
        }),
      );
    },
  ),
);

// The reference's own list, whatever the documents say: it admits every caller kind so that any credential can be
// diagnosed (contract/callers.ts). Reference level; the agents' own diagnostic reads are judged in part 5 (authentication.agents.invited.me.reference, authentication.agents.assistant.me.reference).
test(
  ...check(
    {
      id: 'endpoints.me.diagnostic-list.reference',
      title:
        "GET /v1/me admits the reference's diagnostic list, not the account list: a customer, a delegated caller, a guest and an operator each get 200",
      clauses: ['END-LIST-6'],
      level: 'reference',
    },
    async (shop) => {
      await judgeCases(await credentialsOfClaimedKinds(shop), ([kind, who]) =>
        inCase(`${kind} on GET /v1/me`, async () =>
          expectSuccess(await shop.http.get('/v1/me', who), { what: 'GET /v1/me', clause: 'END-LIST-6' }),
        ),
      );
    },
  ),
);
