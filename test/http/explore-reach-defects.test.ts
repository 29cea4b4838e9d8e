// The explore-reach defects (conformance/selftest/defects/explore-reach/) are real: for each, the exact requests that show
// it, sent through the self-test proxy in front of the embedded reference, show the deviation, and the same requests sent
// straight to the reference do not. Each sequence uses accounts of its own (a fresh subject, or a seeded account no other
// sequence writes to), so the two runs and the defects do not see each other's writes.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { startEmbedded } from '../../cli/commands/run.js';
import { FIXTURE_PROFILE } from '../../reference/src/paths.js';
import { CLAUSES_BY_ID } from '../../contract/clauses/catalogue.js';
import { LIMITS } from '../../contract/limits.js';
import { createMinter, type Minter } from '../../conformance/lib/mint.js';
import { newGuestSession } from '../../conformance/lib/guest-session.js';
import { ignoredEvent, signPayload } from '../../conformance/lib/stripe-signature.js';
import { sendUpstream, startProxy } from '../../conformance/selftest/proxy.js';
import { EXPLORE_REACH_DEFECTS } from '../../conformance/selftest/defects/explore-reach/index.js';
import type { Profile } from '../../contract/profile.js';

type Embedded = Awaited<ReturnType<typeof startEmbedded>>;
type Headers = Record<string, string>;
interface Answer {
  status: number;
  headers: globalThis.Headers;
  text: string;
  json: any;
}

let embedded: Embedded;
let profile: Profile;
let mint: Minter;

before(async () => {
  embedded = await startEmbedded(FIXTURE_PROFILE);
  profile = embedded.profile;
  mint = createMinter(profile);
});
after(async () => {
  await embedded.server.close();
  rmSync(embedded.dir, { recursive: true, force: true });
});

async function send(
  base: string,
  method: string,
  path: string,
  o: { headers?: Headers; body?: string; json?: unknown } = {},
): Promise<Answer> {
  const body = o.json !== undefined ? JSON.stringify(o.json) : o.body;
  const headers = { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...o.headers };
  const res = await fetch(new URL(path, base), { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

const bearer = (token: string): Headers => ({ authorization: `Bearer ${token}` });
const customer = async (sub: string) => bearer(await mint.customer({ sub }));
const delegated = async (sub: string) => bearer(await mint.delegated({ sub, channel: 'openapi' }));
const freshSub = () => `cust_reach_${randomUUID()}`;
const contextHeader = () => profile.conventions?.headers?.invitedAgentContext ?? 'Invited-Agent-Context';
async function invited(sub: string, permissions: readonly string[]): Promise<Headers> {
  const forwarderToken = await mint.invitedAgentForwarder();
  const context = await mint.invitedAgentContext({ sub, agentId: 'agent_reach', permissions, forwarderToken });
  return { ...bearer(forwarderToken), [contextHeader()]: context };
}
const ids = (a: Answer): string[] => ((a.json?.items ?? []) as { id: string }[]).map((x) => x.id);
const newAddress = { name: 'Reach Tester', line1: '1 Corner Street', city: 'Denver', postal_code: '80202', country: 'US' };

/**
 * One defect's proof: `show` sends the requests to a base URL and says whether the deviation appears (with what it saw).
 * `run` is the run's number (0 straight to the reference, 1 through the proxy), for sequences that pick their accounts.
 */
interface Proof {
  readonly id: string;
  show(base: string, run: number): Promise<{ deviates: boolean; seen: string }>;
}

const PROOFS: readonly Proof[] = [
  {
    id: 'reach.rare.collections-if-none-match-ignored',
    async show(base) {
      const headers = await customer('cust_ada');
      const first = await send(base, 'GET', '/v1/catalog/collections', { headers });
      const etag = first.headers.get('etag') ?? '';
      const again = await send(base, 'GET', '/v1/catalog/collections', { headers: { ...headers, 'if-none-match': etag } });
      return { deviates: first.status === 200 && etag !== '' && again.status === 200, seen: `${first.status} ${etag} -> ${again.status}` };
    },
  },
  {
    id: 'reach.rare.webhook-signature-over-reparsed-json',
    async show(base) {
      const body = JSON.stringify(ignoredEvent(), null, 2);
      const res = await send(base, 'POST', '/webhooks/stripe', {
        body,
        headers: { 'stripe-signature': signPayload(body, profile.secrets.stripeWebhookSecret!) },
      });
      return { deviates: res.status === 400 && res.json?.error === 'invalid_signature', seen: `${res.status} ${res.text}` };
    },
  },
  {
    id: 'reach.rare.checkout-address-cached-by-url',
    async show(base) {
      const ada = await send(base, 'GET', '/v1/me/checkout-address', { headers: await customer('cust_ada') });
      const ben = await send(base, 'GET', '/v1/me/checkout-address', { headers: await customer('cust_ben') });
      return { deviates: ada.status === 200 && ben.status === 200 && ada.text === ben.text, seen: `${ada.text} / ${ben.text}` };
    },
  },
  {
    id: 'reach.callers.agent-authorization-proxy-client-token',
    async show(base) {
      const token = await mint.machine(profile.clients.personalAgentProxy);
      const res = await send(base, 'POST', '/internal/agent-authorization', {
        headers: bearer(token),
        json: { subject: 'cust_eve', agent_id: 'agent_reach', permissions: ['assistant:read'], decision: 'granted' },
      });
      return { deviates: res.status >= 200 && res.status < 300, seen: `${res.status} ${res.text}` };
    },
  },
  {
    id: 'reach.callers.guest-lists-payment-methods',
    async show(base) {
      const headers = { ...bearer(await mint.guest()), 'guest-session': newGuestSession(profile.secrets.guestSessionKey) };
      const res = await send(base, 'GET', '/v1/me/payment-methods', { headers });
      return { deviates: res.status === 200, seen: `${res.status} ${res.text}` };
    },
  },
  {
    id: 'reach.callers.identity-refuses-invited-agent',
    async show(base) {
      const res = await send(base, 'GET', '/v1/me/identity', { headers: await invited('cust_ada', ['assistant:read']) });
      return { deviates: res.status === 403 && res.json?.error === 'caller_not_allowed', seen: `${res.status} ${res.text}` };
    },
  },
  {
    id: 'reach.tokens.audience-array-unchecked',
    async show(base) {
      const token = await mint.customer({ sub: 'cust_ada', claims: { aud: ['https://elsewhere.example'] } });
      const res = await send(base, 'GET', '/v1/me/profile', { headers: bearer(token) });
      return { deviates: res.status === 200, seen: `${res.status} ${res.text}` };
    },
  },
  {
    id: 'reach.tokens.issuer-trailing-slash-normalised',
    async show(base) {
      const iss = profile.issuer.endsWith('/') ? profile.issuer.replace(/\/+$/, '') : `${profile.issuer}/`;
      const token = await mint.customer({ sub: 'cust_ada', claims: { iss } });
      const res = await send(base, 'GET', '/v1/me/profile', { headers: bearer(token) });
      return { deviates: res.status === 200, seen: `${res.status} ${res.text}` };
    },
  },
  {
    id: 'reach.tokens.act-chain-innermost-checked',
    async show(base) {
      const draft = mint.draft.delegated({ sub: 'cust_ada', channel: 'openapi' });
      draft.payload.act = { sub: 'rogue-relay', act: { sub: profile.clients.agentProtocol } };
      const res = await send(base, 'GET', '/v1/cart', { headers: bearer(await mint.sign(draft)) });
      return { deviates: res.status === 200, seen: `${res.status} ${res.text}` };
    },
  },
  {
    id: 'reach.bodies.preview-null-body-crashes',
    async show(base) {
      const res = await send(base, 'POST', '/v1/checkout-previews', { headers: await delegated('cust_ada'), body: 'null' });
      return { deviates: res.status === 500 && res.json?.error === 'internal_error', seen: `${res.status} ${res.text}` };
    },
  },
  {
    id: 'reach.bodies.recovery-member-case-folded',
    async show(base) {
      const res = await send(base, 'POST', '/internal/account/recover', {
        headers: bearer(profile.secrets.accountRecoverySecret!),
        json: { Subject: 'cust_ben', operationId: 'recop_0006', purpose: 'email' },
      });
      return { deviates: res.status === 200, seen: `${res.status} ${res.text}` };
    },
  },
  {
    id: 'reach.bodies.exact-cap-refused',
    async show(base) {
      const compact = JSON.stringify({ variant_id: 'var_0101', quantity: 1 });
      const body = compact.slice(0, -1) + ' '.repeat(LIMITS.requestBodyBytes - compact.length) + '}';
      assert.equal(Buffer.byteLength(body), LIMITS.requestBodyBytes);
      const res = await send(base, 'POST', '/v1/cart/items', { headers: await customer(freshSub()), body });
      return { deviates: res.status === 413, seen: `${res.status} ${res.text.slice(0, 300)}` };
    },
  },
  {
    id: 'reach.shared.delegated-address-hidden-from-customer',
    async show(base) {
      const sub = freshSub();
      const added = await send(base, 'POST', '/v1/me/addresses', { headers: await delegated(sub), json: newAddress });
      const list = await send(base, 'GET', '/v1/me/addresses', { headers: await customer(sub) });
      const id = added.json?.id as string;
      return { deviates: added.status === 201 && list.status === 200 && !ids(list).includes(id), seen: `${id} in ${list.text}` };
    },
  },
  {
    id: 'reach.shared.customer-cart-line-unseen-by-delegated',
    async show(base) {
      const sub = freshSub();
      const added = await send(base, 'POST', '/v1/cart/items', {
        headers: await customer(sub),
        json: { variant_id: 'var_0101', quantity: 1 },
      });
      const cart = await send(base, 'GET', '/v1/cart', { headers: await delegated(sub) });
      return { deviates: added.status === 201 && cart.status === 200 && !cart.text.includes('var_0101'), seen: cart.text };
    },
  },
  {
    id: 'reach.shared.invited-order-missing-for-customer',
    async show(base, run) {
      const sub = `cust_checkout_${run + 1}`;
      const methods = await send(base, 'GET', '/v1/me/payment-methods', { headers: await customer(sub) });
      const agent = await invited(sub, ['assistant:read', 'assistant:write', 'checkout']);
      await send(base, 'POST', '/v1/cart/items', { headers: agent, json: { variant_id: 'var_0101', quantity: 1 } });
      const order = await send(base, 'POST', '/v1/checkouts/saved-card', { headers: agent, json: { payment_method_id: ids(methods)[0] } });
      const list = await send(base, 'GET', '/v1/me/orders', { headers: await customer(sub) });
      const id = order.json?.id as string;
      return {
        deviates: order.status === 201 && list.status === 200 && !ids(list).includes(id),
        seen: `${order.status} ${id} in ${list.text}`,
      };
    },
  },
];

// The credential families (sessions, contexts, proofs) are proven in explore-reach-credentials.test.ts.
const CREDENTIAL_FAMILY = /^reach\.(sessions|contexts|proofs)\./;

test('24 defects, three per family, each citing one clause of the catalogue', () => {
  assert.equal(EXPLORE_REACH_DEFECTS.length, 24);
  assert.equal(new Set(EXPLORE_REACH_DEFECTS.map((d) => d.id)).size, 24, 'ids are unique');
  const families = new Map<string, number>();
  for (const d of EXPLORE_REACH_DEFECTS) {
    const m = /^reach\.(\w+)\.[\w-]+$/.exec(d.id);
    assert.ok(m, d.id);
    families.set(m[1]!, (families.get(m[1]!) ?? 0) + 1);
    assert.ok(CLAUSES_BY_ID.has(d.clause), `${d.id}: ${d.clause}`);
    assert.equal(CLAUSES_BY_ID.get(d.clause)!.notTestable, undefined, `${d.id}: ${d.clause} is testable`);
  }
  assert.deepEqual([...families.values()], [3, 3, 3, 3, 3, 3, 3, 3], JSON.stringify([...families]));
  assert.deepEqual(
    PROOFS.map((p) => p.id),
    EXPLORE_REACH_DEFECTS.map((d) => d.id).filter((id) => !CREDENTIAL_FAMILY.test(id)),
    'every defect of these families has its proof here',
  );
});

describe('each defect shows through the proxy and not on the reference', { concurrency: 4 }, () => {
  for (const proof of PROOFS) {
    test(proof.id, { timeout: 30_000 }, async () => {
      const defect = EXPLORE_REACH_DEFECTS.find((d) => d.id === proof.id)!;
      const target = embedded.server.url;
      const rules = defect.rules({ profile, mint, send: sendUpstream(target), target });
      const proxy = await startProxy(target, { ...rules, label: defect.id });
      try {
        const straight = await proof.show(target, 0);
        assert.equal(straight.deviates, false, `straight to the reference: ${straight.seen}`);
        const through = await proof.show(proxy.url, 1);
        assert.equal(through.deviates, true, `through the proxy: ${through.seen}`);
      } finally {
        await proxy.close();
      }
    });
  }
});
