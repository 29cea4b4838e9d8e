// The credential formats of the profile's conventions (docs/profile.md, "Conventions"): the reference's by default; a
// deployment's own claim placement, header type, browser-session prefix and proxy report members when the profile says so.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { profileSchema, type Profile } from '../../../contract/profile.js';
import { browserSessionValue, operatorAttribution, proxyPayload, relocate } from '../../../conformance/lib/credential-formats.js';
import { createMinter } from '../../../conformance/lib/mint.js';
import { redactor } from '../../../conformance/engine/transport/transcript.js';

const fixture = profileSchema.parse(JSON.parse(readFileSync(new URL('../../../fixtures/profile.json', import.meta.url), 'utf8')));
const withConventions = (conventions: Profile['conventions']): Profile => profileSchema.parse({ ...fixture, conventions });

test('relocate moves the named members to their pointers and leaves the rest', () => {
  assert.deepEqual(relocate({ sub: 'a', agent_id: 'x', exp: 1 }, { agent_id: '/agent/id', sub: '/subject' }), {
    exp: 1,
    agent: { id: 'x' },
    subject: 'a',
  });
  // A member a negative check deleted stays deleted; no map is the identity.
  assert.deepEqual(relocate({ exp: 1 }, { ath: '/binding' }), { exp: 1 });
  const same = { a: 1 };
  assert.equal(relocate(same, undefined), same);
});

test("the invited-agent context is the reference's by default, and placed as the conventions say otherwise", async () => {
  const forwarderToken = 'forwarder.token.value';
  const base = { sub: 'cust_1', agentId: 'agent_1', permissions: ['assistant:read'], forwarderToken };
  const plain = await createMinter(fixture).invitedAgentContext(base);
  assert.equal(decodeProtectedHeader(plain).typ, 'invited-agent+jwt');
  assert.equal(decodeJwt(plain).agent_id, 'agent_1');

  const other = withConventions({
    credentials: { invitedAgentContext: { typ: 'agent-context+jwt', claims: { agent_id: '/agent/id', ath: '/cnf/ath' } } },
  });
  const context = await createMinter(other).invitedAgentContext(base);
  assert.equal(decodeProtectedHeader(context).typ, 'agent-context+jwt');
  const claims = decodeJwt(context) as Record<string, any>;
  assert.equal(claims.agent_id, undefined);
  assert.equal(claims.agent.id, 'agent_1');
  assert.equal(typeof claims.cnf.ath, 'string');
  assert.equal(claims.sub, 'cust_1');
  // A negative check's header override still wins over the convention's typ.
  assert.equal(decodeProtectedHeader(await createMinter(other).invitedAgentContext({ ...base, header: { typ: 'JWT' } })).typ, 'JWT');
});

test('a browser session carries the prefix of the conventions, MACed over prefix and session id', () => {
  const key = fixture.secrets.webSessionContextKey;
  const mac = (signed: string) => createHmac('sha256', key).update(signed).digest('base64url');
  assert.equal(browserSessionValue(undefined, 's1', key), `asb1.s1.${mac('asb1.s1')}`);
  const other = withConventions({ credentials: { browserSession: { prefix: 'web2' } } }).conventions;
  assert.equal(browserSessionValue(other, 's1', key), `web2.s1.${mac('web2.s1')}`);
});

test("proxy reports keep the reference's members unless the conventions place them elsewhere", () => {
  const report = { subject: 'cust_1', agent_id: 'a', client_id: 'c', permissions: ['assistant:read'], session_id: 's' };
  assert.deepEqual(proxyPayload(undefined, 'agentConnected', report), report);
  const other = withConventions({ proxyPayloads: { agentConnected: { subject: '/account', session_id: '/session/id' } } }).conventions;
  assert.deepEqual(proxyPayload(other, 'agentConnected', report), {
    agent_id: 'a',
    client_id: 'c',
    permissions: ['assistant:read'],
    account: 'cust_1',
    session: { id: 's' },
  });
  // Another report is left as it is.
  assert.deepEqual(proxyPayload(other, 'agentAuthorization', { subject: 'x' }), { subject: 'x' });
});

test('the profile refuses a prefix that is not a token and a member placed at a non-pointer', () => {
  assert.throws(() => withConventions({ credentials: { browserSession: { prefix: 'a.b' } } }));
  assert.throws(() => withConventions({ proxyPayloads: { agentConnected: { subject: 'account' } } }));
});

test("a deployment's own artifact header and browser-session prefix are redacted", () => {
  const profile = withConventions({
    headers: { assistantBrowserSession: 'X-Browser' },
    credentials: { browserSession: { prefix: 'web2' } },
  });
  const redact = redactor(profile, false);
  assert.equal(redact('X-Browser', 'whatever-value'), '<redacted 14 chars>');
  const value = browserSessionValue(profile.conventions, 'sess_1', profile.secrets.webSessionContextKey);
  assert.equal(redact(null, `{"cookie":"${value}"}`), '{"cookie":"<redacted browser session>"}');
});

test("proxy reports carry the reference's values unless the conventions give the deployment's", () => {
  const grant = { subject: 's', agent_id: 'a', permissions: ['assistant:read', 'checkout'], decision: 'granted' };
  assert.deepEqual(proxyPayload(undefined, 'agentAuthorization', grant), grant);
  const own = withConventions({
    proxyValues: { decision: { granted: 'allow', revoked: 'deny' }, lists: 'space-delimited' },
    proxyPayloads: { agentAuthorization: { decision: '/outcome' } },
  }).conventions;
  assert.deepEqual(proxyPayload(own, 'agentAuthorization', grant), {
    subject: 's',
    agent_id: 'a',
    permissions: 'assistant:read checkout',
    outcome: 'allow',
  });
  assert.equal(proxyPayload(own, 'agentAuthorization', { ...grant, decision: 'revoked' }).decision, undefined);
  assert.equal((proxyPayload(own, 'agentAuthorization', { ...grant, decision: 'revoked' }) as { outcome?: string }).outcome, 'deny');
  assert.deepEqual(proxyPayload(own, 'sessionSignedOut', { session_id: 'x', client_id: 'c', scopes: [] }), {
    session_id: 'x',
    client_id: 'c',
    scopes: '',
  });
  // A value a negative check wrote on purpose is not translated.
  assert.equal(proxyPayload(own, 'agentAuthorization', { ...grant, decision: 'maybe' }).outcome, 'maybe');
});

test('the Operator value and the assistant token session claim follow the conventions', async () => {
  assert.equal(operatorAttribution(fixture), 'conformance@shop.test');
  assert.equal(operatorAttribution(withConventions({ operatorAttribution: 'employee 42' })), 'employee 42');
  assert.throws(() => withConventions({ operatorAttribution: ' padded' }));
  const minter = createMinter(withConventions({ credentials: { assistantToken: { claims: { sid: '/session_id' } } } }));
  const claims = decodeJwt(await minter.assistant({ sub: 'cust_1', jkt: 'thumb', sid: 'sess-9' }));
  assert.equal(claims.sid, undefined);
  assert.equal(claims.session_id, 'sess-9');
  assert.deepEqual(claims.act, { sub: 'personal_agent' });
  assert.equal(decodeJwt(await createMinter(fixture).assistant({ sub: 'cust_1', jkt: 'thumb', sid: 'sess-9' })).sid, 'sess-9');
});

test('a profile declares the action secret carrier and a security intent body only in their own shapes', () => {
  assert.doesNotThrow(() => withConventions({ actionSecret: { header: 'X-Action-Secret' } }));
  assert.doesNotThrow(() => withConventions({ actionSecret: { header: 'Authorization', scheme: 'Bearer' } }));
  assert.throws(() => withConventions({ actionSecret: { header: 'bad header' } }));
  assert.doesNotThrow(() =>
    withConventions({ securityIntent: { example: { id: 'x', who: 'y', what: 'email' }, intentId: '/id', subject: '/who' } }),
  );
  assert.throws(() => withConventions({ securityIntent: { example: { id: 'x' }, intentId: 'id' } }));
});
