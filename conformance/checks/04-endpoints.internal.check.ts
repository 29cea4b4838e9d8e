// Spec part 4, Endpoints > Public and special routes: the internal routes called by other components, each behind its
// shared secret, and the 8 KiB bounded reader of the security intents (Limits). The account recovery endpoint has files
// of its own (04-endpoints.recovery*).
//
// Levels. The spec says who holds each secret and, for most routes, where it travels (X-Proxy-Idp-Secret; a bearer
// CONVERSATION_HUB_SECRET or ACCOUNT_RECOVERY_SECRET). It does not say where the identity provider's action script puts its
// secret: spec-level checks send it both as `Authorization: Bearer` and as `X-Idp-Action-Secret` (the reference reads the
// former). Request bodies of the internal routes other than recovery are not shown: spec-level checks send the reference's
// bodies and judge only refusals. "Refused" is any 4xx problem document. Codes and challenges (`invalid_credentials`,
// `Bearer error="invalid_token"`), success statuses, shapes and the refusal of a secret in another carrier are the
// reference's and are judged at the reference level.
import { check, notApplicable, test, type Shop } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { operatorAttribution } from '../lib/credential-formats.js';
import { brief, expectChallenge, expectNoStore, expectProblem, expectStatus, fail, inCase, is2xx, notDeclared } from '../lib/assert.js';
import { LIMITS } from '../../contract/limits.js';
import {
  bearer,
  bodyOf,
  declaresActionSecret,
  otherSecrets,
  present,
  route,
  ROUTES,
  wrong,
  type InternalRoute,
} from '../lib/internal-routes.js';
import { expectRefusal } from '../lib/expect/refusals.js';
import { postChunked } from './_shared/post-chunked.js';
import { SPECIAL_PATHS } from '../../contract/routes.js';
import { judgeCases, mapCases } from '../engine/runner/cases.js';

// ------------------------------------------------------------------------------------------------ credentials (spec)

/** Ways to get a route's credential wrong, each with the headers that carry it. */
function credentialCases(shop: Shop, r: InternalRoute): [string, Record<string, string>][] {
  const own = shop.profile.secrets[r.secret];
  const cases: [string, Record<string, string>][] = [
    ['no credential', {}],
    ['a wrong secret', present(shop, r, wrong(own), { spec: true })],
  ];
  for (const [name, value] of otherSecrets(shop.profile.secrets, r.secret))
    cases.push([`the profile's ${name}`, present(shop, r, value, { spec: true })]);
  return cases;
}

for (const r of ROUTES.filter((x) => x.secret !== 'accountRecoverySecret')) {
  const name = r.path
    .replace(/^\/internal\//, '')
    .replace(/conversations\/[^/]+\//, 'conversations.')
    .replace(/\//g, '.');
  test(
    ...check(
      {
        id: `endpoints.internal.secret-required.${name}`,
        title: `POST ${r.path.replace(/conv_[0-9a-f]+/, '{id}')} refuses a missing or wrong secret or another secret of the profile, but not its own secret`,
        clauses: [r.clause],
      },
      async (shop) => {
        const own = shop.profile.secrets[r.secret];
        const cases = credentialCases(shop, r);
        // Every request carries a body of fresh ids, and a refused one changes nothing: the wrong credentials and the route's
        // own secret go at once, and are judged in the order listed.
        const [answers, ownAnswer] = await Promise.all([
          mapCases(cases, ([, headers]) => shop.http.post(r.path, { headers, json: bodyOf(r, shop) })),
          own === null ? undefined : shop.http.post(r.path, { headers: present(shop, r, own, { spec: true }), json: bodyOf(r, shop) }),
        ]);
        let refusal: ShopResponse | undefined;
        for (const [i, [what]] of cases.entries()) {
          const res = answers[i]!;
          inCase(what, () => {
            expectRefusal(shop, res, { clause: r.clause });
            // The refusal's status is open at this level, but a 401 always carries a challenge (RFC 9110 §15.5.2).
            if (res.status === 401 && res.headers.get('www-authenticate') === null)
              fail('WWW-Authenticate on a 401 (RFC 9110 §15.5.2)', 'a challenge', null, { clause: r.clause });
          });
          if (what === 'a wrong secret') refusal = res;
        }
        if (ownAnswer === undefined) return; // closed: nothing opens it
        // A route that refuses everyone passes every case above. Its own secret may still be refused for the body (shapes
        // are not shown), but never as a credential: not 401 (RFC 9110 §15.5.2), not the 403 a wrong secret gets.
        const res = ownAnswer;
        if (res.status === 401 && r.secret === 'idpActionSecret' && !declaresActionSecret(shop))
          notDeclared(
            'where the action script presents its secret (its own secret was 401 in both carriers tried)',
            'conventions.actionSecret',
          );
        inCase("the route's own secret", () => {
          const asWrong = res.status === 403 && refusal?.status === 403 && res.body?.error === refusal.body?.error;
          if (res.status === 401 || asWrong)
            fail('refused as a credential', 'not refused as a wrong secret is', brief(res), { clause: r.clause });
        });
      },
    ),
  );
}

// Only the recovery route says "only this credential is accepted" (04-endpoints.recovery*); the other rows name a carrier
// without excluding others, so refusing the route's own secret in another carrier is the reference's choice.
test(
  ...check(
    {
      id: 'endpoints.internal.secret-carrier.reference',
      title: 'each internal route but recovery refuses its own secret in another carrier (bearer for X-Proxy-Idp-Secret and back, Basic)',
      clauses: ['END-PUBLIC-9', 'END-PUBLIC-11', 'END-PUBLIC-12', 'END-PUBLIC-13', 'END-PUBLIC-14', 'END-PUBLIC-15'],
      level: 'reference',
    },
    async (shop) => {
      const cases = ROUTES.filter((r) => r.secret !== 'accountRecoverySecret' && shop.profile.secrets[r.secret] !== null).flatMap((r) => {
        const own = shop.profile.secrets[r.secret]!;
        const header = r.carrier === 'x-proxy-idp-secret';
        return (
          [
            ['as a bearer', bearer(own), header],
            ['in X-Proxy-Idp-Secret', { 'x-proxy-idp-secret': own }, !header && r.secret !== 'idpActionSecret'],
            ['under the Basic scheme', { authorization: `Basic ${Buffer.from(`x:${own}`).toString('base64')}` }, !header],
          ] as const
        ).flatMap(([what, headers, tried]) => (tried ? [[r, what, headers] as const] : []));
      });
      // Refused requests with bodies of fresh ids: each its own case.
      await judgeCases(cases, async ([r, what, headers]) => {
        const res = await shop.http.post(r.path, { headers, json: bodyOf(r, shop) });
        inCase(`${r.path}, its own secret ${what}`, () => expectRefusal(shop, res, { clause: r.clause }));
      });
    },
  ),
);

/** Each internal route sent each valid access token (customer, guest, operator), with a body of fresh ids. */
async function accessTokensOnInternalRoutes(shop: Shop, judge: (res: ShopResponse) => void): Promise<void> {
  const tokens: [string, Record<string, string>][] = [
    ['a customer token', bearer(await shop.mint.customer({ sub: shop.subject('cust') }))],
    ['a guest storefront token', bearer(await shop.mint.guest())],
    ['an operator token', { ...bearer(await shop.mint.operator()), operator: operatorAttribution(shop.profile) }],
  ];
  // Refused requests with bodies of fresh ids: each route × token its own case.
  const cases = ROUTES.flatMap((r) => tokens.map(([what, headers]) => [r, what, headers] as const));
  await judgeCases(cases, async ([r, what, headers]) => {
    const res = await shop.http.post(r.path, { headers, json: bodyOf(r, shop) });
    inCase(`${r.path} with ${what}`, () => judge(res));
  });
}

// "Not served" is what PUR-RULE-4 asks of an access token on an internal route: any 4xx problem document. The spec names
// no code for it, and a 403 caller_not_allowed ("wrong caller kind") is a reading of a token of a kind the route does not
// take; the reference refuses it as a credential of its own (judged at its level).
test(
  ...check(
    {
      id: 'endpoints.internal.not-operations',
      title: 'internal routes are their own group: a valid access token (customer, guest, operator) opens none of them',
      clauses: ['PUR-RULE-4'],
    },
    async (shop) => accessTokensOnInternalRoutes(shop, (res) => expectRefusal(shop, res, { clause: 'PUR-RULE-4' })),
  ),
);

test(
  ...check(
    {
      id: 'endpoints.internal.not-operations.reference',
      title: "an access token on an internal route is refused by the route's own authentication, not by the operations' caller guard",
      clauses: ['PUR-RULE-4'],
      level: 'reference',
    },
    async (shop) =>
      accessTokensOnInternalRoutes(shop, (res) => {
        expectRefusal(shop, res, { clause: 'PUR-RULE-4' });
        if (res.body?.error === 'caller_not_allowed' || res.body?.error === 'insufficient_scope')
          fail("refused by its own authentication, not by the operations' caller guard", 'a credential refusal', brief(res), {
            clause: 'PUR-RULE-4',
          });
      }),
  ),
);

// ----------------------------------------------------------------------------------------- credentials (the reference)

test(
  ...check(
    {
      id: 'endpoints.internal.invalid-credentials.reference',
      // Every 401 carries a challenge (RFC 9110 §15.5.2); killed by a header-secret 401 without WWW-Authenticate.
      title:
        'a missing or wrong secret is 401 invalid_credentials: bearer-secret routes carry Bearer error="invalid_token", X-Proxy-Idp-Secret routes an X-Proxy-Idp-Secret challenge',
      clauses: ['END-PUBLIC-9', 'END-PUBLIC-11', 'END-PUBLIC-12', 'END-PUBLIC-13', 'END-PUBLIC-14', 'END-PUBLIC-15', 'END-PUBLIC-16'],
      level: 'reference',
    },
    async (shop) => {
      // Refused requests: each route × credential its own case.
      const cases = ROUTES.filter((r) => shop.profile.secrets[r.secret] !== null) // closed: 404 not_configured, judged below
        .flatMap((r) =>
          (
            [
              ['no credential', {}],
              ['a wrong secret', present(shop, r, wrong(shop.profile.secrets[r.secret]))],
            ] as const
          ).map(([what, headers]) => [r, what, headers] as const),
        );
      await judgeCases(cases, async ([r, what, headers]) => {
        const res = await shop.http.post(r.path, { headers, json: bodyOf(r, shop) });
        inCase(`${r.path}, ${what}`, () => {
          expectProblem(res, { status: 401, error: 'invalid_credentials', docsUrl: shop.docsUrl, clause: r.clause });
          if (r.carrier === 'bearer') expectChallenge(res, { scheme: 'Bearer', error: 'invalid_token', clause: r.clause });
          else if (!/^X-Proxy-Idp-Secret\b/i.test(res.headers.get('www-authenticate') ?? ''))
            fail('WWW-Authenticate on a header-secret route', 'X-Proxy-Idp-Secret realm="internal"', res.headers.get('www-authenticate'), {
              clause: r.clause,
            });
        });
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.internal.own-secret-accepted.reference',
      everyResponse: true,
      title:
        "with its own secret each internal route accepts the reference's body (conversations: an unknown id is 404 not_found); an unset secret closes the route (404 not_configured)",
      clauses: ['END-PUBLIC-9', 'END-PUBLIC-11', 'END-PUBLIC-12', 'END-PUBLIC-13', 'END-PUBLIC-14', 'END-PUBLIC-15'],
      level: 'reference',
    },
    async (shop) => {
      // Each route its own record of fresh ids: each route its own case.
      await judgeCases(
        ROUTES.filter((x) => x.secret !== 'accountRecoverySecret'),
        async (r) => {
          const own = shop.profile.secrets[r.secret];
          const res = await shop.http.post(r.path, { headers: own === null ? {} : present(shop, r, own), json: bodyOf(r, shop) });
          inCase(r.path, () => {
            if (own === null)
              return void expectProblem(res, { status: 404, error: 'not_configured', docsUrl: shop.docsUrl, clause: r.clause });
            if (r.accepted.error)
              return void expectProblem(res, {
                status: r.accepted.status,
                error: r.accepted.error,
                docsUrl: shop.docsUrl,
                clause: r.clause,
              });
            if (res.status !== r.accepted.status)
              fail("status with the route's own secret", r.accepted.status, brief(res), { clause: r.clause });
            expectNoStore(res, { clause: r.clause });
          });
        },
      );
    },
  ),
);

// --------------------------------------------------------------------------------------- security intents: the 8 KiB cap

/** A valid intent (the deployment's declared shape, else the reference's) padded with JSON whitespace to exactly `size` bytes. */
function paddedIntent(shop: Shop, size: number): Buffer {
  const json = JSON.stringify(bodyOf(route(SPECIAL_PATHS.recordSecurityIntent), shop));
  return Buffer.from(json.slice(0, -1) + ' '.repeat(Math.max(0, size - Buffer.byteLength(json))) + '}');
}

test(
  ...check(
    {
      id: 'endpoints.internal.security-intents.bounded',
      title:
        "POST /internal/account/security-intents refuses a body over 8 KiB sent chunked without Content-Length (with the action script's secret), for its size: not as invalid, not as it answers the same intent under 8 KiB",
      clauses: ['LIM-INTENT-1'],
    },
    async (shop) => {
      const secret = shop.profile.secrets.idpActionSecret;
      if (secret === null)
        notApplicable('the profile has no idpActionSecret: the route is closed, so a refusal would show nothing about its body cap');
      const r = route(SPECIAL_PATHS.recordSecurityIntent);
      // The control: the same intent under the cap. The spec names no status for the size refusal, but it must be about
      // size: not the validation failure of a body this server takes, nor the answer the small body gets anyway.
      // Each intent has a fresh id: the control and the two over the cap go at once, and are judged in turn.
      const send = (size: number) => postChunked(shop, r.path, present(shop, r, secret!, { spec: true }), paddedIntent(shop, size));
      const sizes = [LIMITS.securityIntentBytes + 1024, 64 * 1024];
      const [under, over] = await Promise.all([send(LIMITS.securityIntentBytes - 512), mapCases(sizes, send)]);
      // The spec names no carrier for the action script's secret: an undeclared one that refuses both the suite tries
      // leaves the cap unjudged, never failed.
      if (under.status === 401 && !declaresActionSecret(shop))
        notDeclared(
          'where the action script presents its secret (the intent under 8 KiB was 401 in both carriers tried)',
          'conventions.actionSecret',
        );
      const code = (res: ShopResponse) => `${res.status} ${typeof res.body?.error === 'string' ? res.body.error : ''}`;
      for (const [i, size] of sizes.entries()) {
        const res = over[i]!;
        inCase(`a ${size}-byte valid intent, chunked`, () => {
          expectRefusal(shop, res, { clause: 'LIM-INTENT-1' });
          if (is2xx(under) && res.body?.error === 'invalid_request')
            fail('refused for its size', `not invalid_request (the same intent under 8 KiB was ${under.status})`, brief(res), {
              clause: 'LIM-INTENT-1',
            });
          if (!is2xx(under) && code(res) === code(under))
            fail('refused for its size', `another answer than the same intent under 8 KiB (${code(under)})`, brief(res), {
              clause: 'LIM-INTENT-1',
            });
        });
      }
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.internal.security-intents.bounded.reference',
      title: 'the bounded reader: exactly 8 KiB chunked is accepted; 8 KiB + 1 is 413 payload_too_large, answered before the request ends',
      clauses: ['LIM-INTENT-1'],
      level: 'reference',
    },
    async (shop) => {
      const secret = shop.profile.secrets.idpActionSecret;
      if (secret === null) notApplicable('the profile has no idpActionSecret: the route is closed');
      const r = route(SPECIAL_PATHS.recordSecurityIntent);
      const at = await postChunked(shop, r.path, present(shop, r, secret!), paddedIntent(shop, LIMITS.securityIntentBytes));
      expectStatus(at, 202, { what: 'exactly 8 KiB (8192 bytes), chunked: status', clause: 'LIM-INTENT-1' });
      const over = await postChunked(shop, r.path, present(shop, r, secret!), paddedIntent(shop, LIMITS.securityIntentBytes + 1), {
        hold: true,
      });
      inCase('8193 bytes, chunked, request left open', () =>
        expectProblem(over, { status: 413, error: 'payload_too_large', docsUrl: shop.docsUrl, clause: 'LIM-INTENT-1' }),
      );
    },
  ),
);
