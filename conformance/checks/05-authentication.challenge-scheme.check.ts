// Spec part 5, Authentication > Challenge scheme (chosen before verification): `DPoP` when the path is a conversation path
// (checked in 04-endpoints.conversations), the Authorization scheme is DPoP, or a Bearer token's unverified header type or
// act claim marks an assistant session token; `Bearer` otherwise. Every refusal is answered in that one scheme.
import { randomBytes, randomUUID } from 'node:crypto';
import { check, test, type Shop } from '../engine/runner/check.js';
import { judgeCases } from '../engine/runner/cases.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { expectChallenge, expectProblem, fail, inCase, expect4xx, notDeclared } from '../lib/assert.js';
import { artifactFormat } from '../lib/credential-formats.js';
import { createForeignKey, signWith } from '../lib/mint.js';
import { expectInvalidToken, expectNoChallengeOf } from '../lib/expect/refusals.js';
import { cartLine } from './_shared/cart-lines.js';

/**
 * 401 in the DPoP scheme only. The error is the token's (invalid_token) or the proof's (invalid_dpop_proof, use_dpop_nonce):
 * the spec's error table has rows for both, and a request in the DPoP scheme without a proof may get either.
 */
function expectDpopChallengeOnly(shop: Shop, res: ShopResponse, { clause }: { clause: string }): void {
  const error = typeof res.body?.error === 'string' ? res.body.error : '<missing>';
  if (!['invalid_token', 'invalid_dpop_proof', 'use_dpop_nonce'].includes(error))
    fail('problem "error"', 'invalid_token, invalid_dpop_proof or use_dpop_nonce', error, { clause });
  expectProblem(res, { status: 401, error, docsUrl: shop.docsUrl, clause });
  expectChallenge(res, { scheme: 'DPoP', error, clause });
  expectNoChallengeOf(res, 'Bearer', { clause });
}

test(
  ...check(
    {
      id: 'authentication.scheme.dpop-authorization',
      title: 'an Authorization in the DPoP scheme is answered with a DPoP challenge only',
      clauses: ['AUTH-SCHEME-2', 'AUTH-SCHEME-6'],
    },
    async (shop) => {
      const sub = shop.subject('cust');
      const d = shop.mint.draft.customer({ sub });
      const credentials: [string, string][] = [
        ['a customer token without a proof', await shop.mint.customer({ sub })],
        ['a badly signed token', await signWith(d.payload, d.header, (await createForeignKey()).privateKey)],
        ['a garbage token', 'abc.def.ghi'],
        // Malformed, expired or rejected alike (Challenge scheme: chosen before verification).
        ['an expired token', await shop.mint.customer({ sub, expiresIn: -600 })],
      ];
      // Every credential is a case, refused.
      await judgeCases(credentials, async ([what, credential]) => {
        const res = await shop.http.get('/v1/cart', { headers: { authorization: `DPoP ${credential}` } });
        inCase(`DPoP with ${what}`, () => expectDpopChallengeOnly(shop, res, { clause: 'AUTH-SCHEME-2' }));
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.scheme.dpop-authorization.reference',
      title: 'DPoP scheme without a proof: 401 invalid_token, WWW-Authenticate exactly DPoP error="invalid_token", algs="ES256"',
      clauses: ['AUTH-SCHEME-2', 'ERR-TABLE-2'],
      level: 'reference',
    },
    async (shop) => {
      const res = await shop.http.get('/v1/cart', {
        headers: { authorization: `DPoP ${await shop.mint.customer({ sub: shop.subject('cust') })}` },
      });
      expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause: 'AUTH-SCHEME-2' });
      const header = res.headers.get('www-authenticate');
      if (header !== 'DPoP error="invalid_token", algs="ES256"')
        fail('WWW-Authenticate', 'DPoP error="invalid_token", algs="ES256"', header, { clause: 'AUTH-SCHEME-2' });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.scheme.assistant-act-before-verification',
      title: 'a badly signed Bearer token whose unverified act is personal_agent gets a DPoP challenge only',
      clauses: ['AUTH-SCHEME-4', 'AUTH-SCHEME-6', 'ERR-TABLE-2'],
    },
    async (shop) => {
      const sub = shop.subject('cust');
      const foreign = (await createForeignKey()).privateKey;
      // The act claim alone marks the token: no cnf, and neither the header type nor the client says anything else.
      const assistant = shop.mint.draft.assistant({ sub, jkt: 'unused', sid: `sess_${randomUUID()}`, claims: { cnf: undefined } });
      const website = shop.mint.draft.customer({ sub, claims: { act: { sub: 'personal_agent' } } });
      const drafts = [
        ['proxy client', assistant],
        ['website client', website],
      ] as const;
      // Both tokens are cases, refused.
      await judgeCases(drafts, async ([what, d]) => {
        const res = await shop.http.get('/v1/cart', { token: await signWith(d.payload, d.header, foreign) });
        inCase(`badly signed ${what} token with act personal_agent`, () => {
          expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause: 'AUTH-SCHEME-4' });
          // The token does not verify: its DPoP challenge comes from its unverified act (AUTH-SCHEME-4), chosen before
          // verification (AUTH-SCHEME-6).
          expectChallenge(res, { scheme: 'DPoP', error: 'invalid_token', clause: ['AUTH-SCHEME-4', 'AUTH-SCHEME-6'] });
          expectNoChallengeOf(res, 'Bearer', { clause: 'AUTH-SCHEME-6' });
        });
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.scheme.assistant-token-as-bearer',
      title:
        'a validly signed assistant token sent as Bearer (cart read and write, account read): 401 invalid_token with DPoP error="invalid_token", algs="ES256"',
      clauses: ['ERR-TABLE-3', 'AUTH-ASST-2', 'AUTH-SCHEME-4'],
    },
    async (shop) => {
      // The assistant's DPoP key need not exist: the token is refused before any proof is looked at.
      const token = await shop.mint.assistant({
        sub: shop.subject('cust'),
        jkt: randomBytes(32).toString('base64url'),
        sid: `sess_${randomUUID()}`,
      });
      // "Never accepted as Bearer": on every route group, reads and writes alike.
      const routes: [string, string, unknown][] = [
        ['GET', '/v1/cart', undefined],
        ['POST', '/v1/cart/items', cartLine()],
        ['GET', '/v1/me/profile', undefined],
      ];
      // Refused before any handler runs, nothing is written: every route is a case.
      await judgeCases(routes, async ([method, path, json]) => {
        const res = await shop.http.request(method, path, { token, ...(json !== undefined ? { json } : {}) });
        inCase(`${method} ${path}`, () => {
          // Served, the assistant token was accepted as Bearer (AUTH-ASST-2) and the Errors table's row broken.
          expect4xx(res, { what: 'an assistant token sent as Bearer: refused', clause: ['AUTH-ASST-2', 'ERR-TABLE-3'] });
          expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-3' });
          expectChallenge(res, { scheme: 'DPoP', error: 'invalid_token', params: { algs: 'ES256' }, clause: 'ERR-TABLE-3' });
          expectNoChallengeOf(res, 'Bearer', { clause: 'ERR-TABLE-3' });
        });
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.scheme.plain-bearer',
      title: 'a rejected Bearer token without an assistant marker gets a Bearer challenge only',
      clauses: ['AUTH-SCHEME-5', 'ERR-TABLE-2'],
    },
    async (shop) => {
      const d = shop.mint.draft.customer({ sub: shop.subject('cust') });
      const tokens: [string, string][] = [
        ['a badly signed customer token', await signWith(d.payload, d.header, (await createForeignKey()).privateKey)],
        ['a garbage JWS', 'abc.def.ghi'],
        ['a non-JWT', 'not-a-jwt'],
      ];
      // Every token is a case, refused.
      await judgeCases(tokens, async ([what, token]) => {
        const res = await shop.http.get('/v1/cart', { token });
        inCase(what, () => {
          expectInvalidToken(shop, res, { clause: 'AUTH-SCHEME-5' });
          expectNoChallengeOf(res, 'DPoP', { clause: 'AUTH-SCHEME-5' });
        });
      });
    },
  ),
);

// The header type that marks an assistant session token is the signed-out proxy token's. The spec does not name it: the
// spec level judges it where the profile declares it (conventions.credentials.signedOutProxyToken.typ), the reference
// level with the reference's own (signed-out-proxy+jwt, docs/tokens.md).
async function expectHeaderTypeMarks(shop: Shop, typ: string): Promise<void> {
  const d = shop.mint.draft.customer({ sub: shop.subject('cust'), header: { typ } });
  const res = await shop.http.get('/v1/cart', { token: await signWith(d.payload, d.header, (await createForeignKey()).privateKey) });
  expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause: 'AUTH-SCHEME-3' });
  // The token does not verify: its DPoP challenge comes from its unverified header type, chosen before verification.
  expectChallenge(res, { scheme: 'DPoP', error: 'invalid_token', clause: ['AUTH-SCHEME-3', 'AUTH-SCHEME-6'] });
  expectNoChallengeOf(res, 'Bearer', { clause: 'AUTH-SCHEME-3' });
}

test(
  ...check(
    {
      id: 'authentication.scheme.header-type',
      title: "a badly signed Bearer token of the declared signed-out proxy token's header type gets a DPoP challenge only",
      clauses: ['AUTH-SCHEME-3', 'AUTH-SCHEME-6', 'ERR-TABLE-2'],
      requires: ['assistants'],
    },
    async (shop) => {
      const typ = shop.profile.conventions?.credentials?.signedOutProxyToken?.typ;
      if (typ === undefined)
        notDeclared(
          'the header type that marks an assistant session token',
          'conventions.credentials.signedOutProxyToken.typ in the profile',
        );
      await expectHeaderTypeMarks(shop, typ);
    },
  ),
);

test(
  ...check(
    {
      id: 'authentication.scheme.header-type.reference',
      title: "a badly signed Bearer token of header type signed-out-proxy+jwt (the profile's, by default) gets a DPoP challenge only",
      clauses: ['AUTH-SCHEME-3', 'AUTH-SCHEME-6'],
      level: 'reference',
      requires: ['assistants'],
    },
    async (shop) => {
      await expectHeaderTypeMarks(shop, artifactFormat(shop.profile.conventions, 'signedOutProxyToken').typ);
    },
  ),
);

// The spec lists the header type and the act claim as markers; cnf (DPoP binding) is the reference's addition.
test(
  ...check(
    {
      id: 'authentication.scheme.dpop-bound-bearer',
      title: 'a badly signed Bearer token bound by cnf.jkt alone (no assistant marker) gets a Bearer challenge',
      clauses: ['AUTH-SCHEME-5', 'AUTH-SCHEME-6'],
    },
    async (shop) => {
      const d = shop.mint.draft.customer({ sub: shop.subject('cust'), claims: { cnf: { jkt: randomBytes(32).toString('base64url') } } });
      const res = await shop.http.get('/v1/cart', { token: await signWith(d.payload, d.header, (await createForeignKey()).privateKey) });
      expectInvalidToken(shop, res, { clause: 'AUTH-SCHEME-5', scheme: 'Bearer' });
      expectNoChallengeOf(res, 'DPoP', { clause: 'AUTH-SCHEME-5' });
    },
  ),
);
