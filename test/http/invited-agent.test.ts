// Invited agents over HTTP (spec, Caller kinds: invited-agent; Credentials per consumer; Token verification 4; Customer
// authority: WEB_SESSION_CONTEXT_KEY; Scope translation: the permission table, unknown permissions, a read-only invited agent
// cannot check out). docs/invited-agents.md describes the rules tested here.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { bearer, startReference, type Harness } from '../helpers/reference.js';
import { signWith, unsecured, type InvitedAgentContextOptions } from '../../conformance/lib/mint.js';
import { expectChallenge, expectProblem } from '../../conformance/lib/assert.js';

let h: Harness;
before(async () => (h = await startReference()));
after(() => h.close());

type Hdrs = Record<string, string>;
type ContextOverrides = Partial<Omit<InvitedAgentContextOptions, 'forwarderToken'>>;

const READ = ['assistant:read'];
const ALL = ['assistant:read', 'assistant:write', 'checkout'];
const now = () => Math.floor(h.clock.now().getTime() / 1000);
const freshSub = () => `cust_test_${randomUUID()}`;

/** The credential of an invited agent: the web forwarder's bearer token plus a context bound to it. */
async function invited(
  sub: string,
  permissions: readonly string[],
  o: { context?: ContextOverrides; forwarder?: string; agentId?: string } = {},
): Promise<Hdrs> {
  const forwarderToken = o.forwarder ?? (await h.minter.invitedAgentForwarder());
  const context = await h.minter.invitedAgentContext({
    sub,
    agentId: o.agentId ?? 'agent_test',
    permissions,
    forwarderToken,
    ...o.context,
  });
  return { authorization: `Bearer ${forwarderToken}`, 'invited-agent-context': context };
}

const get = (path: string, headers: Hdrs) => h.call(path, { headers });
const post = (path: string, headers: Hdrs, json: unknown) => h.call(path, { method: 'POST', headers, json });
const addItem = (headers: Hdrs, variant_id = 'var_0101', quantity = 1) => post('/v1/cart/items', headers, { variant_id, quantity });
const newAddress = { name: 'Agent Shopper', line1: '1 Test Street', city: 'Denver', postal_code: '80202', country: 'US' };

async function expectRefused(res: Awaited<ReturnType<Harness['call']>>, what: string, scheme = 'Bearer'): Promise<void> {
  try {
    expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: h.profile.docsUrl });
    expectChallenge(res, { scheme, error: 'invalid_token' });
    assert.equal(res.headers.get('www-authenticate')?.split(',').length, scheme === 'DPoP' ? 2 : 1, 'one challenge');
  } catch (err) {
    throw new Error(`${what}: ${(err as Error).message}\n${res.text}`, { cause: err });
  }
}

async function expectScope(res: Awaited<ReturnType<Harness['call']>>, scope: string): Promise<void> {
  expectProblem(res, { status: 403, error: 'insufficient_scope', docsUrl: h.profile.docsUrl, scope });
  assert.equal(res.headers.get('www-authenticate'), null);
}

describe('admission', () => {
  test('GET /v1/me: an invited agent acting for its account, brought by the web forwarder', async () => {
    const sub = freshSub();
    const res = await get('/v1/me', await invited(sub, READ));
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.caller_kind, 'invited-agent');
    assert.equal(res.body.client_id, h.profile.clients.webAgentForwarder);
    assert.equal(res.body.subject, `${h.profile.clients.webAgentForwarder}@clients`);
    assert.equal(res.body.account.sub, sub);
    assert.equal(res.body.account.state, 'active');
    assert.equal(res.body.origin, 'oauth');
    assert.deepEqual(res.body.scopes, ['agent:forward']);
  });

  test('typ application/invited-agent+jwt is the same type; admitted_at in the past is fine', async () => {
    const headers = await invited(freshSub(), READ, {
      context: { header: { typ: 'application/invited-agent+jwt' }, admittedAt: now() - 86_400 },
    });
    assert.equal((await get('/v1/cart', headers)).status, 200);
  });

  test('the context is reusable while valid (no one-time jti)', async () => {
    const headers = await invited(freshSub(), READ);
    for (let i = 0; i < 3; i++) assert.equal((await get('/v1/cart', headers)).status, 200);
  });
});

describe('permissions (spec, Scope translation)', () => {
  test('read-only invited agent: reads catalog, cart and its account; cannot check out nor write the account', async () => {
    const headers = await invited('cust_ada', READ);
    for (const path of [
      '/v1/catalog/products',
      '/v1/catalog/collections',
      '/v1/cart',
      '/v1/me/profile',
      '/v1/me/addresses',
      '/v1/me/payment-methods',
      '/v1/me/orders',
      '/v1/me/orders/ord_1001',
    ]) {
      const res = await get(path, headers);
      assert.equal(res.status, 200, `${path}: ${res.text}`);
    }
    assert.equal((await get('/v1/me/orders/ord_1002', headers)).status, 404, "another account's order is not found");
    assert.equal((await addItem(headers)).status, 201, 'base cart authority');
    await expectScope(await post('/v1/checkouts/saved-card', headers, { payment_method_id: 'pm_ada01' }), 'checkout');
    await expectScope(await post('/v1/me/addresses', headers, newAddress), 'assistant:write');
    await expectScope(await post('/v1/me/orders/ord_1013/cancellation', headers, {}), 'assistant:write');
  });

  test('read, write and checkout: adds an address and checks out with a saved card', async () => {
    const headers = await invited('cust_checkout_3', ALL);
    const address = await post('/v1/me/addresses', headers, newAddress);
    assert.equal(address.status, 201, address.text);
    assert.equal((await addItem(headers, 'var_0101', 2)).status, 201);
    const order = await post('/v1/checkouts/saved-card', headers, { payment_method_id: 'pm_chk3', address_id: 'addr_chk3' });
    assert.equal(order.status, 201, order.text);
    assert.match(order.headers.get('location') ?? '', /^\/v1\/me\/orders\/ord_/);
    assert.equal((await get('/v1/cart', headers)).body.lines.length, 0, 'the ordered lines left the cart');
    // The order is the account's: its customer sees it.
    const mine = await get(order.headers.get('location')!, bearer(await h.minter.customer({ sub: 'cust_checkout_3' })));
    assert.equal(mine.status, 200, mine.text);
  });

  test('checkout without assistant:read: the checkout permission alone places the order', async () => {
    const headers = await invited('cust_checkout_4', ['checkout']);
    await addItem(headers);
    assert.equal((await post('/v1/checkouts/saved-card', headers, { payment_method_id: 'pm_chk4' })).status, 201);
    await expectScope(await get('/v1/me/orders', headers), 'assistant:read');
  });

  test('an unknown permission unlocks only the base scopes', async () => {
    const headers = await invited(freshSub(), ['assistant:everything']);
    assert.equal((await get('/v1/catalog/products', headers)).status, 200);
    assert.equal((await get('/v1/cart', headers)).status, 200);
    assert.equal((await addItem(headers)).status, 201);
    await expectScope(await get('/v1/me/profile', headers), 'assistant:read');
    await expectScope(await post('/v1/me/addresses', headers, newAddress), 'assistant:write');
    await expectScope(await post('/v1/checkouts/saved-card', headers, { payment_method_id: 'pm_x' }), 'checkout');
  });

  test('no permission at all: base scopes only', async () => {
    const headers = await invited(freshSub(), []);
    assert.equal((await get('/v1/cart', headers)).status, 200);
    await expectScope(await get('/v1/me/orders', headers), 'assistant:read');
  });

  test('a forwarder token without agent:forward: 403 caller_not_allowed (agents are never told a service scope)', async () => {
    const forwarder = await h.minter.invitedAgentForwarder({ scope: 'catalog:read cart:read cart:write' });
    const headers = await invited(freshSub(), ALL, { forwarder });
    for (const path of ['/v1/cart', '/v1/me/profile']) {
      const res = await get(path, headers);
      expectProblem(res, { status: 403, error: 'caller_not_allowed', docsUrl: h.profile.docsUrl });
      assert.equal(res.body.scope, undefined);
    }
  });

  test('invited agents may use the checkout reads (checkout caller list)', async () => {
    const headers = await invited('cust_ada', READ);
    assert.equal((await get('/v1/me/checkout-address', headers)).status, 200);
    assert.equal((await get('/v1/me/checkout-methods', headers)).status, 200);
  });
});

describe('the account cart and lifecycle', () => {
  test('the agent acts on its account cart: the customer of the same sub sees the line', async () => {
    const sub = freshSub();
    assert.equal((await addItem(await invited(sub, READ), 'var_0801', 2)).status, 201);
    const cart = await get('/v1/cart', bearer(await h.minter.customer({ sub })));
    assert.deepEqual(
      cart.body.lines.map((l: { variant_id: string; quantity: number }) => [l.variant_id, l.quantity]),
      [['var_0801', 2]],
    );
    const other = await get('/v1/cart', await invited(freshSub(), READ));
    assert.equal(other.body.lines.length, 0, 'another account sees its own cart');
  });

  test('ended accounts: 401 account_access_ended with the invalid_token challenge', async () => {
    for (const sub of ['cust_deleting', 'cust_deleted', 'cust_transition']) {
      for (const path of ['/v1/cart', '/v1/me/profile', '/v1/catalog/collections']) {
        const res = await get(path, await invited(sub, ALL));
        expectProblem(res, { status: 401, error: 'account_access_ended', docsUrl: h.profile.docsUrl });
        expectChallenge(res, { scheme: 'Bearer', error: 'invalid_token' });
      }
    }
  });
});

describe('authorization records (/internal/agent-authorization)', () => {
  const decide = async (subject: string, agent_id: string, decision: 'granted' | 'revoked', permissions: string[] = []) => {
    const res = await post(
      '/internal/agent-authorization',
      { 'x-proxy-idp-secret': h.profile.secrets.proxyIdpSecret! },
      { subject, agent_id, permissions, decision },
    );
    assert.equal(res.status, 200, res.text);
  };

  test('a revoked authorization refuses the context; a new grant honours it again', async () => {
    const sub = freshSub();
    const headers = await invited(sub, READ, { agentId: 'agent_revoked' });
    assert.equal((await get('/v1/cart', headers)).status, 200);
    await decide(sub, 'agent_revoked', 'revoked');
    await expectRefused(await get('/v1/cart', headers), 'revoked');
    await expectRefused(await get('/v1/me/profile', headers), 'revoked, account route');
    // Another agent of the same account, and the same agent id for another account, are unaffected.
    assert.equal((await get('/v1/cart', await invited(sub, READ, { agentId: 'agent_other' }))).status, 200);
    assert.equal((await get('/v1/cart', await invited(freshSub(), READ, { agentId: 'agent_revoked' }))).status, 200);
    await decide(sub, 'agent_revoked', 'granted', READ);
    assert.equal((await get('/v1/cart', headers)).status, 200);
  });

  test('an ended account with a revoked authorization still answers account_access_ended', async () => {
    await decide('cust_deleted', 'agent_gone', 'revoked');
    const res = await get('/v1/cart', await invited('cust_deleted', READ, { agentId: 'agent_gone' }));
    expectProblem(res, { status: 401, error: 'account_access_ended', docsUrl: h.profile.docsUrl });
    expectChallenge(res, { scheme: 'Bearer', error: 'invalid_token' });
  });

  test('a granted record neither widens nor narrows the signed snapshot', async () => {
    const sub = freshSub();
    await decide(sub, 'agent_granted', 'granted', ['assistant:read']);
    const headers = await invited(sub, ['assistant:read', 'assistant:write'], { agentId: 'agent_granted' });
    assert.equal((await post('/v1/me/addresses', headers, newAddress)).status, 201);
    await decide(sub, 'agent_granted2', 'granted', ALL);
    await expectScope(
      await post('/v1/checkouts/saved-card', await invited(sub, READ, { agentId: 'agent_granted2' }), { payment_method_id: 'pm_x' }),
      'checkout',
    );
  });

  test('connecting the agent (/internal/assistant/agents/connected) records a grant: the context stays honoured', async () => {
    const sub = freshSub();
    const res = await post(
      '/internal/assistant/agents/connected',
      { 'x-proxy-idp-secret': h.profile.secrets.proxyIdpSecret! },
      { subject: sub, agent_id: 'agent_conn', client_id: 'agent-client', permissions: READ },
    );
    assert.equal(res.status, 201, res.text);
    assert.equal((await get('/v1/me/profile', await invited(sub, READ, { agentId: 'agent_conn' }))).status, 200);
  });
});

describe('refused contexts: 401 invalid_token in the Bearer scheme', () => {
  test('each defect of an otherwise valid context', async () => {
    const m = h.minter;
    const sub = freshSub();
    const t = now();
    const forwarder = await m.invitedAgentForwarder();
    const draft = m.draft.invitedAgentContext({ sub, agentId: 'agent_test', permissions: READ, forwarderToken: forwarder });
    const key = h.profile.secrets.webSessionContextKey;
    const ctx = (context: ContextOverrides) =>
      m.invitedAgentContext({ sub, agentId: 'agent_test', permissions: READ, forwarderToken: forwarder, ...context });
    const cases: [string, Promise<string> | string][] = [
      [
        'bound to another token (ath)',
        m.invitedAgentContext({ sub, agentId: 'agent_test', permissions: READ, forwarderToken: await m.invitedAgentForwarder() }),
      ],
      ['ath of the empty string', ctx({ claims: { ath: '47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU' } })],
      ['ath not a string', ctx({ claims: { ath: 7 } })],
      ['signed with another key', ctx({ key: 'another-web-session-context-key' })],
      ['signed with the guest session key', ctx({ key: h.profile.secrets.guestSessionKey })],
      ['typ JWT', ctx({ header: { typ: 'JWT' } })],
      ['no typ', ctx({ header: { typ: undefined } })],
      ['typ at+jwt', ctx({ header: { typ: 'at+jwt' } })],
      ['expired', ctx({ expiresIn: -30 })],
      ['issued in the future', ctx({ claims: { iat: t + 120, exp: t + 600 } })],
      ['issued over an hour ago', ctx({ claims: { iat: t - 3700, exp: t + 60 } })],
      ['nbf in the future', ctx({ claims: { nbf: t + 120 } })],
      ['alg none', unsecured(draft.payload, { ...draft.header, alg: 'none' })],
      ['alg HS512', signWith(draft.payload, { ...draft.header, alg: 'HS512' }, key)],
      ['alg HS384', signWith(draft.payload, { ...draft.header, alg: 'HS384' }, key)],
      [
        'ES256 with the issuer key',
        m.sign({ header: { ...draft.header, alg: 'ES256', kid: h.profile.signingKeys[0]!.kid }, payload: draft.payload }),
      ],
      ['crit header', ctx({ header: { crit: ['exp'] } })],
      ['no sub', ctx({ claims: { sub: undefined } })],
      ['empty sub', ctx({ claims: { sub: '' } })],
      ['machine sub', ctx({ claims: { sub: `${h.profile.clients.storefront}@clients` } })],
      ['no agent_id', ctx({ claims: { agent_id: undefined } })],
      ['agent_id with a space', ctx({ claims: { agent_id: 'agent one' } })],
      ['no permissions', ctx({ claims: { permissions: undefined } })],
      ['permissions a string', ctx({ claims: { permissions: 'assistant:read' } })],
      ['permissions with a number', ctx({ claims: { permissions: ['assistant:read', 3] } })],
      ['permissions with a space', ctx({ claims: { permissions: ['assistant:read checkout'] } })],
      ['too many permissions', ctx({ permissions: Array.from({ length: 33 }, (_, i) => `p${i}`) })],
      ['no admitted_at', ctx({ claims: { admitted_at: undefined } })],
      ['admitted_at a string', ctx({ claims: { admitted_at: String(t) } })],
      ['admitted_at after issuance', ctx({ admittedAt: t + 120 })],
      ['no iat', ctx({ claims: { iat: undefined } })],
      ['no exp', ctx({ claims: { exp: undefined } })],
      ['no jti', ctx({ claims: { jti: undefined } })],
      ['no ath', ctx({ claims: { ath: undefined } })],
      ['the forwarder token itself', forwarder],
      ['garbage', 'not-a-jwt'],
      ['two contexts in one value', `${await ctx({})}, ${await ctx({})}`],
    ];
    for (const [what, context] of cases) {
      await expectRefused(await get('/v1/cart', { authorization: `Bearer ${forwarder}`, 'invited-agent-context': await context }), what);
    }
  });

  test('an empty Invited-Agent-Context header', async () => {
    const forwarder = await h.minter.invitedAgentForwarder();
    await expectRefused(await get('/v1/cart', { authorization: `Bearer ${forwarder}`, 'invited-agent-context': '' }), 'empty');
  });

  test('two Invited-Agent-Context header lines', async () => {
    const headers = await invited(freshSub(), READ);
    const context = headers['invited-agent-context']!;
    const res = await new Promise<{ status: number; headers: Headers; body: any; text: string }>((resolve, reject) => {
      const req = httpRequest(`${h.url}/v1/cart`, { method: 'GET' }, (r) => {
        let text = '';
        r.setEncoding('utf8');
        r.on('data', (c: string) => (text += c));
        r.on('end', () => {
          const hs = new Headers();
          for (const [k, v] of Object.entries(r.headers)) if (v !== undefined) hs.set(k, Array.isArray(v) ? v.join(', ') : v);
          resolve({ status: r.statusCode ?? 0, headers: hs, body: text ? JSON.parse(text) : undefined, text });
        });
      });
      req.on('error', reject);
      req.setHeader('authorization', headers.authorization!);
      req.setHeader('invited-agent-context', [context, context]);
      req.end();
    });
    await expectRefused(res, 'two header lines');
  });

  test('the forwarder token itself must be valid', async () => {
    const forwarder = await h.minter.invitedAgentForwarder({ expiresIn: -5 });
    await expectRefused(await get('/v1/cart', await invited(freshSub(), READ, { forwarder })), 'expired forwarder');
  });

  test('the forwarder token is presented with the Bearer scheme, not DPoP', async () => {
    const headers = await invited(freshSub(), READ);
    const res = await get('/v1/cart', { ...headers, authorization: headers.authorization!.replace(/^Bearer/, 'DPoP') });
    expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: h.profile.docsUrl });
    expectChallenge(res, { scheme: 'DPoP', error: 'invalid_token' });
  });
});

describe('contexts only with the web-agent-forwarder token; the context key never makes a customer', () => {
  test('with the mcp-agent-forwarder token: 401', async () => {
    const forwarder = await h.minter.mcpAgentForwarder();
    await expectRefused(await get('/v1/cart', await invited(freshSub(), READ, { forwarder })), 'mcp forwarder');
  });

  test('with another machine client carrying agent:forward: refused', async () => {
    for (const client of [h.profile.clients.backoffice, 'stranger']) {
      const forwarder = await h.minter.machine(client, { scope: 'agent:forward' });
      const res = await get('/v1/me/profile', await invited(freshSub(), READ, { forwarder }));
      assert.ok([400, 401, 403].includes(res.status), `${client}: ${res.status} ${res.text}`);
    }
  });

  test('with the storefront (guest) token: the context grants nothing', async () => {
    const sub = freshSub();
    const headers = await invited(sub, ALL, { forwarder: await h.minter.guest() });
    const me = await get('/v1/me', headers);
    // Either refused outright, or the request is an ordinary guest's: never the account's agent.
    if (me.status === 200) assert.deepEqual([me.body.caller_kind, me.body.account], ['guest', null]);
    else assert.ok([400, 401].includes(me.status), me.text);
    const profile = await get('/v1/me/profile', headers);
    assert.ok([400, 401, 403].includes(profile.status), profile.text);
    if (profile.status === 403) assert.equal(profile.body.error, 'caller_not_allowed');
  });

  test('with a customer token: the customer stays itself, the context adds nothing', async () => {
    const context = (await invited('cust_ben', ALL))['invited-agent-context']!;
    const customer = await h.minter.customer({ sub: 'cust_ada' });
    const res = await get('/v1/me', { ...bearer(customer), 'invited-agent-context': context });
    if (res.status === 200) assert.deepEqual([res.body.caller_kind, res.body.account.sub], ['customer', 'cust_ada']);
    else assert.ok([400, 401].includes(res.status), res.text);
  });

  test('a context presented alone as the bearer token: 401', async () => {
    const context = (await invited('cust_ada', ALL))['invited-agent-context']!;
    for (const path of ['/v1/me', '/v1/cart', '/v1/me/profile'])
      await expectRefused(await get(path, bearer(context)), `context as bearer ${path}`);
    await expectRefused(
      await get('/v1/me/profile', { ...bearer(context), 'invited-agent-context': context }),
      'context as bearer and as context',
    );
  });

  test('an access token HMAC-signed with WEB_SESSION_CONTEXT_KEY is no customer token', async () => {
    const d = h.minter.draft.customer({ sub: 'cust_ada' });
    const key = h.profile.secrets.webSessionContextKey;
    await expectRefused(
      await get('/v1/me/profile', bearer(await signWith(d.payload, { ...d.header, alg: 'HS256' }, key))),
      'HS256 customer',
    );
    await expectRefused(
      await get('/v1/me/profile', bearer(await signWith(d.payload, { alg: 'HS256', typ: 'invited-agent+jwt' }, key))),
      'context typ customer',
    );
  });

  test('a website user token carrying act (an invited-agent login) is never a customer', async () => {
    const m = h.minter;
    for (const act of [{ sub: 'agent_test' }, { sub: h.profile.clients.webAgentForwarder }, { sub: h.profile.clients.website }]) {
      const token = await m.customer({ sub: 'cust_ada', claims: { act } });
      await expectRefused(await get('/v1/me', bearer(token)), `act ${act.sub}`);
      const context = await m.invitedAgentContext({ sub: 'cust_ada', agentId: 'agent_test', permissions: ALL, forwarderToken: token });
      await expectRefused(
        await get('/v1/me/profile', { ...bearer(token), 'invited-agent-context': context }),
        `act ${act.sub} with a context`,
      );
    }
  });

  test('forwarder with both artifacts (context and Assistant-Subject): 401', async () => {
    const headers = await invited(freshSub(), READ);
    await expectRefused(await get('/v1/cart', { ...headers, 'assistant-subject': headers['invited-agent-context']! }), 'two artifacts');
  });
});
