// Spec part 8, Limits: the 256 KiB body cap, at most 20 validation issues, the 64-character Shopper-IP and the 300-second
// cache of the description documents (guest rate limits: 08-limits.rate).
//
// Bodies are padded with JSON whitespace, never with an extra member: an over-cap body is then a valid request but for its
// size, so a service without the cap would take it (and fail the check) instead of refusing it for an unknown member.
import { check, learned, test, type Shop } from '../engine/runner/check.js';
import type { RequestOptions, ShopResponse } from '../engine/transport/http.js';
import { credentialsOf, KINDS } from '../lib/callers.js';
import { CALLER_LISTS } from '../../contract/callers.js';
import { judgeCases, mapCases } from '../engine/runner/cases.js';
import { expectFreshFor, expectProblem, expectStatus, expectSuccess, fail, failSetup, inCase, is2xx, is4xx } from '../lib/assert.js';
import { freshShopperIp, shopperIpOfLength } from '../lib/shopper.js';
import { LIMITS } from '../../contract/limits.js';
import { OPERATIONS, OPERATIONS_BY_ID } from '../../contract/operations.js';
import { describedOpsRequests } from './_shared/call-ops.js';
import { cartLine } from './_shared/cart-lines.js';
import { judgeEachDocument } from './_shared/describe-operations.js';
import { expectRefusal } from '../lib/expect/refusals.js';
import { customerToken } from '../lib/callers.js';

// --- helpers ----------------------------------------------------------------------------------------------------------

/** The reference's addCartItem body for a seeded variant with plenty of stock, padded with trailing whitespace to `bytes`. */
const addJson = (): string => JSON.stringify(cartLine());
function paddedAdd(bytes: number): string {
  if (bytes < addJson().length) throw new Error(`cannot pad to ${bytes} bytes`);
  return addJson() + ' '.repeat(bytes - addJson().length);
}
const postJson = (shop: Shop, token: string | undefined, body: string) =>
  shop.http.post('/v1/cart/items', { ...(token !== undefined ? { token } : {}), body, headers: { 'content-type': 'application/json' } });

// --- request body cap -------------------------------------------------------------------------------------------------------

test(
  ...check(
    {
      id: 'limits.body.over-cap',
      title: 'a request body one byte over 256 KiB is refused with a problem document whose instance is the X-Request-Id',
      clauses: ['LIM-BODY-1', 'ERR-PROBLEM-3', 'ERR-PROBLEM-6'],
    },
    async (shop) => {
      const res = await postJson(shop, await customerToken(shop), paddedAdd(LIMITS.requestBodyBytes + 1));
      if (is2xx(res)) fail('answer to a body over 256 KiB', 'a refusal', res.status, { clause: 'LIM-BODY-1' });
      expectRefusal(shop, res, { clause: 'ERR-PROBLEM-3' });
    },
  ),
);

const WRITES = ['POST', 'PATCH', 'PUT'];

/**
 * The JSON writes the deployment claims, with a valid body each: the operations table's (conversation writes have a cap of
 * their own), and the operator writes its documents describe under /v1/ops/ (the spec shows none; their ids are its own).
 */
const claimedWrites = (shop: Shop): { operationId: string; method: string; path: string; json: unknown }[] => [
  ...OPERATIONS.filter((o) => WRITES.includes(o.method) && o.group !== 'conversation' && o.group !== 'operator').map((o) => {
    const op = learned().operation(o.operationId);
    const path = learned().path(o.operationId, ...op.pathParams.map(() => 'conformance-probe'));
    return { operationId: o.operationId, method: op.method, path, json: learned().body(o.operationId) };
  }),
  ...(shop.profile.capabilities.operators ? describedOpsRequests() : [])
    .filter((r) => WRITES.includes(r.method))
    .map((r) => ({ operationId: r.operationId, method: r.method, path: r.path, json: r.json ?? {} })),
];

const answerOf = (res: ShopResponse) => `${res.status} ${typeof res.body?.error === 'string' ? res.body.error : ''}`.trim();

/** Credentials of a caller kind the operation admits (its caller list, the claimed kinds; operators on /v1/ops/). */
async function admittedCaller(shop: Shop, operationId: string): Promise<Pick<RequestOptions, 'token' | 'headers'> | undefined> {
  const op = OPERATIONS_BY_ID.get(operationId);
  const members: readonly string[] = op ? CALLER_LISTS[op.callers].members : ['operator'];
  const kind = KINDS.find((k) => members.includes(k.kind) && (!k.capability || shop.profile.capabilities[k.capability]));
  return kind && credentialsOf(shop, kind.kind);
}

/**
 * Every claimed write, sent its body and the same padded with JSON whitespace to one byte over the cap, by `caller` (none:
 * no token): the padded body must be refused, and otherwise than the unpadded one (the same answer for both means the size
 * went unseen), unless `authenticateFirst` and both are refused alike as a credential (401, 403): then the caller never
 * reached the cap. Each caller is a fresh account and the path parameters name nothing: each route is a case, its two
 * bodies sent at once.
 */
async function judgeOverCap(
  shop: Shop,
  caller: (operationId: string) => ReturnType<typeof admittedCaller>,
  authenticateFirst: boolean,
): Promise<void> {
  await judgeCases(claimedWrites(shop), async (o) => {
    const who = await caller(o.operationId);
    const json = JSON.stringify(o.json);
    const headers = { ...who?.headers, 'content-type': 'application/json' };
    const send = (body: string) => shop.http.request(o.method, o.path, { ...who, body, headers });
    const [control, over] = await Promise.all([send(json), send(json + ' '.repeat(LIMITS.requestBodyBytes + 1 - json.length))]);
    inCase(`${o.operationId} (${o.method} ${o.path})`, () => {
      expectRefusal(shop, over, { clause: 'LIM-BODY-1' });
      if (answerOf(over) !== answerOf(control)) return;
      // A caller refused alike for both bodies before any body is read (none this suite holds is admitted): nothing shown.
      if (authenticateFirst && (control.status === 401 || control.status === 403))
        return void shop.info.annotations.push({
          type: 'note',
          description: `${o.operationId}: not judged, its caller was refused before the body was read (${answerOf(control)})`,
        });
      fail('answer to the body padded over 256 KiB', `another than the unpadded body's (${answerOf(control)})`, answerOf(over), {
        clause: 'LIM-BODY-1',
      });
    });
  });
}

// The spec gives the cap no stage: a server may refuse the size while decoding, before authentication (the reference), or
// once the caller is known. The spec level sends the bodies with a caller each operation admits, so that either order
// reaches the cap; the reference level without a token (its cap precedes authentication).
test(
  ...check(
    {
      id: 'limits.body.over-cap.every-write',
      title: 'every JSON write route refuses a body over 256 KiB from a caller it admits, otherwise than the same body unpadded',
      clauses: ['LIM-BODY-1'],
    },
    async (shop) => judgeOverCap(shop, (operationId) => admittedCaller(shop, operationId), true),
  ),
);

test(
  ...check(
    {
      id: 'limits.body.over-cap.every-write.reference',
      title: 'every JSON write route refuses a body over 256 KiB without a token, otherwise than the same body unpadded',
      clauses: ['LIM-BODY-1'],
      level: 'reference',
    },
    async (shop) => judgeOverCap(shop, async () => undefined, false),
  ),
);

test(
  ...check(
    {
      id: 'limits.body.under-cap',
      title: 'a body just under 256 KiB is taken like the same body without padding',
      clauses: ['LIM-BODY-1'],
      seed: true,
    },
    async (shop) => {
      // Control: the unpadded body, for another fresh account. Payload shapes are not shown by the spec, so a service that
      // refuses the reference's body has nothing to show here.
      // Two fresh accounts, one request each: at once, judged in turn.
      const [control, padded] = await Promise.all([
        (async () => postJson(shop, await customerToken(shop), addJson()))(),
        (async () => postJson(shop, await customerToken(shop), paddedAdd(LIMITS.requestBodyBytes - 64)))(),
      ]);
      if (is4xx(control))
        failSetup('addCartItem with the body the description document describes', '2xx', control.status, {
          clause: 'END-OPS-ADDCARTITEM-1',
        });
      expectSuccess(control, { what: 'addCartItem status with a valid body', clause: 'LIM-BODY-1' });
      if (!is2xx(padded))
        fail('answer to the same body padded to 256 KiB - 64 bytes', `2xx like the unpadded body (${control.status})`, padded.status, {
          clause: 'LIM-BODY-1',
        });
    },
  ),
);

test(
  ...check(
    {
      id: 'limits.body.cap.reference',
      title: 'exactly 256 KiB is taken (201); one byte more is 413 payload_too_large, with or without a token',
      clauses: ['LIM-BODY-1', 'ERR-PROBLEM-3'],
      level: 'reference',
      seed: true,
    },
    async (shop) => {
      const token = await customerToken(shop);
      expectStatus(await postJson(shop, token, paddedAdd(LIMITS.requestBodyBytes)), 201, { clause: 'LIM-BODY-1' });
      // Both refused for their size before anything is read: with and without the token, each a case.
      await judgeCases([token, undefined], async (t) => {
        const res = await postJson(shop, t, paddedAdd(LIMITS.requestBodyBytes + 1));
        expectProblem(res, { status: 413, error: 'payload_too_large', docsUrl: shop.docsUrl, clause: 'LIM-BODY-1' });
      });
    },
  ),
);

// --- validation issues ---------------------------------------------------------------------------------------------------

/** Thirty members no add body has, each holding an object, and no variant: invalid under any payload shape. */
const thirtyBadMembers = () =>
  Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`bad_member_${String(i).padStart(2, '0')}`, { nested: i }]));

test(
  ...check(
    {
      id: 'limits.issues',
      title: 'a body with thirty bad members is 400 invalid_request with at most 20 well-formed issues',
      clauses: ['LIM-ISSUES-1', 'RES-PROBLEM-9', 'RES-PROBLEM-10', 'ERR-TABLE-11'],
    },
    async (shop) => {
      const res = await shop.http.post('/v1/cart/items', { token: await customerToken(shop), json: thirtyBadMembers() });
      // expectProblem checks the count (at most 20) and the members of each issue.
      const doc = expectProblem(res, { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause: 'LIM-ISSUES-1' });
      const issues = doc.issues;
      if (!Array.isArray(issues)) return fail('problem "issues" on a validation failure', 'an array', issues, { clause: 'ERR-TABLE-11' });
      if (issues.length > LIMITS.validationIssues)
        fail('number of issues', `at most ${LIMITS.validationIssues}`, issues.length, { clause: 'LIM-ISSUES-1' });
    },
  ),
);

// No reference-level count check: the reference reports every unknown member in one `unrecognized_keys` issue and its
// bodies have two members, so no input of the routes it serves today yields more than a handful of issues; the cap itself
// (reference/src/problem.ts) cannot be driven over HTTP yet. The check above is what a black box can see.

// --- Shopper-IP (the length bound only; which callers may send it is an authentication matter) ----------------------------

test(
  ...check(
    {
      id: 'limits.shopper-ip',
      title: 'a Shopper-IP of 65 characters is refused with a problem document; an ordinary address is taken',
      clauses: ['LIM-SHOPPERIP-1'],
      requires: ['guests'],
    },
    async (shop) => {
      const token = await shop.mint.guest();
      // A 65-character value that is otherwise an IPv6 address (with a zone id), so only its length is wrong.
      const long = shopperIpOfLength(LIMITS.shopperIpChars + 1);
      // Two reads without a session: at once, judged in turn.
      const [ok, res] = await Promise.all([
        shop.http.get('/v1/cart', { token, headers: { 'shopper-ip': freshShopperIp() } }),
        shop.http.get('/v1/cart', { token, headers: { 'shopper-ip': long } }),
      ]);
      expectSuccess(ok, { what: 'guest cart read with an ordinary Shopper-IP', clause: 'LIM-SHOPPERIP-1' });
      expectRefusal(shop, res, { clause: 'LIM-SHOPPERIP-1' });
    },
  ),
);

test(
  ...check(
    {
      id: 'limits.shopper-ip.reference',
      title: 'Shopper-IP: 64 characters are taken, 65 are 400 invalid_request with an issue naming the header',
      clauses: ['LIM-SHOPPERIP-1'],
      level: 'reference',
      requires: ['guests'],
    },
    async (shop) => {
      const token = await shop.mint.guest();
      // Two reads without a session: at once, judged in turn.
      const [taken, res] = await mapCases([LIMITS.shopperIpChars, LIMITS.shopperIpChars + 1], (n) =>
        shop.http.get('/v1/cart', { token, headers: { 'shopper-ip': 'a'.repeat(n) } }),
      );
      expectStatus(taken!, 200, { clause: 'LIM-SHOPPERIP-1' });
      const doc = expectProblem(res!, { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause: 'LIM-SHOPPERIP-1' });
      const issues = Array.isArray(doc.issues) ? (doc.issues as { path?: unknown }[]) : [];
      if (
        !issues.some((i) =>
          String(Array.isArray(i.path) ? i.path.join('.') : i.path)
            .toLowerCase()
            .includes('shopper-ip'),
        )
      ) {
        fail('an issue whose path names the Shopper-IP header', 'shopper-ip', doc.issues, { clause: 'LIM-SHOPPERIP-1' });
      }
    },
  ),
);

// --- description documents cache -------------------------------------------------------------------------------------------

test(
  ...check(
    {
      id: 'limits.description-cache',
      title: 'both description documents are cached 300 seconds (their freshness lifetime, RFC 9111 §4.2.1)',
      clauses: ['LIM-DOCS-1'],
    },
    async (shop) => {
      await judgeEachDocument(shop, 'LIM-DOCS-1', (path, res) =>
        expectFreshFor(res, LIMITS.descriptionCacheSeconds, { clause: 'LIM-DOCS-1', what: path }),
      );
    },
  ),
);
