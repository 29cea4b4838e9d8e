// Vector tables for the pure parts of the reference: challenge scheme, challenge headers, guest sessions, caller
// classification, traceparent, Shopper-IP normalisation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { chooseScheme, formatChallenge, parseAuthorization } from '../../reference/src/auth/challenge.js';
import { verifyGuestSession } from '../../reference/src/auth/guest-session.js';
import { actChain, classifyCaller, type Clients } from '../../reference/src/auth/classify.js';
import { translateScopes } from '../../reference/src/auth/scopes.js';
import { isValidTraceparent } from '../../reference/src/pipeline/01-request.js';
import { normaliseShopperIp } from '../../reference/src/pipeline/07-rate-limit.js';
import { ProblemError } from '../../reference/src/problem.js';
import { OPERATIONS_BY_ID } from '../../contract/operations.js';

const seg = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
const jwt = (header: object, payload: object) => `${seg(header)}.${seg(payload)}.c2ln`;

test('chooseScheme: from the request alone (spec, Challenge scheme)', () => {
  const vectors: { d: string; path: string; auth?: string; want: 'Bearer' | 'DPoP' }[] = [
    { d: 'no header', path: '/v1/cart', want: 'Bearer' },
    { d: 'conversation path, no header', path: '/assistant/conversations', want: 'DPoP' },
    { d: 'conversation sub-path', path: '/assistant/conversations/c1/messages', auth: 'Bearer abc', want: 'DPoP' },
    { d: 'prefix lookalike is not a conversation path', path: '/assistant/conversationsX', want: 'Bearer' },
    { d: 'DPoP scheme', path: '/v1/cart', auth: 'DPoP abc.def.ghi', want: 'DPoP' },
    { d: 'DPoP scheme, any case', path: '/v1/cart', auth: 'dpop abc', want: 'DPoP' },
    { d: 'plain bearer token', path: '/v1/cart', auth: `Bearer ${jwt({ typ: 'at+jwt' }, { sub: 'u' })}`, want: 'Bearer' },
    {
      d: 'bearer with personal_agent act',
      path: '/v1/cart',
      auth: `Bearer ${jwt({ typ: 'at+jwt' }, { act: { sub: 'personal_agent' } })}`,
      want: 'DPoP',
    },
    { d: 'bearer with signed-out proxy typ', path: '/v1/cart', auth: `Bearer ${jwt({ typ: 'signed-out-proxy+jwt' }, {})}`, want: 'DPoP' },
    {
      d: 'cnf.jkt alone is no assistant marker',
      path: '/v1/cart',
      auth: `Bearer ${jwt({ typ: 'at+jwt' }, { cnf: { jkt: 'x' } })}`,
      want: 'Bearer',
    },
    {
      d: 'delegated act is not an assistant mark',
      path: '/v1/cart',
      auth: `Bearer ${jwt({}, { act: { sub: 'agent-protocol' } })}`,
      want: 'Bearer',
    },
    { d: 'garbage token', path: '/v1/cart', auth: 'Bearer %%%', want: 'Bearer' },
    { d: 'undecodable segments', path: '/v1/cart', auth: 'Bearer a.b.c', want: 'Bearer' },
    { d: 'unknown scheme', path: '/v1/cart', auth: 'Basic dXNlcjpwYXNz', want: 'Bearer' },
  ];
  for (const v of vectors) assert.equal(chooseScheme(v.path, v.auth), v.want, v.d);
});

test('parseAuthorization', () => {
  assert.deepEqual(parseAuthorization('Bearer abc.def-_~+/='), { scheme: 'Bearer', credential: 'abc.def-_~+/=' });
  for (const bad of ['Bearer', 'Bearer ', 'Bearer a b', ' Bearer a', 'Bearer "a"', ''])
    assert.equal(parseAuthorization(bad), undefined, bad);
});

test('formatChallenge: the spec rows of Errors', () => {
  assert.equal(
    formatChallenge({ kind: 'both', error: 'invalid_token' }, 'Bearer'),
    'Bearer error="invalid_token", DPoP error="invalid_token", algs="ES256"',
  );
  assert.equal(formatChallenge({ kind: 'chosen', error: 'invalid_token' }, 'DPoP'), 'DPoP error="invalid_token", algs="ES256"');
  assert.equal(formatChallenge({ kind: 'chosen', error: 'invalid_token' }, 'Bearer'), 'Bearer error="invalid_token"');
  assert.equal(formatChallenge({ kind: 'bearer', error: 'invalid_token' }, 'DPoP'), 'Bearer error="invalid_token"');
  assert.equal(formatChallenge({ kind: 'chosen', error: 'sign_in_required' }, 'DPoP'), 'DPoP error="sign_in_required", algs="ES256"');
});

test('verifyGuestSession: format, keys and the previous-key deadline', () => {
  const key = 'current-key-0123456789';
  const prev = 'previous-key-0123456789';
  const id = '0f8fad5b-d9cb-469f-a165-70867728950e';
  const sig = (k: string, m = id) => createHmac('sha256', Buffer.from(k, 'utf8')).update(m).digest('base64url');
  const until = new Date('2030-01-01T00:00:00Z');
  const keys = { current: key, previous: prev, previousUntil: until };
  const before = new Date('2029-12-31T23:59:59Z');
  const vectors: { d: string; value: string; now?: Date; want: string }[] = [
    { d: 'current key', value: `gs1.${id}.${sig(key)}`, want: 'ok:current' },
    { d: 'previous key before the deadline', value: `gs1.${id}.${sig(prev)}`, now: before, want: 'ok:previous' },
    { d: 'previous key at the deadline', value: `gs1.${id}.${sig(prev)}`, now: until, want: 'expired_key' },
    { d: 'other key', value: `gs1.${id}.${sig('another-key-0123456789')}`, want: 'bad_signature' },
    { d: 'signature of another id', value: `gs1.${id}.${sig(key, '11111111-1111-4111-8111-111111111111')}`, want: 'bad_signature' },
    { d: 'uppercase uuid', value: `gs1.${id.toUpperCase()}.${sig(key, id.toUpperCase())}`, want: 'malformed' },
    { d: 'wrong prefix', value: `gs2.${id}.${sig(key)}`, want: 'malformed' },
    { d: 'padded signature', value: `gs1.${id}.${sig(key)}=`, want: 'malformed' },
    { d: 'short signature', value: `gs1.${id}.${sig(key).slice(1)}`, want: 'malformed' },
    { d: 'missing part', value: `gs1.${id}`, want: 'malformed' },
    { d: 'empty', value: '', want: 'malformed' },
    { d: 'trailing newline', value: `gs1.${id}.${sig(key)}\n`, want: 'malformed' },
  ];
  for (const v of vectors) {
    const r = verifyGuestSession(v.value, keys, v.now ?? before);
    assert.equal(r.ok ? `ok:${r.key}` : r.reason, v.want, v.d);
    if (r.ok) assert.equal(r.cartId, id);
  }
  assert.equal(verifyGuestSession(`gs1.${id}.${sig(prev)}`, { current: key, previous: null, previousUntil: null }, before).ok, false);
});

const clients: Clients = {
  websiteClientId: 'web',
  storefrontClientId: 'store',
  backofficeClientId: 'back',
  agentProtocolClientId: 'mcp-server',
  webAgentForwarderClientId: 'wfwd',
  mcpAgentForwarderClientId: 'mfwd',
  personalAgentProxyClientId: 'proxy',
  apiAudience: 'api',
  agentAudience: 'agents',
};

test('classifyCaller: the caller-kind table and every other combination refused', () => {
  const none = { invitedAgentContext: false, assistantSubject: false };
  const ctx = { invitedAgentContext: true, assistantSubject: false };
  const subj = { invitedAgentContext: false, assistantSubject: true };
  const both = { invitedAgentContext: true, assistantSubject: true };
  type V = { d: string; clientId: string; sub: string; act?: unknown; aud?: string[]; art?: typeof none; want: string };
  const vectors: V[] = [
    { d: 'customer', clientId: 'web', sub: 'u1', want: 'customer' },
    { d: 'customer needs the API audience', clientId: 'web', sub: 'u1', aud: ['agents'], want: '401 invalid_token' },
    { d: 'website token with act is never a customer', clientId: 'web', sub: 'u1', act: { sub: 'mcp-server' }, want: '401 invalid_token' },
    { d: 'website machine token', clientId: 'web', sub: 'web@clients', want: '403 caller_not_allowed' },
    { d: 'delegated, api audience', clientId: 'mcp-server', sub: 'u1', act: { sub: 'mcp-server' }, want: 'delegated:openapi' },
    {
      d: 'delegated, agent audience',
      clientId: 'mcp-server',
      sub: 'u1',
      act: { sub: 'mcp-server' },
      aud: ['agents'],
      want: 'delegated:mcp',
    },
    {
      d: 'delegated with a nested chain',
      clientId: 'mcp-server',
      sub: 'u1',
      act: { sub: 'mcp-server', act: { sub: 'claude' } },
      want: 'delegated:openapi',
    },
    { d: 'delegated without act', clientId: 'mcp-server', sub: 'u1', want: '401 invalid_token' },
    {
      d: 'outermost actor not the agent client',
      clientId: 'mcp-server',
      sub: 'u1',
      act: { sub: 'claude', act: { sub: 'mcp-server' } },
      want: '401 invalid_token',
    },
    { d: 'malformed act', clientId: 'mcp-server', sub: 'u1', act: { sub: 42 }, want: '401 invalid_token' },
    { d: 'act as a string', clientId: 'mcp-server', sub: 'u1', act: 'mcp-server', want: '401 invalid_token' },
    { d: 'agent-protocol machine token', clientId: 'mcp-server', sub: 'mcp-server@clients', want: '403 caller_not_allowed' },
    { d: 'guest', clientId: 'store', sub: 'store@clients', want: 'guest' },
    { d: 'storefront with a user sub', clientId: 'store', sub: 'u1', want: '401 invalid_token' },
    { d: 'storefront machine token with act', clientId: 'store', sub: 'store@clients', act: { sub: 'x' }, want: '401 invalid_token' },
    { d: 'machine sub of another client', clientId: 'store', sub: 'back@clients', want: '401 invalid_token' },
    { d: 'operator', clientId: 'back', sub: 'back@clients', want: 'operator' },
    { d: 'backoffice with a user sub', clientId: 'back', sub: 'u1', want: '401 invalid_token' },
    { d: 'invited agent via web forwarder', clientId: 'wfwd', sub: 'wfwd@clients', art: ctx, want: 'invited-agent' },
    { d: 'web forwarder without artifact', clientId: 'wfwd', sub: 'wfwd@clients', art: none, want: '401 invalid_token' },
    { d: 'web forwarder with two artifacts', clientId: 'wfwd', sub: 'wfwd@clients', art: both, want: '401 invalid_token' },
    { d: 'mcp forwarder with Assistant-Subject', clientId: 'mfwd', sub: 'mfwd@clients', art: subj, want: 'assistant' },
    { d: 'mcp forwarder with an invited-agent context', clientId: 'mfwd', sub: 'mfwd@clients', art: ctx, want: '401 invalid_token' },
    { d: 'forwarder with a user sub', clientId: 'wfwd', sub: 'u1', art: ctx, want: '401 invalid_token' },
    { d: 'direct assistant token', clientId: 'proxy', sub: 'u1', act: { sub: 'personal_agent' }, want: 'assistant' },
    {
      d: 'proxy token with a two-level chain',
      clientId: 'proxy',
      sub: 'u1',
      act: { sub: 'personal_agent', act: { sub: 'x' } },
      want: '401 invalid_token',
    },
    { d: 'proxy token without act', clientId: 'proxy', sub: 'u1', want: '401 invalid_token' },
    { d: 'proxy machine token', clientId: 'proxy', sub: 'proxy@clients', want: '403 caller_not_allowed' },
    { d: 'unknown client', clientId: 'stranger', sub: 'u1', want: '401 invalid_token' },
    { d: 'unknown machine client', clientId: 'stranger', sub: 'stranger@clients', want: '401 invalid_token' },
  ];
  for (const v of vectors) {
    let got: string;
    try {
      const c = classifyCaller({ clientId: v.clientId, sub: v.sub, act: v.act, aud: v.aud ?? ['api'] }, clients, v.art ?? none);
      got = c.kind + (c.channel ? `:${c.channel}` : '');
    } catch (err) {
      assert.ok(err instanceof ProblemError, v.d);
      got = `${err.status} ${err.code}`;
    }
    assert.equal(got, v.want, v.d);
  }
});

test('actChain reads RFC 8693 chains outermost first', () => {
  assert.deepEqual(actChain({ sub: 'a', act: { sub: 'b', act: { sub: 'c' } } }), ['a', 'b', 'c']);
  assert.equal(actChain({ sub: '' }), undefined);
  assert.equal(actChain([{ sub: 'a' }]), undefined);
});

test('translateScopes: a fresh copy of the domain scopes only when every API scope is granted', () => {
  const op = OPERATIONS_BY_ID.get('getProfile')!;
  const granted = translateScopes(op, new Set(['account:read']));
  assert.deepEqual(granted, ['assistant:read']);
  assert.notEqual(granted, op.agentScopes);
  assert.deepEqual(translateScopes(op, new Set(['orders:read'])), []);
});

test('isValidTraceparent', () => {
  const ok = ['00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01', '01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra'];
  const bad = [
    '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra',
    'ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    '00-00000000000000000000000000000000-00f067aa0ba902b7-01',
    '00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01',
    '00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01',
    '00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01',
    'garbage',
    '',
  ];
  for (const v of ok) assert.equal(isValidTraceparent(v), true, v);
  for (const v of bad) assert.equal(isValidTraceparent(v), false, v);
});

test('normaliseShopperIp groups what one shopper may vary', () => {
  assert.equal(normaliseShopperIp(' 203.0.113.7 '), '203.0.113.7');
  assert.equal(normaliseShopperIp('::FFFF:203.0.113.7'), '203.0.113.7');
  assert.equal(normaliseShopperIp('2001:db8:1:2:3:4:5:6'), normaliseShopperIp('2001:0db8:0001:0002:ffff::1'));
  assert.notEqual(normaliseShopperIp('2001:db8:1:2::1'), normaliseShopperIp('2001:db8:1:3::1'));
  assert.equal(normaliseShopperIp('Not-An-IP'), 'not-an-ip');
});
