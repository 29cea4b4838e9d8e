// Token verification, caller classification, account lifecycle and the key-set outage, over HTTP.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';
import { bearer, startReference, type Harness } from '../helpers/reference.js';
import { createForeignKey, publicJwks, publicKeyAsSecret, signWith, unsecured } from '../../conformance/lib/mint.js';
import { createDpopKey } from '../../conformance/lib/dpop.js';
import { expectChallenge, expectProblem } from '../../conformance/lib/assert.js';

let h: Harness;
before(async () => (h = await startReference()));
after(() => h.close());

const me = (headers: Record<string, string>) => h.call('/v1/me', { headers });
const rejected = async (token: string, d: string, scheme = 'Bearer') => {
  const res = await me(bearer(token));
  expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: h.profile.docsUrl });
  expectChallenge(res, { scheme, error: 'invalid_token' });
  assert.equal(res.headers.get('www-authenticate')?.split(',').length, scheme === 'DPoP' ? 2 : 1, `${d}: one challenge`);
};

describe('token verification', () => {
  test('no token: 401 with a Bearer and a DPoP challenge', async () => {
    const res = await me({});
    expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: h.profile.docsUrl });
    assert.equal(res.headers.get('www-authenticate'), 'Bearer error="invalid_token", DPoP error="invalid_token", algs="ES256"');
  });

  test('each defect of an otherwise valid customer token is refused with 401 invalid_token', async () => {
    const m = h.minter;
    const sub = 'cust_ada';
    const foreign = await createForeignKey();
    const good = m.draft.customer({ sub });
    const cases: [string, Promise<string>][] = [
      ['expired', m.customer({ sub, expiresIn: -5 })],
      ['wrong issuer', m.customer({ sub, claims: { iss: 'https://evil.test/' } })],
      ['wrong audience', m.customer({ sub, claims: { aud: 'https://other.test' } })],
      ['typ JWT', m.customer({ sub, header: { typ: 'JWT' } })],
      ['no typ', m.customer({ sub, header: { typ: undefined } })],
      ['typ dpop+jwt', m.customer({ sub, header: { typ: 'dpop+jwt' } })],
      ['nbf in the future', m.customer({ sub, claims: { nbf: Math.floor(Date.now() / 1000) + 600 } })],
      ['no exp', m.customer({ sub, claims: { exp: undefined } })],
      ['no iat', m.customer({ sub, claims: { iat: undefined } })],
      [
        'iat ten years ahead',
        m.customer({
          sub,
          claims: {
            iat: Math.floor(h.clock.now().getTime() / 1000) + 10 * 365 * 86400,
            exp: Math.floor(h.clock.now().getTime() / 1000) + 10 * 365 * 86400 + 300,
          },
        }),
      ],
      ['iat two minutes ahead', m.customer({ sub, claims: { iat: Math.floor(h.clock.now().getTime() / 1000) + 120 } })],
      ['iat not a number', m.customer({ sub, claims: { iat: 'yesterday' } })],
      ['no client_id', m.customer({ sub, claims: { client_id: undefined } })],
      ['numeric client_id', m.customer({ sub, claims: { client_id: 7 } })],
      ['scope not a string', m.customer({ sub, claims: { scope: ['cart:read'] } })],
      ['unknown kid', m.customer({ sub, header: { kid: 'no-such-key' } })],
      // RFC 7797 §6: b64 is understood only when crit names it; a token that sets it otherwise is refused.
      ['b64 false without crit', m.customer({ sub, header: { b64: false } })],
      ['b64 true without crit', m.customer({ sub, header: { b64: true } })],
      ['alg none', Promise.resolve(unsecured(good.payload, { ...good.header, alg: 'none' }))],
      ['HS256 keyed with the public key', signWith(good.payload, { ...good.header, alg: 'HS256' }, publicKeyAsSecret(h.profile))],
      ['signed by a foreign key under our kid', signWith(good.payload, good.header, foreign.privateKey)],
      ['unknown client', m.machine('stranger')],
    ];
    for (const [d, token] of cases) await rejected(await token, d);
  });

  test('an iat up to a minute ahead (clock skew) is accepted', async () => {
    const res = await me(
      bearer(await h.minter.customer({ sub: 'cust_ada', claims: { iat: Math.floor(h.clock.now().getTime() / 1000) + 50 } })),
    );
    assert.equal(res.status, 200, res.text);
  });

  test('typ application/at+jwt is accepted', async () => {
    const res = await me(bearer(await h.minter.customer({ sub: 'cust_ada', header: { typ: 'application/at+jwt' } })));
    assert.equal(res.status, 200, res.text);
  });

  test('malformed Authorization values', async () => {
    for (const v of ['Bearer', 'Bearer abc', 'Bearer a.b.c', 'Bearer a.b', 'Basic dXNlcjpwYXNz', 'Bearer  ' + 'x'.repeat(9000)]) {
      const res = await me({ authorization: v });
      expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: h.profile.docsUrl });
      expectChallenge(res, { scheme: 'Bearer', error: 'invalid_token' });
    }
  });

  test('the token is read from Authorization only (not from the query or a cookie)', async () => {
    const token = await h.minter.customer({ sub: 'cust_ada' });
    for (const res of [await h.call(`/v1/me?access_token=${token}`), await me({ cookie: `access_token=${token}` })]) {
      expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: h.profile.docsUrl });
    }
  });

  test('a DPoP-bound token sent as Bearer is refused in the DPoP scheme', async () => {
    const key = await createDpopKey();
    await rejected(await h.minter.assistant({ sub: 'cust_ada', jkt: key.thumbprint, sid: 'sess1' }), 'downgrade', 'DPoP');
    await rejected(
      await h.minter.customer({ sub: 'cust_ada', claims: { cnf: { jkt: key.thumbprint } } }),
      'cnf on customer: refused, in the Bearer scheme',
      'Bearer',
    );
  });
});

describe('caller classification (GET /v1/me)', () => {
  test('customer, delegated (both channels), guest and operator', async () => {
    const m = h.minter;
    const c = await me(bearer(await m.customer({ sub: 'cust_ada' })));
    assert.equal(c.status, 200, c.text);
    assert.deepEqual([c.body.caller_kind, c.body.channel, c.body.account.sub], ['customer', 'web', 'cust_ada']);
    const d = await me(bearer(await m.delegated({ sub: 'cust_ben', channel: 'mcp', actChain: ['claude'] })));
    assert.deepEqual(
      [d.body.caller_kind, d.body.channel, d.body.origin, d.body.actor_chain],
      ['delegated', 'mcp', 'oauth', [h.profile.clients.agentProtocol, 'claude']],
    );
    const d2 = await me(bearer(await m.delegated({ sub: 'cust_ben', channel: 'openapi' })));
    assert.equal(d2.body.channel, 'openapi');
    const g = await me(bearer(await m.guest()));
    assert.deepEqual([g.body.caller_kind, g.body.account], ['guest', null]);
    const o = await me({ ...bearer(await m.operator()), operator: 'ops@shop.test' });
    assert.deepEqual([o.body.caller_kind, o.body.operator], ['operator', 'ops@shop.test']);
  });

  test('operator token without the Operator attribution header (or with an empty one) matches no caller kind: 403 caller_not_allowed', async () => {
    for (const extra of [{}, { operator: '' }] as Record<string, string>[]) {
      const res = await me({ ...bearer(await h.minter.operator()), ...extra });
      expectProblem(res, { status: 403, error: 'caller_not_allowed', docsUrl: h.profile.docsUrl });
      assert.equal(res.headers.get('www-authenticate'), null);
    }
  });

  test('refused combinations (spec, Token verification 3-4)', async () => {
    const m = h.minter;
    const c = h.profile.clients;
    await rejected(await m.customer({ sub: 'cust_ada', claims: { act: { sub: c.agentProtocol } } }), 'website token with act');
    await rejected(await m.delegated({ sub: 'cust_ada', claims: { act: { sub: 'someone-else' } } }), 'outermost actor');
    await rejected(await m.delegated({ sub: 'cust_ada', claims: { act: undefined } }), 'delegated without act');
    await rejected(await m.machine(c.storefront, { claims: { sub: 'cust_ada' } }), 'user sub on the storefront client');
    await rejected(await m.invitedAgentForwarder(), 'forwarder without artifact');
    for (const client of [c.website, c.agentProtocol, c.personalAgentProxy]) {
      const res = await me(bearer(await m.machine(client)));
      expectProblem(res, { status: 403, error: 'caller_not_allowed', docsUrl: h.profile.docsUrl });
      assert.equal(res.headers.get('www-authenticate'), null);
    }
  });

  test('unknown subjects are provisioned as active accounts', async () => {
    const res = await me(bearer(await h.minter.customer({ sub: `cust_new_${Date.now()}`, claims: { name: 'Nia' } })));
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.body.account.state, res.body.account.display_name], ['active', 'Nia']);
  });

  test('ended accounts: 401 account_access_ended with the invalid_token challenge, for customers and delegated callers', async () => {
    for (const sub of ['cust_deleting', 'cust_deleted', 'cust_transition']) {
      for (const token of [await h.minter.customer({ sub }), await h.minter.delegated({ sub, channel: 'openapi' })]) {
        for (const path of ['/v1/me', '/v1/cart', '/v1/catalog/collections']) {
          const res = await h.call(path, { headers: bearer(token) });
          expectProblem(res, { status: 401, error: 'account_access_ended', docsUrl: h.profile.docsUrl });
          expectChallenge(res, { scheme: 'Bearer', error: 'invalid_token' });
        }
      }
    }
  });
});

describe('guard', () => {
  test('caller_not_allowed and insufficient_scope', async () => {
    const op = { ...bearer(await h.minter.operator()), operator: 'ops@shop.test' };
    expectProblem(await h.call('/v1/catalog/products', { headers: op }), {
      status: 403,
      error: 'caller_not_allowed',
      docsUrl: h.profile.docsUrl,
    });
    const narrow = await h.minter.customer({ sub: 'cust_ada', scope: 'cart:read' });
    const res = await h.call('/v1/catalog/products', { headers: bearer(narrow) });
    const p = expectProblem(res, { status: 403, error: 'insufficient_scope', docsUrl: h.profile.docsUrl, scope: 'catalog:read' });
    assert.equal(p.scope, 'catalog:read');
    assert.equal(res.headers.get('www-authenticate'), null);
  });
});

describe('key set from a URL', () => {
  const JWKS_URL = 'https://idp.shop.test/.well-known/jwks.json';
  let mode: 'ok' | 'error' | 'down' = 'ok';
  let fetches = 0;
  const remote = setupServer(
    http.get(JWKS_URL, () => {
      fetches += 1;
      if (mode === 'error') return new HttpResponse('oops', { status: 500 });
      if (mode === 'down') return HttpResponse.error();
      return HttpResponse.json(publicJwks(h.profile));
    }),
  );
  before(() => remote.listen({ onUnhandledRequest: 'bypass' }));
  after(() => remote.close());

  test('fetched once and cached; verification works', async () => {
    mode = 'ok';
    fetches = 0;
    const r = await startReference({ overrides: { jwksUri: JWKS_URL } });
    try {
      for (let i = 0; i < 3; i++)
        assert.equal((await r.call('/v1/me', { headers: bearer(await r.minter.customer({ sub: 'cust_ada' })) })).status, 200);
      assert.equal(fetches, 1);
    } finally {
      await r.close();
    }
  });

  for (const m of ['error', 'down'] as const) {
    test(`a key set that cannot be fetched (${m}): 503 unavailable with Retry-After: 5`, async () => {
      mode = m;
      const r = await startReference({ overrides: { jwksUri: JWKS_URL } });
      try {
        const res = await r.call('/v1/me', { headers: bearer(await r.minter.customer({ sub: 'cust_ada' })) });
        expectProblem(res, { status: 503, error: 'unavailable', docsUrl: r.profile.docsUrl });
        assert.equal(res.headers.get('retry-after'), '5');
        assert.equal(res.headers.get('cache-control'), 'no-store');
      } finally {
        await r.close();
      }
    });
  }
});
