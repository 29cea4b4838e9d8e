// The doctor never hides a violation: proxies in front of the reference break one setup route each (no DPoP-Nonce, an
// identity-provider proxy that refuses every report, a malformed answer). Each is a failure of the refusing route's
// clause, quoted from the spec (exit 1), and `run` goes on and exits 1; only a refusal that says the suite's token is not
// trusted (signature, issuer, audience, unknown client) is exit 3. Audiences per caller kind (`audiences.callers`) are
// tried by the doctor and used by the minter.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import { loadConfig } from '../../reference/src/config.js';
import { startServer, type RunningServer } from '../../reference/src/server.js';
import { doctor } from '../../conformance/engine/doctor/doctor.js';
import type { Profile } from '../../contract/profile.js';
import { fixtureProfile, rotatingProfilePath } from '../helpers/reference.js';
import { startMutatingProxy, type Answer, type Mutation, type Proxy } from '../helpers/mutating-proxy.js';
import { cli, outputDir, readReport } from '../helpers/cli.js';

/** A 401 problem document as a deployment writes one, with a challenge. */
function refusal(error: string, detail: string, scheme = 'Bearer'): Answer {
  return {
    status: 401,
    headers: { 'content-type': 'application/problem+json', 'www-authenticate': `${scheme} error="${error}"` },
    body: JSON.stringify({
      type: `${fixtureProfile.docsUrl}/api/problems/${error}`,
      title: 'Unauthorized',
      status: 401,
      error,
      detail,
      instance: 'req_doctor_test',
    }),
  };
}

/** The claims of the access token of a request (Bearer or DPoP), unverified; undefined for a malformed one. */
function tokenClaims(authorization: string | string[] | undefined): Record<string, unknown> | undefined {
  const m = /^(?:Bearer|DPoP)\s+[^.]+\.([^.]+)\./i.exec(String(authorization ?? ''));
  try {
    return m ? (JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8')) as Record<string, unknown>) : undefined;
  } catch {
    return undefined; // a malformed token, as checks send on purpose
  }
}

const writeProfile = (p: Profile): string => {
  const file = join(outputDir(), 'profile.json');
  writeFileSync(file, JSON.stringify(p, null, 2));
  return file;
};

const IDP_PROXY_ROUTE = /^\/internal\/(assistant\/|agent-authorization)/;

describe('doctor: setup routes that break the spec are failures, distrust alone is exit 3', () => {
  let reference: RunningServer;
  const proxies: Proxy[] = [];
  const behind = async (mutate: Mutation) => {
    const p = await startMutatingProxy(reference.url, mutate);
    proxies.push(p);
    return p.url;
  };
  before(async () => {
    reference = await startServer(
      loadConfig({
        env: {},
        profilePath: rotatingProfilePath(),
        overrides: { port: 0, host: '127.0.0.1', databasePath: ':memory:', logLevel: 'silent' },
      }),
    );
  });
  after(async () => {
    await Promise.all(proxies.map((p) => p.close()));
    await reference.close();
  });

  test('a deployment that never sends DPoP-Nonce: exit 1 naming AUTH-ORDER-4 and quoting it, no configuration advice', async () => {
    const url = await behind((a) => {
      const { 'dpop-nonce': _nonce, ...headers } = a.headers;
      return { ...a, headers };
    });
    const r = await cli(['doctor', '--base-url', url]);
    assert.equal(r.code, 1, r.out);
    assert.match(
      r.out,
      /^FAIL trusts assistant: GET \/v1\/catalog\/collections \(DPoP\): 401 use_dpop_nonce.*\[AUTH-ORDER-4 ERR-TABLE-4\]$/m,
    );
    assert.match(r.out, /The spec requires: AUTH-ORDER-4: "A request with DPoP gets a fresh DPoP-Nonce header on every response/);
    assert.doesNotMatch(r.out, /Configure|PERSONAL_AGENT_PROXY_CLIENT_ID/);
    // Every other caller kind is judged as usual.
    assert.match(r.out, /^ok {3}trusts customer:/m);
    assert.match(r.out, /^ok {3}trusts assistant \(MCP agent forwarder\):/m);
  });

  test('run against it goes on past the doctor and exits 1, its report naming the setup violation', async () => {
    const url = await behind((a) => {
      const { 'dpop-nonce': _nonce, ...headers } = a.headers;
      return { ...a, headers };
    });
    const out = outputDir();
    // A check that passes here: the run's failure is the setup violation's alone.
    const r = await cli(['run', '--base-url', url, '--clause', 'END-PUBLIC-1', '--reporter', 'list', '--output', out], 240_000);
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /doctor: FAIL trusts assistant: .*\[AUTH-ORDER-4 ERR-TABLE-4\]/);
    assert.match(r.out, /setup violations \(the run fails\): trusts assistant \[AUTH-ORDER-4 ERR-TABLE-4\]/);
    const report = readReport(out) as ReturnType<typeof readReport> & { setupViolations?: { step: string; clauses: string[] }[] };
    assert.ok(report.checks.length > 0 && report.checks.every((c) => c.status === 'passed'), JSON.stringify(report.checks));
    assert.deepEqual(report.setupViolations, [{ step: 'trusts assistant', clauses: ['AUTH-ORDER-4', 'ERR-TABLE-4'] }]);
  });

  test('identity-provider proxy routes that refuse everything: exit 1 naming END-PUBLIC-12, quoting it; run goes on, exit 1', async () => {
    const url = await behind((a, req) =>
      IDP_PROXY_ROUTE.test(req.path) ? { ...refusal('invalid_token', 'Proxy secret rejected.'), status: 403 } : a,
    );
    const r = await cli(['doctor', '--base-url', url]);
    assert.equal(r.code, 1, r.out);
    assert.match(
      r.out,
      /^FAIL assistant session: POST \/internal\/assistant\/agents\/connected with X-Proxy-Idp-Secret .*: 403 invalid_token "Proxy secret rejected\." \[END-PUBLIC-12\]$/m,
    );
    assert.match(r.out, /END-PUBLIC-12: "POST \/internal\/assistant\/agents\/connected requires the X-Proxy-Idp-Secret header/);
    assert.doesNotMatch(r.out, /set PROXY_IDP_SECRET|Configure/);

    const out = outputDir();
    const run = await cli(['run', '--base-url', url, '--clause', 'END-PUBLIC-1', '--reporter', 'list', '--output', out], 240_000);
    assert.equal(run.code, 1, run.out);
    assert.match(run.out, /setup violations \(the run fails\): assistant session \[END-PUBLIC-12\]/);
    assert.ok(readReport(out).checks.length > 0);
  });

  test('a malformed answer of a setup route: a refusal that is no problem document, a description that is not one', async () => {
    const url = await behind((a, req) => {
      if (req.path === '/assistant/openapi.json') return { status: 200, headers: { 'content-type': 'text/plain' }, body: 'oops' };
      const claims = tokenClaims(req.headers.authorization);
      if (claims?.client_id === fixtureProfile.clients.backoffice)
        return { status: 401, headers: { 'content-type': 'text/plain' }, body: 'denied' };
      return a;
    });
    const report = await doctor(url, fixtureProfile);
    assert.equal(report.exitCode, 1, JSON.stringify(report.steps, null, 2));
    assert.deepEqual(report.violations, [
      { step: 'assistant description', clauses: ['END-PUBLIC-4', 'VER-DOCS-1'] },
      { step: 'trusts operator', clauses: ['ERR-PROBLEM-1', 'PUR-SERVE-5'] },
    ]);
    assert.match(report.advice.join('\n'), /ERR-PROBLEM-1: "Every failure uses the problem document of the Resources part\."/);
  });

  test('a refusal that says the token is not trusted is still exit 3: 401 invalid_token to every token', async () => {
    const url = await behind((a, req) =>
      tokenClaims(req.headers.authorization) ? refusal('invalid_token', 'The token signature does not verify.') : a,
    );
    const r = await cli(['doctor', '--base-url', url]);
    assert.equal(r.code, 3, r.out);
    assert.match(
      r.out,
      /^FAIL trusts customer: GET \/v1\/catalog\/collections: 401 invalid_token "The token signature does not verify\."$/m,
    );
    assert.match(r.out, /Configure it to trust the suite's issuer/);
  });

  test('a profile whose key, issuer or audience the target does not trust: exit 3', async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    const foreignKey = { ...(await exportJWK(privateKey)), kid: 'foreign-key', alg: 'ES256' } as Profile['signingKeys'][number];
    for (const profile of [
      { ...fixtureProfile, signingKeys: [foreignKey] },
      { ...fixtureProfile, issuer: 'https://other-issuer.example/' },
      { ...fixtureProfile, audiences: { api: 'https://elsewhere.example', agent: 'https://agents.elsewhere.example' } },
    ]) {
      const report = await doctor(reference.url, profile);
      assert.equal(report.exitCode, 3, JSON.stringify(report.steps, null, 2));
      assert.deepEqual(report.violations, []);
      assert.match(report.steps.find((s) => s.name === 'trusts customer')!.detail, /401 invalid_token/);
    }
  });

  describe('audiences per caller kind', () => {
    // A deployment that takes delegated tokens for the API audience only.
    const apiOnly: Mutation = (a, req) => {
      const claims = tokenClaims(req.headers.authorization);
      const aud = [claims?.aud].flat();
      return claims?.client_id === fixtureProfile.clients.agentProtocol && aud.includes(fixtureProfile.audiences.agent)
        ? refusal('invalid_token', 'The token is not for this audience.')
        : a;
    };
    const declared: Profile = { ...fixtureProfile, audiences: { ...fixtureProfile.audiences, callers: { delegated: ['api'] } } };

    test('undeclared: the doctor tries the API audience, names it and the declaration to add (exit 3)', async () => {
      const report = await doctor(await behind(apiOnly), fixtureProfile);
      assert.equal(report.exitCode, 3, JSON.stringify(report.steps, null, 2));
      assert.match(
        report.steps.find((s) => s.name === 'trusts delegated')!.detail,
        /401 invalid_token "The token is not for this audience\."; for the api audience \(https:\/\/api\.shop\.test\): 200/,
      );
      assert.match(report.advice.join('\n'), /Declare it in the profile: "audiences": \{ \.\.\., "callers": \{"delegated":\["api"\]\} \}/);
    });

    test('declared audiences.callers.delegated = ["api"]: the doctor is satisfied and the delegated checks pass', async () => {
      const url = await behind(apiOnly);
      const report = await doctor(url, declared);
      assert.equal(report.exitCode, 0, JSON.stringify(report.steps, null, 2));
      const profile = writeProfile(declared);
      const clauses = ['AUTH-KIND-5', 'AUTH-SCOPE-2', 'STA-LIFE-1'];
      const out = outputDir();
      const r = await cli(
        ['run', '--base-url', url, '--profile', profile, '--clause', ...clauses, '--reporter', 'list', '--output', out],
        300_000,
      );
      assert.equal(r.code, 0, r.out);
      // Without the declaration the same checks fail: the declaration is what makes them pass.
      const bare = await cli(
        ['run', '--base-url', url, '--no-doctor', '--clause', ...clauses, '--reporter', 'list', '--output', outputDir()],
        300_000,
      );
      assert.equal(bare.code, 1, bare.out);
    });
  });
});
