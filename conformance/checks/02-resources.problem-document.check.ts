// Spec part 2, Resources > Problem document: the problem document, member by member, on several kinds of failure.
import { randomUUID } from 'node:crypto';
import { check, test, type Shop } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import {
  expectHeader,
  expectProblem,
  expectProblemDocument,
  expectStatus,
  fail,
  expectFailureNoStore,
  PROBLEM_DOCUMENT_CLAUSES,
} from '../lib/assert.js';
import { credentialsFor } from './_shared/caller-guard.js';
import { cartLine } from './_shared/cart-lines.js';
import { VARIANT } from './_shared/seed-data.js';

/**
 * The Resources table, member by member, each failure naming the member's own clause and stopping the check (the shared
 * composition of lib/expect/problem.ts, expectProblemDocument), after the status. Returns the document.
 */
function expectProblemMembers(res: ShopResponse, shop: Shop, status: number, error: string): Record<string, unknown> {
  expectStatus(res, status, { clause: 'RES-PROBLEM-5' });
  // Errors part: a failure answer is never stored (judged softly, on its own clause).
  expectFailureNoStore(res, { soft: true });
  const d = expectProblemDocument(res, { docsUrl: shop.docsUrl, error })!;
  expectHeader(res, 'x-request-id', { clause: 'RES-PROBLEM-8' });
  return d;
}

/**
 * The members a complete document is judged on where the error owns none and carries no `issues`, so that `issues` fails
 * RES-PROBLEM-9 and `scope` RES-PROBLEM-11 (expectOwnedMembers); `conversation_id` (RES-PROBLEM-12) is cited where judged.
 */
const COMPLETE_DOCUMENT_CLAUSES = PROBLEM_DOCUMENT_CLAUSES.filter((c) => c !== 'RES-PROBLEM-10' && c !== 'RES-PROBLEM-12');

test(
  ...check(
    {
      id: 'resources.problem.unauthenticated',
      title: 'a 401 (no token) is a complete problem document: type, title, status, error, instance; detail a string if any',
      clauses: [...COMPLETE_DOCUMENT_CLAUSES, 'RES-PROBLEM-12', 'ERR-PROBLEM-5'],
    },
    async (shop) => {
      expectProblemMembers(await shop.http.get('/v1/cart'), shop, 401, 'invalid_token');
    },
  ),
);

test(
  ...check(
    {
      id: 'resources.problem.caller-not-allowed',
      title: 'a 403 caller_not_allowed is a complete problem document without scope',
      clauses: [...COMPLETE_DOCUMENT_CLAUSES, 'ERR-PROBLEM-5'],
      requires: ['operators'],
    },
    async (shop) => {
      // The operator's token carries getCart's API scope too: the guard's checks are not ordered, so only the caller refusal applies.
      const res = await shop.http.get('/v1/cart', await credentialsFor(shop, 'operator', ['getCart']));
      expectProblemMembers(res, shop, 403, 'caller_not_allowed');
    },
  ),
);

test(
  ...check(
    {
      id: 'resources.problem.insufficient-scope',
      title: 'a 403 insufficient_scope names the missing scope (cart:read for getCart) in `scope`',
      clauses: ['RES-PROBLEM-1', 'RES-PROBLEM-3', 'RES-PROBLEM-4', 'RES-PROBLEM-5', 'RES-PROBLEM-8', 'RES-PROBLEM-11', 'ERR-PROBLEM-5'],
    },
    async (shop) => {
      const token = await shop.mint.customer({ sub: shop.subject('cust'), scope: 'catalog:read' });
      const doc = expectProblemMembers(await shop.http.get('/v1/cart', { token }), shop, 403, 'insufficient_scope');
      if (doc.scope !== 'cart:read') fail('"scope" (the missing scope)', 'cart:read', doc.scope, { clause: 'RES-PROBLEM-11' });
    },
  ),
);

test(
  ...check(
    {
      id: 'resources.problem.validation',
      title: 'a 400 invalid_request carries `issues`, each with path, code and message',
      clauses: ['RES-PROBLEM-1', 'RES-PROBLEM-3', 'RES-PROBLEM-4', 'RES-PROBLEM-5', 'RES-PROBLEM-8', 'RES-PROBLEM-9', 'RES-PROBLEM-10'],
    },
    async (shop) => {
      // An empty object names no variant: invalid whatever the (not shown) shape of the add body.
      const res = await shop.http.post('/v1/cart/items', { token: await shop.mint.customer({ sub: shop.subject('cust') }), json: {} });
      const doc = expectProblemMembers(res, shop, 400, 'invalid_request');
      if (!Array.isArray(doc.issues)) fail('"issues" on a validation failure', 'an array', doc.issues, { clause: 'RES-PROBLEM-9' });
    },
  ),
);

test(
  ...check(
    {
      id: 'resources.problem.reference',
      title:
        'problem documents: an unknown product is 404 not_found with a detail; a well-formed incoming X-Request-Id becomes the instance; validation issues point at the member',
      clauses: ['RES-PROBLEM-6', 'RES-PROBLEM-8', 'RES-PROBLEM-10'],
      level: 'reference',
    },
    async (shop) => {
      const token = await shop.mint.customer({ sub: shop.subject('cust') });
      const missing = expectProblemMembers(
        await shop.http.get('/v1/catalog/products/no-such-product-for-conformance', { token }),
        shop,
        404,
        'not_found',
      );
      if (typeof missing.detail !== 'string' || missing.detail === '')
        fail('"detail" on not_found', 'a non-empty string', missing.detail, { clause: 'RES-PROBLEM-6' });

      const requestId = `conformance-${randomUUID()}`;
      const res = await shop.http.get('/v1/cart', { headers: { 'x-request-id': requestId } });
      expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, requestId, clause: 'RES-PROBLEM-8' });

      const invalid = expectProblemMembers(
        await shop.http.post('/v1/cart/items', { token, json: cartLine(VARIANT, 0) }),
        shop,
        400,
        'invalid_request',
      );
      const paths = (invalid.issues as { path: unknown }[]).map((i) => (Array.isArray(i.path) ? i.path.join('.') : String(i.path)));
      if (!paths.some((p) => p.includes('quantity')))
        fail('an issue whose path names "quantity"', 'quantity', paths, { clause: 'RES-PROBLEM-10' });
    },
  ),
);
