// The operator operations under /v1/ops/* over HTTP against the reference (spec, What the service does 1: operator-only;
// Credentials per consumer: the Operator attribution header; rows "not shown": the reference's choice). Search and read
// across accounts, cancellation, refunds through the payment port, stock adjustments, and the audit log of every write.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, startReference, type Harness } from '../helpers/reference.js';
import { expectNoStore, expectProblem } from '../../conformance/lib/assert.js';
import { newGuestSession } from '../../conformance/lib/guest-session.js';
import type { Db } from '../../reference/src/db/open.js';
import type { PaymentProvider } from '../../reference/src/payments/port.js';

type Res = Awaited<ReturnType<Harness['call']>>;
const OPERATOR = 'alice@backoffice.test';

describe('operator routes over HTTP', () => {
  let h: Harness;
  let db: Db;
  before(async () => {
    h = await startReference();
    db = h.db;
  });
  after(() => h.close());

  const op = async (o: { scope?: string; operator?: string | null } = {}) => ({
    ...bearer(await h.minter.operator(o.scope !== undefined ? { scope: o.scope } : {})),
    ...(o.operator === null ? {} : { operator: o.operator ?? OPERATOR }),
  });
  const get = async (path: string, headers?: Record<string, string>) => h.call(path, { headers: headers ?? (await op()) });
  const postJson = async (path: string, json: unknown, headers?: Record<string, string>) =>
    h.call(path, { method: 'POST', json, headers: headers ?? (await op()) });
  const problem = (res: Res, status: number, error: string, extra: { scope?: string } = {}) => {
    const doc = expectProblem(res, { status, error, docsUrl: h.profile.docsUrl, ...extra });
    expectNoStore(res);
    return doc;
  };
  const ok = (res: Res, status = 200) => {
    assert.equal(res.status, status, res.text);
    expectNoStore(res);
    return res.body;
  };
  const auditRows = () =>
    db.prepare('SELECT actor, action, target, details FROM audit_log ORDER BY id').all() as {
      actor: string;
      action: string;
      target: string;
      details: string;
    }[];
  const payment = (orderId: string) =>
    db.prepare('SELECT status, amount_cents, refunded_cents FROM payments WHERE order_id = ?').get(orderId) as {
      status: string;
      amount_cents: number;
      refunded_cents: number;
    };
  const orderStatus = (id: string) => (db.prepare('SELECT status FROM orders WHERE id = ?').get(id) as { status: string }).status;
  const stock = (id: string) => (db.prepare('SELECT stock FROM variants WHERE id = ?').get(id) as { stock: number }).stock;

  const ROUTES: [string, string, unknown?][] = [
    ['GET', '/v1/ops/orders'],
    ['GET', '/v1/ops/orders/ord_1001'],
    ['POST', '/v1/ops/orders/ord_1001/cancellation', { reason: 'x' }],
    ['POST', '/v1/ops/orders/ord_1001/refunds', { reason: 'x' }],
    ['POST', '/v1/ops/variants/var_0101/stock-adjustments', { delta: 1, reason: 'x' }],
  ];

  describe('who may call', () => {
    test('customer, delegated and guest callers are 403 caller_not_allowed on every ops route, and nothing is written', async () => {
      const callers: [string, Record<string, string>][] = [
        ['customer', bearer(await h.minter.customer({ sub: 'cust_ada' }))],
        ['delegated', bearer(await h.minter.delegated({ sub: 'cust_ada', channel: 'openapi' }))],
        ['guest', { ...bearer(await h.minter.guest()), 'guest-session': newGuestSession(h.profile.secrets.guestSessionKey) }],
      ];
      const before = stock('var_0101');
      for (const [kind, headers] of callers) {
        for (const [method, path, json] of ROUTES) {
          const res = await h.call(path, { method, headers, ...(json !== undefined ? { json } : {}) });
          assert.equal(res.status, 403, `${kind} ${method} ${path}: ${res.text}`);
          problem(res, 403, 'caller_not_allowed');
          assert.equal(res.headers.get('www-authenticate'), null);
        }
      }
      assert.equal(stock('var_0101'), before);
      assert.equal(orderStatus('ord_1001'), 'delivered');
    });

    test('no token: 401 invalid_token; an operator token without the Operator header matches no caller kind: 403 caller_not_allowed', async () => {
      for (const [method, path, json] of ROUTES) {
        problem(await h.call(path, { method, ...(json !== undefined ? { json } : {}) }), 401, 'invalid_token');
        problem(
          await h.call(path, { method, headers: await op({ operator: null }), ...(json !== undefined ? { json } : {}) }),
          403,
          'caller_not_allowed',
        );
      }
      problem(await h.call('/v1/ops/orders', { headers: await op({ operator: 'x'.repeat(257) }) }), 400, 'invalid_request');
    });

    test('scopes: reads need ops:read, writes ops:write (403 insufficient_scope naming it)', async () => {
      const readOnly = await op({ scope: 'ops:read' });
      const writeOnly = await op({ scope: 'ops:write' });
      for (const [method, path, json] of ROUTES) {
        const write = method === 'POST';
        const res = await h.call(path, { method, headers: write ? readOnly : writeOnly, ...(json !== undefined ? { json } : {}) });
        problem(res, 403, 'insufficient_scope', { scope: write ? 'ops:write' : 'ops:read' });
      }
      ok(await get('/v1/ops/orders', readOnly));
    });
  });

  describe('reads', () => {
    test("search: every account's orders, newest first, with the summary shape; reads are not audited", async () => {
      const audited = auditRows().length;
      const body = ok(await get('/v1/ops/orders?limit=100'));
      assert.ok(body.items.length >= 13);
      const placed = body.items.map((o: { placed_at: string }) => o.placed_at);
      assert.deepEqual(placed, [...placed].sort().reverse());
      assert.deepEqual(
        new Set(body.items.map((o: { account: string }) => o.account)),
        new Set(['cust_ada', 'cust_ben', 'cust_chloe', 'cust_dev']),
      );
      const first = body.items.find((o: { id: string }) => o.id === 'ord_1001');
      assert.deepEqual(Object.keys(first).sort(), [
        'account',
        'currency',
        'id',
        'item_count',
        'number',
        'payment_status',
        'placed_at',
        'status',
        'total_cents',
        'updated_at',
      ]);
      assert.equal(first.number, '#1001');
      assert.equal(first.item_count, 3);
      assert.equal(body.next_cursor, null);
      assert.equal(auditRows().length, audited);
    });

    test('search filters: status, account, order number with or without #; they combine', async () => {
      const ids = async (query: string) => (ok(await get(`/v1/ops/orders?${query}`)).items as { id: string }[]).map((o) => o.id).sort();
      assert.deepEqual(await ids('status=delivered'), ['ord_1001', 'ord_1002', 'ord_1003', 'ord_1005']);
      assert.deepEqual(await ids('account=cust_ada'), ['ord_1001', 'ord_1004', 'ord_1009', 'ord_1013']);
      assert.deepEqual(await ids('account=cust_ada&status=delivered'), ['ord_1001']);
      assert.deepEqual(await ids(`q=${encodeURIComponent('#1013')}`), ['ord_1013']);
      assert.deepEqual(await ids('q=1013'), ['ord_1013']);
      assert.deepEqual(await ids('account=cust_nobody'), []);
    });

    test('search pages with an opaque cursor; bad parameters are 400 invalid_request', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: { items: { id: string }[]; next_cursor: string | null } = ok(
          await get(`/v1/ops/orders?limit=5${cursor ? `&cursor=${cursor}` : ''}`),
        );
        assert.ok(page.items.length <= 5);
        seen.push(...page.items.map((o) => o.id));
        cursor = page.next_cursor;
      } while (cursor);
      assert.equal(new Set(seen).size, seen.length);
      assert.ok(seen.length >= 13);
      for (const q of ['status=lost', 'limit=0', 'limit=101', 'cursor=AAAA', 'q=%3Cscript%3E', 'account=']) {
        problem(await get(`/v1/ops/orders?${q}`), 400, 'invalid_request');
      }
    });

    test("read: any account's order with lines, payments and returns; unknown ids are 404 not_found", async () => {
      db.prepare(
        `INSERT OR IGNORE INTO returns (id, order_id, account_sub, reason, status, created_at) VALUES ('ret_test1', 'ord_1006', 'cust_ben', 'Too small', 'requested', '2026-03-01T00:00:00.000Z')`,
      ).run();
      const o = ok(await get('/v1/ops/orders/ord_1006'));
      assert.equal(o.id, 'ord_1006');
      assert.equal(o.account, 'cust_ben');
      assert.equal(o.status, 'return_requested');
      assert.equal(o.total_cents, o.subtotal_cents + o.shipping_cents + o.tax_cents);
      assert.equal(
        o.subtotal_cents,
        o.lines.reduce((n: number, l: { line_total_cents: number }) => n + l.line_total_cents, 0),
      );
      assert.deepEqual(
        o.payments.map((p: { provider_ref: string; status: string; refundable_cents: number }) => [
          p.provider_ref,
          p.status,
          p.refundable_cents,
        ]),
        [['pi_seed_ord_1006', 'succeeded', o.total_cents]],
      );
      assert.deepEqual(o.returns, [{ id: 'ret_test1', reason: 'Too small', status: 'requested', created_at: '2026-03-01T00:00:00.000Z' }]);
      const refunded = ok(await get('/v1/ops/orders/ord_1004'));
      assert.equal(refunded.payments[0].status, 'refunded');
      assert.equal(refunded.payments[0].refundable_cents, 0);
      problem(await get('/v1/ops/orders/ord_9999'), 404, 'not_found');
      problem(await get('/v1/ops/orders/bad%20id'), 400, 'invalid_request');
    });
  });

  describe('cancellation', () => {
    test('a pending_payment order is cancelled: its waiting payment will not be taken; audited with the attribution', async () => {
      const before = auditRows().length;
      const o = ok(await postJson('/v1/ops/orders/ord_1013/cancellation', { reason: 'Customer called' }));
      assert.equal(o.status, 'cancelled');
      assert.equal(orderStatus('ord_1013'), 'cancelled');
      assert.equal(payment('ord_1013').status, 'failed');
      const rows = auditRows().slice(before);
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.actor, `operator:${OPERATOR}`);
      assert.equal(rows[0]!.action, 'order.cancel');
      assert.equal(rows[0]!.target, 'ord_1013');
      assert.deepEqual(JSON.parse(rows[0]!.details), {
        reason: 'Customer called',
        previous_status: 'pending_payment',
        refunded_cents: 0,
        refund_ref: null,
      });
    });

    test('a paid order is cancelled with a full refund through the payment port', async () => {
      const o = ok(
        await postJson(
          '/v1/ops/orders/ord_1012/cancellation',
          { reason: 'Fraud suspected' },
          await op({ operator: 'bob@backoffice.test' }),
        ),
      );
      assert.equal(o.status, 'cancelled');
      const p = payment('ord_1012');
      assert.deepEqual(p, { status: 'refunded', amount_cents: p.amount_cents, refunded_cents: p.amount_cents });
      assert.equal(o.payments[0].refundable_cents, 0);
      const row = auditRows().at(-1)!;
      assert.equal(row.actor, 'operator:bob@backoffice.test');
      const details = JSON.parse(row.details);
      assert.equal(details.refunded_cents, p.amount_cents);
      assert.match(details.refund_ref, /^re_/);
    });

    test('past the point of cancelling: 409 order_not_cancellable and nothing written; unknown 404; body strict', async () => {
      const before = auditRows().length;
      for (const id of ['ord_1001', 'ord_1009', 'ord_1007', 'ord_1006', 'ord_1004', 'ord_1013']) {
        const was = orderStatus(id);
        problem(await postJson(`/v1/ops/orders/${id}/cancellation`, { reason: 'Try' }), 409, 'order_not_cancellable');
        assert.equal(orderStatus(id), was);
      }
      problem(await postJson('/v1/ops/orders/ord_9999/cancellation', { reason: 'Try' }), 404, 'not_found');
      for (const body of [{}, { reason: '' }, { reason: '   ' }, { reason: 'x', extra: 1 }, { reason: 'x'.repeat(501) }, []]) {
        problem(await postJson('/v1/ops/orders/ord_1011/cancellation', body), 400, 'invalid_request');
      }
      assert.equal(orderStatus('ord_1011'), 'paid');
      assert.equal(auditRows().length, before);
    });
  });

  describe('refunds', () => {
    test('part, then the rest: the order becomes refunded when its payment is refunded in full; each refund audited', async () => {
      const { amount_cents: amount } = payment('ord_1011');
      const before = auditRows().length;
      const partial = ok(await postJson('/v1/ops/orders/ord_1011/refunds', { amount_cents: 1000, reason: 'Late delivery' }));
      assert.equal(partial.status, 'paid');
      assert.equal(partial.payments[0].refunded_cents, 1000);
      assert.equal(partial.payments[0].refundable_cents, amount - 1000);
      problem(
        await postJson('/v1/ops/orders/ord_1011/refunds', { amount_cents: amount - 999, reason: 'Too much' }),
        409,
        'order_not_refundable',
      );
      const rest = ok(await postJson('/v1/ops/orders/ord_1011/refunds', { reason: 'Goodwill' }));
      assert.equal(rest.status, 'refunded');
      assert.deepEqual(payment('ord_1011'), { status: 'refunded', amount_cents: amount, refunded_cents: amount });
      problem(await postJson('/v1/ops/orders/ord_1011/refunds', { reason: 'Again' }), 409, 'order_not_refundable');
      const rows = auditRows().slice(before);
      assert.deepEqual(
        rows.map((r) => [r.actor, r.action, r.target, JSON.parse(r.details).amount_cents]),
        [
          [`operator:${OPERATOR}`, 'order.refund', 'ord_1011', 1000],
          [`operator:${OPERATOR}`, 'order.refund', 'ord_1011', amount - 1000],
        ],
      );
    });

    test('a delivered order may be refunded in part and stays delivered', async () => {
      const o = ok(await postJson('/v1/ops/orders/ord_1002/refunds', { amount_cents: 1, reason: 'Scratch' }));
      assert.equal(o.status, 'delivered');
      assert.equal(payment('ord_1002').refunded_cents, 1);
    });

    test('nothing captured to refund: 409 (refunded, cancelled, pending); unknown 404; body strict', async () => {
      for (const id of ['ord_1004', 'ord_1007', 'ord_1008'])
        problem(await postJson(`/v1/ops/orders/${id}/refunds`, { reason: 'x' }), 409, 'order_not_refundable');
      problem(await postJson('/v1/ops/orders/ord_9999/refunds', { reason: 'x' }), 404, 'not_found');
      for (const body of [
        { amount_cents: 0, reason: 'x' },
        { amount_cents: -5, reason: 'x' },
        { amount_cents: 1.5, reason: 'x' },
        { amount_cents: 1 },
        { amount_cents: 1, reason: 'x', currency: 'USD' },
      ]) {
        problem(await postJson('/v1/ops/orders/ord_1003/refunds', body), 400, 'invalid_request');
      }
      assert.equal(payment('ord_1003').refunded_cents, 0);
    });
  });

  describe('stock adjustments', () => {
    test('add and remove: 200 with the new stock; below zero is 409 insufficient_stock; each adjustment audited', async () => {
      const start = stock('var_0302');
      const before = auditRows().length;
      assert.deepEqual(ok(await postJson('/v1/ops/variants/var_0302/stock-adjustments', { delta: 2, reason: 'Restock' })), {
        variant_id: 'var_0302',
        sku: 'HSC-WFJ-M',
        stock: start + 2,
        delta: 2,
      });
      assert.equal(
        ok(await postJson('/v1/ops/variants/var_0302/stock-adjustments', { delta: -(start + 2), reason: 'Stocktake' })).stock,
        0,
      );
      problem(await postJson('/v1/ops/variants/var_0302/stock-adjustments', { delta: -1, reason: 'Oops' }), 409, 'insufficient_stock');
      assert.equal(stock('var_0302'), 0);
      // The catalog shows it.
      const product = await h.call('/v1/catalog/products/waxed-canvas-field-jacket', {
        headers: bearer(await h.minter.customer({ sub: 'cust_ada' })),
      });
      assert.equal(product.body.variants.find((v: { id: string }) => v.id === 'var_0302').available_quantity, 0);
      const rows = auditRows().slice(before);
      assert.deepEqual(
        rows.map((r) => [r.actor, r.action, r.target, JSON.parse(r.details)]),
        [
          [`operator:${OPERATOR}`, 'variant.stock_adjust', 'var_0302', { reason: 'Restock', delta: 2, before: start, after: start + 2 }],
          [
            `operator:${OPERATOR}`,
            'variant.stock_adjust',
            'var_0302',
            { reason: 'Stocktake', delta: -(start + 2), before: start + 2, after: 0 },
          ],
        ],
      );
    });

    test('unknown variant 404; delta 0, fractional, over 10000, or extra members: 400', async () => {
      problem(await postJson('/v1/ops/variants/var_9999/stock-adjustments', { delta: 1, reason: 'x' }), 404, 'not_found');
      problem(await postJson('/v1/ops/variants/nope/stock-adjustments', { delta: 1, reason: 'x' }), 400, 'invalid_request');
      for (const body of [
        { delta: 0, reason: 'x' },
        { delta: 1.5, reason: 'x' },
        { delta: 10_001, reason: 'x' },
        { delta: -10_001, reason: 'x' },
        { delta: 1 },
        { delta: '1', reason: 'x' },
        { delta: 1, reason: 'x', sku: 'y' },
      ]) {
        problem(await postJson('/v1/ops/variants/var_0101/stock-adjustments', body), 400, 'invalid_request');
      }
      assert.equal(
        ok(await postJson('/v1/ops/variants/var_0101/stock-adjustments', { delta: 10_000, reason: 'Max' })).stock,
        stock('var_0101'),
      );
    });
  });
});

/** The reference on the seed with a payment provider of the test's own (test/helpers/reference.ts). */
async function startWithProvider(payments: PaymentProvider) {
  const h = await startReference({ payments });
  const headers = { authorization: `Bearer ${await h.minter.operator()}`, operator: OPERATOR };
  return {
    db: h.db,
    post: async (path: string, body: unknown) => {
      const res = await h.call(path, { method: 'POST', headers, json: body });
      return { status: res.status, body: res.body as { error?: string; status?: string } };
    },
    close: () => h.close(),
  };
}

describe('operator writes and the payment provider', () => {
  test('a refused refund changes nothing: 409 order_not_refundable, no audit row; the provider is called before any write', async () => {
    const calls: [string, number][] = [];
    const s = await startWithProvider({
      name: 'simulated',
      charge: async () => ({ status: 'failed', providerRef: 'pi_x' }),
      findCharge: async () => undefined,
      refund: async (ref, amount) => {
        calls.push([ref, amount]);
        return { status: 'failed', providerRef: 're_x' };
      },
    });
    try {
      for (const [path, body] of [
        ['/v1/ops/orders/ord_1011/refunds', { amount_cents: 100, reason: 'x' }],
        ['/v1/ops/orders/ord_1012/cancellation', { reason: 'x' }],
      ] as const) {
        const res = await s.post(path, body);
        assert.equal(res.status, 409);
        assert.equal(res.body.error, 'order_not_refundable');
      }
      assert.deepEqual(
        calls.map(([ref]) => ref),
        ['pi_seed_ord_1011', 'pi_seed_ord_1012'],
      );
      assert.equal(calls[0]![1], 100);
      assert.deepEqual(
        s.db.prepare(`SELECT status, refunded_cents FROM payments WHERE order_id IN ('ord_1011','ord_1012') ORDER BY order_id`).all(),
        [
          { status: 'succeeded', refunded_cents: 0 },
          { status: 'succeeded', refunded_cents: 0 },
        ],
      );
      assert.deepEqual(s.db.prepare(`SELECT status FROM orders WHERE id IN ('ord_1011','ord_1012') ORDER BY id`).all(), [
        { status: 'paid' },
        { status: 'paid' },
      ]);
      assert.equal((s.db.prepare('SELECT count(*) AS n FROM audit_log').get() as { n: number }).n, 0);
    } finally {
      await s.close();
    }
  });

  test('a second refund or cancellation of an order while the provider answers the first is refused (409): money goes back once', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let refunds = 0;
    const s = await startWithProvider({
      name: 'simulated',
      charge: async () => ({ status: 'failed', providerRef: 'pi_x' }),
      findCharge: async () => undefined,
      refund: async () => {
        refunds += 1;
        await gate;
        return { status: 'succeeded', providerRef: 're_slow' };
      },
    });
    try {
      const first = s.post('/v1/ops/orders/ord_1011/refunds', { reason: 'first' });
      await new Promise((r) => setTimeout(r, 50));
      const second = await s.post('/v1/ops/orders/ord_1011/refunds', { reason: 'second' });
      const cancel = await s.post('/v1/ops/orders/ord_1011/cancellation', { reason: 'third' });
      assert.deepEqual([second.status, second.body.error], [409, 'order_not_refundable']);
      assert.deepEqual([cancel.status, cancel.body.error], [409, 'order_not_cancellable']);
      release();
      const done = await first;
      assert.equal(done.status, 200);
      assert.equal(done.body.status, 'refunded');
      assert.equal(refunds, 1);
    } finally {
      release();
      await s.close();
    }
  });
});
