// Spec part 4, Endpoints > Public and special routes, for the account recovery endpoint's credential: a bearer
// ACCOUNT_RECOVERY_SECRET, the only credential it accepts; the route is closed when the secret is not configured.
//
// Levels. A refused recovery credential is 401 exactly (Recovery endpoint results); its code and challenge are the
// reference's and are judged in 04-endpoints.internal. A closed route is judged by "never succeeds": any 4xx problem.
import { mapCases } from '../engine/runner/cases.js';
import { check, notApplicable, test, type Shop } from '../engine/runner/check.js';
import { operatorAttribution } from '../lib/credential-formats.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { brief, expectProblem, expectStatus, fail, inCase } from '../lib/assert.js';
import { bearer, otherSecrets, wrong } from '../lib/internal-routes.js';
import { expectRefusal } from '../lib/expect/refusals.js';
import { recover, RECOVER, recoverySecret, unknownOperation } from './_shared/recover-account.js';
import { RECOVERY_OPERATIONS } from './_shared/seed-data.js';

/** 401 with a problem document (the spec names the status of a recovery credential refusal, not its code). */
function expect401(shop: Shop, res: ShopResponse, { clause }: { clause: string }): void {
  expectStatus(res, 401, { clause });
  expectProblem(res, {
    status: 401,
    error: typeof res.body?.error === 'string' ? res.body.error : '<missing>',
    docsUrl: shop.docsUrl,
    clause,
  });
}

/** The control: with its own credential a well-formed request reaches the lookup (404 recovery_not_found), so refusals are about credentials. */
function expectControl(shop: Shop, res: ShopResponse, { clause }: { clause: string }): void {
  inCase('control: own credential, unknown operation', () =>
    expectProblem(res, { status: 404, error: 'recovery_not_found', docsUrl: shop.docsUrl, clause }),
  );
}

test(
  ...check(
    {
      id: 'endpoints.recovery.credential.missing-or-wrong',
      title: 'POST /internal/account/recover without its bearer credential, or with a wrong one, is 401',
      clauses: ['END-PUBLIC-16', 'END-RECOVERY-11'],
      requires: ['recovery'],
    },
    async (shop) => {
      const secret = recoverySecret(shop);
      const cases: [string, Record<string, string>][] = [
        ['no Authorization', {}],
        ['a wrong secret', bearer(wrong(secret))],
        ['the secret with a character appended', bearer(`${secret}x`)],
        ['a prefix of the secret', bearer(secret.slice(0, 8))],
        ['an empty Bearer', { authorization: 'Bearer ' }],
        ['the secret under the Basic scheme', { authorization: `Basic ${Buffer.from(`recovery:${secret}`).toString('base64')}` }],
        ['the secret without a scheme', { authorization: secret }],
      ];
      // The same request with its own credential: a wrong one answered alike was never looked at (END-PUBLIC-16), where an
      // answer of its own that is not 401 is a refusal in the wrong status (END-RECOVERY-11).
      // The control, the request with its own credential and the refused ones are cases of their own (the cancelled operation
      // is never reopened, an unknown one is never found, a refused one is not looked at); judged in turn, the control first.
      const [control, own, ...answers] = await mapCases(
        [unknownOperation(), RECOVERY_OPERATIONS.cancelled, ...cases.map(() => RECOVERY_OPERATIONS.cancelled)],
        (body, i) => (i < 2 ? recover(shop, body) : recover(shop, body, cases[i - 2]![1])),
      );
      expectControl(shop, control!, { clause: 'END-PUBLIC-16' });
      for (const [i, [what]] of cases.entries()) {
        const res = answers[i]!;
        inCase(what, () => {
          if (res.status !== 401 && res.status === own!.status && res.body?.error === own!.body?.error)
            fail('answered as its own credential is', 'refused: 401', brief(res), { clause: ['END-PUBLIC-16', 'END-RECOVERY-11'] });
          expect401(shop, res, { clause: 'END-RECOVERY-11' });
        });
      }
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.recovery.credential.only-its-own',
      title:
        "POST /internal/account/recover accepts only ACCOUNT_RECOVERY_SECRET: the profile's other secrets, the secret in another header, and access tokens are 401",
      clauses: ['END-PUBLIC-18', 'END-RECOVERY-11'],
      requires: ['recovery'],
    },
    async (shop) => {
      const secret = recoverySecret(shop);
      const cases: [string, Record<string, string>][] = [];
      for (const [name, value] of otherSecrets(shop.profile.secrets, 'accountRecoverySecret')) {
        cases.push([`the profile's ${name} as a bearer`, bearer(value)]);
        cases.push([`the profile's ${name} in X-Proxy-Idp-Secret`, { 'x-proxy-idp-secret': value }]);
      }
      cases.push(['the recovery secret in X-Proxy-Idp-Secret', { 'x-proxy-idp-secret': secret }]);
      cases.push(['the recovery secret in X-Account-Recovery-Secret', { 'x-account-recovery-secret': secret }]);
      cases.push([
        "a customer access token (of the operation's own subject)",
        bearer(await shop.mint.customer({ sub: RECOVERY_OPERATIONS.cancelled.subject })),
      ]);
      cases.push(['a delegated access token', bearer(await shop.mint.delegated({ sub: RECOVERY_OPERATIONS.cancelled.subject }))]);
      cases.push(['an operator token', { ...bearer(await shop.mint.operator()), operator: operatorAttribution(shop.profile) }]);
      cases.push(['a guest storefront token', bearer(await shop.mint.guest())]);
      cases.push(['a backoffice machine token', bearer(await shop.mint.machine(shop.profile.clients.backoffice))]);
      // The control and the refused requests are cases of their own (an unknown operation is never found, a refused request
      // is not looked at); judged in turn, the control first.
      const [control, ...answers] = await mapCases([undefined, ...cases], (c) =>
        c === undefined ? recover(shop, unknownOperation()) : recover(shop, RECOVERY_OPERATIONS.cancelled, c[1]),
      );
      expectControl(shop, control!, { clause: 'END-PUBLIC-18' });
      for (const [i, [what]] of cases.entries()) inCase(what, () => expect401(shop, answers[i]!, { clause: 'END-PUBLIC-18' }));
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.recovery.closed-without-secret',
      title: 'with no ACCOUNT_RECOVERY_SECRET configured, POST /internal/account/recover never succeeds, whatever credential is sent',
      clauses: ['END-PUBLIC-17'],
    },
    async (shop) => {
      if (shop.profile.secrets.accountRecoverySecret !== null)
        notApplicable("the profile configures accountRecoverySecret: this deployment's recovery endpoint is open, not closed");
      const attempts: [string, Record<string, string>][] = [
        ['no credential', {}],
        ['an empty bearer', { authorization: 'Bearer ' }],
      ];
      for (const [name, value] of otherSecrets(shop.profile.secrets, 'accountRecoverySecret'))
        attempts.push([`the profile's ${name}`, bearer(value)]);
      attempts.push(['a customer token', bearer(await shop.mint.customer({ sub: RECOVERY_OPERATIONS.cancelled.subject }))]);
      const requests = attempts.flatMap(([what, headers]) =>
        [RECOVERY_OPERATIONS.cancelled, RECOVERY_OPERATIONS.completeEmail, unknownOperation()].map((body) => ({ what, headers, body })),
      );
      // A closed route changes nothing: the attempts are cases of their own, judged in turn.
      const answers = await mapCases(requests, ({ headers, body }) => shop.http.post(RECOVER, { headers, json: body }));
      for (const [i, { what, body }] of requests.entries())
        inCase(`${what}, ${body.operationId}`, () => expectRefusal(shop, answers[i]!, { clause: 'END-PUBLIC-17' }));
    },
  ),
);
