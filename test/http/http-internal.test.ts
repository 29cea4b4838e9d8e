// The internal routes over HTTP (spec, Public and special routes; Limits > security intents; docs/internal-routes.md): each
// route's shared secret (missing, wrong, another route's, an access token), closure when the secret is unset, the order
// secret → bounded body → validation, strict bodies, the 8 KiB bounded reader of security intents (chunked without
// Content-Length, declared too large, lying Content-Length), what the proxy reports are stored as, and the description.
// The recovery endpoint's state machine is in recovery.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { bearer, startReference, startReferenceOnFile, type Harness } from '../helpers/reference.js';
import { expectNoStore, expectProblem } from '../../conformance/lib/assert.js';
import type { Db } from '../../reference/src/db/open.js';
import { checkSharedSecret, presentedSecret, secretsEqual } from '../../reference/src/auth/shared-secret.js';
import { INTERNAL_ROUTES } from '../../reference/src/routes/internal.js';
import { describeService } from '../../reference/src/app.js';
import { findSecurityIntent, getAgentAuthorization, getAssistantSession, getConnectedAgent } from '../../reference/src/store/internal.js';

type Res = Awaited<ReturnType<Harness['call']>>;
type SecretName = 'idpActionSecret' | 'proxyIdpSecret' | 'conversationHubSecret' | 'accountRecoverySecret';

interface RouteCase {
  path: string;
  secret: SecretName;
  carrier: 'bearer' | 'x-proxy-idp-secret';
  /** A valid body (the reference's shapes). */
  body: () => Record<string, unknown>;
  /** The answer to a valid request with the right secret. */
  ok: number[];
}

let n = 0;
const fresh = (p: string) => `${p}_${process.pid}_${++n}`;

const ROUTES: RouteCase[] = [
  {
    path: '/internal/account/security-intents',
    secret: 'idpActionSecret',
    carrier: 'bearer',
    body: () => ({ intent_id: fresh('int'), subject: 'cust_ada', kind: 'email_change' }),
    ok: [202],
  },
  {
    path: '/internal/assistant/sessions/signed-out',
    secret: 'proxyIdpSecret',
    carrier: 'x-proxy-idp-secret',
    body: () => ({ session_id: fresh('sess'), client_id: 'agent-client', scopes: [] }),
    ok: [201],
  },
  {
    path: '/internal/assistant/agents/connected',
    secret: 'proxyIdpSecret',
    carrier: 'x-proxy-idp-secret',
    body: () => ({ subject: fresh('cust'), agent_id: 'agent-1', client_id: 'agent-client', permissions: ['assistant:read'] }),
    ok: [201],
  },
  {
    path: '/internal/agent-authorization',
    secret: 'proxyIdpSecret',
    carrier: 'x-proxy-idp-secret',
    body: () => ({ subject: fresh('cust'), agent_id: 'agent-1', permissions: ['assistant:read'], decision: 'granted' }),
    ok: [200],
  },
  {
    path: '/internal/conversations/conv_1/turn',
    secret: 'conversationHubSecret',
    carrier: 'bearer',
    body: () => ({ turn_id: fresh('turn'), author: 'agent', text: 'Hello' }),
    ok: [404],
  },
  {
    path: '/internal/conversations/conv_1/handoff-timeout',
    secret: 'conversationHubSecret',
    carrier: 'bearer',
    body: () => ({ handoff_id: fresh('ho'), timed_out_at: '2030-01-01T00:00:00Z' }),
    ok: [404],
  },
  {
    path: '/internal/account/recover',
    secret: 'accountRecoverySecret',
    carrier: 'bearer',
    body: () => ({ subject: 'cust_nobody', operationId: fresh('recop'), purpose: 'email' }),
    ok: [404],
  },
];

const SECRET_NAMES: SecretName[] = ['idpActionSecret', 'proxyIdpSecret', 'conversationHubSecret', 'accountRecoverySecret'];

function credential(
  h: Harness,
  r: RouteCase,
  value: string | undefined = h.profile.secrets[r.secret] ?? undefined,
): Record<string, string> {
  if (value === undefined) return {};
  return r.carrier === 'bearer' ? { authorization: `Bearer ${value}` } : { 'x-proxy-idp-secret': value };
}

function expectInvalidCredentials(h: Harness, res: Res, r: RouteCase, what: string): void {
  expectProblem(res, { status: 401, error: 'invalid_credentials', docsUrl: h.profile.docsUrl });
  expectNoStore(res);
  if (r.carrier === 'bearer') {
    assert.equal(res.headers.get('www-authenticate'), 'Bearer error="invalid_token"', `${r.path} ${what}: Bearer challenge`);
  } else {
    assert.equal(
      res.headers.get('www-authenticate'),
      'X-Proxy-Idp-Secret realm="internal"',
      `${r.path} ${what}: every 401 carries a challenge`,
    );
  }
}

function issuePaths(res: Res): string[] {
  return ((res.body?.issues ?? []) as { path: string }[]).map((i) => i.path);
}

// ------------------------------------------------------------------------------------------------------- shared secrets

describe('shared-secret comparison', () => {
  test('secretsEqual compares whole values, whatever their lengths', () => {
    assert.equal(secretsEqual('abcdefghijklmnop', 'abcdefghijklmnop'), true);
    assert.equal(secretsEqual('abcdefghijklmnoq', 'abcdefghijklmnop'), false);
    assert.equal(secretsEqual('abcdefghijklmno', 'abcdefghijklmnop'), false);
    assert.equal(secretsEqual('', 'abcdefghijklmnop'), false);
    assert.equal(secretsEqual('abcdefghijklmnop' + 'x'.repeat(5000), 'abcdefghijklmnop'), false);
  });

  test('presentedSecret reads Bearer (scheme case-insensitive) or the named header, nothing else', () => {
    const get = (headers: Record<string, string>) => (name: string) => headers[name.toLowerCase()];
    assert.equal(presentedSecret({ kind: 'bearer' }, get({ authorization: 'Bearer s3cret' })), 's3cret');
    assert.equal(presentedSecret({ kind: 'bearer' }, get({ authorization: 'bearer s3cret' })), 's3cret');
    assert.equal(presentedSecret({ kind: 'bearer' }, get({ authorization: 'Basic s3cret' })), undefined);
    assert.equal(presentedSecret({ kind: 'bearer' }, get({ authorization: 'Bearer' })), undefined);
    assert.equal(presentedSecret({ kind: 'bearer' }, get({ authorization: 'Bearer a b' })), undefined);
    assert.equal(presentedSecret({ kind: 'bearer' }, get({ 'x-proxy-idp-secret': 's3cret' })), undefined);
    assert.equal(presentedSecret({ kind: 'header', name: 'X-Proxy-Idp-Secret' }, get({ 'x-proxy-idp-secret': 's3cret' })), 's3cret');
    assert.equal(presentedSecret({ kind: 'header', name: 'X-Proxy-Idp-Secret' }, get({ authorization: 'Bearer s3cret' })), undefined);
    assert.equal(presentedSecret({ kind: 'header', name: 'X-Proxy-Idp-Secret' }, get({ 'x-proxy-idp-secret': '' })), undefined);
  });

  test('checkSharedSecret: not_configured, missing, wrong, ok', () => {
    const get = (v?: string) => (name: string) => (name === 'authorization' ? v : undefined);
    assert.equal(checkSharedSecret(null, { kind: 'bearer' }, get('Bearer x')), 'not_configured');
    assert.equal(checkSharedSecret('0123456789abcdef', { kind: 'bearer' }, get()), 'missing');
    assert.equal(checkSharedSecret('0123456789abcdef', { kind: 'bearer' }, get('Bearer 0123456789abcdeF')), 'wrong');
    assert.equal(checkSharedSecret('0123456789abcdef', { kind: 'bearer' }, get('Bearer 0123456789abcdef')), 'ok');
  });
});

// --------------------------------------------------------------------------------------------------------- HTTP, routes

describe('internal routes over HTTP', () => {
  let h: Harness;
  let db: Db;
  let onFile: Awaited<ReturnType<typeof startReferenceOnFile>>;
  before(async () => {
    onFile = await startReferenceOnFile('shop-internal-');
    ({ h, db } = onFile);
  });
  after(() => onFile.close());

  const post = (r: RouteCase, headers: Record<string, string>, json?: unknown) =>
    h.call(r.path, { method: 'POST', headers, json: json === undefined ? r.body() : json });

  test('with its own secret, every route accepts a valid body', async () => {
    for (const r of ROUTES) {
      const res = await post(r, credential(h, r));
      assert.ok(r.ok.includes(res.status), `${r.path}: ${res.status} ${res.text}`);
      assert.ok(res.headers.get('x-request-id'), `${r.path}: X-Request-Id`);
    }
  });

  test('a missing or wrong secret is 401 invalid_credentials; bearer routes carry Bearer error="invalid_token", header routes no challenge', async () => {
    for (const r of ROUTES) {
      const own = h.profile.secrets[r.secret]!;
      const cases: [string, Record<string, string>][] = [
        ['no credential', {}],
        ['a wrong secret', credential(h, r, own.slice(0, -1) + (own.endsWith('A') ? 'B' : 'A'))],
        ['the secret with a suffix', credential(h, r, own + 'x')],
        ['a prefix of the secret', credential(h, r, own.slice(0, 8))],
        ['an empty header', r.carrier === 'bearer' ? { authorization: '' } : { 'x-proxy-idp-secret': '' }],
        ['another scheme', r.carrier === 'bearer' ? { authorization: `Basic ${own}` } : { 'x-proxy-idp-secret': `Bearer ${own}` }],
        ['the secret in the other carrier', r.carrier === 'bearer' ? { 'x-proxy-idp-secret': own } : { authorization: `Bearer ${own}` }],
      ];
      for (const [what, headers] of cases) expectInvalidCredentials(h, await post(r, headers), r, what);
    }
  });

  test("another route's secret, a profile key or an access token is refused with 401", async () => {
    const tokens = { customer: await h.minter.customer({ sub: 'cust_ada' }), operator: await h.minter.operator() };
    for (const r of ROUTES) {
      const others = SECRET_NAMES.filter((s) => h.profile.secrets[s] !== h.profile.secrets[r.secret]).map((s) => h.profile.secrets[s]!);
      others.push(h.profile.secrets.guestSessionKey, h.profile.secrets.webSessionContextKey);
      for (const other of others) expectInvalidCredentials(h, await post(r, credential(h, r, other)), r, 'another secret');
      for (const [kind, token] of Object.entries(tokens)) {
        expectInvalidCredentials(
          h,
          await post(r, { ...bearer(token), ...(kind === 'operator' ? { operator: 'op_1' } : {}) }),
          r,
          `a ${kind} token`,
        );
      }
    }
  });

  test('the secret is checked before the body is read: a bad credential with a malformed, oversized or non-JSON body is 401', async () => {
    for (const r of ROUTES) {
      expectInvalidCredentials(
        h,
        await h.call(r.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"broken":' }),
        r,
        'malformed body',
      );
      expectInvalidCredentials(
        h,
        await h.call(r.path, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' }),
        r,
        'text body',
      );
      expectInvalidCredentials(
        h,
        await h.call(r.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: ' '.repeat(300 * 1024) }),
        r,
        'oversized body',
      );
    }
  });

  test('after the secret: 415 without a JSON type, 400 invalid_json for malformed JSON, 400 invalid_request without a body', async () => {
    for (const r of ROUTES) {
      const auth = credential(h, r);
      expectProblem(
        await h.call(r.path, { method: 'POST', headers: { ...auth, 'content-type': 'text/plain' }, body: JSON.stringify(r.body()) }),
        { status: 415, error: 'unsupported_media_type', docsUrl: h.profile.docsUrl },
      );
      expectProblem(
        await h.call(r.path, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json; charset=latin1' },
          body: JSON.stringify(r.body()),
        }),
        { status: 415, error: 'unsupported_media_type', docsUrl: h.profile.docsUrl },
      );
      expectProblem(await h.call(r.path, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"a":' }), {
        status: 400,
        error: 'invalid_json',
        docsUrl: h.profile.docsUrl,
      });
      expectProblem(await h.call(r.path, { method: 'POST', headers: auth }), {
        status: 400,
        error: 'invalid_request',
        docsUrl: h.profile.docsUrl,
      });
      for (const body of [[], 'text', 42, null]) {
        expectProblem(await post(r, auth, body), { status: 400, error: 'invalid_request', docsUrl: h.profile.docsUrl });
      }
    }
  });

  test('strict bodies: an unknown member, a bad enum value, a missing or too long member is 400 invalid_request', async () => {
    const cases: Record<string, [string, Record<string, unknown>][]> = {
      '/internal/account/security-intents': [
        ['extra', { extra: true }],
        ['kind', { kind: 'password_reset_magic' }],
        ['intent_id', { intent_id: 'x'.repeat(129) }],
        ['intent_id', { intent_id: 'has space' }],
        ['subject', { subject: '' }],
        ['subject', { subject: 's'.repeat(257) }],
        ['occurred_at', { occurred_at: 'yesterday' }],
        ['details', { details: { nested: { a: 1 } } }],
      ],
      '/internal/assistant/sessions/signed-out': [
        ['extra', { subject: 'cust_ada' }],
        ['scopes', { scopes: 'assistant:read' }],
        ['scopes', { scopes: ['has space'] }],
        ['scopes', { scopes: Array.from({ length: 33 }, (_, i) => `s${i}`) }],
        ['session_id', { session_id: '' }],
        ['client_id', { client_id: 'c'.repeat(257) }],
      ],
      '/internal/assistant/agents/connected': [
        ['extra', { decision: 'granted' }],
        ['permissions', { permissions: [1] }],
        ['agent_id', { agent_id: 'a'.repeat(129) }],
        ['subject', { subject: '' }],
      ],
      '/internal/agent-authorization': [
        ['extra', { client_id: 'x' }],
        ['decision', { decision: 'maybe' }],
        ['permissions', { permissions: null }],
      ],
      '/internal/conversations/conv_1/turn': [
        ['extra', { html: '<b>' }],
        ['author', { author: 'customer' }],
        ['text', { text: '' }],
        ['text', { text: 't'.repeat(8001) }],
      ],
      '/internal/conversations/conv_1/handoff-timeout': [
        ['extra', { reason: 'x' }],
        ['timed_out_at', { timed_out_at: 'soon' }],
        ['handoff_id', { handoff_id: '' }],
      ],
      '/internal/account/recover': [
        ['extra', { email: 'new@example.com' }],
        ['purpose', { purpose: 'EMAIL' }],
        ['subject', { subject: 's'.repeat(257) }],
        ['operationId', { operationId: '' }],
      ],
    };
    for (const r of ROUTES) {
      for (const [field, patch] of cases[r.path]!) {
        const res = await post(r, credential(h, r), { ...r.body(), ...patch });
        expectProblem(res, { status: 400, error: 'invalid_request', docsUrl: h.profile.docsUrl });
        assert.equal(res.headers.get('www-authenticate'), null);
        const paths = issuePaths(res);
        assert.ok(
          paths.some((p) => p === 'body' || p.startsWith(`body.${field === 'extra' ? '' : field}`)),
          `${r.path} ${field}: issues ${JSON.stringify(res.body.issues)}`,
        );
      }
      const missing = Object.keys(r.body())[0]!;
      const { [missing]: _dropped, ...rest } = r.body();
      expectProblem(await post(r, credential(h, r), rest), { status: 400, error: 'invalid_request', docsUrl: h.profile.docsUrl });
    }
  });

  test('conversation routes: a malformed conversation id is 400, a valid request for an unknown conversation 404 not_found', async () => {
    const auth = bearer(h.profile.secrets.conversationHubSecret!);
    for (const tail of ['turn', 'handoff-timeout']) {
      const body =
        tail === 'turn' ? { turn_id: 't1', author: 'agent', text: 'hi' } : { handoff_id: 'h1', timed_out_at: '2030-01-01T00:00:00+01:00' };
      const bad = await h.call(`/internal/conversations/${'x'.repeat(129)}/${tail}`, { method: 'POST', headers: auth, json: body });
      expectProblem(bad, { status: 400, error: 'invalid_request', docsUrl: h.profile.docsUrl });
      assert.deepEqual(issuePaths(bad), ['params.id']);
      expectProblem(await h.call(`/internal/conversations/conv_${n++}/${tail}`, { method: 'POST', headers: auth, json: body }), {
        status: 404,
        error: 'not_found',
        docsUrl: h.profile.docsUrl,
      });
    }
  });

  test('only POST: another method is 405 with Allow: POST; no case-folded or trailing-slash twin', async () => {
    for (const r of ROUTES) {
      for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
        const res = await h.call(r.path, { method, headers: credential(h, r) });
        expectProblem(res, { status: 405, error: 'method_not_allowed', docsUrl: h.profile.docsUrl });
        assert.equal(res.headers.get('allow'), 'POST');
      }
      expectProblem(await post({ ...r, path: r.path + '/' }, credential(h, r)), {
        status: 404,
        error: 'not_found',
        docsUrl: h.profile.docsUrl,
      });
      expectProblem(await post({ ...r, path: r.path.toUpperCase() }, credential(h, r)), {
        status: 404,
        error: 'not_found',
        docsUrl: h.profile.docsUrl,
      });
    }
  });

  test('security intents are recorded once per intent_id: 202 recorded, then 200 duplicate (the first recording wins)', async () => {
    const r = ROUTES[0]!;
    const body = {
      intent_id: fresh('int'),
      subject: 'cust_ben',
      kind: 'account_deletion',
      occurred_at: '2030-01-01T10:00:00Z',
      details: { channel: 'email', attempt: 1, verified: true },
    };
    const first = await post(r, credential(h, r), body);
    assert.equal(first.status, 202, first.text);
    assert.deepEqual({ ...first.body, received_at: undefined }, { intent_id: body.intent_id, status: 'recorded', received_at: undefined });
    const again = await post(r, credential(h, r), { ...body, kind: 'email_change' });
    assert.equal(again.status, 200);
    assert.equal(again.body.status, 'duplicate');
    assert.equal(again.body.received_at, first.body.received_at);
    const stored = findSecurityIntent(db, body.intent_id);
    assert.equal(stored?.kind, 'account_deletion');
    assert.deepEqual(stored?.payload, body);
  });

  test('proxy reports: a signed-out session, a connected agent signing a session in, grants and revocations', async () => {
    const proxy = { 'x-proxy-idp-secret': h.profile.secrets.proxyIdpSecret! };
    const session = fresh('sess');
    const subject = fresh('cust');
    const created = await h.call('/internal/assistant/sessions/signed-out', {
      method: 'POST',
      headers: proxy,
      json: { session_id: session, client_id: 'agent-client', scopes: ['catalog:read'] },
    });
    assert.equal(created.status, 201);
    assert.deepEqual(created.body, { session_id: session, state: 'signed_out', scopes: ['catalog:read'] });
    const again = await h.call('/internal/assistant/sessions/signed-out', {
      method: 'POST',
      headers: proxy,
      json: { session_id: session, client_id: 'agent-client', scopes: [] },
    });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body.scopes, []);

    const connected = await h.call('/internal/assistant/agents/connected', {
      method: 'POST',
      headers: proxy,
      json: {
        subject,
        agent_id: 'agent-7',
        client_id: 'agent-client',
        permissions: ['assistant:read', 'checkout', 'assistant:read'],
        session_id: session,
      },
    });
    assert.equal(connected.status, 201, connected.text);
    assert.deepEqual(connected.body, {
      subject,
      agent_id: 'agent-7',
      permissions: ['assistant:read', 'checkout'],
      decision: 'granted',
      session_id: session,
    });
    assert.deepEqual(getConnectedAgent(db, subject, 'agent-7')?.permissions, ['assistant:read', 'checkout']);
    let s = getAssistantSession(db, session)!;
    assert.deepEqual([s.state, s.subject, s.agent_id, s.scopes], ['signed_in', subject, 'agent-7', ['assistant:read', 'checkout']]);
    assert.equal(
      (
        await h.call('/internal/assistant/agents/connected', {
          method: 'POST',
          headers: proxy,
          json: { subject, agent_id: 'agent-7', client_id: 'agent-client', permissions: ['assistant:read'] },
        })
      ).status,
      200,
    );

    const narrowed = await h.call('/internal/agent-authorization', {
      method: 'POST',
      headers: proxy,
      json: { subject, agent_id: 'agent-7', permissions: ['assistant:read'], decision: 'granted' },
    });
    assert.equal(narrowed.status, 200);
    assert.deepEqual(narrowed.body, { subject, agent_id: 'agent-7', permissions: ['assistant:read'], decision: 'granted' });
    assert.deepEqual(getAssistantSession(db, session)!.scopes, ['assistant:read']);

    const revoked = await h.call('/internal/agent-authorization', {
      method: 'POST',
      headers: proxy,
      json: { subject, agent_id: 'agent-7', permissions: ['assistant:read'], decision: 'revoked' },
    });
    assert.deepEqual(revoked.body, { subject, agent_id: 'agent-7', permissions: [], decision: 'revoked' });
    s = getAssistantSession(db, session)!;
    assert.deepEqual([s.state, s.subject, s.scopes], ['signed_out', null, []]);
    assert.equal(getAgentAuthorization(db, subject, 'agent-7')?.decision, 'revoked');
  });

  test('the description: every internal route with its security scheme and strict request bodies', () => {
    const general = describeService('general', 'https://docs.example') as { paths: Record<string, any>; components: any };
    const internalPaths = Object.fromEntries(Object.entries(general.paths).filter(([p]) => p.startsWith('/internal/')));
    const internalSecuritySchemes = general.components.securitySchemes as Record<string, unknown>;
    assert.deepEqual(Object.keys(internalPaths).sort(), INTERNAL_ROUTES.map((r) => r.row.path).sort());
    for (const r of INTERNAL_ROUTES) {
      const op = (internalPaths[r.row.path] as { post: Record<string, any> }).post;
      assert.equal(op.operationId, r.row.operationId);
      const [scheme] = Object.keys(op.security[0]);
      assert.ok(scheme && internalSecuritySchemes[scheme], `${r.row.path}: scheme ${scheme}`);
      assert.equal(op.requestBody.content['application/json'].schema.additionalProperties, false, r.row.path);
      assert.ok(op.responses['401'] && op.responses['404'] && op.responses['400'] && op.responses['413'], r.row.path);
    }
    const recover = (internalPaths['/internal/account/recover'] as { post: Record<string, any> }).post;
    const props = recover.requestBody.content['application/json'].schema.properties;
    assert.deepEqual(
      [props.subject.minLength, props.subject.maxLength, props.operationId.minLength, props.operationId.maxLength],
      [1, 256, 1, 128],
    );
    assert.deepEqual(props.purpose.enum, ['email', 'delete']);
    assert.deepEqual(Object.keys(recover.responses).sort(), ['200', '400', '401', '404', '409', '413', '415', '500']);
    assert.deepEqual(internalSecuritySchemes.proxyIdpSecret, {
      type: 'apiKey',
      in: 'header',
      name: 'X-Proxy-Idp-Secret',
      description: 'The shared secret PROXY_IDP_SECRET.',
    });
    const turn = (internalPaths['/internal/conversations/{id}/turn'] as { post: Record<string, any> }).post;
    assert.equal(turn.parameters[0].name, 'id');
    assert.equal(turn.parameters[0].in, 'path');
  });
});

// ----------------------------------------------------------------------------------------------------------- closure

describe('internal routes whose secret is not configured', () => {
  let h: Harness;
  before(
    async () =>
      (h = await startReference({
        overrides: { idpActionSecret: null, proxyIdpSecret: null, conversationHubSecret: null, accountRecoverySecret: null },
      })),
  );
  after(() => h.close());

  test('every route is closed: 404 not_configured, whatever credential is sent', async () => {
    for (const r of ROUTES) {
      for (const headers of [{}, credential(h, r), bearer(await h.minter.customer({ sub: 'cust_ada' }))]) {
        const res = await h.call(r.path, { method: 'POST', headers, json: r.body() });
        expectProblem(res, { status: 404, error: 'not_configured', docsUrl: h.profile.docsUrl });
        assert.equal(res.headers.get('www-authenticate'), null);
      }
    }
  });

  test('only the unset secret closes its routes', async () => {
    const partial = await startReference({ overrides: { accountRecoverySecret: null } });
    try {
      for (const r of ROUTES) {
        const res = await partial.call(r.path, { method: 'POST', headers: credential(partial, r), json: r.body() });
        if (r.secret === 'accountRecoverySecret')
          expectProblem(res, { status: 404, error: 'not_configured', docsUrl: partial.profile.docsUrl });
        else assert.ok(r.ok.includes(res.status), `${r.path}: ${res.status}`);
      }
    } finally {
      await partial.close();
    }
  });
});

// ------------------------------------------------------------------------------------------------ the bounded reader

describe('the 8 KiB bounded reader of POST /internal/account/security-intents', () => {
  let h: Harness;
  before(async () => (h = await startReference()));
  after(() => h.close());

  const LIMIT = 8 * 1024;

  /** A valid intent padded with JSON whitespace to exactly `size` bytes. */
  const padded = (size: number) => {
    const json = JSON.stringify({ intent_id: fresh('int'), subject: 'cust_ada', kind: 'email_change' });
    return Buffer.from(json.slice(0, -1) + ' '.repeat(size - json.length) + '}');
  };

  interface RawAnswer {
    status: number;
    headers: http.IncomingHttpHeaders;
    body: any;
    /** Bytes of the body the client had handed to the socket when the answer arrived. */
    sentBeforeAnswer: number;
  }

  /** POSTs with Transfer-Encoding: chunked (no Content-Length), chunk by chunk; `hold` keeps the request open after them. */
  function chunked(chunks: Buffer[], o: { hold?: boolean; headers?: Record<string, string> } = {}): Promise<RawAnswer> {
    const u = new URL(h.url);
    return new Promise((resolve, reject) => {
      let sent = 0;
      const req = http.request({
        host: u.hostname,
        port: u.port,
        method: 'POST',
        path: '/internal/account/security-intents',
        headers: { authorization: `Bearer ${h.profile.secrets.idpActionSecret}`, 'content-type': 'application/json', ...o.headers },
      });
      // Writes after an early answer may fail (the server closed the connection): the answer is what is judged.
      req.on('error', () => undefined);
      req.on('response', (res) => {
        const at = sent;
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => {
          resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined, sentBeforeAnswer: at });
          req.destroy();
        });
      });
      void (async () => {
        for (const c of chunks) {
          if (req.destroyed) return;
          req.write(c);
          sent += c.length;
          await new Promise((r) => setImmediate(r));
        }
        if (!o.hold) req.end();
      })();
      setTimeout(() => reject(new Error('no answer within 5 s')), 5000).unref();
    });
  }

  /** Writes raw bytes and reads every response on the connection: `count` of them, or those before the server closes. */
  function raw(bytes: Buffer, o: { count?: number; hold?: boolean } = {}): Promise<{ status: number; text: string }[]> {
    const u = new URL(h.url);
    return new Promise((resolve, reject) => {
      const socket = net.connect(Number(u.port), u.hostname);
      let data = '';
      const answers: { status: number; text: string }[] = [];
      const parse = () => {
        for (;;) {
          const m = /^HTTP\/1\.1 (\d{3})[^\r]*\r\n([\s\S]*?)\r\n\r\n/.exec(data);
          if (!m) return;
          const length = Number(/content-length: *(\d+)/i.exec(m[2]!)?.[1] ?? 0);
          if (data.length - m[0].length < length) return;
          answers.push({ status: Number(m[1]), text: data.slice(m[0].length, m[0].length + length) });
          data = data.slice(m[0].length + length);
        }
      };
      socket.on('data', (d) => {
        data += d.toString('latin1');
        parse();
        if (o.count !== undefined && answers.length >= o.count) {
          socket.destroy();
          resolve(answers);
        }
      });
      socket.on('close', () => resolve(answers));
      socket.on('error', reject);
      socket.write(bytes);
      if (!o.hold) socket.end();
      setTimeout(() => reject(new Error('no answer within 5 s')), 5000).unref();
    });
  }

  const head = (lines: string[]) =>
    Buffer.from(
      [
        'POST /internal/account/security-intents HTTP/1.1',
        'Host: x',
        `Authorization: Bearer ${h.profile.secrets.idpActionSecret}`,
        'Content-Type: application/json',
        ...lines,
        '',
        '',
      ].join('\r\n'),
    );

  test('chunked without Content-Length: exactly 8 KiB is read and recorded', async () => {
    const body = padded(LIMIT);
    const res = await chunked([body.subarray(0, 5000), body.subarray(5000)]);
    assert.equal(res.status, 202, JSON.stringify(res.body));
  });

  test('chunked without Content-Length: 8 KiB + 1 byte is 413 payload_too_large, answered without waiting for the end', async () => {
    const body = padded(LIMIT + 1);
    const res = await chunked([body.subarray(0, 4096), body.subarray(4096, LIMIT), body.subarray(LIMIT)], { hold: true });
    assert.equal(res.status, 413);
    assert.equal(res.body.error, 'payload_too_large');
    assert.equal(res.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.notEqual(res.headers.connection, 'close', 'the rest of the body is discarded, not left unread (reference/src/drain.ts)');
    assert.equal(res.body.instance, res.headers['x-request-id']);
  });

  test('chunked without Content-Length: a long stream is cut at the limit, not read to its end', async () => {
    const res = await chunked(Array.from({ length: 4096 }, () => Buffer.alloc(1024, 0x20)));
    assert.equal(res.status, 413);
    assert.ok(res.sentBeforeAnswer < 4096 * 1024, `answered after ${res.sentBeforeAnswer} bytes of 4 MiB`);
  });

  test('a declared Content-Length over 8 KiB is 413 before any of the body is read', async () => {
    const [res] = await raw(Buffer.concat([head([`Content-Length: ${LIMIT + 1}`]), Buffer.from('{')]), { count: 1, hold: true });
    assert.equal(res?.status, 413);
    assert.equal(JSON.parse(res!.text).error, 'payload_too_large');
  });

  test('a lying Content-Length cannot stretch the read: bytes beyond the declared length are never body', async () => {
    // Declares the length of a valid intent and sends more: the surplus (here a whole second request) is not read as body.
    const body = padded(200);
    const surplus = Buffer.from('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    const answers = await raw(Buffer.concat([head([`Content-Length: ${body.length}`]), body, surplus]));
    assert.deepEqual(
      answers.map((a) => a.status),
      [202, 200],
    );
  });

  test('Content-Length together with chunked Transfer-Encoding is refused, the body never accepted', async () => {
    const chunk = padded(9 * 1024);
    const chunkedBody = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n0\r\n\r\n')]);
    const answers = await raw(Buffer.concat([head(['Content-Length: 20', 'Transfer-Encoding: chunked']), chunkedBody]));
    assert.ok(answers.length >= 1);
    assert.equal(answers[0]!.status, 400);
    assert.ok(
      answers.every((a) => a.status >= 400),
      JSON.stringify(answers.map((a) => a.status)),
    );
  });

  test('other internal routes keep the general 256 KiB cap (conversation routes 64 KiB)', async () => {
    const proxy = { 'x-proxy-idp-secret': h.profile.secrets.proxyIdpSecret!, 'content-type': 'application/json' };
    const body = (size: number) => {
      const json = JSON.stringify({ session_id: fresh('sess'), client_id: 'c', scopes: [] });
      return json.slice(0, -1) + ' '.repeat(size - json.length) + '}';
    };
    assert.equal(
      (await h.call('/internal/assistant/sessions/signed-out', { method: 'POST', headers: proxy, body: body(100 * 1024) })).status,
      201,
    );
    expectProblem(await h.call('/internal/assistant/sessions/signed-out', { method: 'POST', headers: proxy, body: body(256 * 1024 + 1) }), {
      status: 413,
      error: 'payload_too_large',
      docsUrl: h.profile.docsUrl,
    });
    const hub = { ...bearer(h.profile.secrets.conversationHubSecret!), 'content-type': 'application/json' };
    expectProblem(await h.call('/internal/conversations/c1/turn', { method: 'POST', headers: hub, body: ' '.repeat(64 * 1024 + 1) }), {
      status: 413,
      error: 'payload_too_large',
      docsUrl: h.profile.docsUrl,
    });
  });
});
