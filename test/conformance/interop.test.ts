// Interoperability: an independent RFC 9449 client (oauth4webapi's DPoP handle and protectedResourceRequest) reaches the
// reference as an assistant agent. The session is registered through the identity-provider proxy's internal route, the
// token is minted by the suite's identity provider for the fixture profile and bound to the client's key (cnf.jkt), and the
// client retries on its use_dpop_nonce error as oauth4webapi documents (examples/dpop.ts): the nonce of the challenge is
// cached by the handle, so the second attempt carries it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import * as oauth from 'oauth4webapi';
import { startReference, type Harness } from '../helpers/reference.js';

let h: Harness;

before(async () => {
  h = await startReference();
});

after(async () => {
  await h?.close();
});

/** A fresh assistant session signed in to a fresh account with every permission (docs/internal-routes.md). */
async function provisionSession(): Promise<{ sub: string; sessionId: string }> {
  const suffix = randomUUID().replace(/-/g, '');
  const sub = `interop_${suffix}`;
  const sessionId = `interop_sess_${suffix}`;
  const res = await h.call('/internal/assistant/agents/connected', {
    method: 'POST',
    headers: { 'x-proxy-idp-secret': h.profile.secrets.proxyIdpSecret! },
    json: {
      subject: sub,
      agent_id: `interop_agent_${suffix}`,
      client_id: `interop_client_${suffix}`,
      permissions: ['assistant:read', 'assistant:write', 'checkout'],
      session_id: sessionId,
    },
  });
  assert.equal(res.status, 201, `the proxy route registers the session: ${res.text}`);
  return { sub, sessionId };
}

test('oauth4webapi: an assistant reads GET /v1/cart with a DPoP-bound token, retrying once on use_dpop_nonce', async () => {
  const { sub, sessionId } = await provisionSession();
  const keyPair = await oauth.generateKeyPair('ES256');
  const client: oauth.Client = { client_id: h.profile.clients.personalAgentProxy };
  const DPoP = oauth.DPoP(client, keyPair);
  const token = await h.minter.assistant({ sub, jkt: await DPoP.calculateThumbprint(), sid: sessionId });

  const url = new URL('/v1/cart', h.url);
  // The reference listens on plain HTTP on the loopback; oauth4webapi refuses http: unless told otherwise.
  const request = () =>
    oauth.protectedResourceRequest(token, 'GET', url, undefined, undefined, { DPoP, [oauth.allowInsecureRequests]: true });
  let nonceChallenges = 0;
  const response = await request().catch((err: unknown) => {
    if (oauth.isDPoPNonceError(err)) {
      nonceChallenges++;
      // the RS-signalled nonce is now cached by the handle: retrying
      return request();
    }
    throw err;
  });
  assert.equal(response.status, 200, `GET /v1/cart: ${response.status} ${await response.clone().text()}`);
  assert.ok(nonceChallenges <= 1, 'at most one nonce challenge');
  const cart = (await response.json()) as Record<string, unknown>;
  assert.equal(typeof cart, 'object');
  assert.ok(response.headers.get('dpop-nonce'), 'the success carries a DPoP-Nonce');

  // The nonce of the success is cached too: the next request goes through at once, with a fresh proof (new jti).
  const again = await request();
  assert.equal(again.status, 200);
});

test('oauth4webapi: a refused proof surfaces as a DPoP challenge the library parses (invalid_dpop_proof, single DPoP challenge)', async () => {
  const { sub, sessionId } = await provisionSession();
  const keyPair = await oauth.generateKeyPair('ES256');
  const other = await oauth.generateKeyPair('ES256');
  const client: oauth.Client = { client_id: h.profile.clients.personalAgentProxy };
  // The token is bound to another key than the one the handle proves: the reference refuses the proof.
  const token = await h.minter.assistant({ sub, jkt: await oauth.DPoP(client, other).calculateThumbprint(), sid: sessionId });
  const DPoP = oauth.DPoP(client, keyPair);
  const request = () =>
    oauth.protectedResourceRequest(token, 'GET', new URL('/v1/cart', h.url), undefined, undefined, {
      DPoP,
      [oauth.allowInsecureRequests]: true,
    });
  const err = await request().then(
    () => assert.fail('the request succeeded'),
    (e: unknown) =>
      oauth.isDPoPNonceError(e)
        ? request().then(
            () => assert.fail('the retry succeeded'),
            (e2: unknown) => e2,
          )
        : e,
  );
  assert.ok(err instanceof oauth.WWWAuthenticateChallengeError, `a WWWAuthenticateChallengeError, got ${String(err)}`);
  assert.equal(err.status, 401);
  assert.deepEqual(
    err.cause.map((c) => [c.scheme, c.parameters.error]),
    [['dpop', 'invalid_dpop_proof']],
  );
});
