// The suite's identity provider against docs/tokens.md: every kind verifies with the profile's public JWKS and carries the
// documented claims; overrides, deletions and the negative-check helpers produce what they promise.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import { profileSchema } from '../../contract/profile.js';
import {
  CUSTOMER_SCOPES,
  createForeignKey,
  createMinter,
  publicJwks,
  publicKeyAsSecret,
  signWith,
  unsecured,
} from '../../conformance/lib/mint.js';

const profile = profileSchema.parse(JSON.parse(readFileSync(new URL('../../fixtures/profile.json', import.meta.url), 'utf8')));
const NOW = new Date('2030-01-02T03:04:05.678Z');
const IAT = Math.floor(NOW.getTime() / 1000);
const minter = createMinter(profile, { now: () => NOW });
const jwks = createLocalJWKSet(publicJwks(profile));
const kid = profile.signingKeys[0]!.kid;
const { clients, audiences } = profile;
const SUB = 'auth0|customer-active-1';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Verifies like a resource server that follows docs/tokens.md, at the minter's clock. */
async function verifyAccessToken(token: string, audience: string = audiences.api) {
  return jwtVerify(token, jwks, {
    issuer: profile.issuer,
    audience,
    typ: 'at+jwt',
    algorithms: ['ES256'],
    currentDate: NOW,
    requiredClaims: ['iss', 'aud', 'exp', 'iat', 'jti', 'sub', 'client_id', 'scope'],
  });
}

function assertCommonClaims(payload: JWTPayload, clientId: string, sub: string, aud: string, scope: string) {
  assert.equal(payload.iss, profile.issuer);
  assert.equal(payload.aud, aud);
  assert.equal(payload.client_id, clientId);
  assert.equal(payload.sub, sub);
  assert.equal(payload.scope, scope);
  assert.equal(payload.iat, IAT);
  assert.equal(payload.exp, IAT + 300);
  assert.match(String(payload.jti), UUID);
}

test('every token has the header { alg: ES256, typ: at+jwt, kid }', async () => {
  const token = await minter.guest();
  assert.deepStrictEqual(decodeProtectedHeader(token), { alg: 'ES256', typ: 'at+jwt', kid });
});

test('customer: website client, account sub, every customer API scope, no act', async () => {
  const { payload } = await verifyAccessToken(await minter.customer({ sub: SUB }));
  assert.deepStrictEqual(
    new Set(CUSTOMER_SCOPES),
    new Set([
      'catalog:read',
      'cart:read',
      'cart:write',
      'account:read',
      'account:write',
      'payment_methods:read',
      'orders:read',
      'orders:write',
      'checkout',
    ]),
  );
  assertCommonClaims(payload, clients.website, SUB, audiences.api, CUSTOMER_SCOPES.join(' '));
  assert.equal('act' in payload, false);
});

test('delegated: agent-protocol client, outermost act.sub = client_id, channel mcp by default (agent audience)', async () => {
  const { payload } = await verifyAccessToken(await minter.delegated({ sub: SUB }), audiences.agent);
  assertCommonClaims(payload, clients.agentProtocol, SUB, audiences.agent, CUSTOMER_SCOPES.join(' '));
  assert.deepStrictEqual(payload.act, { sub: clients.agentProtocol });
});

test('delegated: channel openapi uses the API audience; actChain nests under the outermost actor', async () => {
  const token = await minter.delegated({
    sub: SUB,
    channel: 'openapi',
    actChain: ['agent-42', 'tool-7'],
    scope: ['catalog:read', 'checkout'],
  });
  const { payload } = await verifyAccessToken(token, audiences.api);
  assert.equal(payload.scope, 'catalog:read checkout');
  assert.deepStrictEqual(payload.act, { sub: clients.agentProtocol, act: { sub: 'agent-42', act: { sub: 'tool-7' } } });
});

test('guest: storefront machine token with the base scopes', async () => {
  const { payload } = await verifyAccessToken(await minter.guest());
  assertCommonClaims(payload, clients.storefront, `${clients.storefront}@clients`, audiences.api, 'catalog:read cart:read cart:write');
});

test('operator: backoffice machine token with ops scopes', async () => {
  const { payload } = await verifyAccessToken(await minter.operator());
  assertCommonClaims(payload, clients.backoffice, `${clients.backoffice}@clients`, audiences.api, 'ops:read ops:write');
});

test('invited-agent forwarder: web-agent-forwarder machine token with agent:forward', async () => {
  const { payload } = await verifyAccessToken(await minter.invitedAgentForwarder());
  assertCommonClaims(payload, clients.webAgentForwarder, `${clients.webAgentForwarder}@clients`, audiences.api, 'agent:forward');
});

test('MCP agent forwarder: mcp-agent-forwarder machine token with agent:forward', async () => {
  const { payload } = await verifyAccessToken(await minter.mcpAgentForwarder());
  assertCommonClaims(payload, clients.mcpAgentForwarder, `${clients.mcpAgentForwarder}@clients`, audiences.api, 'agent:forward');
});

test('assistant: proxy client, account sub, act personal_agent, cnf.jkt and sid', async () => {
  const { payload } = await verifyAccessToken(await minter.assistant({ sub: SUB, jkt: 'thumb-1', sid: 'sess-1' }));
  assertCommonClaims(payload, clients.personalAgentProxy, SUB, audiences.api, CUSTOMER_SCOPES.join(' '));
  assert.deepStrictEqual(payload.act, { sub: 'personal_agent' });
  assert.deepStrictEqual(payload.cnf, { jkt: 'thumb-1' });
  assert.equal(payload.sid, 'sess-1');
  const agent = await verifyAccessToken(await minter.assistant({ sub: SUB, jkt: 'j', sid: 's', audience: 'agent' }), audiences.agent);
  assert.equal(agent.payload.aud, audiences.agent);
});

test('machine: any client id, sub <client>@clients', async () => {
  const { payload } = await verifyAccessToken(await minter.machine(clients.website));
  assertCommonClaims(payload, clients.website, `${clients.website}@clients`, audiences.api, 'catalog:read cart:read cart:write');
});

test('invited-agent context: HS256 invited-agent+jwt with the documented claims, bound by ath', async () => {
  const forwarderToken = await minter.invitedAgentForwarder();
  const admittedAt = new Date('2030-01-01T00:00:00Z');
  const token = await minter.invitedAgentContext({
    sub: SUB,
    agentId: 'agent-9',
    permissions: ['assistant:read'],
    forwarderToken,
    admittedAt,
  });
  const { payload, protectedHeader } = await jwtVerify(token, new TextEncoder().encode(profile.secrets.webSessionContextKey), {
    typ: 'invited-agent+jwt',
    algorithms: ['HS256'],
    currentDate: NOW,
  });
  assert.deepStrictEqual(protectedHeader, { alg: 'HS256', typ: 'invited-agent+jwt' });
  assert.deepStrictEqual(Object.keys(payload).sort(), ['admitted_at', 'agent_id', 'ath', 'exp', 'iat', 'jti', 'permissions', 'sub']);
  assert.equal(payload.sub, SUB);
  assert.equal(payload.agent_id, 'agent-9');
  assert.deepStrictEqual(payload.permissions, ['assistant:read']);
  assert.equal(payload.admitted_at, Math.floor(admittedAt.getTime() / 1000));
  assert.equal(payload.iat, IAT);
  assert.equal(payload.exp, IAT + 300);
  assert.equal(payload.ath, createHash('sha256').update(forwarderToken).digest('base64url'));
});

test('invited-agent context: admitted_at defaults to now; another key forges it', async () => {
  const opts = { sub: SUB, agentId: 'a', permissions: [], forwarderToken: 'x' } as const;
  assert.equal(decodeJwt(await minter.invitedAgentContext(opts)).admitted_at, IAT);
  const forged = await minter.invitedAgentContext({ ...opts, key: 'not-the-web-session-context-key' });
  await assert.rejects(
    jwtVerify(forged, new TextEncoder().encode(profile.secrets.webSessionContextKey), { currentDate: NOW }),
    errors.JWSSignatureVerificationFailed,
  );
});

test('jti is unique per token', async () => {
  const a = decodeJwt(await minter.customer({ sub: SUB }));
  const b = decodeJwt(await minter.customer({ sub: SUB }));
  assert.notEqual(a.jti, b.jti);
});

test('claims and header overrides merge last; undefined deletes', async () => {
  const token = await minter.customer({
    sub: SUB,
    claims: { aud: undefined, scope: 'catalog:read', act: { sub: 'someone' }, nbf: IAT + 60 },
    header: { kid: undefined, typ: 'application/at+jwt', x5u: 'https://evil.test/' },
  });
  assert.deepStrictEqual(decodeProtectedHeader(token), { alg: 'ES256', typ: 'application/at+jwt', x5u: 'https://evil.test/' });
  const payload = decodeJwt(token);
  assert.equal('aud' in payload, false);
  assert.equal(payload.scope, 'catalog:read');
  assert.deepStrictEqual(payload.act, { sub: 'someone' });
  assert.equal(payload.nbf, IAT + 60);
  // Still signed by the issuer: only the deliberate defects differ.
  const { payload: verified } = await jwtVerify(token, publicJwks(profile).keys[0]!, { currentDate: new Date((IAT + 61) * 1000) });
  assert.equal(verified.sub, SUB);
});

test('expiresIn: a negative lifetime mints an expired token', async () => {
  const token = await minter.guest({ expiresIn: -30 });
  assert.equal(decodeJwt(token).exp, IAT - 30);
  await assert.rejects(verifyAccessToken(token), errors.JWTExpired);
});

test('a header alg that does not fit the key is written verbatim', async () => {
  const token = await minter.guest({ header: { alg: 'ES384', crit: ['exp'] } });
  assert.deepStrictEqual(decodeProtectedHeader(token), { alg: 'ES384', typ: 'at+jwt', kid, crit: ['exp'] });
  await assert.rejects(verifyAccessToken(token));
});

test('draft + sign: an altered draft is signed by the issuer key', async () => {
  const draft = minter.draft.operator();
  draft.payload.client_id = 'unknown-client';
  const { payload } = await verifyAccessToken(await minter.sign(draft));
  assert.equal(payload.client_id, 'unknown-client');
});

test('unsecured: alg none, empty signature, refused by a verifier', async () => {
  const payload = minter.draft.customer({ sub: SUB }).payload;
  const token = unsecured(payload);
  assert.ok(token.endsWith('.'));
  assert.equal(token.split('.').length, 3);
  assert.deepStrictEqual(decodeProtectedHeader(token), { alg: 'none', typ: 'at+jwt' });
  assert.deepStrictEqual(decodeJwt(token), payload);
  assert.deepStrictEqual(decodeProtectedHeader(unsecured(payload, { alg: 'None', typ: undefined, kid })), { alg: 'None', kid });
  await assert.rejects(verifyAccessToken(token));
});

test('signWith an HS256 secret: the RS/HS confusion with the public key as the secret', async () => {
  const { payload } = minter.draft.customer({ sub: SUB });
  const secret = publicKeyAsSecret(profile);
  assert.deepStrictEqual(JSON.parse(new TextDecoder().decode(secret)), publicJwks(profile).keys[0]);
  const token = await signWith(payload, { alg: 'HS256', typ: 'at+jwt', kid }, secret);
  assert.deepStrictEqual(decodeProtectedHeader(token), { alg: 'HS256', typ: 'at+jwt', kid });
  const [h, p, s] = token.split('.');
  assert.equal(s, createHmac('sha256', secret).update(`${h}.${p}`).digest('base64url'));
  await assert.rejects(verifyAccessToken(token));
  const pem = new TextDecoder().decode(publicKeyAsSecret(profile, 'pem'));
  assert.match(pem, /^-----BEGIN PUBLIC KEY-----\n/);
});

test('signWith a foreign ES256 key: verifies with that key only', async () => {
  const foreign = await createForeignKey();
  assert.equal('d' in foreign.publicJwk, false);
  const { header, payload } = minter.draft.customer({ sub: SUB });
  const token = await signWith(payload, header, foreign.privateKey);
  assert.equal(decodeProtectedHeader(token).kid, kid);
  await assert.rejects(verifyAccessToken(token), errors.JWSSignatureVerificationFailed);
  const { payload: verified } = await jwtVerify(token, foreign.publicJwk, { currentDate: NOW });
  assert.equal(verified.sub, SUB);
});

test('publicJwks: the profile keys without d', () => {
  const { keys } = publicJwks(profile);
  assert.equal(keys.length, profile.signingKeys.length);
  const [key] = keys;
  assert.equal('d' in key!, false);
  const { d: _d, ...expected } = profile.signingKeys[0]!;
  assert.deepStrictEqual(key, expected);
});

test('a profile without the private part cannot mint', async () => {
  const publicOnly = { ...profile, signingKeys: publicJwks(profile).keys as typeof profile.signingKeys };
  await assert.rejects(createMinter(publicOnly).guest(), /no private part "d"/);
});
