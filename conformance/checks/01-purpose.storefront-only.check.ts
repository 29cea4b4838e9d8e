// Spec part 1, What the service does, rules 3 and 4: capabilities that only the storefront performs are not service
// endpoints (probed at plausible paths, and looked for in both description documents), and no described operation is
// human-only (requires account:security). "Answers" means 2xx or 3xx: the suite follows no redirect.
import { randomUUID } from 'node:crypto';
import { check, test } from '../engine/runner/check.js';
import { judgeCases } from '../engine/runner/cases.js';
import { fail, expectNoAnswer } from '../lib/assert.js';
import type { HttpMethod } from '../../contract/operations.js';
import { addAddress, addressBody, createdAddressId } from './_shared/add-address.js';
import { describedOperations, judgeEachDocument, normalizePath } from './_shared/describe-operations.js';
import { customerToken } from '../lib/callers.js';
import { ADA, ORDERS } from './_shared/seed-data.js';

interface Probe {
  method: HttpMethod;
  /** Path template; `{id}` is filled with `id` (default: an id nobody has). */
  path: string;
  id?: string;
}

/** Marks a probe whose `{id}` is an address the probing account adds first. */
const OWN_ADDRESS = '<own address>';

const STOREFRONT_ONLY: readonly { name: string; clause: string; what: string; seed?: boolean; probes: readonly Probe[] }[] = [
  {
    name: 'guest-cart-merge',
    clause: 'PUR-STOREFRONT-2',
    what: 'guest-cart merge',
    probes: [
      { method: 'POST', path: '/v1/cart/merge' },
      { method: 'POST', path: '/v1/cart/merges' },
      { method: 'POST', path: '/v1/me/cart/merge' },
      { method: 'POST', path: '/v1/carts/merge' },
      { method: 'POST', path: '/v1/guest-cart/merge' },
      { method: 'POST', path: '/v1/cart/claim' },
    ],
  },
  {
    // Read-only probes at an order Ada owns (docs/seed.md), so that a receipt route would have something to show.
    name: 'status-receipt-pages',
    clause: 'PUR-STOREFRONT-3',
    what: 'status receipt pages',
    seed: true,
    probes: [
      { method: 'GET', path: '/v1/orders/{id}/receipt', id: ORDERS.adaDelivered.id },
      { method: 'GET', path: '/v1/me/orders/{id}/receipt', id: ORDERS.adaDelivered.id },
      { method: 'GET', path: '/v1/receipts/{id}', id: ORDERS.adaDelivered.id },
      { method: 'GET', path: '/v1/orders/{id}/status', id: ORDERS.adaDelivered.id },
      { method: 'GET', path: '/v1/order-status/{id}', id: ORDERS.adaDelivered.id },
      { method: 'GET', path: '/v1/status/{id}', id: ORDERS.adaDelivered.id },
    ],
  },
  {
    name: 'profile-page',
    clause: 'PUR-STOREFRONT-4',
    what: 'the profile page',
    probes: [
      { method: 'GET', path: '/v1/me/profile-page' },
      { method: 'GET', path: '/v1/profile' },
      { method: 'GET', path: '/v1/account' },
      { method: 'GET', path: '/v1/me/account' },
      { method: 'PUT', path: '/v1/me/profile' },
      { method: 'PATCH', path: '/v1/me/profile' },
    ],
  },
  {
    name: 'email-verification-sync',
    clause: 'PUR-STOREFRONT-5',
    what: 'email-verification sync after sign-in',
    probes: [
      { method: 'POST', path: '/v1/me/email-verification/sync' },
      { method: 'POST', path: '/v1/me/email-verification' },
      { method: 'POST', path: '/v1/me/email/sync' },
      { method: 'POST', path: '/v1/me/verify-email' },
      { method: 'POST', path: '/v1/auth/email-verification/sync' },
      { method: 'POST', path: '/v1/email-verification/sync' },
    ],
  },
  {
    name: 'guest-order-claim',
    clause: 'PUR-STOREFRONT-6',
    what: 'claim of verified guest orders',
    probes: [
      { method: 'POST', path: '/v1/me/orders/claim' },
      { method: 'POST', path: '/v1/orders/claim' },
      { method: 'POST', path: '/v1/me/guest-orders/claim' },
      { method: 'POST', path: '/v1/guest-orders/claim' },
      { method: 'POST', path: '/v1/me/order-claims' },
      { method: 'POST', path: '/v1/me/orders/{id}/claim' },
    ],
  },
  {
    name: 'card-controls',
    clause: 'PUR-STOREFRONT-7',
    what: 'card controls (payment methods are list-only)',
    probes: [
      { method: 'POST', path: '/v1/me/payment-methods' },
      { method: 'PUT', path: '/v1/me/payment-methods/{id}' },
      { method: 'PATCH', path: '/v1/me/payment-methods/{id}' },
      { method: 'DELETE', path: '/v1/me/payment-methods/{id}' },
      { method: 'POST', path: '/v1/me/payment-methods/{id}/default' },
      { method: 'POST', path: '/v1/me/payment-methods/{id}/freeze' },
      { method: 'POST', path: '/v1/me/cards/{id}/lock' },
    ],
  },
  {
    name: 'address-update-default',
    clause: 'PUR-STOREFRONT-8',
    what: 'address update and address default',
    probes: [
      { method: 'PUT', path: '/v1/me/addresses/{id}' },
      { method: 'PATCH', path: '/v1/me/addresses/{id}' },
      // On an address of the caller's own too: a server that updates existing rows only must show it there.
      { method: 'PUT', path: '/v1/me/addresses/{id}', id: OWN_ADDRESS },
      { method: 'PATCH', path: '/v1/me/addresses/{id}', id: OWN_ADDRESS },
      { method: 'POST', path: '/v1/me/addresses/{id}/default', id: OWN_ADDRESS },
      { method: 'POST', path: '/v1/me/addresses/{id}/default' },
      { method: 'PUT', path: '/v1/me/addresses/{id}/default' },
      { method: 'PUT', path: '/v1/me/default-address' },
      { method: 'POST', path: '/v1/me/default-address' },
      { method: 'GET', path: '/v1/me/default-address' },
    ],
  },
  {
    name: 'private-activity',
    clause: 'PUR-STOREFRONT-9',
    what: 'private activity',
    probes: [
      { method: 'GET', path: '/v1/me/activity' },
      { method: 'GET', path: '/v1/me/private-activity' },
      { method: 'GET', path: '/v1/me/activity-log' },
      { method: 'GET', path: '/v1/me/activities' },
      { method: 'GET', path: '/v1/activity' },
    ],
  },
  {
    name: 'connected-agents',
    clause: 'PUR-STOREFRONT-10',
    what: 'connected agents',
    probes: [
      { method: 'GET', path: '/v1/me/agents' },
      { method: 'GET', path: '/v1/me/connected-agents' },
      { method: 'GET', path: '/v1/me/agents/connected' },
      { method: 'DELETE', path: '/v1/me/connected-agents/{id}' },
      { method: 'DELETE', path: '/v1/me/agents/{id}' },
      { method: 'GET', path: '/v1/agents/connected' },
    ],
  },
  {
    name: 'agent-invitations',
    clause: 'PUR-STOREFRONT-11',
    what: 'agent invitations, their acceptance and inspection',
    probes: [
      { method: 'GET', path: '/v1/me/agent-invitations' },
      { method: 'POST', path: '/v1/me/agent-invitations' },
      { method: 'GET', path: '/v1/agent-invitations/{id}' },
      { method: 'POST', path: '/v1/agent-invitations/{id}/accept' },
      { method: 'POST', path: '/v1/me/agent-invitations/{id}/accept' },
      { method: 'GET', path: '/v1/invitations/{id}' },
      { method: 'POST', path: '/v1/invitations/{id}/accept' },
    ],
  },
  {
    name: 'delegated-sign-in',
    clause: 'PUR-STOREFRONT-12',
    what: 'delegated sign-in',
    probes: [
      { method: 'POST', path: '/v1/delegated-sign-in' },
      { method: 'POST', path: '/v1/agents/sign-in' },
      { method: 'POST', path: '/v1/me/delegated-sign-in' },
      { method: 'POST', path: '/v1/auth/delegated' },
      { method: 'POST', path: '/v1/agent-sign-in' },
      { method: 'POST', path: '/v1/sign-in/delegated' },
    ],
  },
  {
    name: 'sign-out-everywhere',
    clause: 'PUR-STOREFRONT-13',
    what: 'sign-out-everywhere',
    probes: [
      { method: 'POST', path: '/v1/me/sign-out-everywhere' },
      { method: 'POST', path: '/v1/me/sessions/revoke' },
      { method: 'DELETE', path: '/v1/me/sessions' },
      { method: 'POST', path: '/v1/sign-out-everywhere' },
      { method: 'POST', path: '/v1/me/logout-all' },
      { method: 'POST', path: '/v1/me/sign-out' },
    ],
  },
  {
    name: 'account-security',
    clause: 'PUR-STOREFRONT-14',
    what: 'the account-security family',
    probes: [
      { method: 'POST', path: '/v1/me/fresh-verifications' },
      { method: 'GET', path: '/v1/me/security-methods' },
      { method: 'POST', path: '/v1/me/security-methods' },
      { method: 'POST', path: '/v1/me/embedded-verification' },
      { method: 'PUT', path: '/v1/me/phone' },
      { method: 'POST', path: '/v1/me/phone-change' },
      { method: 'PATCH', path: '/v1/me/email' },
      { method: 'POST', path: '/v1/me/email-change' },
      { method: 'GET', path: '/v1/me/contact-methods' },
      { method: 'POST', path: '/v1/me/security-intents' },
      { method: 'DELETE', path: '/v1/me' },
      { method: 'DELETE', path: '/v1/me/account' },
      { method: 'POST', path: '/v1/me/account/deletion' },
      { method: 'POST', path: '/v1/me/deletion' },
    ],
  },
];

for (const cap of STOREFRONT_ONLY) {
  const clauses = ['PUR-STOREFRONT-1', cap.clause, ...(cap.clause === 'PUR-STOREFRONT-14' ? ['PUR-HUMAN-3'] : [])];
  test(
    ...check(
      {
        id: `purpose.storefront-only.${cap.name}`,
        title: `storefront-only, not a service endpoint: ${cap.what} (no answer at plausible paths, not in either description document)`,
        clauses,
        ...(cap.seed ? { seed: true } : {}),
      },
      async (shop) => {
        // Reads as the seeded account that owns the probed ids; writes always as a fresh account, so that a service which does
        // serve them changes nothing anyone else relies on.
        const reader = cap.seed ? await customerToken(shop, ADA.sub) : undefined;
        // The probes do not depend on each other: each write is a fresh account's (its own address added first, in its
        // probe), and the seeded account is only read. Each probe is a case of its own, judged beside the two description
        // documents (read-only).
        const documents = describedOperations(shop).then(
          (docs) => ({ docs }),
          (err: unknown) => ({ err }),
        );
        await judgeCases(cap.probes, async (probe) => {
          const token = probe.method === 'GET' && reader ? reader : await customerToken(shop);
          // An address of the fresh account's own, added first with the target's body, and that body sent back.
          const own = probe.id === OWN_ADDRESS ? await addAddress(shop, token, { clause: 'END-OPS-ADDADDRESS-1' }) : undefined;
          const id = own ? createdAddressId(shop, own) : (probe.id ?? `conformance_${randomUUID().slice(0, 8)}`);
          const path = probe.path.replace('{id}', encodeURIComponent(id));
          const res = await shop.http.request(probe.method, path, {
            token,
            ...(probe.method === 'GET' || probe.method === 'DELETE' ? {} : { json: own ? addressBody() : {} }),
          });
          // Served is this capability's own clause and the rule of all of them (not service endpoints); for the
          // account-security family, also the rule that human-only operations are not routes.
          expectNoAnswer(res, { what: `${probe.method} ${path} (${cap.what})`, clause: clauses });
        });
        const described = await documents;
        if ('err' in described) throw described.err;
        for (const { doc, described: operations } of described.docs) {
          for (const probe of cap.probes) {
            if (operations.get(normalizePath(probe.path))?.has(probe.method))
              fail(`${doc} lists ${probe.method} ${probe.path} (${cap.what})`, 'not listed', 'listed', { clause: 'PUR-STOREFRONT-1' });
          }
        }
      },
    ),
  );
}

test(
  ...check(
    {
      id: 'purpose.human-only.not-described',
      title: 'no operation of either description document requires account:security',
      clauses: ['PUR-HUMAN-4'],
    },
    async (shop) => {
      await judgeEachDocument(shop, 'PUR-HUMAN-4', (doc, res) => {
        const paths = res.body?.paths;
        // Without OpenAPI paths, the whole document stands in for its operations.
        const operations: [string, unknown][] =
          typeof paths === 'object' && paths !== null
            ? Object.entries(paths as Record<string, Record<string, unknown>>).flatMap(([p, item]) =>
                Object.entries(item ?? {}).map(([m, op]): [string, unknown] => [`${m.toUpperCase()} ${p}`, op]),
              )
            : [[doc, res.body]];
        for (const [name, op] of operations) {
          if (JSON.stringify(op ?? null).includes('account:security'))
            fail(`${doc}: ${name} mentions account:security`, 'no human-only operation', name, { clause: 'PUR-HUMAN-4' });
        }
      });
    },
  ),
);
