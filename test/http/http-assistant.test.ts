// Assistants over HTTP (spec, Caller kinds: assistant; Credentials per consumer; Challenge scheme; Assistant authority;
// Errors: the DPoP rows; Limits: assistant budgets). docs/assistants.md describes the rules tested here.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SignJWT } from 'jose';
import { startReference, type Harness } from '../helpers/reference.js';
import { createDpopKey, dpopProof, type DpopKey, type DpopProofOptions } from '../../conformance/lib/dpop.js';
import { expectChallenge, expectProblem } from '../../conformance/lib/assert.js';
import { ASSISTANT_BROWSER_SESSION_HEADER, signBrowserSession } from '../../reference/src/admission/assistant.js';

type Res = Awaited<ReturnType<Harness['call']>>;
type Hdrs = Record<string, string>;

const READ = ['assistant:read'];
const ALL = ['assistant:read', 'assistant:write', 'checkout'];
const newAddress = { name: 'Assistant Shopper', line1: '1 Test Street', city: 'Denver', postal_code: '80202', country: 'US' };
const freshSub = () => `cust_asst_${randomUUID()}`;
const freshSid = () => `sess_${randomUUID()}`;

/** Everything one assistant holds: its DPoP key and its token. */
interface Assistant {
  key: DpopKey;
  token: string;
  sid: string;
}

/** A reference plus the client side of an assistant: session set-up, tokens, proofs with the current server nonce. */
function client(h: Harness) {
  const proxy = { 'x-proxy-idp-secret': h.profile.secrets.proxyIdpSecret! };
  let nonce: string | undefined;
  const remember = (res: Res) => {
    const n = res.headers.get('dpop-nonce');
    if (n) nonce = n;
    return res;
  };
  const epoch = () => Math.floor(h.clock.now().getTime() / 1000);

  const c = {
    /** A session signed in to `subject` for an agent with `permissions` (what the proxy reports when an agent is connected). */
    async signedIn(subject: string, permissions: readonly string[], o: { agentId?: string; clientId?: string } = {}): Promise<string> {
      const sid = freshSid();
      const res = await h.call('/internal/assistant/agents/connected', {
        method: 'POST',
        headers: proxy,
        json: { subject, agent_id: o.agentId ?? 'agent_asst', client_id: o.clientId ?? 'agent-client', permissions, session_id: sid },
      });
      assert.ok(res.status === 201 || res.status === 200, res.text);
      return sid;
    },
    async signedOut(scopes: readonly string[] = [], o: { sid?: string; clientId?: string } = {}): Promise<string> {
      const sid = o.sid ?? freshSid();
      const res = await h.call('/internal/assistant/sessions/signed-out', {
        method: 'POST',
        headers: proxy,
        json: { session_id: sid, client_id: o.clientId ?? 'agent-client', scopes },
      });
      assert.ok(res.status === 201 || res.status === 200, res.text);
      return sid;
    },
    async authorize(
      subject: string,
      permissions: readonly string[],
      decision: 'granted' | 'revoked',
      agentId = 'agent_asst',
    ): Promise<void> {
      const res = await h.call('/internal/agent-authorization', {
        method: 'POST',
        headers: proxy,
        json: { subject, agent_id: agentId, permissions, decision },
      });
      assert.equal(res.status, 200, res.text);
    },
    /** A signed-in assistant token (personal_agent exchange) bound to a fresh key. */
    async assistant(
      sub: string,
      sid: string,
      o: { scope?: string | readonly string[]; expiresIn?: number; claims?: Record<string, unknown> } = {},
    ): Promise<Assistant> {
      const key = await createDpopKey();
      return { key, sid, token: await h.minter.assistant({ sub, sid, jkt: key.thumbprint, ...o }) };
    },
    /** A signed-out proxy token (docs/assistants.md): HS256 with PROXY_IDP_SECRET, typ signed-out-proxy+jwt. */
    async signedOutToken(
      sid: string,
      o: {
        scope?: string;
        claims?: Record<string, unknown>;
        header?: Record<string, unknown>;
        secret?: string;
        expiresIn?: number;
        issuerKey?: boolean;
      } = {},
    ): Promise<Assistant> {
      const key = await createDpopKey();
      const proxyClient = h.profile.clients.personalAgentProxy;
      const iat = epoch();
      const claims: Record<string, unknown> = {
        aud: h.profile.audiences.api,
        client_id: proxyClient,
        sub: `${proxyClient}@clients`,
        sid,
        cnf: { jkt: key.thumbprint },
        scope: o.scope ?? '',
        iat,
        exp: iat + (o.expiresIn ?? 300),
        jti: randomUUID(),
        ...o.claims,
      };
      for (const [k, v] of Object.entries(claims)) if (v === undefined) delete claims[k];
      if (o.issuerKey) {
        // Signed like an access token, by the issuer's key: not how signed-out proxy tokens are verified.
        const kid = h.profile.signingKeys[0]!.kid;
        return {
          key,
          sid,
          token: await h.minter.sign({ header: { alg: 'ES256', typ: 'signed-out-proxy+jwt', kid, ...o.header }, payload: claims }),
        };
      }
      const token = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', typ: 'signed-out-proxy+jwt', ...o.header })
        .sign(new TextEncoder().encode(o.secret ?? h.profile.secrets.proxyIdpSecret!));
      return { key, sid, token };
    },
    /** The current server nonce (from the last response that carried one, else from a throwaway DPoP request). */
    async nonce(): Promise<string> {
      if (nonce === undefined) remember(await h.call('/v1/cart', { headers: { authorization: 'DPoP x.y.z' } }));
      return nonce!;
    },
    async proof(a: Assistant, method: string, path: string, o: Partial<DpopProofOptions> = {}): Promise<string> {
      return dpopProof({
        key: a.key,
        htm: method,
        htu: h.url + path.split('?')[0],
        accessToken: a.token,
        nonce: await c.nonce(),
        now: h.clock.now,
        ...o,
      });
    },
    /** One request as a correct assistant sends it; `proof` overrides proof options, `dpop` replaces the DPoP header(s). */
    async send(
      a: Assistant,
      path: string,
      o: { method?: string; json?: unknown; proof?: Partial<DpopProofOptions>; dpop?: string | string[] | null; headers?: Hdrs } = {},
    ): Promise<Res> {
      const method = o.method ?? 'GET';
      const headers = new Headers({ authorization: `DPoP ${a.token}`, ...o.headers });
      const dpop = o.dpop === undefined ? await c.proof(a, method, path, o.proof) : o.dpop;
      if (typeof dpop === 'string') headers.set('dpop', dpop);
      else if (Array.isArray(dpop)) for (const d of dpop) headers.append('dpop', d); // fetch joins them with ", "
      return remember(await h.call(path, { method, headers, json: o.json }));
    },
    remember,
  };
  return c;
}

/** 401 with exactly one challenge, `DPoP error="<code>", algs="ES256"`, and a DPoP-Nonce. */
function expectDpopRefusal(h: Harness, res: Res, error: 'invalid_dpop_proof' | 'use_dpop_nonce' | 'invalid_token', what = ''): void {
  try {
    expectProblem(res, { status: 401, error, docsUrl: h.profile.docsUrl });
    assert.equal(res.headers.get('www-authenticate'), `DPoP error="${error}", algs="ES256"`);
    assert.match(res.headers.get('dpop-nonce') ?? '', /^[A-Za-z0-9_-]{43}$/, 'a DPoP-Nonce');
  } catch (err) {
    throw new Error(`${what}: ${(err as Error).message}\n${res.text}`, { cause: err });
  }
}

function expectSignInRequired(h: Harness, res: Res, scheme: 'DPoP' | 'Bearer' = 'DPoP'): void {
  expectProblem(res, { status: 403, error: 'sign_in_required', docsUrl: h.profile.docsUrl });
  assert.equal(
    res.headers.get('www-authenticate'),
    scheme === 'DPoP' ? 'DPoP error="sign_in_required", algs="ES256"' : 'Bearer error="sign_in_required"',
  );
}

function expectScope(h: Harness, res: Res, scope: string): void {
  expectProblem(res, { status: 403, error: 'insufficient_scope', docsUrl: h.profile.docsUrl, scope });
  assert.equal(res.body.scope, scope);
}

let h: Harness;
let c: ReturnType<typeof client>;
before(async () => {
  h = await startReference();
  c = client(h);
});
after(() => h.close());

describe('a correct assistant request', () => {
  test('a signed-in assistant reads its account with a proof carrying the server nonce; every response has a DPoP-Nonce', async () => {
    const sub = freshSub();
    const a = await c.assistant(sub, await c.signedIn(sub, READ));
    const me = await c.send(a, '/v1/me');
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.caller_kind, 'assistant');
    assert.equal(me.body.origin, 'assistant');
    assert.equal(me.body.account.sub, sub);
    // The effective scopes: the session's live scopes (read only) narrow the token's permissions (all of them).
    assert.deepEqual(me.body.permissions, ['assistant:read']);
    assert.match(me.headers.get('dpop-nonce') ?? '', /^[A-Za-z0-9_-]{43}$/);
    const addresses = await c.send(a, '/v1/me/addresses');
    assert.equal(addresses.status, 200, addresses.text);
    assert.ok(addresses.headers.get('dpop-nonce'));
    const cart = await c.send(a, '/v1/cart?x=1', { proof: { htu: `${h.url}/v1/cart?x=1#frag` } });
    assert.equal(cart.status, 200, 'htu with query and fragment: ' + cart.text);
  });

  test("a write: assistant:write lets the assistant add an address; the cart is the account's", async () => {
    const sub = freshSub();
    const a = await c.assistant(sub, await c.signedIn(sub, ALL));
    const created = await c.send(a, '/v1/me/addresses', { method: 'POST', json: newAddress });
    assert.equal(created.status, 201, created.text);
    const added = await c.send(a, '/v1/cart/items', { method: 'POST', json: { variant_id: 'var_0101', quantity: 1 } });
    assert.ok(added.status === 200 || added.status === 201, added.text);
    // The account's cart, as a second assistant of the same account sees it.
    const b = await c.assistant(sub, a.sid);
    const cart = await c.send(b, '/v1/cart');
    assert.equal(cart.status, 200);
    assert.ok(JSON.stringify(cart.body).includes('var_0101'));
  });

  test('the nonce dance: without a nonce 401 use_dpop_nonce with one challenge and a fresh DPoP-Nonce; with it, 200', async () => {
    const sub = freshSub();
    const a = await c.assistant(sub, await c.signedIn(sub, READ));
    const first = await c.send(a, '/v1/me', { proof: { nonce: undefined } });
    expectDpopRefusal(h, first, 'use_dpop_nonce', 'no nonce');
    const nonce = first.headers.get('dpop-nonce')!;
    const second = await c.send(a, '/v1/me', { proof: { nonce } });
    assert.equal(second.status, 200, second.text);
  });

  test('a nonce stays good for the next slot, then is refused with use_dpop_nonce', async () => {
    const sub = freshSub();
    const a = await c.assistant(sub, await c.signedIn(sub, READ), { expiresIn: 3600 });
    const nonce = await c.nonce();
    h.clock.advance(h.config.dpopNonceLifetimeSeconds * 1000);
    assert.equal((await c.send(a, '/v1/me', { proof: { nonce } })).status, 200);
    h.clock.advance(h.config.dpopNonceLifetimeSeconds * 1000);
    const res = await c.send(a, '/v1/me', { proof: { nonce } });
    expectDpopRefusal(h, res, 'use_dpop_nonce', 'a nonce two slots old');
    assert.notEqual(res.headers.get('dpop-nonce'), nonce);
  });
});

describe('proof and token failures: 401, exactly one DPoP challenge, a DPoP-Nonce', () => {
  test('every proof defect is invalid_dpop_proof', async () => {
    const sub = freshSub();
    const sid = await c.signedIn(sub, READ);
    const a = await c.assistant(sub, sid);
    const other = await createDpopKey();
    const now = Math.floor(h.clock.now().getTime() / 1000);
    const cases: [string, () => Promise<Res>][] = [
      ['no DPoP header', () => c.send(a, '/v1/me', { dpop: null })],
      [
        'two DPoP headers',
        async () => c.send(a, '/v1/me', { dpop: [await c.proof(a, 'GET', '/v1/me'), await c.proof(a, 'GET', '/v1/me')] }),
      ],
      [
        'a comma-joined DPoP header',
        async () => c.send(a, '/v1/me', { dpop: `${await c.proof(a, 'GET', '/v1/me')}, ${await c.proof(a, 'GET', '/v1/me')}` }),
      ],
      ['a garbage proof', () => c.send(a, '/v1/me', { dpop: 'not-a-proof' })],
      ['htm of another method', () => c.send(a, '/v1/me', { proof: { htm: 'POST' } })],
      ['htu of another path', () => c.send(a, '/v1/me', { proof: { htu: `${h.url}/v1/cart` } })],
      ['htu with a trailing slash', () => c.send(a, '/v1/me', { proof: { htu: `${h.url}/v1/me/` } })],
      ['htu of another host', () => c.send(a, '/v1/me', { proof: { htu: 'https://evil.test/v1/me' } })],
      ['ath of another token', () => c.send(a, '/v1/me', { proof: { accessToken: 'another.token.here' } })],
      ['no ath', () => c.send(a, '/v1/me', { proof: { accessToken: undefined } })],
      ['a key other than cnf.jkt', () => c.send(a, '/v1/me', { proof: { key: other } })],
      ['signed by another key than its jwk', () => c.send(a, '/v1/me', { proof: { signingKey: other } })],
      ['the private key in jwk', () => c.send(a, '/v1/me', { proof: { exposePrivateKey: true } })],
      ['typ JWT', () => c.send(a, '/v1/me', { proof: { header: { typ: 'JWT' } } })],
      ['alg RS256', () => c.send(a, '/v1/me', { proof: { header: { alg: 'RS256' } } })],
      ['alg HS256', () => c.send(a, '/v1/me', { proof: { header: { alg: 'HS256' }, signingKey: 'a-shared-secret-of-some-length' } })],
      ['crit', () => c.send(a, '/v1/me', { proof: { header: { crit: ['exp'] } } })],
      ['no jti', () => c.send(a, '/v1/me', { proof: { claims: { jti: undefined } } })],
      ['a stale iat', () => c.send(a, '/v1/me', { proof: { iat: now - h.config.dpopIatWindowSeconds - 5 } })],
      ['an iat in the future', () => c.send(a, '/v1/me', { proof: { iat: now + h.config.dpopIatWindowSeconds + 5 } })],
    ];
    for (const [what, send] of cases) expectDpopRefusal(h, await send(), 'invalid_dpop_proof', what);
    // After all the negatives, a correct proof still passes (none of them was recorded).
    assert.equal((await c.send(a, '/v1/me')).status, 200);
  });

  test('a replayed proof is refused; a fresh one passes (each stage runs once: a proof is not its own replay)', async () => {
    const sub = freshSub();
    const a = await c.assistant(sub, await c.signedIn(sub, READ));
    const proof = await c.proof(a, 'GET', '/v1/me');
    assert.equal((await c.send(a, '/v1/me', { dpop: proof })).status, 200);
    expectDpopRefusal(h, await c.send(a, '/v1/me', { dpop: proof }), 'invalid_dpop_proof', 'replay');
    assert.equal((await c.send(a, '/v1/me')).status, 200);
  });

  test('of concurrent uses of one proof, exactly one succeeds', async () => {
    const sub = freshSub();
    const a = await c.assistant(sub, await c.signedIn(sub, READ));
    const proof = await c.proof(a, 'GET', '/v1/cart');
    const results = await Promise.all(Array.from({ length: 12 }, () => c.send(a, '/v1/cart', { dpop: proof })));
    assert.deepEqual(results.map((r) => r.status).sort(), [200, ...Array(11).fill(401)]);
    for (const r of results.filter((x) => x.status === 401)) expectDpopRefusal(h, r, 'invalid_dpop_proof', 'concurrent replay');
  });

  test('a token without cnf.jkt under the DPoP scheme is invalid_token (customer token, assistant token without binding)', async () => {
    const sub = freshSub();
    const customer = await h.minter.customer({ sub });
    const res = await h.call('/v1/cart', { headers: { authorization: `DPoP ${customer}`, dpop: 'x' } });
    expectDpopRefusal(h, res, 'invalid_token', 'customer token under DPoP');
    const a = await c.assistant(sub, await c.signedIn(sub, READ), { claims: { cnf: undefined } });
    expectDpopRefusal(h, await c.send(a, '/v1/me'), 'invalid_token', 'unbound assistant token');
  });

  test('an expired, badly signed or garbage token under DPoP is invalid_token with a DPoP-Nonce', async () => {
    const sub = freshSub();
    const sid = await c.signedIn(sub, READ);
    const expired = await c.assistant(sub, sid, { expiresIn: -10 });
    expectDpopRefusal(h, await c.send(expired, '/v1/me'), 'invalid_token', 'expired');
    expectDpopRefusal(h, await h.call('/v1/me', { headers: { authorization: 'DPoP abc.def.ghi' } }), 'invalid_token', 'garbage');
  });

  test('an assistant token sent as Bearer: 401 invalid_token, DPoP challenge only (with or without cnf)', async () => {
    const sub = freshSub();
    const sid = await c.signedIn(sub, READ);
    for (const a of [await c.assistant(sub, sid), await c.assistant(sub, sid, { claims: { cnf: undefined } })]) {
      const res = await h.call('/v1/me', { headers: { authorization: `Bearer ${a.token}`, dpop: await c.proof(a, 'GET', '/v1/me') } });
      expectDpopRefusal(h, res, 'invalid_token', 'as Bearer');
    }
    const signedOut = await c.signedOutToken(await c.signedOut());
    expectDpopRefusal(
      h,
      await h.call('/v1/cart', { headers: { authorization: `Bearer ${signedOut.token}` } }),
      'invalid_token',
      'signed-out token as Bearer',
    );
  });

  test('the token is read from Authorization only: not from the query, a cookie or another header', async () => {
    const sub = freshSub();
    const a = await c.assistant(sub, await c.signedIn(sub, READ));
    const elsewhere: Hdrs[] = [
      { cookie: `access_token=${a.token}`, dpop: await c.proof(a, 'GET', '/v1/me') },
      { 'x-access-token': a.token },
    ];
    for (const headers of elsewhere) {
      const res = await h.call('/v1/me', { headers });
      expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: h.profile.docsUrl });
    }
    const query = await h.call(`/v1/me?access_token=${a.token}`);
    expectProblem(query, { status: 401, error: 'invalid_token', docsUrl: h.profile.docsUrl });
  });

  test('an unknown assistant session is invalid_token', async () => {
    const a = await c.assistant(freshSub(), freshSid());
    expectDpopRefusal(h, await c.send(a, '/v1/me'), 'invalid_token', 'unknown session');
  });

  test('a direct assistant may not carry a forwarder artifact: 400 invalid_request', async () => {
    const sub = freshSub();
    const a = await c.assistant(sub, await c.signedIn(sub, READ));
    for (const name of ['assistant-subject', ASSISTANT_BROWSER_SESSION_HEADER]) {
      const res = await c.send(a, '/v1/me', { headers: { [name]: 'x' } });
      expectProblem(res, { status: 400, error: 'invalid_request', docsUrl: h.profile.docsUrl });
      assert.ok(res.headers.get('dpop-nonce'));
    }
  });
});

describe('authority: token permissions ∩ live session scopes', () => {
  test('insufficient_scope names the account scope (assistant:write, assistant:read, checkout), never an API scope', async () => {
    const sub = freshSub();
    const a = await c.assistant(sub, await c.signedIn(sub, READ));
    expectScope(h, await c.send(a, '/v1/me/addresses', { method: 'POST', json: newAddress }), 'assistant:write');
    expectScope(h, await c.send(a, '/v1/checkouts/saved-card', { method: 'POST', json: {} }), 'checkout');
    // The session grants assistant:read but the token lacks orders:read: assistant:read is not held.
    const narrow = await c.assistant(sub, a.sid, {
      scope: ['catalog:read', 'cart:read', 'cart:write', 'account:read', 'payment_methods:read'],
    });
    const res = await c.send(narrow, '/v1/me/orders');
    expectScope(h, res, 'assistant:read');
    assert.equal(res.headers.get('www-authenticate'), null);
  });

  test('narrowing the live scopes narrows the assistant at once; revoking signs it out', async () => {
    const sub = freshSub();
    const a = await c.assistant(sub, await c.signedIn(sub, ALL));
    assert.equal((await c.send(a, '/v1/me/orders')).status, 200);
    await c.authorize(sub, ['checkout'], 'granted');
    expectScope(h, await c.send(a, '/v1/me/orders'), 'assistant:read');
    await c.authorize(sub, [], 'revoked');
    expectSignInRequired(h, await c.send(a, '/v1/me/orders'));
    assert.equal((await c.send(a, '/v1/cart')).status, 200, 'base cart authority remains');
  });

  test('stale tokens act signed out: a signed-out token on a signed-in session, a signed-in token on a signed-out session', async () => {
    const sub = freshSub();
    const sid = await c.signedIn(sub, ALL);
    const signedOutOnSignedIn = await c.signedOutToken(sid, {
      scope: 'catalog:read cart:read cart:write account:read payment_methods:read orders:read',
    });
    expectSignInRequired(h, await c.send(signedOutOnSignedIn, '/v1/me/orders'));
    const me = await c.send(signedOutOnSignedIn, '/v1/me');
    assert.equal(me.status, 200);
    assert.equal(me.body.account, null);

    const signedInOnSignedOut = await c.assistant(sub, await c.signedOut(['assistant:read']));
    expectSignInRequired(h, await c.send(signedInOnSignedOut, '/v1/me/profile'));
    assert.equal((await c.send(signedInOnSignedOut, '/v1/catalog/products')).status, 200);

    // A token of another account than the one the session is signed in to does not act for either.
    const foreign = await c.assistant(freshSub(), sid);
    expectSignInRequired(h, await c.send(foreign, '/v1/me/profile'));
  });

  test('a signed-out token with empty scope keeps only the base catalog and cart authority (its own session cart)', async () => {
    const sid = await c.signedOut([]);
    const a = await c.signedOutToken(sid, { scope: '' });
    assert.equal((await c.send(a, '/v1/catalog/products')).status, 200);
    assert.equal((await c.send(a, '/v1/cart')).status, 200);
    const added = await c.send(a, '/v1/cart/items', { method: 'POST', json: { variant_id: 'var_0101', quantity: 1 } });
    assert.ok(added.status === 200 || added.status === 201, added.text);
    const again = await c.signedOutToken(sid);
    assert.ok(JSON.stringify((await c.send(again, '/v1/cart')).body).includes('var_0101'), 'the session keeps its cart');
    const other = await c.signedOutToken(await c.signedOut([]));
    assert.ok(!JSON.stringify((await c.send(other, '/v1/cart')).body).includes('var_0101'), 'another session does not see it');
    for (const [method, path] of [
      ['GET', '/v1/me/profile'],
      ['GET', '/v1/me/orders'],
      ['POST', '/v1/checkouts/saved-card'],
    ] as const) {
      expectSignInRequired(h, await c.send(a, path, { method, json: method === 'POST' ? {} : undefined }));
    }
  });

  test('signed-out proxy tokens are verified separately: wrong key, wrong client, an account subject, no binding, expired', async () => {
    const sid = await c.signedOut([]);
    const cases: [string, Promise<Assistant>][] = [
      ['another secret', c.signedOutToken(sid, { secret: 'not-the-proxy-secret-at-all-xxxx' })],
      ['signed by the issuer key (ES256)', c.signedOutToken(sid, { issuerKey: true })],
      ['typ at+jwt with the proxy secret', c.signedOutToken(sid, { header: { typ: 'at+jwt' } })],
      [
        'another client',
        c.signedOutToken(sid, { claims: { client_id: h.profile.clients.website, sub: `${h.profile.clients.website}@clients` } }),
      ],
      ['an account subject', c.signedOutToken(sid, { claims: { sub: 'cust_ada' } })],
      ['a deeper act chain', c.signedOutToken(sid, { claims: { act: { sub: 'personal_agent', act: { sub: 'x' } } } })],
      ['no sid', c.signedOutToken(sid, { claims: { sid: undefined } })],
      ['no cnf', c.signedOutToken(sid, { claims: { cnf: undefined } })],
      ['another audience', c.signedOutToken(sid, { claims: { aud: 'https://elsewhere.test' } })],
      ['expired', c.signedOutToken(sid, { expiresIn: -5 })],
    ];
    for (const [what, made] of cases) expectDpopRefusal(h, await c.send(await made, '/v1/cart'), 'invalid_token', what);
    assert.equal(
      (await c.send(await c.signedOutToken(sid, { claims: { act: { sub: 'personal_agent' } } }), '/v1/cart')).status,
      200,
      'act personal_agent is allowed',
    );
  });

  test('direct tokens are single-level personal_agent exchanges from the proxy client', async () => {
    const sub = freshSub();
    const sid = await c.signedIn(sub, READ);
    const deeper = await c.assistant(sub, sid, { claims: { act: { sub: 'personal_agent', act: { sub: 'someone' } } } });
    expectDpopRefusal(h, await c.send(deeper, '/v1/me'), 'invalid_token', 'deeper act chain');
  });
});

describe('forwarders: exactly one original artifact, agent:forward, no proof', () => {
  test('the MCP agent forwarder with the original token in Assistant-Subject acts as that assistant (signed out here)', async () => {
    const sid = await c.signedOut([]);
    const original = await c.signedOutToken(sid);
    const forwarder = await h.minter.mcpAgentForwarder();
    const headers = { authorization: `Bearer ${forwarder}`, 'assistant-subject': original.token };
    const me = await h.call('/v1/me', { headers });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.caller_kind, 'assistant');
    assert.equal(me.body.account, null);
    assert.equal(me.headers.get('dpop-nonce'), null, 'a Bearer request is not a DPoP request');
    assert.equal((await h.call('/v1/cart', { headers })).status, 200);
    expectSignInRequired(h, await h.call('/v1/me/profile', { headers }), 'Bearer');
  });

  test('the MCP forwarder with a signed-in session token acts signed out: no account data without the proof', async () => {
    const sub = freshSub();
    const a = await c.assistant(sub, await c.signedIn(sub, ALL));
    const headers = { authorization: `Bearer ${await h.minter.mcpAgentForwarder()}`, 'assistant-subject': a.token };
    const me = await h.call('/v1/me', { headers });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.account, null, 'no account behind a forwarded session token');
    for (const path of ['/v1/me/profile', '/v1/me/orders', '/v1/me/addresses', '/v1/me/payment-methods'])
      expectSignInRequired(h, await h.call(path, { headers }), 'Bearer');
    expectSignInRequired(h, await h.call('/v1/me/addresses', { method: 'POST', headers, json: newAddress }), 'Bearer');
    assert.equal((await h.call('/v1/cart', { headers })).status, 200, 'the base catalog and cart authority remains');
    // The same token with its key and a proof is the signed-in assistant.
    assert.equal((await c.send(a, '/v1/me/profile')).status, 200);
  });

  test('a forwarder without agent:forward is refused: 403 caller_not_allowed, never an API or service scope', async () => {
    const original = await c.signedOutToken(await c.signedOut([]));
    const res = await h.call('/v1/cart', {
      headers: {
        authorization: `Bearer ${await h.minter.mcpAgentForwarder({ scope: 'catalog:read cart:read' })}`,
        'assistant-subject': original.token,
      },
    });
    expectProblem(res, { status: 403, error: 'caller_not_allowed', docsUrl: h.profile.docsUrl });
    assert.equal(res.body.scope, undefined);
  });

  test('the web agent forwarder with the assistant browser session', async () => {
    const sub = freshSub();
    const sid = await c.signedIn(sub, READ);
    const browser = signBrowserSession(sid, h.profile.secrets.webSessionContextKey);
    const headers = { authorization: `Bearer ${await h.minter.invitedAgentForwarder()}`, [ASSISTANT_BROWSER_SESSION_HEADER]: browser };
    const me = await h.call('/v1/me', { headers });
    assert.equal(me.status, 200, me.text);
    assert.equal(me.body.caller_kind, 'assistant');
    assert.equal(me.body.account.sub, sub);
    assert.equal((await h.call('/v1/me/orders', { headers })).status, 200);
    expectScope(h, await h.call('/v1/me/addresses', { method: 'POST', headers, json: newAddress }), 'assistant:write');
    const signedOut = signBrowserSession(await c.signedOut([]), h.profile.secrets.webSessionContextKey);
    expectSignInRequired(
      h,
      await h.call('/v1/me/profile', { headers: { ...headers, [ASSISTANT_BROWSER_SESSION_HEADER]: signedOut } }),
      'Bearer',
    );
  });

  test('wrong, forged or too many artifacts: 401 invalid_token in the Bearer scheme', async () => {
    const sid = await c.signedOut([]);
    const original = await c.signedOutToken(sid);
    const browser = signBrowserSession(sid, h.profile.secrets.webSessionContextKey);
    const mcp = `Bearer ${await h.minter.mcpAgentForwarder()}`;
    const web = `Bearer ${await h.minter.invitedAgentForwarder()}`;
    const customer = await h.minter.customer({ sub: freshSub() });
    const cases: [string, Hdrs][] = [
      ['mcp forwarder, no artifact', { authorization: mcp }],
      ['mcp forwarder with a browser session', { authorization: mcp, [ASSISTANT_BROWSER_SESSION_HEADER]: browser }],
      ['mcp forwarder with both', { authorization: mcp, 'assistant-subject': original.token, [ASSISTANT_BROWSER_SESSION_HEADER]: browser }],
      ['mcp forwarder with a customer token as subject', { authorization: mcp, 'assistant-subject': customer }],
      ['mcp forwarder with a forwarder token as subject', { authorization: mcp, 'assistant-subject': await h.minter.mcpAgentForwarder() }],
      ['mcp forwarder with garbage as subject', { authorization: mcp, 'assistant-subject': 'abc.def.ghi' }],
      ['web forwarder with Assistant-Subject', { authorization: web, 'assistant-subject': original.token }],
      [
        'web forwarder with a forged browser session',
        { authorization: web, [ASSISTANT_BROWSER_SESSION_HEADER]: signBrowserSession(sid, 'another-key-of-enough-length-xx') },
      ],
      ['web forwarder with a malformed browser session', { authorization: web, [ASSISTANT_BROWSER_SESSION_HEADER]: `asb1.${sid}` }],
      [
        'web forwarder with an unknown session',
        { authorization: web, [ASSISTANT_BROWSER_SESSION_HEADER]: signBrowserSession(freshSid(), h.profile.secrets.webSessionContextKey) },
      ],
    ];
    for (const [what, headers] of cases) {
      const res = await h.call('/v1/cart', { headers });
      try {
        expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: h.profile.docsUrl });
        assert.equal(res.headers.get('www-authenticate'), 'Bearer error="invalid_token"');
      } catch (err) {
        throw new Error(`${what}: ${(err as Error).message}\n${res.text}`, { cause: err });
      }
    }
    expectChallenge(await h.call('/v1/cart', { headers: { authorization: mcp } }), { scheme: 'Bearer', error: 'invalid_token' });
  });
});

describe('budgets: per assistant session and per agent client', () => {
  let small: Harness;
  let s: ReturnType<typeof client>;
  before(async () => {
    small = await startReference({
      overrides: { assistantSessionRateLimitBudget: 3, assistantClientRateLimitBudget: 5, assistantRateLimitWindowSeconds: 60 },
    });
    s = client(small);
  });
  after(() => small.close());

  test('over the session budget: 429 rate_limited with Retry-After; then the client budget across its sessions', async () => {
    const clientId = `client-${randomUUID()}`;
    const first = await s.signedOutToken(await s.signedOut([], { clientId }));
    for (let i = 0; i < 3; i++) assert.equal((await s.send(first, '/v1/cart')).status, 200);
    const over = await s.send(first, '/v1/cart');
    expectProblem(over, { status: 429, error: 'rate_limited', docsUrl: small.profile.docsUrl });
    assert.match(over.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.ok(over.headers.get('dpop-nonce'));
    // A second session of the same client: 2 more requests reach the client budget of 5, the next one is refused.
    const second = await s.signedOutToken(await s.signedOut([], { clientId }));
    for (let i = 0; i < 2; i++) assert.equal((await s.send(second, '/v1/cart')).status, 200);
    const clientOver = await s.send(second, '/v1/cart');
    expectProblem(clientOver, { status: 429, error: 'rate_limited', docsUrl: small.profile.docsUrl });
    assert.match(String(clientOver.body.detail), /client budget/);
    // Another client is unaffected; after the window everything is open again.
    const third = await s.signedOutToken(await s.signedOut([], { clientId: `client-${randomUUID()}` }));
    assert.equal((await s.send(third, '/v1/cart')).status, 200);
    small.clock.advance(61_000);
    assert.equal((await s.send(first, '/v1/cart')).status, 200);
  });
});

describe('the public origin: PUBLIC_BASE_URL decides what htu must name', () => {
  let pub: Harness;
  let p: ReturnType<typeof client>;
  before(async () => {
    pub = await startReference({ overrides: { publicBaseUrl: 'https://Shop.Example:443/api/' } });
    p = client(pub);
  });
  after(() => pub.close());

  test('htu names the public URL (path prefix included), not the address the request reached', async () => {
    const a = await p.signedOutToken(await p.signedOut([]));
    expectDpopRefusal(pub, await p.send(a, '/v1/cart'), 'invalid_dpop_proof', 'the listening address');
    assert.equal((await p.send(a, '/v1/cart', { proof: { htu: 'https://shop.example/api/v1/cart' } })).status, 200);
    expectDpopRefusal(
      pub,
      await p.send(a, '/v1/cart', { proof: { htu: 'https://shop.example/v1/cart' } }),
      'invalid_dpop_proof',
      'without the prefix',
    );
  });
});

describe('fail closed', () => {
  test('when the replay store fails, the proof is refused: 503 unavailable with Retry-After and a DPoP-Nonce', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shop-dpop-'));
    const file = join(dir, 'shop.db');
    const x = await startReference({ overrides: { databasePath: file } });
    try {
      const xc = client(x);
      const a = await xc.signedOutToken(await xc.signedOut([]));
      assert.equal((await xc.send(a, '/v1/cart')).status, 200);
      const other = new Database(file);
      other.exec('DROP TABLE dpop_proofs');
      other.close();
      const res = await xc.send(a, '/v1/cart');
      expectProblem(res, { status: 503, error: 'unavailable', docsUrl: x.profile.docsUrl });
      assert.equal(res.headers.get('retry-after'), '5');
      assert.ok(res.headers.get('dpop-nonce'));
    } finally {
      await x.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
