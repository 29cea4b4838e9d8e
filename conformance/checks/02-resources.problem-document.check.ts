// Spec part 2, Resources > Problem document: the problem document, member by member, on several kinds of failure.
import { randomUUID } from 'node:crypto';
import { check, test, type Shop } from '../engine/check.js';
import { OPERATOR_ATTRIBUTION } from '../engine/callers.js';
import type { ShopResponse } from '../engine/http.js';
import { expectProblem, fail, failSoft } from '../lib/assert.js';
import { REASON_PHRASES } from '../../contract/errors.js';
import { LIMITS } from '../../contract/limits.js';
import { cartLine } from './_shared/expect-cart.js';
import { VARIANT } from './_shared/seed-data.js';

/** `401 invalid_token`, or just the status when the body names no error. */
const statusOf = (res: ShopResponse) => (typeof res.body?.error === 'string' ? `${res.status} ${res.body.error}` : res.status);

/** Member owned by one error code: present only with it. */
const OWNED_MEMBERS: Record<string, string> = {
  issues: 'invalid_request',
  scope: 'insufficient_scope',
  conversation_id: 'direct_conversation_open',
};
const OWNED_CLAUSE: Record<string, string> = { issues: 'RES-PROBLEM-9', scope: 'RES-PROBLEM-11', conversation_id: 'RES-PROBLEM-12' };

/**
 * The Resources table, one member at a time, each failure naming its own clause. Returns the document.
 * (lib/assert's expectProblem checks the same; this spells it out so that a failure points at the member's clause.)
 */
function expectProblemMembers(res: ShopResponse, shop: Shop, status: number, error: string): Record<string, unknown> {
  if (res.status !== status) fail('status', status, statusOf(res), { clause: 'RES-PROBLEM-5' });
  const mediaType = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (mediaType !== 'application/problem+json')
    fail('Content-Type media type', 'application/problem+json', res.headers.get('content-type'), { clause: 'RES-PROBLEM-1' });
  // Errors part: a failure answer is never stored (judged softly, on its own clause).
  if (!/(^|,)\s*no-store\s*(,|$)/i.test(res.headers.get('cache-control') ?? ''))
    failSoft('Cache-Control of a failure', 'no-store', res.headers.get('cache-control'), { clause: 'ERR-PROBLEM-5' });
  const doc = res.body as unknown;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    return fail('problem document', 'a JSON object', res.text.slice(0, 200), { clause: 'RES-PROBLEM-1' });
  const d = doc as Record<string, unknown>;

  if (typeof d.error !== 'string' || d.error === '') fail('"error"', 'a non-empty string', d.error, { clause: 'RES-PROBLEM-2' });
  if (d.error !== error) fail('"error"', error, d.error, { clause: 'RES-PROBLEM-2' });

  const type = `${shop.docsUrl.replace(/\/+$/, '')}/api/problems/${error}`;
  if (d.type !== type) fail('"type"', type, d.type, { clause: 'RES-PROBLEM-3' });
  try {
    new URL(String(d.type));
  } catch {
    fail('"type" is an absolute URI', type, d.type, { clause: 'RES-PROBLEM-3' });
  }

  const title = REASON_PHRASES[res.status];
  if (title === undefined ? typeof d.title !== 'string' || d.title === '' : d.title !== title)
    fail('"title" (reason phrase of the status)', title ?? 'a reason phrase', d.title, { clause: 'RES-PROBLEM-4' });

  if (typeof d.status !== 'number' || !Number.isInteger(d.status))
    fail('"status" is an integer', res.status, d.status, { clause: 'RES-PROBLEM-5' });
  if (d.status !== res.status) fail('"status" (the HTTP status)', res.status, d.status, { clause: 'RES-PROBLEM-5' });

  if ('detail' in d && typeof d.detail !== 'string') fail('"detail"', 'a string when present', d.detail, { clause: 'RES-PROBLEM-6' });

  const requestId = res.headers.get('x-request-id');
  if (requestId === null || requestId === '') fail('X-Request-Id header', 'present', requestId, { clause: 'RES-PROBLEM-8' });
  if (d.instance !== requestId) fail('"instance" (the X-Request-Id)', requestId, d.instance, { clause: 'RES-PROBLEM-8' });

  for (const [member, owner] of Object.entries(OWNED_MEMBERS)) {
    if (member in d && error !== owner)
      fail(`"${member}" on ${error}`, `absent (only on ${owner})`, d[member], { clause: OWNED_CLAUSE[member]! });
  }
  if ('issues' in d) {
    const issues = d.issues;
    if (!Array.isArray(issues)) return fail('"issues"', 'an array', issues, { clause: 'RES-PROBLEM-9' });
    if (issues.length > LIMITS.validationIssues)
      fail('number of "issues"', `at most ${LIMITS.validationIssues}`, issues.length, { clause: 'RES-PROBLEM-9' });
    issues.forEach((issue: unknown, i) => {
      const item = typeof issue === 'object' && issue !== null && !Array.isArray(issue) ? (issue as Record<string, unknown>) : undefined;
      // `path` is named, its form is not: a string (`items[0].quantity`) or a list of segments.
      const pathOk =
        typeof item?.path === 'string' ||
        (Array.isArray(item?.path) && item.path.every((s) => typeof s === 'string' || typeof s === 'number'));
      if (!item || !pathOk || typeof item.code !== 'string' || typeof item.message !== 'string') {
        fail(`"issues[${i}]"`, '{ path, code: string, message: string }', issue, { clause: 'RES-PROBLEM-10' });
      }
    });
  }
  return d;
}

test(
  ...check(
    {
      id: 'resources.problem.unauthenticated',
      title: 'a 401 (no token) is a complete problem document: type, title, status, error, instance; detail a string if any',
      clauses: [
        'RES-PROBLEM-1',
        'RES-PROBLEM-2',
        'RES-PROBLEM-3',
        'RES-PROBLEM-4',
        'RES-PROBLEM-5',
        'RES-PROBLEM-6',
        'RES-PROBLEM-8',
        // `issues` belongs to validation errors only: its presence here fails RES-PROBLEM-9 (assert.ts, expectProblem).
        'RES-PROBLEM-9',
        'RES-PROBLEM-11',
        'RES-PROBLEM-12',
        'ERR-PROBLEM-5',
      ],
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
      clauses: [
        'RES-PROBLEM-1',
        'RES-PROBLEM-2',
        'RES-PROBLEM-3',
        'RES-PROBLEM-4',
        'RES-PROBLEM-5',
        'RES-PROBLEM-6',
        'RES-PROBLEM-8',
        'RES-PROBLEM-9',
        'RES-PROBLEM-11',
        'ERR-PROBLEM-5',
      ],
      requires: ['operators'],
    },
    async (shop) => {
      const res = await shop.http.get('/v1/cart', { token: await shop.mint.operator(), headers: { operator: OPERATOR_ATTRIBUTION } });
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
