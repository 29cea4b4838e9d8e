// The interleavings are the seed's: one seed releases the concurrent steps in one order every time, other seeds in other
// orders; and the runner's `send` is the only way a step leaves. In memory: a fake send over a fake cart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runInterleavings } from '../../../conformance/explore/concurrency.js';
import { fakeTarget } from '../../helpers/explore-fakes.js';
import type { Answer, Step } from '../../../conformance/explore/exchange.js';

const target = fakeTarget;

/** The order in which a run's addCartItem steps reached `send`, and the steps sent. */
async function addOrder(seed: number): Promise<{ order: string[]; sent: Step[] }> {
  const lines = new Set<string>();
  const sent: Step[] = [];
  const order: string[] = [];
  const send = async (step: Step): Promise<Answer> => {
    sent.push(step);
    if (step.operationId === 'addCartItem') {
      const v = (step.body as { json: { variant_id: string } }).json.variant_id;
      order.push(v);
      lines.add(v);
      return { status: 201, headers: {}, text: '{}', json: {} };
    }
    if (step.operationId === 'removeCartItem') lines.delete(step.path.split('/').pop()!);
    const text = JSON.stringify({ lines: [...lines] });
    return { status: 200, headers: {}, text, json: JSON.parse(text) };
  };
  const findings = await runInterleavings({
    send,
    seed,
    runs: 1,
    clients: 5,
    target,
    owner: 'delegated:a',
    variants: ['v1', 'v2', 'v3', 'v4', 'v5'],
  });
  assert.deepEqual(findings, []);
  return { order, sent };
}

test('one seed, one release order; other seeds, other orders', async () => {
  const first = await addOrder(1);
  assert.deepEqual((await addOrder(1)).order, first.order);
  assert.deepEqual([...first.order].sort(), ['v1', 'v2', 'v3', 'v4', 'v5']);
  const orders = new Set<string>();
  for (let seed = 1; seed <= 8; seed++) orders.add((await addOrder(seed)).order.join(','));
  assert.ok(orders.size > 1, `8 seeds gave one order: ${[...orders].join(' ')}`);
});

test("every step leaves through send, as the owner, with the target's paths and bodies", async () => {
  const { sent } = await addOrder(3);
  assert.ok(sent.every((s) => s.caller === 'delegated:a'));
  assert.deepEqual(
    sent.filter((s) => s.operationId === 'addCartItem').map((s) => [s.method, s.path]),
    Array.from({ length: 5 }, () => ['POST', '/addCartItem']),
  );
  assert.ok(sent.some((s) => s.operationId === 'getCart'));
});

test('an add accepted and not in the cart read after it is a lost line', async () => {
  const send = async (step: Step): Promise<Answer> =>
    step.operationId === 'getCart'
      ? { status: 200, headers: {}, text: '{"lines":["v1"]}', json: { lines: ['v1'] } }
      : { status: 201, headers: {}, text: '{}', json: {} };
  const findings = await runInterleavings({ send, seed: 5, runs: 2, target, owner: 'o', variants: ['v1', 'v2'] });
  assert.equal(findings.length, 1);
  assert.deepEqual(findings[0]!.clauses, ['PUR-SERVE-2', 'END-OPS-ADDCARTITEM-1']);
  assert.match(findings[0]!.message, /lost lines: v2/);
  assert.deepEqual(findings[0]!.parallel, [[0, 1]]);
  assert.equal(findings[0]!.steps.at(-1)!.operationId, 'getCart');
});

/** A fake account for the checkout scenario: a cart of lines, and checkouts that place orders as `placeAll` says. */
function checkoutShop(o: { placeAll: boolean; emptyAfter: boolean }) {
  const lines = new Set<string>();
  let orders = 0;
  const problem = (status: number, error: string): Answer => ({ status, headers: {}, text: '', json: { error } });
  const send = async (step: Step): Promise<Answer> => {
    if (step.operationId === 'addCartItem') lines.add((step.body as { json: { variant_id: string } }).json.variant_id);
    if (step.operationId === 'removeCartItem') lines.delete(step.path.split('/').pop()!);
    if (step.operationId === 'checkoutSavedCard') {
      if (lines.size === 0 && (o.emptyAfter || orders === 0)) return problem(422, 'cart_empty');
      orders++;
      if (!o.placeAll) lines.clear();
      return { status: 201, headers: {}, text: '{}', json: {} };
    }
    return { status: 200, headers: {}, text: '{}', json: {} };
  };
  return { send, placeAfterBatch: () => (o.placeAll ? lines.clear() : undefined) };
}

test('concurrent checkouts of one cart: several orders are a finding at reference level only; a checkout after must be cart_empty', async () => {
  const options = {
    level: 'spec' as const,
    seed: 2,
    runs: 1,
    clients: 3,
    target,
    owner: 'delegated:a',
    variants: ['v1', 'v2'],
    paymentMethod: 'pm_1',
  };
  // Every simultaneous checkout placed an order, and the cart is empty after them: no finding at the spec's level.
  const racing = checkoutShop({ placeAll: true, emptyAfter: true });
  const found = await runInterleavings({
    ...options,
    scenarios: ['checkouts'],
    send: racing.send,
    onBatch: () => racing.placeAfterBatch(),
  });
  assert.deepEqual(found, []);
  // The reference's choice, judged at its level: one order per cart, whatever the interleaving.
  const strict = checkoutShop({ placeAll: true, emptyAfter: true });
  const [several] = await runInterleavings({
    ...options,
    level: 'reference',
    scenarios: ['checkouts'],
    send: strict.send,
    onBatch: () => strict.placeAfterBatch(),
  });
  assert.deepEqual(several?.clauses, ['PUR-IDEM-4', 'ERR-TABLE-14']);
  assert.match(several!.message, /3 of 3 concurrent checkouts of one cart each placed an order/);
  // A cart never emptied: the submission after the orders is accepted again.
  const leaky = checkoutShop({ placeAll: true, emptyAfter: false });
  const leaked = await runInterleavings({ ...options, scenarios: ['checkouts'], send: leaky.send });
  assert.deepEqual(
    leaked.map((f) => f.clauses),
    [['PUR-IDEM-4', 'ERR-TABLE-14']],
  );
  assert.match(leaked[0]!.message, /the cart was not emptied/);
});
