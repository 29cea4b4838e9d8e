// `shop-conformance doctor`: ready against the reference; exit 3 against a server that is not this service, and against a
// deployment that refuses one caller kind, naming the kind and quoting the deployment's own words.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../reference/src/config.js';
import { startServer, type RunningServer } from '../../reference/src/server.js';
import { doctor } from '../../conformance/engine/doctor/doctor.js';
import { FIXTURE_PROFILE_PATH, fixtureProfile } from '../helpers/reference.js';
import { startMutatingProxy } from '../helpers/mutating-proxy.js';
import { cli } from '../helpers/cli.js';

/** The claims of the bearer token of a request, unverified: enough for a proxy to tell caller kinds apart. */
function bearerClaims(authorization: string | string[] | undefined): Record<string, unknown> | undefined {
  const m = /^Bearer\s+[^.]+\.([^.]+)\./i.exec(String(authorization ?? ''));
  return m ? (JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8')) as Record<string, unknown>) : undefined;
}

describe('doctor', () => {
  let reference: RunningServer;
  before(async () => {
    reference = await startServer(
      loadConfig({
        env: {},
        profilePath: FIXTURE_PROFILE_PATH,
        overrides: { port: 0, host: '127.0.0.1', databasePath: ':memory:', logLevel: 'silent' },
      }),
    );
  });
  after(() => reference.close());

  test('the reference: every claimed caller kind is trusted (exit 0)', async () => {
    const r = await cli(['doctor', '--base-url', reference.url]);
    assert.equal(r.code, 0, r.out);
    for (const kind of [
      'customer',
      'guest',
      'operator',
      'delegated',
      'invited-agent',
      'assistant',
      'assistant \\(MCP agent forwarder\\)',
      'assistant browser',
    ]) {
      assert.match(r.out, new RegExp(`^ok {3}trusts ${kind}`, 'm'));
    }
  });

  test('a server answering 200 "hello" to everything is not this service: exit 3 saying what it saw', async () => {
    const hello: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('hello');
    });
    await new Promise<void>((r) => hello.listen(0, '127.0.0.1', r));
    try {
      const r = await cli(['doctor', '--base-url', `http://127.0.0.1:${(hello.address() as AddressInfo).port}`]);
      assert.equal(r.code, 3, r.out);
      assert.match(r.out, /FAIL description: GET \/openapi\.json: 200 text\/plain "hello"/);
      assert.match(r.out, /FAIL problem documents: GET \/v1\/cart without a token: 200 text\/plain "hello"/);
      assert.match(r.out, /is not the shop service/);
      assert.doesNotMatch(r.out, /trusts/);
    } finally {
      hello.close();
    }
  });

  test('a deployment that refuses customer tokens but accepts storefront tokens: exit 3 naming the customer kind and quoting its detail', async () => {
    const detail = 'Tokens of client shop-website are not accepted by this deployment.';
    const proxy = await startMutatingProxy(reference.url, (answer, req) => {
      const claims = bearerClaims(req.headers.authorization);
      if (claims?.client_id !== fixtureProfile.clients.website) return answer;
      const problem = {
        type: `${fixtureProfile.docsUrl}/api/problems/invalid_token`,
        title: 'Unauthorized',
        status: 401,
        error: 'invalid_token',
        detail,
        instance: 'req_doctor_test',
      };
      return {
        status: 401,
        headers: { 'content-type': 'application/problem+json', 'www-authenticate': 'Bearer error="invalid_token"' },
        body: JSON.stringify(problem),
      };
    });
    try {
      const r = await cli(['doctor', '--base-url', proxy.url]);
      assert.equal(r.code, 3, r.out);
      assert.match(
        r.out,
        new RegExp(`^FAIL trusts customer: GET /v1/catalog/collections: 401 invalid_token "${detail.replace(/\./g, '\\.')}"`, 'm'),
      );
      assert.match(r.out, /^ok {3}trusts guest: GET \/v1\/catalog\/collections: 200/m);
      // The advice quotes the deployment and, since other kinds are trusted, points at the customer client id only.
      assert.match(
        r.out,
        new RegExp(
          `refused customer tokens, saying "${detail.replace(/\./g, '\\.')}" Configure the client ids of the profile: WEBSITE_CLIENT_ID=${fixtureProfile.clients.website}\\.`,
        ),
      );
    } finally {
      await proxy.close();
    }
  });

  test('without the proxy secret no session can be registered: assistant credentials are judged against a forged copy', async () => {
    const profile = { ...fixtureProfile, secrets: { ...fixtureProfile.secrets, proxyIdpSecret: null } };
    const report = await doctor(reference.url, profile);
    assert.equal(report.exitCode, 0, JSON.stringify(report.steps, null, 2));
    const assistant = report.steps.filter((s) => s.name.startsWith('trusts assistant'));
    assert.equal(assistant.length, 3);
    for (const s of assistant) assert.match(s.detail, /401 invalid_token "The assistant session is unknown\.", unlike a forged copy/);
    assert.ok(!report.steps.some((s) => s.name === 'assistant session'));
  });

  test('--json prints the steps and the advice as one JSON document', async () => {
    const r = await cli(['doctor', '--base-url', reference.url, '--json']);
    assert.equal(r.code, 0, r.out);
    const report = JSON.parse(r.out.slice(r.out.indexOf('{')));
    assert.equal(report.exitCode, 0);
    assert.deepEqual(report.advice, []);
    assert.ok(report.steps.some((s: { name: string }) => s.name === 'trusts customer'));
  });
});
