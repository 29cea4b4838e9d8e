// Spec part 5, Authentication: where the token is read, what verification refuses, which claim combinations are caller
// kinds, the challenge scheme chosen before verification, guest sessions, customer authority, scopes and delegated callers.
// Cart writes use the reference's request body ({ variant_id, quantity }: the spec does not show payloads) and the seed's
// variant ids; cart records are "not shown", so spec-level checks observe a cart only through the variant ids its body
// names (an empty cart names none) or by comparing two reads, and leave member names (`lines`) to reference-level checks.
import { randomBytes, randomUUID } from 'node:crypto';
import { check, notApplicable, test, type Shop } from '../engine/check.js';
import { freshShopperIp } from '../lib/shopper.js';
import type { ShopResponse } from '../engine/http.js';
import { CheckFailure, expectChallenge, expectProblem, fail } from '../lib/assert.js';
import { forgeGuestSession, GUEST_SESSION_FORGERIES, signGuestSession, type GuestSessionForgery } from '../lib/guest-session.js';
import { createForeignKey, publicKeyAsSecret, signWith, unsecured } from '../lib/mint.js';
import { findChallenge, parseChallenges } from '../lib/www-authenticate.js';
import { baselineOf, expectUnchanged } from '../lib/compare.js';

// ---------------------------------------------------------------------------------------------------------------- helpers

const VARIANT = 'var_0101';
const OTHER_VARIANT = 'var_0201';
const SEED_VARIANT_ID = /var_\d{4}/;


const epoch = () => Math.floor(Date.now() / 1000);

/** Names the case a failure belongs to: `[CLAUSE] <what>: <the assertion's own text>`. */
function inCase(what: string, assertion: () => void): void {
  try {
    assertion();
  } catch (err) {
    if (err instanceof CheckFailure) err.message = err.message.replace(/^(\[[^\]]*\] )?/, (prefix) => `${prefix}${what}: `);
    throw err;
  }
}

/** 2xx, else a failure that shows the answer. */
function expectSuccess(res: ShopResponse, what: string, clause: string): void {
  if (res.status < 200 || res.status > 299) fail(`${what}: status`, '2xx', `${res.status} ${res.text.slice(0, 300)}`, clause);
}

/** The cart body names the variant id (cart records are not shown by the spec; any member may carry it). */
function expectNamesVariant(res: ShopResponse, variant: string, what: string, clause: string): void {
  expectSuccess(res, what, clause);
  if (!res.text.includes(variant)) fail(`${what}: the cart names ${variant}`, `a body mentioning ${variant}`, res.text.slice(0, 300), clause);
}

function expectNotNamesVariant(res: ShopResponse, variant: string | RegExp, what: string, clause: string): void {
  expectSuccess(res, what, clause);
  const found = typeof variant === 'string' ? res.text.includes(variant) : variant.test(res.text);
  if (found) fail(`${what}: the cart names no ${String(variant)}`, 'no such variant in the body', res.text.slice(0, 300), clause);
}

/** 401 invalid_token with a challenge of `scheme` carrying error="invalid_token". */
function expectInvalidToken(shop: Shop, res: ShopResponse, clause: string, scheme: 'Bearer' | 'DPoP' = 'Bearer'): void {
  expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause });
  expectChallenge(res, { scheme, error: 'invalid_token', clause });
}

/** Challenges of the response (the header must parse). */
function challengesOf(res: ShopResponse, clause: string) {
  const header = res.headers.get('www-authenticate');
  if (header === null) fail('WWW-Authenticate header', 'present', null, clause);
  return parseChallenges(header!);
}

function expectNoChallengeOf(res: ShopResponse, scheme: string, clause: string): void {
  if (findChallenge(challengesOf(res, clause), scheme)) fail(`WWW-Authenticate: answered in one scheme, no ${scheme} challenge`, `no ${scheme} challenge`, res.headers.get('www-authenticate'), clause);
}

/**
 * Token verification 3: a combination matching no caller kind is refused with 401 or 403 (the spec allows both). A 401 is
 * a rejected token (invalid_token with a Bearer challenge: these tokens carry no assistant marker); a 403 is any problem.
 */
function expectRefusedCombination(shop: Shop, res: ShopResponse, what: string, clause: string): void {
  if (res.status === 401) return expectInvalidToken(shop, res, clause);
  if (res.status === 403) {
    expectProblem(res, { status: 403, error: typeof res.body?.error === 'string' ? res.body.error : '<missing>', docsUrl: shop.docsUrl, clause });
    return;
  }
  fail(`${what}: refused`, [401, 403], `${res.status} ${res.text.slice(0, 300)}`, clause);
}

/** Any 4xx problem document ("refused" where the spec names no status). */
function expectRefused(shop: Shop, res: ShopResponse, what: string, clause: string): void {
  if (res.status < 400 || res.status > 499) fail(`${what}: refused`, '4xx', `${res.status} ${res.text.slice(0, 300)}`, clause);
  expectProblem(res, { status: res.status, error: typeof res.body?.error === 'string' ? res.body.error : '<missing>', docsUrl: shop.docsUrl, clause });
}

const shopperIp = freshShopperIp;

/** Headers of a guest request: the storefront token, a private shopper, and the session when given. */
async function guest(shop: Shop, session?: string, extra: Record<string, string> = {}): Promise<Record<string, string>> {
  return {
    authorization: `Bearer ${await shop.mint.guest()}`,
    'shopper-ip': shopperIp(),
    ...(session !== undefined ? { 'guest-session': session } : {}),
    ...extra,
  };
}

/** 401 invalid_guest_session with exactly one challenge, `Bearer error="invalid_token"` (Guest sessions 4; Errors table). */
function expectInvalidGuestSession(shop: Shop, res: ShopResponse, clause: string): void {
  expectProblem(res, { status: 401, error: 'invalid_guest_session', docsUrl: shop.docsUrl, clause });
  expectChallenge(res, { scheme: 'Bearer', error: 'invalid_token', clause });
  const challenges = challengesOf(res, clause);
  if (challenges.length !== 1 || challenges[0]?.scheme.toLowerCase() !== 'bearer') {
    fail('WWW-Authenticate: exactly Bearer error="invalid_token"', 'one Bearer challenge', res.headers.get('www-authenticate'), clause);
  }
}

const addItem = (variant_id = VARIANT, quantity = 1) => ({ json: { variant_id, quantity } });

// ------------------------------------------------------------------------------------------- Token verification 1: source

test(...check({ id: 'auth.token.authorization-only', title: 'a token in the query string, a cookie or the body is ignored: 401 invalid_token as with no token', clauses: ['AUTH-TOKEN-1', 'ERR-TABLE-1'] }, async (shop) => {
  const token = await shop.mint.customer({ sub: shop.subject('cust') });
  const control = await shop.http.get('/v1/cart', { token });
  expectSuccess(control, 'the same token in Authorization', 'AUTH-TOKEN-1');
  const cases: [string, () => Promise<ShopResponse>][] = [
    ['query access_token', () => shop.http.get(`/v1/cart?access_token=${encodeURIComponent(token)}`)],
    ['cookie access_token', () => shop.http.get('/v1/cart', { headers: { cookie: `access_token=${token}` } })],
    ['body access_token', () => shop.http.post('/v1/cart/items', { json: { access_token: token, variant_id: VARIANT, quantity: 1 } })],
  ];
  for (const [what, send] of cases) {
    const res = await send();
    inCase(what, () => {
      expectInvalidToken(shop, res, 'AUTH-TOKEN-1');
      expectChallenge(res, { scheme: 'DPoP', error: 'invalid_token', params: { algs: 'ES256' }, clause: 'ERR-TABLE-1' });
    });
  }
}));

// ------------------------------------------------------------------------------------- Token verification 2: each defect

interface Defect {
  what: string;
  mint: (shop: Shop, sub: string) => Promise<string>;
}

const DEFECTS: Record<'AUTH-TOKEN-2' | 'AUTH-TOKEN-3' | 'AUTH-TOKEN-4' | 'AUTH-TOKEN-5' | 'AUTH-TOKEN-6', { id: string; title: string; cases: Defect[] }> = {
  'AUTH-TOKEN-2': {
    id: 'auth.token.issuer',
    title: 'a token from another issuer is 401 invalid_token',
    cases: [{ what: 'iss of another issuer', mint: (shop, sub) => shop.mint.customer({ sub, claims: { iss: 'https://evil.example/' } }) }],
  },
  'AUTH-TOKEN-3': {
    id: 'auth.token.signature',
    title: 'a token whose signature does not verify against the key set is 401 invalid_token (foreign key under our kid, alg none, HS256 keyed with the public key)',
    cases: [
      {
        what: 'signed by a foreign key under the issuer\'s kid',
        mint: async (shop, sub) => {
          const d = shop.mint.draft.customer({ sub });
          return signWith(d.payload, d.header, (await createForeignKey()).privateKey);
        },
      },
      {
        what: 'alg none',
        mint: async (shop, sub) => {
          const d = shop.mint.draft.customer({ sub });
          return unsecured(d.payload, { ...d.header, alg: 'none' });
        },
      },
      {
        what: 'HS256 keyed with the public JWK',
        mint: (shop, sub) => {
          const d = shop.mint.draft.customer({ sub });
          return signWith(d.payload, { ...d.header, alg: 'HS256' }, publicKeyAsSecret(shop.profile, 'jwk'));
        },
      },
      {
        what: 'HS256 keyed with the public PEM',
        mint: (shop, sub) => {
          const d = shop.mint.draft.customer({ sub });
          return signWith(d.payload, { ...d.header, alg: 'HS256' }, publicKeyAsSecret(shop.profile, 'pem'));
        },
      },
      {
        what: 'signature of another token',
        mint: async (shop, sub) => {
          const [h, p] = (await shop.mint.customer({ sub })).split('.');
          const other = (await shop.mint.customer({ sub: `${sub}_other` })).split('.')[2];
          return `${h}.${p}.${other}`;
        },
      },
    ],
  },
  'AUTH-TOKEN-4': {
    id: 'auth.token.audience',
    title: 'a token for another audience is 401 invalid_token',
    cases: [
      { what: 'aud of another resource', mint: (shop, sub) => shop.mint.customer({ sub, claims: { aud: 'https://other.example' } }) },
      { what: 'aud list without the API', mint: (shop, sub) => shop.mint.customer({ sub, claims: { aud: ['https://other.example', 'https://another.example'] } }) },
    ],
  },
  'AUTH-TOKEN-5': {
    id: 'auth.token.type',
    title: 'a token whose header type is not at+jwt is 401 invalid_token (JWT, missing, dpop+jwt)',
    cases: [
      { what: 'typ JWT', mint: (shop, sub) => shop.mint.customer({ sub, header: { typ: 'JWT' } }) },
      { what: 'no typ', mint: (shop, sub) => shop.mint.customer({ sub, header: { typ: undefined } }) },
      { what: 'typ dpop+jwt', mint: (shop, sub) => shop.mint.customer({ sub, header: { typ: 'dpop+jwt' } }) },
    ],
  },
  'AUTH-TOKEN-6': {
    id: 'auth.token.expired',
    title: 'an expired token is 401 invalid_token',
    // An hour past expiry: no server clock skew or leeway makes this token current.
    cases: [{ what: 'expired an hour ago', mint: (shop, sub) => shop.mint.customer({ sub, claims: { iat: epoch() - 7200, exp: epoch() - 3600 } }) }],
  },
};

for (const [clause, { id, title, cases }] of Object.entries(DEFECTS)) {
  test(...check({ id, title, clauses: [clause, 'ERR-TABLE-2'] }, async (shop) => {
    const sub = shop.subject('cust');
    expectSuccess(await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub }) }), 'control: the same token without the defect', clause);
    for (const c of cases) {
      const res = await shop.http.get('/v1/cart', { token: await c.mint(shop, sub) });
      inCase(c.what, () => expectInvalidToken(shop, res, clause));
    }
  }));
}

test(...check({ id: 'auth.token.client-id-required', title: 'a validly signed token without client_id is refused (401 or 403)', clauses: ['AUTH-TOKEN-7'] }, async (shop) => {
  const sub = shop.subject('cust');
  const res = await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub, claims: { client_id: undefined } }) });
  expectRefusedCombination(shop, res, 'no client_id', 'AUTH-TOKEN-7');
}));

test(...check({ id: 'auth.token.client-id-required.reference', title: 'a token without client_id is 401 invalid_token', clauses: ['AUTH-TOKEN-7', 'ERR-TABLE-2'], level: 'reference' }, async (shop) => {
  const res = await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub: shop.subject('cust'), claims: { client_id: undefined } }) });
  expectInvalidToken(shop, res, 'AUTH-TOKEN-7');
}));

test(...check({ id: 'auth.token.unknown-kid.reference', title: 'a token whose kid names no key of the set is 401 invalid_token, even when another key verifies it', clauses: ['AUTH-TOKEN-3', 'ERR-TABLE-2'], level: 'reference' }, async (shop) => {
  const res = await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub: shop.subject('cust'), header: { kid: `no-such-key-${randomUUID()}` } }) });
  expectInvalidToken(shop, res, 'AUTH-TOKEN-3');
}));

test(...check({ id: 'auth.token.at-jwt-media-type.reference', title: 'typ application/at+jwt is accepted as at+jwt', clauses: ['AUTH-TOKEN-5'], level: 'reference' }, async (shop) => {
  const res = await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub: shop.subject('cust'), header: { typ: 'application/at+jwt' } }) });
  expectSuccess(res, 'typ application/at+jwt', 'AUTH-TOKEN-5');
}));

test(...check({ id: 'auth.token.nbf-future.reference', title: 'a token not valid before an hour from now is 401 invalid_token (nbf is honoured)', clauses: ['ERR-TABLE-2'], level: 'reference' }, async (shop) => {
  const res = await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub: shop.subject('cust'), claims: { nbf: epoch() + 3600 } }) });
  expectInvalidToken(shop, res, 'ERR-TABLE-2');
}));

// ------------------------------------------------------------------------ Token verification 3-4: caller-kind combinations

const PATHS_EVERY_KIND_READS = ['/v1/cart', '/v1/catalog/products'] as const;

async function expectCombinationRefused(shop: Shop, token: string, what: string, clause: string): Promise<void> {
  for (const path of PATHS_EVERY_KIND_READS) {
    const res = await shop.http.get(path, { token });
    inCase(`${what}, GET ${path}`, () => expectRefusedCombination(shop, res, 'refusal', clause));
  }
}

test(...check({ id: 'auth.kind.unknown-client', title: 'a validly signed token of an unknown client_id is refused (401 or 403)', clauses: ['AUTH-TOKEN-9', 'AUTH-TOKEN-8'] }, async (shop) => {
  const stranger = `stranger-${randomUUID()}`;
  await expectCombinationRefused(shop, await shop.mint.machine(stranger), 'machine token of an unknown client', 'AUTH-TOKEN-9');
  await expectCombinationRefused(shop, await shop.mint.customer({ sub: shop.subject('cust'), claims: { client_id: stranger } }), 'user token of an unknown client', 'AUTH-TOKEN-9');
}));

test(...check({ id: 'auth.kind.act-outermost-not-agent-client', title: 'an act chain whose outermost actor is not the agent-protocol client is refused (401 or 403)', clauses: ['AUTH-TOKEN-10', 'AUTH-TOKEN-8'] }, async (shop) => {
  const agent = shop.profile.clients.agentProtocol;
  for (const act of [{ sub: 'someone-else' }, { sub: 'someone-else', act: { sub: agent } }, { sub: shop.profile.clients.website }]) {
    await expectCombinationRefused(shop, await shop.mint.delegated({ sub: shop.subject('cust'), claims: { act } }), `act ${JSON.stringify(act)}`, 'AUTH-TOKEN-10');
  }
}));

test(...check({ id: 'auth.kind.machine-without-caller-kind', title: 'a validly signed machine token of a client with no caller kind is refused (401 or 403)', clauses: ['AUTH-TOKEN-11', 'AUTH-TOKEN-8'] }, async (shop) => {
  const c = shop.profile.clients;
  for (const client of [c.website, c.agentProtocol, c.personalAgentProxy]) {
    await expectCombinationRefused(shop, await shop.mint.machine(client), `machine token of ${client}`, 'AUTH-TOKEN-11');
  }
}));

test(...check({ id: 'auth.kind.website-token-with-act', title: 'a website user token carrying act is never a customer: refused on cart and catalog', clauses: ['AUTH-TOKEN-12', 'AUTH-TOKEN-8'] }, async (shop) => {
  const sub = shop.subject('cust');
  expectSuccess(await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub }) }), 'control: the same token without act', 'AUTH-TOKEN-12');
  for (const act of [{ sub: shop.profile.clients.agentProtocol }, { sub: 'invited_agent_1' }, { sub: shop.profile.clients.website }]) {
    await expectCombinationRefused(shop, await shop.mint.customer({ sub, claims: { act } }), `website token with act ${JSON.stringify(act)}`, 'AUTH-TOKEN-12');
  }
}));

test(...check({ id: 'auth.kind.other-combinations', title: 'other claim combinations matching no caller kind are refused (401 or 403)', clauses: ['AUTH-TOKEN-8'] }, async (shop) => {
  const c = shop.profile.clients;
  const sub = shop.subject('cust');
  const cases: [string, Promise<string>][] = [
    ['agent-protocol user token without act', shop.mint.delegated({ sub, claims: { act: undefined } })],
    ['user sub on the storefront client', shop.mint.machine(c.storefront, { claims: { sub } })],
    ['user sub on the backoffice client', shop.mint.machine(c.backoffice, { claims: { sub } })],
    ['machine sub of another client on the storefront client', shop.mint.machine(c.storefront, { claims: { sub: `${c.backoffice}@clients` } })],
  ];
  for (const [what, token] of cases) await expectCombinationRefused(shop, await token, what, 'AUTH-TOKEN-8');
}));

test(...check({ id: 'auth.kind.combinations.reference', title: 'refused combinations: 401 invalid_token, except 403 caller_not_allowed (no challenge) for machine tokens of clients with no caller kind', clauses: ['AUTH-TOKEN-8', 'AUTH-TOKEN-9', 'AUTH-TOKEN-10', 'AUTH-TOKEN-11', 'AUTH-TOKEN-12'], level: 'reference' }, async (shop) => {
  const c = shop.profile.clients;
  const sub = shop.subject('cust');
  const invalid: [string, string, Promise<string>][] = [
    ['AUTH-TOKEN-9', 'unknown client', shop.mint.machine(`stranger-${randomUUID()}`)],
    ['AUTH-TOKEN-10', 'outermost actor', shop.mint.delegated({ sub, claims: { act: { sub: 'someone-else' } } })],
    ['AUTH-TOKEN-12', 'website token with act', shop.mint.customer({ sub, claims: { act: { sub: c.agentProtocol } } })],
    ['AUTH-TOKEN-8', 'delegated without act', shop.mint.delegated({ sub, claims: { act: undefined } })],
    ['AUTH-TOKEN-8', 'user sub on the storefront client', shop.mint.machine(c.storefront, { claims: { sub } })],
    ['AUTH-TOKEN-8', 'machine sub of another client', shop.mint.machine(c.storefront, { claims: { sub: `${c.backoffice}@clients` } })],
    // The spec's guest row does not exclude act; the reference refuses it.
    ['AUTH-TOKEN-8', 'storefront machine token carrying act', shop.mint.guest({ claims: { act: { sub: c.agentProtocol } } })],
  ];
  for (const [clause, what, token] of invalid) {
    const res = await shop.http.get('/v1/cart', { token: await token });
    inCase(what, () => expectInvalidToken(shop, res, clause));
  }
  for (const client of [c.website, c.agentProtocol, c.personalAgentProxy]) {
    const res = await shop.http.get('/v1/cart', { token: await shop.mint.machine(client) });
    expectProblem(res, { status: 403, error: 'caller_not_allowed', docsUrl: shop.docsUrl, clause: 'AUTH-TOKEN-11' });
    if (res.headers.get('www-authenticate') !== null) fail('WWW-Authenticate on caller_not_allowed', null, res.headers.get('www-authenticate'), 'AUTH-TOKEN-11');
  }
}));

// ------------------------------------------------------------------------ Challenge scheme (chosen before verification)

/**
 * 401 in the DPoP scheme only. The error is the token's (invalid_token) or the proof's (invalid_dpop_proof, use_dpop_nonce):
 * the spec's error table has rows for both, and a request in the DPoP scheme without a proof may get either.
 */
function expectDpopChallengeOnly(shop: Shop, res: ShopResponse, clause: string): void {
  const error = typeof res.body?.error === 'string' ? res.body.error : '<missing>';
  if (!['invalid_token', 'invalid_dpop_proof', 'use_dpop_nonce'].includes(error)) fail('problem "error"', 'invalid_token, invalid_dpop_proof or use_dpop_nonce', error, clause);
  expectProblem(res, { status: 401, error, docsUrl: shop.docsUrl, clause });
  expectChallenge(res, { scheme: 'DPoP', error, clause });
  expectNoChallengeOf(res, 'Bearer', clause);
}

test(...check({ id: 'auth.scheme.dpop-authorization', title: 'an Authorization in the DPoP scheme is answered with a DPoP challenge only', clauses: ['AUTH-SCHEME-2', 'AUTH-SCHEME-6'] }, async (shop) => {
  const sub = shop.subject('cust');
  const d = shop.mint.draft.customer({ sub });
  const credentials: [string, string][] = [
    ['a customer token without a proof', await shop.mint.customer({ sub })],
    ['a badly signed token', await signWith(d.payload, d.header, (await createForeignKey()).privateKey)],
    ['a garbage token', 'abc.def.ghi'],
  ];
  for (const [what, credential] of credentials) {
    const res = await shop.http.get('/v1/cart', { headers: { authorization: `DPoP ${credential}` } });
    inCase(`DPoP with ${what}`, () => expectDpopChallengeOnly(shop, res, 'AUTH-SCHEME-2'));
  }
}));

test(...check({ id: 'auth.scheme.dpop-authorization.reference', title: 'DPoP scheme without a proof: 401 invalid_token, WWW-Authenticate exactly DPoP error="invalid_token", algs="ES256"', clauses: ['AUTH-SCHEME-2', 'ERR-TABLE-2'], level: 'reference' }, async (shop) => {
  const res = await shop.http.get('/v1/cart', { headers: { authorization: `DPoP ${await shop.mint.customer({ sub: shop.subject('cust') })}` } });
  expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause: 'AUTH-SCHEME-2' });
  const header = res.headers.get('www-authenticate');
  if (header !== 'DPoP error="invalid_token", algs="ES256"') fail('WWW-Authenticate', 'DPoP error="invalid_token", algs="ES256"', header, 'AUTH-SCHEME-2');
}));

test(...check({ id: 'auth.scheme.assistant-act-before-verification', title: 'a badly signed Bearer token whose unverified act is personal_agent gets a DPoP challenge only', clauses: ['AUTH-SCHEME-4', 'AUTH-SCHEME-6', 'ERR-TABLE-2'] }, async (shop) => {
  const sub = shop.subject('cust');
  const foreign = (await createForeignKey()).privateKey;
  // The act claim alone marks the token: no cnf, and neither the header type nor the client says anything else.
  const assistant = shop.mint.draft.assistant({ sub, jkt: 'unused', sid: `sess_${randomUUID()}`, claims: { cnf: undefined } });
  const website = shop.mint.draft.customer({ sub, claims: { act: { sub: 'personal_agent' } } });
  for (const [what, d] of [['proxy client', assistant], ['website client', website]] as const) {
    const res = await shop.http.get('/v1/cart', { token: await signWith(d.payload, d.header, foreign) });
    inCase(`badly signed ${what} token with act personal_agent`, () => {
      expectInvalidToken(shop, res, 'AUTH-SCHEME-4', 'DPoP');
      expectNoChallengeOf(res, 'Bearer', 'AUTH-SCHEME-6');
    });
  }
}));

test(...check({ id: 'auth.scheme.assistant-token-as-bearer', title: 'a validly signed assistant token sent as Bearer: 401 invalid_token with DPoP error="invalid_token", algs="ES256"', clauses: ['ERR-TABLE-3', 'AUTH-ASST-2', 'AUTH-SCHEME-4'] }, async (shop) => {
  // The assistant's DPoP key need not exist: the token is refused before any proof is looked at.
  const token = await shop.mint.assistant({ sub: shop.subject('cust'), jkt: randomBytes(32).toString('base64url'), sid: `sess_${randomUUID()}` });
  const res = await shop.http.get('/v1/cart', { token });
  expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-3' });
  expectChallenge(res, { scheme: 'DPoP', error: 'invalid_token', params: { algs: 'ES256' }, clause: 'ERR-TABLE-3' });
  expectNoChallengeOf(res, 'Bearer', 'ERR-TABLE-3');
}));

test(...check({ id: 'auth.scheme.plain-bearer', title: 'a rejected Bearer token without an assistant marker gets a Bearer challenge only', clauses: ['AUTH-SCHEME-5', 'ERR-TABLE-2'] }, async (shop) => {
  const d = shop.mint.draft.customer({ sub: shop.subject('cust') });
  const tokens: [string, string][] = [
    ['a badly signed customer token', await signWith(d.payload, d.header, (await createForeignKey()).privateKey)],
    ['a garbage JWS', 'abc.def.ghi'],
    ['a non-JWT', 'not-a-jwt'],
  ];
  for (const [what, token] of tokens) {
    const res = await shop.http.get('/v1/cart', { token });
    inCase(what, () => {
      expectInvalidToken(shop, res, 'AUTH-SCHEME-5');
      expectNoChallengeOf(res, 'DPoP', 'AUTH-SCHEME-5');
    });
  }
}));

test(...check({ id: 'auth.scheme.header-type.reference', title: 'a badly signed Bearer token of header type signed-out-proxy+jwt gets a DPoP challenge', clauses: ['AUTH-SCHEME-3', 'AUTH-SCHEME-6'], level: 'reference' }, async (shop) => {
  const d = shop.mint.draft.customer({ sub: shop.subject('cust'), header: { typ: 'signed-out-proxy+jwt' } });
  const res = await shop.http.get('/v1/cart', { token: await signWith(d.payload, d.header, (await createForeignKey()).privateKey) });
  expectInvalidToken(shop, res, 'AUTH-SCHEME-3', 'DPoP');
  expectNoChallengeOf(res, 'Bearer', 'AUTH-SCHEME-3');
}));

// The spec lists the header type and the act claim as markers; cnf (DPoP binding) is the reference's addition.
test(...check({ id: 'auth.scheme.dpop-bound-bearer', title: 'a badly signed Bearer token bound by cnf.jkt alone (no assistant marker) gets a Bearer challenge', clauses: ['AUTH-SCHEME-5', 'AUTH-SCHEME-6'] }, async (shop) => {
  const d = shop.mint.draft.customer({ sub: shop.subject('cust'), claims: { cnf: { jkt: randomBytes(32).toString('base64url') } } });
  const res = await shop.http.get('/v1/cart', { token: await signWith(d.payload, d.header, (await createForeignKey()).privateKey) });
  expectInvalidToken(shop, res, 'AUTH-SCHEME-5', 'Bearer');
  expectNoChallengeOf(res, 'DPoP', 'AUTH-SCHEME-5');
}));

// ------------------------------------------------------------------------------------------------------ Guest sessions

test(...check({ id: 'auth.guest.read-without-session', title: 'a guest cart read without a session is 200 and names no variant', clauses: ['AUTH-GUEST-3'], requires: ['guests'] }, async (shop) => {
  const res = await shop.http.get('/v1/cart', { headers: await guest(shop) });
  expectNotNamesVariant(res, SEED_VARIANT_ID, 'cart read without Guest-Session', 'AUTH-GUEST-3');
}));

test(...check({ id: 'auth.guest.read-without-session.reference', title: 'a guest cart read without a session is the empty cart record (lines [], item_count 0)', clauses: ['AUTH-GUEST-3'], level: 'reference', requires: ['guests'] }, async (shop) => {
  const res = await shop.http.get('/v1/cart', { headers: await guest(shop) });
  expectSuccess(res, 'cart read without Guest-Session', 'AUTH-GUEST-3');
  if (!Array.isArray(res.body?.lines) || res.body.lines.length !== 0) fail('cart "lines"', [], res.body?.lines, 'AUTH-GUEST-3');
  if (res.body?.item_count !== 0) fail('cart "item_count"', 0, res.body?.item_count, 'AUTH-GUEST-3');
}));

test(...check({ id: 'auth.guest.write-without-session', title: 'every guest cart write without a session is 400 guest_session_required', clauses: ['AUTH-GUEST-4', 'ERR-TABLE-7'], requires: ['guests'], seed: true }, async (shop) => {
  const writes: [string, () => Promise<ShopResponse>][] = [
    ['addCartItem', async () => shop.http.post('/v1/cart/items', { headers: await guest(shop), ...addItem() })],
    ['updateCartItem', async () => shop.http.patch(`/v1/cart/items/${VARIANT}`, { headers: await guest(shop), json: { quantity: 2 } })],
    ['removeCartItem', async () => shop.http.delete(`/v1/cart/items/${VARIANT}`, { headers: await guest(shop) })],
  ];
  for (const [, send] of writes) {
    const res = await send();
    expectProblem(res, { status: 400, error: 'guest_session_required', docsUrl: shop.docsUrl, clause: 'AUTH-GUEST-4' });
  }
}));

const FORGERY_CLAUSE: Record<GuestSessionForgery, string> = {
  'bad-signature': 'AUTH-GUEST-5',
  'wrong-key': 'AUTH-GUEST-5', // a session signed with a random key
  'other-uuid': 'RES-GUEST-3',
  'uppercase-uuid': 'RES-GUEST-2',
  'missing-part': 'AUTH-GUEST-6',
  'short-signature': 'RES-GUEST-3',
  'wrong-prefix': 'RES-GUEST-1',
  'padded-signature': 'RES-GUEST-3',
};

test(...check({ id: 'auth.guest.forged-session', title: 'every forged or malformed session is 401 invalid_guest_session with exactly Bearer error="invalid_token", on reads and writes, and writes nothing', clauses: ['AUTH-GUEST-5', 'AUTH-GUEST-6', 'RES-GUEST-1', 'RES-GUEST-2', 'RES-GUEST-3', 'ERR-TABLE-6'], requires: ['guests'], seed: true }, async (shop) => {
  const key = shop.profile.secrets.guestSessionKey;
  for (const forgery of GUEST_SESSION_FORGERIES) {
    const clause = FORGERY_CLAUSE[forgery];
    const uuid = randomUUID();
    const forged = forgeGuestSession(forgery, key, uuid);
    const requests: [string, () => Promise<ShopResponse>][] = [
      ['getCart', async () => shop.http.get('/v1/cart', { headers: await guest(shop, forged) })],
      // A stray DPoP header selects nothing: the scheme still is Bearer (neither the Authorization scheme nor the token says DPoP).
      ['getCart with a stray DPoP header', async () => shop.http.get('/v1/cart', { headers: await guest(shop, forged, { dpop: 'not-a-proof' }) })],
      ['addCartItem', async () => shop.http.post('/v1/cart/items', { headers: await guest(shop, forged), ...addItem() })],
      ['updateCartItem', async () => shop.http.patch(`/v1/cart/items/${VARIANT}`, { headers: await guest(shop, forged), json: { quantity: 2 } })],
      ['removeCartItem', async () => shop.http.delete(`/v1/cart/items/${VARIANT}`, { headers: await guest(shop, forged) })],
    ];
    for (const [what, send] of requests) {
      const res = await send();
      inCase(`forgery "${forgery}", ${what}`, () => expectInvalidGuestSession(shop, res, clause));
    }
    // The refused write left the genuine cart of that id (if the forgery named one) empty.
    const genuine = await shop.http.get('/v1/cart', { headers: await guest(shop, signGuestSession(uuid, key)) });
    expectNotNamesVariant(genuine, VARIANT, `the genuine cart of the id after the "${forgery}" write`, clause);
  }
  for (const value of ['garbage', 'gs1..', `gs1.${randomUUID()}.`]) {
    const res = await shop.http.get('/v1/cart', { headers: await guest(shop, value) });
    inCase(`Guest-Session ${JSON.stringify(value)}`, () => expectInvalidGuestSession(shop, res, 'AUTH-GUEST-6'));
  }
}));

test(...check({ id: 'auth.guest.session-verified-on-cart-routes-only', title: 'a forged session on a guest catalog read is not refused as invalid_guest_session', clauses: ['AUTH-GUEST-2'], requires: ['guests'] }, async (shop) => {
  const forged = forgeGuestSession('bad-signature', shop.profile.secrets.guestSessionKey);
  for (const path of ['/v1/catalog/products', '/v1/catalog/collections']) {
    const res = await shop.http.get(path, { headers: await guest(shop, forged) });
    if (res.status !== 200) fail(`${path} with a forged Guest-Session: status`, 200, `${res.status} ${res.text.slice(0, 300)}`, 'AUTH-GUEST-2');
  }
}));

test(...check({ id: 'auth.guest.valid-session', title: 'a session signed with GUEST_SESSION_KEY is a guest cart: write, then read it back', clauses: ['AUTH-GUEST-12', 'AUTH-KIND-9', 'AUTH-CRED-1'], requires: ['guests'], seed: true }, async (shop) => {
  const session = shop.guestSession();
  expectNotNamesVariant(await shop.http.get('/v1/cart', { headers: await guest(shop, session) }), SEED_VARIANT_ID, 'a new session\'s cart', 'AUTH-GUEST-12');
  expectSuccess(await shop.http.post('/v1/cart/items', { headers: await guest(shop, session), ...addItem() }), 'add with a valid session', 'AUTH-GUEST-12');
  // A new storefront token: the visitor is the session, not the token.
  expectNamesVariant(await shop.http.get('/v1/cart', { headers: await guest(shop, session) }), VARIANT, 'read back with the same session', 'AUTH-KIND-9');
}));

const PREVIOUS_KEY_MARGIN_MS = 5 * 60_000;

function previousKeyWindow(shop: Shop): { key: string; open: boolean } | string {
  const { guestSessionKeyPrevious: key, guestSessionKeyPreviousUntil: until } = shop.profile.secrets;
  if (key === null || until === null) return 'the profile configures no previous guest key (GUEST_SESSION_KEY_PREVIOUS and _UNTIL)';
  const left = Date.parse(until) - Date.now();
  if (Math.abs(left) < PREVIOUS_KEY_MARGIN_MS) return `GUEST_SESSION_KEY_PREVIOUS_UNTIL (${until}) is within ${PREVIOUS_KEY_MARGIN_MS / 60_000} minutes: the server's clock decides`;
  return { key, open: left > 0 };
}

test(...check({ id: 'auth.guest.previous-key-before-deadline', title: 'before GUEST_SESSION_KEY_PREVIOUS_UNTIL a session signed with the previous key verifies', clauses: ['AUTH-GUEST-13'], requires: ['guests'], seed: true }, async (shop) => {
  const w = previousKeyWindow(shop);
  if (typeof w === 'string') return test.skip(true, w);
  test.skip(!w.open, `GUEST_SESSION_KEY_PREVIOUS_UNTIL (${shop.profile.secrets.guestSessionKeyPreviousUntil}) has passed`);
  const session = signGuestSession(randomUUID(), w.key);
  expectSuccess(await shop.http.post('/v1/cart/items', { headers: await guest(shop, session), ...addItem() }), 'add with a previous-key session', 'AUTH-GUEST-13');
  expectNamesVariant(await shop.http.get('/v1/cart', { headers: await guest(shop, session) }), VARIANT, 'read with a previous-key session', 'AUTH-GUEST-13');
}));

test(...check({ id: 'auth.guest.previous-key-after-deadline', title: 'at or after GUEST_SESSION_KEY_PREVIOUS_UNTIL a previous-key session is 401 invalid_guest_session', clauses: ['AUTH-GUEST-14', 'AUTH-GUEST-7', 'ERR-TABLE-6'], requires: ['guests'] }, async (shop) => {
  const w = previousKeyWindow(shop);
  if (typeof w === 'string') return test.skip(true, w);
  test.skip(w.open, `GUEST_SESSION_KEY_PREVIOUS_UNTIL (${shop.profile.secrets.guestSessionKeyPreviousUntil}) has not passed yet`);
  const session = signGuestSession(randomUUID(), w.key);
  expectInvalidGuestSession(shop, await shop.http.get('/v1/cart', { headers: await guest(shop, session) }), 'AUTH-GUEST-14');
  expectInvalidGuestSession(shop, await shop.http.post('/v1/cart/items', { headers: await guest(shop, session), ...addItem() }), 'AUTH-GUEST-7');
}));

test(...check({ id: 'auth.guest.isolation', title: 'two guests with one storefront token never see or change each other\'s carts', clauses: ['AUTH-GUEST-16', 'AUTH-GUEST-17'], requires: ['guests'], seed: true }, async (shop) => {
  const token = await shop.mint.guest();
  const ip = shopperIp();
  const as = (session: string) => ({ authorization: `Bearer ${token}`, 'shopper-ip': ip, 'guest-session': session });
  const a = shop.guestSession();
  const b = shop.guestSession();
  expectSuccess(await shop.http.post('/v1/cart/items', { headers: as(a), ...addItem(VARIANT, 2) }), 'A adds a line', 'AUTH-GUEST-16');
  const before = await shop.http.get('/v1/cart', { headers: as(a) });
  expectNamesVariant(before, VARIANT, 'A reads its cart', 'AUTH-GUEST-16');
  const baseline = baselineOf(before, await shop.http.get('/v1/cart', { headers: as(a) }));

  expectNotNamesVariant(await shop.http.get('/v1/cart', { headers: as(b) }), VARIANT, 'B reads its cart', 'AUTH-GUEST-17');
  await shop.http.patch(`/v1/cart/items/${VARIANT}`, { headers: as(b), json: { quantity: 1 } });
  await shop.http.delete(`/v1/cart/items/${VARIANT}`, { headers: as(b) });
  expectSuccess(await shop.http.post('/v1/cart/items', { headers: as(b), ...addItem(OTHER_VARIANT) }), 'B adds another variant', 'AUTH-GUEST-16');

  const after = await shop.http.get('/v1/cart', { headers: as(a) });
  expectSuccess(after, 'A reads its cart again', 'AUTH-GUEST-17');
  expectUnchanged(baseline, after, 'A\'s cart after B\'s update, remove and add', 'AUTH-GUEST-17');
  expectNamesVariant(await shop.http.get('/v1/cart', { headers: as(b) }), OTHER_VARIANT, 'B reads its own line', 'AUTH-GUEST-16');
}));

test(...check({ id: 'auth.guest.isolation.reference', title: 'another guest\'s line is 404 not_found to update or remove', clauses: ['AUTH-GUEST-17'], level: 'reference', requires: ['guests'], seed: true }, async (shop) => {
  const a = shop.guestSession();
  const b = shop.guestSession();
  expectSuccess(await shop.http.post('/v1/cart/items', { headers: await guest(shop, a), ...addItem() }), 'A adds a line', 'AUTH-GUEST-17');
  const readB = await shop.http.get('/v1/cart', { headers: await guest(shop, b) });
  if (!Array.isArray(readB.body?.lines) || readB.body.lines.length !== 0) fail('B\'s cart "lines"', [], readB.body?.lines, 'AUTH-GUEST-17');
  expectProblem(await shop.http.patch(`/v1/cart/items/${VARIANT}`, { headers: await guest(shop, b), json: { quantity: 1 } }), { status: 404, error: 'not_found', docsUrl: shop.docsUrl, clause: 'AUTH-GUEST-17' });
  expectProblem(await shop.http.delete(`/v1/cart/items/${VARIANT}`, { headers: await guest(shop, b) }), { status: 404, error: 'not_found', docsUrl: shop.docsUrl, clause: 'AUTH-GUEST-17' });
}));

/** Shopper-IP values of exactly `n` characters that are still IP addresses (a scoped IPv6 address, RFC 4007 §11). */
const shopperIpOfLength = (n: number) => {
  const base = `fe80::${randomBytes(2).toString('hex')}%`;
  return base + 'z'.repeat(n - base.length);
};

test(...check({ id: 'auth.guest.shopper-ip-length', title: 'Shopper-IP of 64 characters is accepted, of 65 refused', clauses: ['AUTH-GUEST-9', 'LIM-SHOPPERIP-1'], requires: ['guests'] }, async (shop) => {
  const ok = shopperIpOfLength(64);
  const tooLong = shopperIpOfLength(65);
  for (const path of ['/v1/cart', '/v1/catalog/collections']) {
    const res = await shop.http.get(path, { headers: await guest(shop, undefined, { 'shopper-ip': ok }) });
    if (res.status !== 200) fail(`${path} with a 64-character Shopper-IP: status`, 200, `${res.status} ${res.text.slice(0, 300)}`, 'LIM-SHOPPERIP-1');
    expectRefused(shop, await shop.http.get(path, { headers: await guest(shop, undefined, { 'shopper-ip': tooLong }) }), `${path} with a 65-character Shopper-IP`, 'AUTH-GUEST-9');
  }
}));

test(...check({ id: 'auth.guest.shopper-ip-length.reference', title: 'a Shopper-IP of 65 characters is 400 invalid_request', clauses: ['AUTH-GUEST-9'], level: 'reference', requires: ['guests'] }, async (shop) => {
  const res = await shop.http.get('/v1/cart', { headers: await guest(shop, undefined, { 'shopper-ip': shopperIpOfLength(65) }) });
  expectProblem(res, { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause: 'AUTH-GUEST-9' });
}));

// ------------------------------------------------------------------------------- Caller-specific headers on other kinds

const GUEST_HEADERS = (shop: Shop): [string, string][] => [
  ['guest-session', shop.guestSession()],
  ['shopper-ip', '203.0.113.9'],
];

test(...check({ id: 'auth.headers.guest-headers-on-website-tokens', title: 'Guest-Session and Shopper-IP are each refused with a customer (website) token, and nothing is written', clauses: ['AUTH-GUEST-11', 'AUTH-GUEST-8', 'AUTH-ORDER-6'], seed: true }, async (shop) => {
  const token = await shop.mint.customer({ sub: shop.subject('cust') });
  expectSuccess(await shop.http.get('/v1/cart', { token }), 'control: the customer token without guest headers', 'AUTH-GUEST-11');
  for (const [name, value] of GUEST_HEADERS(shop)) {
    const headers = { [name]: value };
    expectRefused(shop, await shop.http.get('/v1/cart', { token, headers }), `cart read with ${name}`, 'AUTH-GUEST-11');
    expectRefused(shop, await shop.http.post('/v1/cart/items', { token, headers, ...addItem() }), `cart write with ${name}`, 'AUTH-GUEST-11');
    expectRefused(shop, await shop.http.get('/v1/catalog/collections', { token, headers }), `catalog read with ${name}`, 'AUTH-GUEST-11');
  }
  expectNotNamesVariant(await shop.http.get('/v1/cart', { token }), VARIANT, 'the customer cart after the refused writes', 'AUTH-GUEST-11');
}));

test(...check({ id: 'auth.headers.guest-headers-on-website-tokens.reference', title: 'guest headers with a customer token are 400 invalid_request', clauses: ['AUTH-GUEST-11'], level: 'reference' }, async (shop) => {
  const token = await shop.mint.customer({ sub: shop.subject('cust') });
  for (const [name, value] of GUEST_HEADERS(shop)) {
    expectProblem(await shop.http.get('/v1/cart', { token, headers: { [name]: value } }), { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause: 'AUTH-GUEST-11' });
  }
}));

test(...check({ id: 'auth.headers.guest-headers-on-delegated', title: 'Guest-Session and Shopper-IP are refused with a delegated token', clauses: ['AUTH-GUEST-8', 'AUTH-ORDER-6'], requires: ['delegated'] }, async (shop) => {
  const token = await shop.mint.delegated({ sub: shop.subject('cust') });
  expectSuccess(await shop.http.get('/v1/cart', { token }), 'control: the delegated token without guest headers', 'AUTH-ORDER-6');
  for (const [name, value] of GUEST_HEADERS(shop)) {
    expectRefused(shop, await shop.http.get('/v1/cart', { token, headers: { [name]: value } }), `cart read with ${name}`, name === 'shopper-ip' ? 'AUTH-GUEST-8' : 'AUTH-ORDER-6');
  }
}));

test(...check({ id: 'auth.headers.operator-header-on-customer', title: 'the Operator header is refused with a customer token', clauses: ['AUTH-ORDER-6'] }, async (shop) => {
  const token = await shop.mint.customer({ sub: shop.subject('cust') });
  expectRefused(shop, await shop.http.get('/v1/cart', { token, headers: { operator: 'conformance@shop.test' } }), 'cart read with Operator', 'AUTH-ORDER-6');
}));

test(...check({ id: 'auth.headers.guest-headers-on-operator.reference', title: 'guest headers with an operator token are 400 invalid_request (GET /v1/me)', clauses: ['AUTH-GUEST-8', 'AUTH-ORDER-6'], level: 'reference', requires: ['operators'] }, async (shop) => {
  const token = await shop.mint.operator();
  for (const [name, value] of GUEST_HEADERS(shop)) {
    expectProblem(await shop.http.get('/v1/me', { token, headers: { operator: 'conformance@shop.test', [name]: value } }), { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause: 'AUTH-GUEST-8' });
  }
}));

test(...check({ id: 'auth.operator.header-required.reference', title: 'an operator token without the Operator header is 400 invalid_request; with it, an operator', clauses: ['AUTH-CRED-4', 'AUTH-KIND-11'], level: 'reference', requires: ['operators'] }, async (shop) => {
  const token = await shop.mint.operator();
  expectProblem(await shop.http.get('/v1/me', { token }), { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause: 'AUTH-CRED-4' });
  const res = await shop.http.get('/v1/me', { token, headers: { operator: 'conformance@shop.test' } });
  expectSuccess(res, 'GET /v1/me with Operator', 'AUTH-KIND-11');
  if (res.body?.caller_kind !== 'operator') fail('GET /v1/me "caller_kind"', 'operator', res.body?.caller_kind, 'AUTH-KIND-11');
}));

// ------------------------------------------------------------------------------------------------- Customer authority

test(...check({ id: 'auth.customer.token-alone', title: 'a customer token alone (no other header, no registration) acts on the cart of its sub', clauses: ['AUTH-KIND-2', 'AUTH-KIND-3', 'AUTH-CUST-1', 'AUTH-CUST-4', 'AUTH-CRED-2'], seed: true }, async (shop) => {
  const sub = shop.subject('cust');
  const token = await shop.mint.customer({ sub });
  expectSuccess(await shop.http.post('/v1/cart/items', { token, ...addItem() }), 'first request of a fresh token: add', 'AUTH-CUST-4');
  expectNamesVariant(await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub }) }), VARIANT, 'another token of the same sub reads the line', 'AUTH-KIND-3');
  expectNotNamesVariant(await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub: shop.subject('cust') }) }), VARIANT, 'another sub\'s cart', 'AUTH-KIND-3');
}));

test(...check({ id: 'auth.customer.shop-session-ignored', title: 'a Shop-Session header does not change a customer\'s answers', clauses: ['AUTH-CUST-2'], seed: true }, async (shop) => {
  const token = await shop.mint.customer({ sub: shop.subject('cust') });
  const stale = { 'shop-session': `stale-${randomUUID()}` };
  expectSuccess(await shop.http.post('/v1/cart/items', { token, headers: stale, ...addItem() }), 'add with a stale Shop-Session', 'AUTH-CUST-2');
  const plain = baselineOf(await shop.http.get('/v1/cart', { token }), await shop.http.get('/v1/cart', { token }));
  const withHeader = await shop.http.get('/v1/cart', { token, headers: stale });
  expectNamesVariant(withHeader, VARIANT, 'read with a stale Shop-Session', 'AUTH-CUST-2');
  expectUnchanged(plain, withHeader, 'the cart read with Shop-Session', 'AUTH-CUST-2');
}));

test(...check({ id: 'auth.customer.session-claims-ignored', title: 'a customer token needs no sid, generation or epoch, and such claims change nothing', clauses: ['AUTH-CUST-3'], seed: true }, async (shop) => {
  const sub = shop.subject('cust');
  const plain = await shop.mint.customer({ sub });
  const sessioned = await shop.mint.customer({ sub, claims: { sid: `sid_${randomUUID()}`, generation: 7, epoch: 3 } });
  expectSuccess(await shop.http.post('/v1/cart/items', { token: sessioned, ...addItem() }), 'add with sid/generation/epoch claims', 'AUTH-CUST-3');
  const a = await shop.http.get('/v1/cart', { token: plain });
  const baseline = baselineOf(a, await shop.http.get('/v1/cart', { token: plain }));
  const b = await shop.http.get('/v1/cart', { token: sessioned });
  expectNamesVariant(a, VARIANT, 'read without session claims', 'AUTH-CUST-3');
  expectUnchanged(baseline, b, 'the cart read with session claims', 'AUTH-CUST-3');
}));

test(...check({ id: 'auth.customer.web-session-context-key', title: 'a token signed with WEB_SESSION_CONTEXT_KEY never creates customer authority', clauses: ['AUTH-CUST-8'] }, async (shop) => {
  const sub = shop.subject('cust');
  const key = shop.profile.secrets.webSessionContextKey;
  const d = shop.mint.draft.customer({ sub });
  const forged = await signWith(d.payload, { ...d.header, alg: 'HS256' }, key);
  expectInvalidToken(shop, await shop.http.get('/v1/cart', { token: forged }), 'AUTH-CUST-8');
  // A genuine invited-agent context presented as the bearer token.
  const context = await shop.mint.invitedAgentContext({ sub, agentId: 'agent_1', permissions: ['assistant:read'], forwarderToken: 'none' });
  expectInvalidToken(shop, await shop.http.get('/v1/cart', { token: context }), 'AUTH-CUST-8');
}));

// --------------------------------------------------------------------------------------------------------------- Scopes

test(...check({ id: 'auth.scope.customer-missing-cart-write', title: 'a customer token without cart:write is 403 insufficient_scope (scope cart:write) on cart writes, and nothing is written', clauses: ['AUTH-CUST-1', 'ERR-TABLE-9', 'RES-PROBLEM-11'], seed: true }, async (shop) => {
  const sub = shop.subject('cust');
  const narrow = await shop.mint.customer({ sub, scope: 'catalog:read cart:read' });
  const writes: [string, () => Promise<ShopResponse>][] = [
    ['addCartItem', () => shop.http.post('/v1/cart/items', { token: narrow, ...addItem() })],
    ['updateCartItem', () => shop.http.patch(`/v1/cart/items/${VARIANT}`, { token: narrow, json: { quantity: 2 } })],
    ['removeCartItem', () => shop.http.delete(`/v1/cart/items/${VARIANT}`, { token: narrow })],
  ];
  for (const [, send] of writes) expectProblem(await send(), { status: 403, error: 'insufficient_scope', scope: 'cart:write', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-9' });
  expectNotNamesVariant(await shop.http.get('/v1/cart', { token: narrow }), VARIANT, 'the cart after the refused writes (cart:read suffices)', 'AUTH-CUST-1');
}));

test(...check({ id: 'auth.scope.guest-missing-catalog-read', title: 'a guest token with only cart:read is 403 insufficient_scope (scope catalog:read) on the catalog', clauses: ['ERR-TABLE-9', 'RES-PROBLEM-11'], requires: ['guests'] }, async (shop) => {
  const token = await shop.mint.guest({ scope: 'cart:read' });
  const headers = { authorization: `Bearer ${token}`, 'shopper-ip': shopperIp() };
  for (const path of ['/v1/catalog/products', '/v1/catalog/collections']) {
    expectProblem(await shop.http.get(path, { headers }), { status: 403, error: 'insufficient_scope', scope: 'catalog:read', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-9' });
  }
  expectSuccess(await shop.http.get('/v1/cart', { headers }), 'control: the same token on getCart (cart:read)', 'ERR-TABLE-9');
}));

test(...check({ id: 'auth.scope.operator-on-storefront', title: 'an operator is 403 caller_not_allowed on storefront operations (catalog, cart read and write)', clauses: ['END-LIST-1', 'END-LIST-5', 'ERR-TABLE-8', 'AUTH-ACTIVE-3'], requires: ['operators'], seed: true }, async (shop) => {
  const token = await shop.mint.operator();
  const headers = { operator: 'conformance@shop.test' };
  const calls: [string, () => Promise<ShopResponse>][] = [
    ['searchProducts', () => shop.http.get('/v1/catalog/products', { token, headers })],
    ['listCollections', () => shop.http.get('/v1/catalog/collections', { token, headers })],
    ['getCart', () => shop.http.get('/v1/cart', { token, headers })],
    ['addCartItem', () => shop.http.post('/v1/cart/items', { token, headers, ...addItem() })],
  ];
  for (const [, send] of calls) {
    const res = await send();
    expectProblem(res, { status: 403, error: 'caller_not_allowed', docsUrl: shop.docsUrl, clause: 'END-LIST-1' });
    if (res.headers.get('www-authenticate') !== null) fail('WWW-Authenticate on caller_not_allowed', null, res.headers.get('www-authenticate'), 'ERR-TABLE-8');
  }
}));

// ---------------------------------------------------------------------------------------------------- Delegated callers

test(...check({ id: 'auth.delegated.account-cart', title: 'a delegated token acts on the account cart of its sub, the one the customer sees', clauses: ['AUTH-KIND-5', 'AUTH-KIND-6', 'AUTH-CRED-3'], requires: ['delegated'], seed: true }, async (shop) => {
  const sub = shop.subject('cust');
  const delegated = await shop.mint.delegated({ sub, actChain: ['agent_client_1'] });
  expectSuccess(await shop.http.post('/v1/cart/items', { token: delegated, ...addItem() }), 'delegated add', 'AUTH-KIND-5');
  expectNamesVariant(await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub }) }), VARIANT, 'the customer of the same sub reads the line', 'AUTH-KIND-6');
  expectNamesVariant(await shop.http.get('/v1/cart', { token: delegated }), VARIANT, 'the delegated caller reads the line', 'AUTH-KIND-6');
}));

test(...check({ id: 'auth.delegated.missing-cart-write', title: 'a delegated token without cart:write is 403 insufficient_scope (scope cart:write), and nothing is written', clauses: ['AUTH-SCOPE-2', 'ERR-TABLE-9'], requires: ['delegated'], seed: true }, async (shop) => {
  const sub = shop.subject('cust');
  const narrow = await shop.mint.delegated({ sub, scope: 'catalog:read cart:read' });
  expectProblem(await shop.http.post('/v1/cart/items', { token: narrow, ...addItem() }), { status: 403, error: 'insufficient_scope', scope: 'cart:write', docsUrl: shop.docsUrl, clause: 'AUTH-SCOPE-2' });
  expectNotNamesVariant(await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub }) }), VARIANT, 'the account cart after the refused write', 'AUTH-SCOPE-2');
}));

// The channel of a delegated actor is visible only on the diagnostic read, whose shape is the reference's.
test(...check({ id: 'auth.delegated.channel.reference', title: 'GET /v1/me: delegated for the agent audience is channel mcp, for the API audience openapi, both reach the cart', clauses: ['AUTH-KIND-5', 'END-LIST-6'], level: 'reference', requires: ['delegated'] }, async (shop) => {
  const sub = shop.subject('cust');
  for (const channel of ['mcp', 'openapi'] as const) {
    const token = await shop.mint.delegated({ sub, channel, actChain: ['agent_client_1'] });
    const me = await shop.http.get('/v1/me', { token });
    expectSuccess(me, `GET /v1/me (${channel})`, 'END-LIST-6');
    const got = [me.body?.caller_kind, me.body?.channel, me.body?.origin, me.body?.account?.sub];
    const want = ['delegated', channel, 'oauth', sub];
    if (JSON.stringify(got) !== JSON.stringify(want)) fail('GET /v1/me [caller_kind, channel, origin, account.sub]', want, got, 'AUTH-KIND-5');
    const chain = me.body?.actor_chain;
    if (!Array.isArray(chain) || chain[0] !== shop.profile.clients.agentProtocol) fail('GET /v1/me "actor_chain"[0]', shop.profile.clients.agentProtocol, chain, 'AUTH-KIND-5');
    expectSuccess(await shop.http.get('/v1/cart', { token }), `getCart (${channel})`, 'AUTH-KIND-5');
  }
}));

test(...check({ id: 'auth.me.customer.reference', title: 'GET /v1/me of a customer token: caller_kind customer, channel web, account of its sub', clauses: ['AUTH-KIND-2', 'END-LIST-6'], level: 'reference' }, async (shop) => {
  const sub = shop.subject('cust');
  const me = await shop.http.get('/v1/me', { token: await shop.mint.customer({ sub }) });
  expectSuccess(me, 'GET /v1/me', 'END-LIST-6');
  const got = [me.body?.caller_kind, me.body?.channel, me.body?.account?.sub, me.body?.account?.state];
  const want = ['customer', 'web', sub, 'active'];
  if (JSON.stringify(got) !== JSON.stringify(want)) fail('GET /v1/me [caller_kind, channel, account.sub, account.state]', want, got, 'AUTH-KIND-2');
}));

// ------------------------------------------------------------------------------------- Request processing order

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

test(...check({ id: 'auth.order.request-stage', title: 'every response carries X-Request-Id; a valid traceparent is echoed, an invalid one is not', clauses: ['AUTH-ORDER-2', 'AUTH-ORDER-3', 'ERR-PROBLEM-7'] }, async (shop) => {
  for (const path of ['/health', '/v1/cart', `/no-such-route-${randomUUID()}`]) {
    const res = await shop.http.get(path, { headers: { traceparent: TRACEPARENT } });
    if (!res.headers.get('x-request-id')) fail(`${path}: X-Request-Id`, 'present', null, 'AUTH-ORDER-2');
    if (res.headers.get('traceparent') !== TRACEPARENT) fail(`${path}: traceparent echoed`, TRACEPARENT, res.headers.get('traceparent'), 'AUTH-ORDER-3');
  }
  for (const bad of ['00-00000000000000000000000000000000-00f067aa0ba902b7-01', 'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', 'not-a-traceparent']) {
    const res = await shop.http.get('/health', { headers: { traceparent: bad } });
    if (res.headers.get('traceparent') === bad) fail(`invalid traceparent ${bad}`, 'not echoed', bad, 'AUTH-ORDER-3');
  }
}));

test(...check({ id: 'auth.order.token-before-validation', title: 'a bad token with an invalid body is answered 401, not 400 (authentication precedes input validation)', clauses: ['AUTH-ORDER-10', 'ERR-TABLE-2'] }, async (shop) => {
  const d = shop.mint.draft.customer({ sub: shop.subject('cust') });
  const badlySigned = await signWith(d.payload, d.header, (await createForeignKey()).privateKey);
  for (const json of [{ variant_id: 42, quantity: 'many', extra: true }, [], 'text']) {
    expectInvalidToken(shop, await shop.http.post('/v1/cart/items', { token: badlySigned, json }), 'AUTH-ORDER-10');
  }
}));

test(...check({ id: 'auth.order.decoding-before-authentication', title: 'a malformed JSON body is 400 with no token, with a bad token and with a good one (decoding precedes authentication)', clauses: ['AUTH-ORDER-11', 'ERR-PROBLEM-2'] }, async (shop) => {
  const tokens: [string, string | undefined][] = [['no token', undefined], ['a bad token', 'not.a.token'], ['a good token', await shop.mint.customer({ sub: shop.subject('cust') })]];
  for (const [what, token] of tokens) {
    const res = await shop.http.post('/v1/cart/items', { token, body: '{"variant_id": "var_0101", ', headers: { 'content-type': 'application/json' } });
    if (res.status !== 400) fail(`malformed JSON with ${what}: status`, 400, `${res.status} ${res.text.slice(0, 200)}`, 'AUTH-ORDER-11');
    expectProblem(res, { status: 400, error: String(res.body?.error ?? '<missing>'), docsUrl: shop.docsUrl, clause: 'ERR-PROBLEM-2' });
  }
}));

/** The guest budget the profile declares, or a skip: the spec shows no numbers. */
function guestBudget(shop: Shop): number {
  const budget = shop.profile.rateLimits?.guestBudget;
  if (budget === undefined) return notApplicable('the profile declares no guest rate-limit budget (rateLimits.guestBudget)');
  if (budget > 500) return notApplicable(`the guest budget ${budget} is too large to spend in a check`);
  return budget;
}

test(...check({ id: 'auth.order.guard-before-rate-limit', title: 'with the guest budget of an operation spent, a request the guard refuses is still 403, not 429', clauses: ['AUTH-ORDER-8', 'ERR-TABLE-9'], requires: ['guests'] }, async (shop) => {
  const budget = guestBudget(shop);
  const ip = shopperIp();
  const full = await shop.mint.guest();
  const narrow = await shop.mint.guest({ scope: 'cart:read cart:write' });
  const as = (token: string) => ({ token, headers: { 'shopper-ip': ip } });
  let spent = false;
  for (let i = 0; i <= budget + 1 && !spent; i++) spent = (await shop.http.get('/v1/catalog/collections', as(full))).status === 429;
  if (!spent) fail('the budget of listCollections is spent', 'a 429 within budget + 2 requests', 'no 429', 'AUTH-ORDER-8');
  const refused = await shop.http.get('/v1/catalog/collections', as(narrow));
  expectProblem(refused, { status: 403, error: 'insufficient_scope', docsUrl: shop.docsUrl, scope: 'catalog:read', clause: 'AUTH-ORDER-8' });
}));

test(...check({ id: 'auth.order.rate-limit-before-validation', title: 'over the guest budget, a request with an invalid body is 429, not 400 (the rate limit precedes input validation)', clauses: ['AUTH-ORDER-9', 'ERR-TABLE-12'], requires: ['guests'] }, async (shop) => {
  const budget = guestBudget(shop);
  const headers = await guest(shop, shop.guestSession());
  const invalid = { headers, json: { variant_id: 'not a variant', quantity: -1 } };
  let first: ShopResponse | undefined;
  for (let i = 0; i < budget; i++) {
    const res = await shop.http.post('/v1/cart/items', invalid);
    first ??= res;
    if (res.status === 429) break;
  }
  if (first && first.status !== 400) fail('an invalid body within budget: status', 400, `${first.status} ${first.text.slice(0, 200)}`, 'AUTH-ORDER-9');
  const over = await shop.http.post('/v1/cart/items', invalid);
  expectProblem(over, { status: 429, error: 'rate_limited', docsUrl: shop.docsUrl, clause: 'AUTH-ORDER-9' });
  if (!over.headers.get('retry-after')) fail('Retry-After', 'present', null, 'ERR-TABLE-12');
}));
