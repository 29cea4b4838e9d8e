// Spec part 1, What the service does, rules 1 to 3: every operation has exactly one URL and every URL is public (no
// storefront-prefixed variant answers), every served operation is published in the description document, and paths
// under /v1/ops/* are operator-only. "Answers" means 2xx or 3xx: the suite follows no redirect.
import { check, test } from '../engine/runner/check.js';
import { credentialsOfClaimedKinds } from '../lib/callers.js';
import { judgeCases } from '../engine/runner/cases.js';
import { fail, is2xx, expectNoAnswer } from '../lib/assert.js';
import { OPERATIONS_BY_ID } from '../../contract/operations.js';
import { cartLine } from './_shared/cart-lines.js';
import { customerToken } from '../lib/callers.js';
import { PRODUCT_HANDLE } from './_shared/seed-data.js';
import { describedOperations, normalizePath, SHOWN } from './_shared/describe-operations.js';
import { SPECIAL_PATHS } from '../../contract/routes.js';

test(
  ...check(
    {
      id: 'purpose.operations-described',
      title: 'every served operation route is declared in the published description document (/openapi.json)',
      clauses: ['PUR-RULE-5'],
    },
    async (shop) => {
      const [general] = await describedOperations(shop);
      if (!general || general.described.size === 0)
        fail(`${SPECIAL_PATHS.getDescription} "paths"`, 'the declared routes', general?.raw, { clause: 'PUR-RULE-5' });
      for (const operationId of SHOWN) {
        const op = OPERATIONS_BY_ID.get(operationId)!;
        if (!general.described.get(normalizePath(op.path))?.has(op.method))
          fail(`/openapi.json declares ${op.method} ${op.path} (${operationId})`, 'declared', 'absent', { clause: 'PUR-RULE-5' });
      }
    },
  ),
);

test(
  ...check(
    {
      id: 'purpose.operations-described.reference',
      title: 'the general description document names each served operation by its operationId',
      clauses: ['PUR-RULE-5'],
      level: 'reference',
    },
    async (shop) => {
      const doc = (await shop.http.get(SPECIAL_PATHS.getDescription)).body;
      for (const operationId of SHOWN) {
        const op = OPERATIONS_BY_ID.get(operationId)!;
        const described = doc?.paths?.[op.path]?.[op.method.toLowerCase()]?.operationId;
        if (described !== operationId) fail(`operationId of ${op.method} ${op.path}`, operationId, described, { clause: 'PUR-RULE-5' });
      }
    },
  ),
);

test(
  ...check(
    {
      id: 'purpose.no-storefront-prefixed-urls',
      title: 'no website- or storefront-prefixed variant of an operation answers, for customers or guests',
      clauses: ['PUR-RULE-6', 'PUR-RULE-1'],
    },
    async (shop) => {
      const paths = [
        '/website/v1/cart',
        '/storefront/v1/cart',
        '/v1/storefront/cart',
        '/v1/website/cart',
        '/storefront/cart',
        '/website/cart',
        '/web/v1/cart',
        '/v1/web/cart',
        '/storefront/v1/catalog/products',
        '/v1/storefront/catalog/products',
        '/website/v1/catalog/collections',
      ];
      // URLs no route serves (the write included: no cart is behind it): each request is a case of its own, in the callers'
      // and the paths' order.
      const requests = (await credentialsOfClaimedKinds(shop, ['delegated', 'operator'])).flatMap(([, caller]) => [
        ...paths.map((path) => ({ what: `GET ${path}`, send: () => shop.http.get(path, caller) })),
        {
          what: 'POST /storefront/v1/cart/items',
          send: () => shop.http.post('/storefront/v1/cart/items', { ...caller, json: cartLine() }),
        },
      ]);
      await judgeCases(requests, async ({ what, send }) => expectNoAnswer(await send(), { what, clause: 'PUR-RULE-6' }));
    },
  ),
);

test(
  ...check(
    {
      id: 'purpose.ops-operator-only',
      title: 'paths under /v1/ops/* give no successful answer to customer, delegated or guest callers',
      clauses: ['PUR-RULE-3'],
    },
    async (shop) => {
      // Reads only: each caller's read of each path is a case of its own, in the callers' and the paths' order.
      const paths = ['/v1/ops', '/v1/ops/orders', '/v1/ops/accounts', '/v1/ops/customers', '/v1/ops/recovery', '/v1/ops/carts'];
      const reads = (await credentialsOfClaimedKinds(shop, ['operator'])).flatMap(([kind, caller]) =>
        paths.map((path) => ({ kind, caller, path })),
      );
      await judgeCases(reads, async ({ kind, caller, path }) => {
        const res = await shop.http.get(path, caller);
        if (is2xx(res)) fail(`GET ${path} as ${kind}`, 'not 2xx (operator-only)', res.status, { clause: 'PUR-RULE-3' });
      });
    },
  ),
);

// Other spellings of an operation's URL that a server's URL handling may fold into the operation: a leading empty segment
// (`//x/v1/cart`, read by WHATWG and legacy URL parsers as a host `x` and a path), backslashes (`/v1\cart`, turned into
// slashes by WHATWG parsing) and a `;parameter` in a segment (stripped by servlet-style routers). Neither is the same URL under RFC 3986 (dot segments and percent-encoded unreserved
// characters are, so they are not tried); "Every operation has exactly one URL". Judged on every read the spec shows, for
// a customer (each spelling against its control: a read the control does not serve is not judged).
const spellings = (path: string): [string, string][] => [
  ['a leading //segment', `//x${path}`],
  ['backslashes', `/${path.slice(1).replaceAll('/', '\\')}`],
  ['a ;parameter in the last segment (stripped by servlet-style routers)', `${path};jsessionid=1`],
];

test(
  ...check(
    {
      id: 'purpose.one-url.path-spellings',
      title: 'no read answers at another spelling of its URL (a leading //segment, backslashes for slashes)',
      clauses: ['PUR-RULE-1'],
      seed: true,
    },
    async (shop) => {
      const token = await customerToken(shop);
      const reads = SHOWN.map((id) => OPERATIONS_BY_ID.get(id)!)
        .filter((op) => op.method === 'GET' && (op.path.match(/\{/g) ?? []).length <= 1)
        .map((op) => ({ id: op.operationId, path: op.path.replace('{handle}', PRODUCT_HANDLE) }))
        .filter((op) => !op.path.includes('{'));
      // Reads: each operation is a case of its own; its control and its spellings go at once, judged against the control.
      await judgeCases(reads, async ({ id, path }) => {
        const [control, ...others] = await Promise.all([
          shop.http.get(path, { token }),
          ...spellings(path).map(([, spelled]) => shop.http.get(spelled, { token, asWritten: true })),
        ]);
        if (!is2xx(control!)) return;
        spellings(path).forEach(([how, spelled], i) => {
          if (is2xx(others[i]!))
            fail(`GET ${spelled} (${id} with ${how})`, 'no answer (one URL per operation)', others[i]!.status, { clause: 'PUR-RULE-1' });
        });
      });
    },
  ),
);
