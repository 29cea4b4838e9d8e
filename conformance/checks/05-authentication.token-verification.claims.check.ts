// Spec part 5, Authentication > Token verification 1-2: the token is read from Authorization only; issuer, signature,
// audience, type at+jwt and expiry are verified; client_id is required (a token without one is refused with 401 or 403).
import { randomUUID } from 'node:crypto';
import { check, test, type Shop } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { judgeCases } from '../engine/runner/cases.js';
import { expectChallenge, expectSuccess, inCase } from '../lib/assert.js';
import { nowSeconds } from '../lib/jws.js';
import { createForeignKey, publicKeyAsSecret, signWith, unsecured } from '../lib/mint.js';
import { expectInvalidToken, expectRefusedCombination } from '../lib/expect/refusals.js';
import { VARIANT } from './_shared/seed-data.js';

// ------------------------------------------------------------------------------------------- Token verification 1: source

test(
  ...check(
    {
      id: 'authentication.token.authorization-only',
      title: 'a token in the query string, a cookie or the body is ignored: 401 invalid_token as with no token',
      clauses: ['AUTH-TOKEN-1', 'ERR-TABLE-1'],
    },
    async (shop) => {
      const token = await shop.mint.customer({ sub: shop.subject('cust') });
      const cases: [string, () => Promise<ShopResponse>][] = [
        ['query access_token', () => shop.http.get(`/v1/cart?access_token=${encodeURIComponent(token)}`)],
        ['cookie access_token', () => shop.http.get('/v1/cart', { headers: { cookie: `access_token=${token}` } })],
        ['body access_token', () => shop.http.post('/v1/cart/items', { json: { access_token: token, variant_id: VARIANT, quantity: 1 } })],
      ];
      // The control reads first; the others, each a case of its own, are refused as unauthenticated (the write too).
      expectSuccess(await shop.http.get('/v1/cart', { token }), { what: 'the same token in Authorization', clause: 'AUTH-TOKEN-1' });
      await judgeCases(cases, async ([what, send]) => {
        const res = await send();
        inCase(what, () => {
          expectInvalidToken(shop, res, { clause: 'AUTH-TOKEN-1' });
          expectChallenge(res, { scheme: 'DPoP', error: 'invalid_token', params: { algs: 'ES256' }, clause: 'ERR-TABLE-1' });
        });
      });
    },
  ),
);

// ------------------------------------------------------------------------------------- Token verification 2: each defect

interface Defect {
  what: string;
  mint: (shop: Shop, sub: string) => Promise<string>;
}

const DEFECTS: Record<
  'AUTH-TOKEN-2' | 'AUTH-TOKEN-3' | 'AUTH-TOKEN-4' | 'AUTH-TOKEN-5' | 'AUTH-TOKEN-6',
  { id: string; title: string; cases: Defect[] }
> = {
  'AUTH-TOKEN-2': {
    id: 'authentication.token.issuer',
    title: 'a token from another issuer, or naming none, is 401 invalid_token',
    cases: [
      { what: 'iss of another issuer', mint: (shop, sub) => shop.mint.customer({ sub, claims: { iss: 'https://evil.example/' } }) },
      // Verifying the issuer means requiring one: a verifier that checks iss only when present lets this through.
      { what: 'no iss', mint: (shop, sub) => shop.mint.customer({ sub, claims: { iss: undefined } }) },
    ],
  },
  'AUTH-TOKEN-3': {
    id: 'authentication.token.signature',
    title:
      'a token whose signature does not verify against the key set is 401 invalid_token (foreign key under our kid, alg none, HS256 keyed with the public key)',
    cases: [
      {
        what: "signed by a foreign key under the issuer's kid",
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
    id: 'authentication.token.audience',
    title: "a token for another audience is 401 invalid_token, a customer's for the agent audience too",
    cases: [
      // The agent audience is the issuer's too, but a signed-in customer is served for the API audience only.
      { what: 'a customer token for the agent audience', mint: (shop, sub) => shop.mint.customer({ sub, audience: 'agent' }) },
      { what: 'aud of another resource', mint: (shop, sub) => shop.mint.customer({ sub, claims: { aud: 'https://other.example' } }) },
      {
        what: 'aud list without the API',
        mint: (shop, sub) => shop.mint.customer({ sub, claims: { aud: ['https://other.example', 'https://another.example'] } }),
      },
    ],
  },
  'AUTH-TOKEN-5': {
    id: 'authentication.token.type',
    title: 'a token whose header type is not at+jwt is 401 invalid_token (JWT, missing, dpop+jwt)',
    cases: [
      { what: 'typ JWT', mint: (shop, sub) => shop.mint.customer({ sub, header: { typ: 'JWT' } }) },
      { what: 'no typ', mint: (shop, sub) => shop.mint.customer({ sub, header: { typ: undefined } }) },
      { what: 'typ dpop+jwt', mint: (shop, sub) => shop.mint.customer({ sub, header: { typ: 'dpop+jwt' } }) },
    ],
  },
  'AUTH-TOKEN-6': {
    id: 'authentication.token.expired',
    title: 'an expired token is 401 invalid_token, and so is one without exp (verifying expiry requires it)',
    // An hour past expiry: no server clock skew or leeway makes this token current.
    cases: [
      {
        what: 'expired an hour ago',
        mint: (shop, sub) => shop.mint.customer({ sub, claims: { iat: nowSeconds() - 7200, exp: nowSeconds() - 3600 } }),
      },
      { what: 'no exp', mint: (shop, sub) => shop.mint.customer({ sub, claims: { exp: undefined } }) },
    ],
  },
};

for (const [clause, { id, title, cases }] of Object.entries(DEFECTS)) {
  test(
    ...check({ id, title, clauses: [clause, 'ERR-TABLE-2'] }, async (shop) => {
      const sub = shop.subject('cust');
      // Cart reads: the control first, then the refused tokens, each a case of its own.
      expectSuccess(await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub }) }), {
        what: 'control: the same token without the defect',
        clause,
      });
      await judgeCases(cases, async (c) => {
        const res = await shop.http.get('/v1/cart', { token: await c.mint(shop, sub) });
        inCase(c.what, () => expectInvalidToken(shop, res, { clause }));
      });
    }),
  );
}

test(
  ...check(
    {
      id: 'authentication.token.client-id-required',
      title: 'a validly signed token without client_id is refused (401 or 403)',
      clauses: ['AUTH-TOKEN-7'],
    },
    async (shop) => {
      const sub = shop.subject('cust');
      const res = await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub, claims: { client_id: undefined } }) });
      expectRefusedCombination(shop, res, { what: 'no client_id', clause: 'AUTH-TOKEN-7' });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.token.client-id-required.reference',
      title: 'a token without client_id is 401 invalid_token',
      clauses: ['AUTH-TOKEN-7', 'ERR-TABLE-2'],
      level: 'reference',
    },
    async (shop) => {
      const res = await shop.http.get('/v1/cart', {
        token: await shop.mint.customer({ sub: shop.subject('cust'), claims: { client_id: undefined } }),
      });
      expectInvalidToken(shop, res, { clause: 'AUTH-TOKEN-7' });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.token.unknown-kid.reference',
      title: 'a token whose kid names no key of the set is 401 invalid_token, even when another key verifies it',
      clauses: ['AUTH-TOKEN-3', 'ERR-TABLE-2'],
      level: 'reference',
    },
    async (shop) => {
      const res = await shop.http.get('/v1/cart', {
        token: await shop.mint.customer({ sub: shop.subject('cust'), header: { kid: `no-such-key-${randomUUID()}` } }),
      });
      expectInvalidToken(shop, res, { clause: 'AUTH-TOKEN-3' });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.token.at-jwt-media-type.reference',
      title: 'typ application/at+jwt is accepted as at+jwt',
      clauses: ['AUTH-TOKEN-5'],
      level: 'reference',
    },
    async (shop) => {
      const res = await shop.http.get('/v1/cart', {
        token: await shop.mint.customer({ sub: shop.subject('cust'), header: { typ: 'application/at+jwt' } }),
      });
      expectSuccess(res, { what: 'typ application/at+jwt', clause: 'AUTH-TOKEN-5' });
    },
  ),
);

// docs/tokens.md makes iat required. Killed by a verifier that ignores iat (a token minted for ten years ahead works).
test(
  ...check(
    {
      id: 'authentication.token.iat.reference',
      title: 'a token without iat, or issued ten years from now, is 401 invalid_token',
      clauses: ['ERR-TABLE-2'],
      level: 'reference',
    },
    async (shop) => {
      const later = nowSeconds() + 10 * 365 * 86400;
      const cases = [
        ['no iat', { iat: undefined }],
        ['iat ten years ahead', { iat: later, exp: later + 300 }],
      ] as const;
      // Refused reads: each a case of its own.
      await judgeCases(cases, async ([what, claims]) => {
        const res = await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub: shop.subject('cust'), claims }) });
        inCase(what, () => expectInvalidToken(shop, res, { clause: 'ERR-TABLE-2' }));
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.token.nbf-future.reference',
      title: 'a token not valid before an hour from now is 401 invalid_token (nbf is honoured)',
      clauses: ['ERR-TABLE-2'],
      level: 'reference',
    },
    async (shop) => {
      const res = await shop.http.get('/v1/cart', {
        token: await shop.mint.customer({ sub: shop.subject('cust'), claims: { nbf: nowSeconds() + 3600 } }),
      });
      expectInvalidToken(shop, res, { clause: 'ERR-TABLE-2' });
    },
  ),
);
