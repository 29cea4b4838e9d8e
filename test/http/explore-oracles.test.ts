// The oracles on real answers: the reference's answers validate against its own documents (no false schema finding), two
// references answer one sequence with equal projections (no false differential finding though ids, request ids and
// times differ), and a served shape that leaves its document is found.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startReference, type Harness } from '../helpers/reference.js';
import { createSchemaOracle } from '../../conformance/explore/schema-oracle.js';
import { compareProjections } from '../../conformance/explore/projection.js';
import type { Answer, Step } from '../../conformance/explore/exchange.js';
import { newGuestSession } from '../../conformance/lib/guest-session.js';

let a: Harness;
let b: Harness;
before(async () => {
  a = await startReference();
  b = await startReference();
});
after(async () => {
  await a.close();
  await b.close();
});

const step = (caller: string, method: string, path: string, extra: Partial<Step> = {}): Step => ({
  operationId: 'x',
  method,
  path,
  caller,
  headers: {},
  ...extra,
});

/** One sequence over carts, account reads, checkout and refusals, sent as the given harness's callers. */
function sequence(): Step[] {
  return [
    step('none', 'GET', '/health'),
    step('none', 'GET', '/v1/catalog/collections'),
    step('guest', 'GET', '/v1/catalog/products?limit=2'),
    step('guest', 'GET', '/v1/catalog/products/waxed-canvas-field-jacket'),
    step('guest', 'GET', '/v1/catalog/products/no-such-product'),
    step('guest', 'POST', '/v1/cart/items', { body: { json: { variant_id: 'var_0101', quantity: 2 } } }),
    step('guest', 'POST', '/v1/cart/items', { body: { json: { variant_id: 'var_0101', quantity: 'two' } } }),
    step('guest', 'POST', '/v1/cart/items', { body: { text: '{"variant_id":', contentType: 'application/json' } }),
    step('guest', 'PATCH', '/v1/cart/items/var_0101', { body: { json: { quantity: 3 } } }),
    step('guest', 'GET', '/v1/cart'),
    step('guest', 'DELETE', '/v1/cart/items/var_0101'),
    step('guest', 'POST', '/v1/checkouts/saved-card', { body: { json: { payment_method_id: 'pm_chk7' } } }),
    step('delegated', 'GET', '/v1/me/profile'),
    step('delegated', 'GET', '/v1/me/addresses'),
    step('delegated', 'GET', '/v1/me/orders'),
    step('delegated', 'GET', '/v1/me/orders/ord_nope'),
    step('delegated', 'GET', '/v1/me/payment-methods'),
    step('delegated', 'POST', '/v1/checkouts/saved-card', { body: { json: { payment_method_id: 'pm_chk7' } } }),
    step('delegated', 'POST', '/v1/cart/items', { body: { json: { variant_id: 'var_0201', quantity: 1 } } }),
    step('delegated', 'POST', '/v1/checkouts/saved-card', { body: { json: { payment_method_id: 'pm_chk7' } } }),
    step('delegated', 'POST', '/v1/checkouts/saved-card', { body: { json: { payment_method_id: 'pm_chk7' } } }),
    step('delegated', 'POST', '/v1/me/addresses', {
      body: { json: { name: 'A', line1: '1 Main St', city: 'Springfield', postal_code: '12345', country: 'US' } },
    }),
    step('none', 'GET', '/v1/me/profile'),
    step('none', 'GET', '/v1/nowhere'),
  ];
}

async function run(h: Harness, steps: Step[]): Promise<Answer[]> {
  const session = newGuestSession(h.profile.secrets.guestSessionKey);
  const out: Answer[] = [];
  for (const s of steps) {
    const headers: Record<string, string> = {};
    if (s.caller === 'guest') Object.assign(headers, { authorization: `Bearer ${await h.minter.guest()}`, 'guest-session': session });
    if (s.caller === 'delegated')
      headers.authorization = `Bearer ${await h.minter.delegated({ sub: 'cust_checkout_7', channel: 'openapi' })}`;
    let body: string | undefined;
    if (s.body) {
      body = 'json' in s.body ? JSON.stringify(s.body.json) : s.body.text;
      headers['content-type'] = 'json' in s.body ? 'application/json' : (s.body.contentType ?? 'text/plain');
    }
    const res = await fetch(h.url + s.path, { method: s.method, headers, body });
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    out.push({ status: res.status, headers: Object.fromEntries(res.headers), text, json });
  }
  return out;
}

const documents = async (h: Harness) => ({
  general: (await h.call('/openapi.json')).body as unknown,
  assistant: (await h.call('/assistant/openapi.json')).body as unknown,
});

test("the reference's answers validate against its own documents, and two references project alike", async () => {
  const steps = sequence();
  const [fromA, fromB] = [await run(a, steps), await run(b, steps)];
  const statuses = fromA.map((x) => x.status);
  // The sequence reaches successes, creates, deletes and refusals of several kinds.
  for (const s of [200, 201, 204, 400, 401, 404, 422]) assert.ok(statuses.includes(s), `status ${s} in ${statuses.join(' ')}`);
  const oracle = createSchemaOracle(await documents(a));
  const schema = steps.flatMap((s, i) => oracle.check(s, fromA[i]!, i));
  assert.deepEqual(schema, []);
  assert.ok(oracle.compiledCount() >= 8, `schemas compiled: ${oracle.compiledCount()}`);
  const differential = steps.flatMap((s, i) => compareProjections(s, fromA[i]!, fromB[i]!, i));
  assert.deepEqual(differential, []);
});

test('a shape served against its document is found, by the schema oracle and not by the differential one', async () => {
  const steps = [step('guest', 'GET', '/v1/cart')];
  const [answer] = await run(a, steps);
  const renamed = { ...(answer!.json as Record<string, unknown>) };
  renamed.items = renamed.lines;
  delete renamed.lines;
  const served: Answer = { ...answer!, json: renamed, text: JSON.stringify(renamed) };
  const found = createSchemaOracle(await documents(a)).check(steps[0]!, served, 0);
  assert.equal(found.length, 1);
  assert.match(found[0]!.message, /lines/);
  assert.deepEqual(compareProjections(steps[0]!, served, answer!, 0), []);
});
