// Seeded interleavings of one owner's commands: the reference raises no finding; a deliberately racy server (a cart read,
// then written after a pause; a checkout that empties the cart after charging; no replay store; no rate limit) raises
// each scenario's finding with its clause.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startReference, type Harness } from '../helpers/reference.js';
import { runInterleavings, type InterleavingOptions } from '../../conformance/explore/concurrency.js';
import type { Answer, Step } from '../../conformance/explore/exchange.js';
import { Target } from '../../conformance/engine/transport/target.js';
import { describeService } from '../../reference/src/app.js';
import { newGuestSession } from '../../conformance/lib/guest-session.js';
import { createDpopKey, dpopProof } from '../../conformance/lib/dpop.js';

const target = () =>
  new Target(
    { general: describeService('general', 'https://docs.test'), assistant: describeService('assistant', 'https://docs.test') },
    {},
  );

async function fetchAnswer(url: string, step: Step, credentials: Record<string, string>): Promise<Answer> {
  const headers = new Headers(credentials);
  for (const [k, v] of Object.entries(step.headers)) for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
  let body: string | undefined;
  if (step.body) {
    body = 'json' in step.body ? JSON.stringify(step.body.json) : step.body.text;
    if (!headers.has('content-type'))
      headers.set('content-type', 'json' in step.body ? 'application/json' : (step.body.contentType ?? 'text/plain'));
  }
  const res = await fetch(url + step.path, { method: step.method, headers, body });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: Object.fromEntries(res.headers), text, json };
}

describe('concurrency against the reference', () => {
  let h: Harness;
  before(async () => {
    h = await startReference();
  });
  after(() => h.close());

  test('no finding: adds keep every line, one order per cart, one proof accepted once, the guest budget holds', async () => {
    const sessions = new Map<string, string>();
    // The caller labels of this test: `delegated@<sub>`, `guest#<n>`, `none` (headers given by the step).
    const credentials = async (caller: string): Promise<Record<string, string>> => {
      if (caller.startsWith('delegated@'))
        return { authorization: `Bearer ${await h.minter.delegated({ sub: caller.slice(10), channel: 'openapi' })}` };
      if (caller.startsWith('guest')) {
        if (!sessions.has(caller)) sessions.set(caller, newGuestSession(h.profile.secrets.guestSessionKey));
        return { authorization: `Bearer ${await h.minter.guest()}`, 'guest-session': sessions.get(caller)! };
      }
      return {};
    };
    const sid = `sess_${randomUUID()}`;
    const registered = await h.call('/internal/assistant/sessions/signed-out', {
      method: 'POST',
      headers: { 'x-proxy-idp-secret': h.profile.secrets.proxyIdpSecret! },
      json: { session_id: sid, client_id: 'agent-client', scopes: [] },
    });
    assert.equal(registered.status, 201, registered.text);
    const key = await createDpopKey();
    const token = await h.minter.assistant({ sub: `cust_${randomUUID()}`, sid, jkt: key.thumbprint });
    const batches: Record<string, number[][]> = {};
    const findings = await runInterleavings({
      onBatch: (scenario, answers) => (batches[scenario] ??= []).push(answers.map((a) => a.status)),
      send: async (step) => fetchAnswer(h.url, step, await credentials(step.caller)),
      seed: 42,
      runs: 3,
      target: target(),
      owner: 'delegated@cust_checkout_7',
      variants: ['var_0101', 'var_0201', 'var_0701'],
      paymentMethod: 'pm_chk7',
      baseUrl: h.url,
      assistant: async ({ method, url, nonce }) => ({
        authorization: `DPoP ${token}`,
        dpop: await dpopProof({ key, htm: method, htu: url, accessToken: token, ...(nonce ? { nonce } : {}) }),
      }),
      budget: {
        limit: h.profile.rateLimits!.guestBudget,
        caller: (attempt) => `guest#budget-${attempt}`,
        headers: (attempt) => ({ 'shopper-ip': `198.51.100.${attempt + 10}` }),
      },
    });
    assert.deepEqual(findings, []);
    // Each scenario ran, three interleavings each, and its answers are the conforming ones.
    assert.deepEqual(batches.adds, [
      [201, 201, 201],
      [201, 201, 201],
      [201, 201, 201],
    ]);
    assert.equal(batches.checkouts!.length, 3);
    for (const b of batches.checkouts!) assert.deepEqual([...b].sort(), [201, 422, 422]);
    // The reference asks for its nonce first (both 401 use_dpop_nonce); then one of the two identical proofs is accepted.
    const accepted = batches.proof!.filter((b) => b.includes(200));
    assert.equal(accepted.length, 3);
    for (const b of accepted) assert.deepEqual([...b].sort(), [200, 401]);
    assert.equal(batches.budget!.length, 1);
    assert.equal(batches.budget![0]!.filter((s) => s === 200).length, h.profile.rateLimits!.guestBudget);
  });
});

/** A server with every race the scenarios look for; paths and bodies as the reference documents them. */
function racyServer(): Promise<{ url: string; close(): Promise<void> }> {
  let cart: string[] = [];
  const pause = () => new Promise((r) => setTimeout(r, 15));
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', async () => {
      const answer = (status: number, json?: unknown) => {
        res.writeHead(status, { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json', 'x-request-id': 'r' });
        res.end(json === undefined ? '' : JSON.stringify(json));
      };
      const url = req.url ?? '';
      if (req.method === 'POST' && url === '/v1/cart/items') {
        const seen = [...cart];
        await pause();
        cart = [...seen, (JSON.parse(raw) as { variant_id: string }).variant_id];
        return answer(201, { lines: cart });
      }
      if (req.method === 'GET' && url === '/v1/cart') return answer(200, { lines: cart.map((variant_id) => ({ variant_id })) });
      if (req.method === 'DELETE' && url.startsWith('/v1/cart/items/')) {
        cart = cart.filter((v) => v !== decodeURIComponent(url.slice('/v1/cart/items/'.length)));
        return answer(204);
      }
      if (req.method === 'POST' && url === '/v1/checkouts/saved-card') {
        if (cart.length === 0) return answer(422, { error: 'cart_empty' });
        await pause();
        cart = [];
        return answer(201, { id: randomUUID() });
      }
      if (req.method === 'GET' && url === '/v1/catalog/collections') return answer(200, { collections: [] });
      answer(404, { error: 'not_found' });
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise<void>((r) => server.close(() => r())),
      }),
    ),
  );
}

describe('concurrency against a racy server', () => {
  test('each scenario finds its race and names its clause', async () => {
    const racy = await racyServer();
    try {
      const o: InterleavingOptions = {
        send: (step) => fetchAnswer(racy.url, step, {}),
        seed: 7,
        runs: 2,
        target: target(),
        owner: 'delegated@cust_x',
        variants: ['var_0101', 'var_0201', 'var_0701'],
        paymentMethod: 'pm_x',
        baseUrl: racy.url,
        assistant: async () => ({ authorization: 'DPoP t', dpop: 'same-proof' }),
        budget: { limit: 5, caller: (a) => `guest#${a}` },
      };
      const findings = await runInterleavings(o);
      const byClause = (c: string) => findings.filter((f) => f.clauses.includes(c));
      assert.equal(byClause('PUR-SERVE-2').length, 1, 'lost lines');
      assert.match(byClause('PUR-SERVE-2')[0]!.message, /concurrent adds accepted but missing/);
      assert.equal(byClause('PUR-IDEM-4').length, 1, 'two orders from one cart');
      assert.match(byClause('PUR-IDEM-4')[0]!.message, /concurrent checkouts of one cart each placed an order/);
      assert.equal(byClause('AUTH-ASST-11').length, 1, 'a proof accepted twice');
      assert.equal(byClause('LIM-RATE-4').length, 1, 'a budget exceeded');
      assert.ok(findings.every((f) => f.oracle === 'concurrency' && f.steps.length > 0 && f.interleaving !== ''));
      // The checkout finding's steps: the line added, the concurrent checkouts, the resubmission.
      const checkout = byClause('PUR-IDEM-4')[0]!;
      assert.deepEqual(
        checkout.steps.map((s) => s.operationId),
        ['addCartItem', 'checkoutSavedCard', 'checkoutSavedCard', 'checkoutSavedCard', 'checkoutSavedCard'],
      );
      assert.deepEqual(checkout.parallel, [[1, 2, 3]]);
      assert.ok(checkout.index >= 2 && checkout.index <= 3, `the second order placed: ${checkout.index}`);
      // The proof finding replays as the assistant's fresh proof and that same proof again, at once.
      const proof = byClause('AUTH-ASST-11')[0]!;
      assert.deepEqual(
        proof.steps.map((s) => s.caller),
        ['assistant', 'assistant:replay'],
      );
      assert.deepEqual(proof.parallel, [[0, 1]]);
    } finally {
      await racy.close();
    }
  });
});
