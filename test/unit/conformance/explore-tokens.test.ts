// explore's token shapes (conformance/explore/tokens-api.ts): the arbitrary reaches every variation of every kind, shapes
// survive a replay file, expectedOfToken says what the spec pins on hand-picked shapes (combinations ordered by stage),
// and credentialsOfToken writes the header form, claims, JOSE header and signature each shape names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { readProfileFile } from '../../../conformance/engine/runner/params.js';
import { FIXTURE_PROFILE } from '../../../reference/src/paths.js';
import { OPERATIONS_BY_ID } from '../../../contract/operations.js';
import { CLAUSES_BY_ID } from '../../../contract/clauses/catalogue.js';
import { createMinter, publicJwks, publicKeyAsSecret } from '../../../conformance/lib/mint.js';
import {
  credentialsOfToken,
  describeToken,
  expectedOfToken,
  judgeTokenAnswer,
  TOKEN_FIELDS,
  TOKEN_KINDS,
  tokenShapeArbitrary,
  variationNamesFor,
  variationNamesOf,
  variationsFor,
  type TokenExpectation,
  type TokenKind,
  type TokenShape,
} from '../../../conformance/explore/tokens-api.js';

const profile = readProfileFile(FIXTURE_PROFILE, { toMint: true });
const NOW = new Date('2030-01-02T03:04:05.678Z');
const IAT = Math.floor(NOW.getTime() / 1000);
const mint = createMinter(profile, { now: () => NOW });
const SUB = 'cust_checkout_8';
const { clients, audiences } = profile;

test('the arbitrary reaches every variation of every kind, and none, two and three at once', () => {
  for (const kind of TOKEN_KINDS) {
    const samples = fc.sample(tokenShapeArbitrary(kind), { seed: 7, numRuns: 4000 });
    const seen = new Set(samples.flatMap(variationNamesOf));
    assert.deepEqual(
      variationNamesFor(kind).filter((v) => !seen.has(v)),
      [],
      `${kind}: variations never drawn`,
    );
    assert.deepEqual(
      [...seen].filter((v) => !variationNamesFor(kind).includes(v)),
      [],
      `${kind}: variations of another kind`,
    );
    const counts = new Set(samples.map((s) => Object.keys(s).length));
    for (const n of [0, 1, 2, 3]) assert.ok(counts.has(n), `${kind}: a shape of ${n} variations`);
    const single = samples.filter((s) => Object.keys(s).length === 1).length;
    assert.ok(single > samples.length / 2, 'mostly one variation at a time');
    for (const s of samples) assert.deepEqual(JSON.parse(JSON.stringify(s)), s, 'JSON round trip');
  }
  assert.deepEqual(variationsFor('customer', 'act'), ['assistant', 'agent']);
  assert.ok(variationsFor('delegated', 'act').includes('absent'));
});

test('describeToken: one short line', () => {
  assert.equal(describeToken({}), 'as minted');
  assert.equal(describeToken({ typ: 'JWT', aud: 'other' }), 'aud: another audience, typ: JWT');
  assert.equal(
    describeToken({ signing: 'altered', form: 'cookie' }),
    'signed: signature bytes altered, Authorization: the token in a cookie, no header',
  );
});

const INVALID = { 401: ['invalid_token'] };
const COMBINATION = { 401: ['invalid_token'], 403: '*' };
type Want = 'accept' | 'either' | { errorsOf: object; clauses?: string[] };
const VECTORS: [TokenKind, TokenShape, Want, string?][] = [
  ['customer', {}, 'accept'],
  ['customer', { aud: 'array-own' }, 'accept'],
  ['customer', { aud: 'array-both' }, 'either'],
  ['customer', { aud: 'profile-other' }, { errorsOf: INVALID, clauses: ['AUTH-CRED-2', 'AUTH-TOKEN-4'] }],
  ['delegated', { aud: 'profile-other' }, 'either'],
  ['customer', { iss: 'slash' }, { errorsOf: INVALID, clauses: ['AUTH-TOKEN-2'] }],
  ['customer', { typ: 'upper' }, 'either'],
  ['customer', { typ: 'media-type' }, 'either'],
  ['customer', { typ: 'JWT' }, { errorsOf: INVALID, clauses: ['AUTH-TOKEN-5'] }],
  ['guest', { alg: 'none' }, { errorsOf: INVALID, clauses: ['AUTH-TOKEN-3'] }],
  ['customer', { signing: 'altered' }, { errorsOf: INVALID, clauses: ['AUTH-TOKEN-3'] }],
  ['customer', { kid: 'unknown' }, 'either'],
  ['customer', { exp: 'past-seconds' }, 'either'],
  ['customer', { exp: 'past-far' }, { errorsOf: INVALID, clauses: ['AUTH-TOKEN-6'] }],
  ['customer', { exp: 'string' }, { errorsOf: INVALID, clauses: ['AUTH-TOKEN-6'] }],
  ['customer', { exp: 'future-far' }, 'accept'],
  ['customer', { exp: 'fractional' }, 'accept'],
  ['operator', { nbf: 'future' }, 'either'],
  ['customer', { nbf: 'past' }, 'accept'],
  ['customer', { iat: 'future' }, 'either'],
  ['customer', { jti: 'absent' }, 'either'],
  ['customer', { cnf: 'jkt' }, { errorsOf: INVALID }],
  ['customer', { cnf: 'x5t' }, 'either'],
  ['customer', { client_id: 'unknown' }, { errorsOf: COMBINATION, clauses: ['AUTH-TOKEN-9'] }],
  ['customer', { client_id: 'absent' }, { errorsOf: COMBINATION, clauses: ['AUTH-TOKEN-7'] }],
  ['customer', { sub: 'machine' }, { errorsOf: COMBINATION, clauses: ['AUTH-TOKEN-11'] }],
  ['customer', { act: 'agent' }, { errorsOf: COMBINATION, clauses: ['AUTH-TOKEN-12'] }],
  ['delegated', { act: 'outer-other' }, { errorsOf: COMBINATION, clauses: ['AUTH-TOKEN-10'] }],
  ['delegated', { act: 'absent' }, { errorsOf: COMBINATION, clauses: ['AUTH-TOKEN-8'] }],
  ['delegated', { act: 'deeper' }, 'accept'],
  ['guest', { sub: 'user' }, { errorsOf: COMBINATION, clauses: ['AUTH-TOKEN-8'] }],
  ['guest', { client_id: 'other-known' }, { errorsOf: COMBINATION }],
  ['guest', { act: 'agent' }, 'either'],
  ['operator', { act: 'outer-other' }, 'either'],
  // A delegated token on the website client without act is a customer's token: another kind, not pinned here.
  ['delegated', { client_id: 'other-known', act: 'absent' }, 'either'],
  ['customer', { scope: 'absent' }, { errorsOf: { 403: ['insufficient_scope'] }, clauses: ['AUTH-CUST-1', 'ERR-TABLE-9'] }],
  ['delegated', { scope: 'missing-needed' }, { errorsOf: { 403: ['insufficient_scope'] }, clauses: ['AUTH-SCOPE-2'] }],
  ['guest', { scope: 'upper-case' }, { errorsOf: { 403: ['insufficient_scope'] } }],
  ['customer', { scope: 'extra' }, 'accept'],
  ['customer', { scope: 'array' }, 'either'],
  ['operator', { scope: 'absent' }, 'either', "the ops routes' scopes are not shown"],
  // Verification precedes classification, and both the guard: the first stage's refusal is the answer.
  ['customer', { client_id: 'unknown', signing: 'altered' }, { errorsOf: INVALID, clauses: ['AUTH-TOKEN-3'] }],
  ['customer', { scope: 'absent', exp: 'past-far' }, { errorsOf: INVALID, clauses: ['AUTH-TOKEN-6'] }],
  ['customer', { scope: 'absent', client_id: 'unknown' }, { errorsOf: COMBINATION, clauses: ['AUTH-TOKEN-9'] }],
  // An unsure verification before a definite refusal may decide instead.
  ['customer', { client_id: 'unknown', kid: 'unknown' }, { errorsOf: COMBINATION }],
  ['customer', { scope: 'absent', exp: 'past-seconds' }, { errorsOf: { 401: ['invalid_token'], 403: ['insufficient_scope'] } }],
  ['customer', { form: 'bearer-lower' }, 'accept'],
  ['customer', { form: 'spaces', typ: 'JWT' }, { errorsOf: INVALID }],
  ['customer', { form: 'query' }, { errorsOf: INVALID, clauses: ['AUTH-TOKEN-1', 'ERR-TABLE-1'] }],
  ['guest', { form: 'cookie', scope: 'absent' }, { errorsOf: INVALID, clauses: ['AUTH-TOKEN-1'] }],
  ['customer', { form: 'no-scheme' }, { errorsOf: INVALID }],
  ['customer', { form: 'dpop-scheme' }, { errorsOf: { 401: ['invalid_token', 'invalid_dpop_proof', 'use_dpop_nonce'] } }],
  ['customer', { form: 'duplicate-bad-first', signing: 'altered' }, 'either'],
  ['customer', { form: 'duplicate-bad-last' }, 'either'],
];

const kindOf = (e: TokenExpectation) => (e.accept === true ? 'accept' : e.accept === false ? 'refuse' : 'either');

test('expectedOfToken: hand-picked shapes', () => {
  for (const [kind, shape, want, note] of VECTORS) {
    const e = expectedOfToken(kind, shape, profile);
    const what = `${kind} ${describeToken(shape)}${note ? ` (${note})` : ''}`;
    if (typeof want === 'string') {
      assert.equal(kindOf(e), want, what);
      continue;
    }
    assert.equal(e.accept, false, what);
    if (e.accept !== false) continue;
    assert.deepEqual(e.errorsOf, want.errorsOf, what);
    assert.deepEqual(e.statuses, Object.keys(want.errorsOf).map(Number), what);
    for (const c of want.clauses ?? []) assert.ok(e.clauses.includes(c), `${what}: clause ${c} in ${e.clauses.join(' ')}`);
  }
});

test('expectedOfToken: the profile declares which audiences a kind takes; every clause cited exists', () => {
  const both = { ...profile, audiences: { ...profile.audiences, callers: { delegated: ['api', 'agent'] as ('api' | 'agent')[] } } };
  assert.equal(expectedOfToken('delegated', { aud: 'profile-other' }, both).accept, true);
  const ops = OPERATIONS_BY_ID.get('getCart')!;
  for (const kind of TOKEN_KINDS)
    for (const s of fc.sample(tokenShapeArbitrary(kind), { seed: 3, numRuns: 2000 })) {
      const e = expectedOfToken(kind, s, profile, kind === 'operator' ? undefined : ops);
      if (e.accept === true) continue;
      for (const c of e.clauses) assert.ok(CLAUSES_BY_ID.has(c), `${c} (${describeToken(s)})`);
      if (e.accept === 'either') assert.ok(e.why.length > 0);
      else assert.ok(e.statuses.length > 0 && e.statuses.every((st) => st >= 400 && st < 500));
    }
});

test('judgeTokenAnswer: accepted is 2xx, refused is a listed status and code, either is anything but a 5xx', () => {
  const refused = expectedOfToken('customer', { client_id: 'unknown' }, profile);
  const cases: [TokenExpectation, number, unknown, boolean][] = [
    [{ accept: true }, 200, undefined, true],
    [{ accept: true }, 401, 'invalid_token', false],
    [refused, 401, 'invalid_token', true],
    [refused, 403, 'whatever_code', true],
    [refused, 401, 'caller_not_allowed', false],
    [refused, 400, 'invalid_request', false],
    [refused, 200, undefined, false],
    [{ accept: 'either', clauses: ['AUTH-TOKEN-3'], why: 'x' }, 400, 'invalid_request', true],
    [{ accept: 'either', clauses: ['AUTH-TOKEN-3'], why: 'x' }, 503, 'unavailable', false],
  ];
  for (const [e, status, error, fits] of cases)
    assert.equal(judgeTokenAnswer(e, status, error) === undefined, fits, `${status} ${String(error)}`);
});

// --- credentialsOfToken -------------------------------------------------------------------------------------------------

const jwks = createLocalJWKSet(publicJwks(profile));
const build = (kind: TokenKind, shape: TokenShape) =>
  credentialsOfToken(kind, shape, { profile, mint, sub: SUB, guestHeaders: { 'guest-session': 'gs1.x.y' } });
const tokenOf = (auth: string | string[] | undefined) => String(Array.isArray(auth) ? auth[0] : auth).replace(/^\S+ +/, '');

async function claimsAndHeader(kind: TokenKind, shape: TokenShape) {
  const c = await build(kind, shape);
  const token = tokenOf(c.headers.authorization);
  return { token, payload: decodeJwt(token) as Record<string, unknown>, header: decodeProtectedHeader(token) as Record<string, unknown> };
}

test('credentialsOfToken: the sound token of each kind verifies, with its own headers', async () => {
  for (const kind of TOKEN_KINDS) {
    const c = await build(kind, {});
    assert.match(String(c.headers.authorization), /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/);
    const { payload } = await jwtVerify(tokenOf(c.headers.authorization), jwks, {
      currentDate: NOW,
      typ: 'at+jwt',
      issuer: profile.issuer,
    });
    assert.equal(payload.iat, IAT);
    if (kind === 'guest') assert.equal(c.headers['guest-session'], 'gs1.x.y');
    if (kind === 'operator') assert.ok(c.headers.operator);
  }
});

test('credentialsOfToken writes the claims each variation names', async () => {
  const expect: [TokenKind, TokenShape, Record<string, unknown>][] = [
    ['customer', { iss: 'slash' }, { iss: profile.issuer.replace(/\/$/, '') }],
    ['customer', { iss: 'wrong-type' }, { iss: [profile.issuer] }],
    ['customer', { aud: 'array-both' }, { aud: ['https://elsewhere.invalid/api', audiences.api] }],
    ['customer', { aud: 'profile-other' }, { aud: audiences.agent }],
    ['customer', { sub: 'machine' }, { sub: `${clients.website}@clients` }],
    ['guest', { sub: 'user' }, { sub: SUB }],
    ['operator', { sub: 'machine-other' }, { sub: `${clients.webAgentForwarder}@clients` }],
    ['guest', { client_id: 'other-known' }, { client_id: clients.backoffice }],
    ['delegated', { client_id: 'wrong-type' }, { client_id: [clients.agentProtocol] }],
    ['delegated', { act: 'outer-other' }, { act: { sub: 'agent-nobody-configured', act: { sub: clients.agentProtocol } } }],
    ['delegated', { act: 'deeper' }, { act: { sub: clients.agentProtocol, act: { sub: 'upstream-agent' } } }],
    ['customer', { act: 'assistant' }, { act: { sub: 'personal_agent' } }],
    ['operator', { act: 'agent' }, { act: { sub: clients.agentProtocol } }],
    ['customer', { exp: 'past-far' }, { exp: IAT - 3600, iat: IAT - 3900 }],
    ['customer', { exp: 'past-far', iat: 'future' }, { exp: IAT - 3600, iat: IAT + 3600 }],
    ['customer', { exp: 'string' }, { exp: String(IAT + 300) }],
    ['customer', { exp: 'fractional' }, { exp: IAT + 300.5 }],
    ['customer', { nbf: 'future' }, { nbf: IAT + 3600 }],
    ['guest', { scope: 'missing-needed' }, { scope: 'catalog:read cart:write' }],
    ['guest', { scope: 'array' }, { scope: ['catalog:read', 'cart:read', 'cart:write'] }],
    ['guest', { scope: 'upper-case' }, { scope: 'CATALOG:READ CART:READ CART:WRITE' }],
    ['customer', { cnf: 'wrong-type' }, { cnf: 'jkt' }],
    ['customer', { jti: 'wrong-type' }, { jti: 12345 }],
  ];
  for (const [kind, shape, claims] of expect) {
    const { payload } = await claimsAndHeader(kind, shape);
    for (const [k, v] of Object.entries(claims)) assert.deepEqual(payload[k], v, `${kind} ${describeToken(shape)}: ${k}`);
  }
  const absent =
    'customer:iss customer:aud guest:sub customer:client_id delegated:act customer:exp customer:iat customer:scope customer:jti';
  for (const [kind, field] of absent.split(' ').map((w) => w.split(':') as [TokenKind, 'iss'])) {
    const { payload } = await claimsAndHeader(kind, { [field]: 'absent' });
    assert.ok(!(field in payload), `${kind} ${field}: absent`);
  }
});

test('credentialsOfToken writes the JOSE header and the signature each variation names', async () => {
  const headers: [TokenShape, Record<string, unknown>][] = [
    [{ typ: 'upper' }, { typ: 'AT+JWT', alg: 'ES256' }],
    [{ typ: 'wrong-type' }, { typ: 1 }],
    [{ kid: 'unknown' }, { kid: 'kid-nobody-published' }],
    [{ alg: 'rs256' }, { alg: 'RS256' }],
    [{ alg: 'lower-case' }, { alg: 'es256' }],
  ];
  for (const [shape, want] of headers) {
    const { header } = await claimsAndHeader('customer', shape);
    for (const [k, v] of Object.entries(want)) assert.deepEqual(header[k], v, `${describeToken(shape)}: ${k}`);
  }
  for (const shape of [{ typ: 'absent' }, { kid: 'absent' }, { alg: 'absent' }] as TokenShape[]) {
    const { header } = await claimsAndHeader('customer', shape);
    assert.ok(!(Object.keys(shape)[0]! in header), describeToken(shape));
  }
  const none = await claimsAndHeader('customer', { alg: 'none', typ: 'absent' });
  assert.deepEqual([none.header.alg, 'typ' in none.header, none.token.endsWith('.')], ['none', false, true]);
  const hs = await claimsAndHeader('customer', { alg: 'hs256-public-key' });
  const [h, p, s] = hs.token.split('.');
  assert.equal(s, createHmac('sha256', publicKeyAsSecret(profile, 'jwk')).update(`${h}.${p}`).digest('base64url'));
  assert.ok((await claimsAndHeader('customer', { signing: 'unsigned' })).token.endsWith('.'));
  for (const signing of ['other-key', 'altered'] as const) {
    const { token } = await claimsAndHeader('customer', { signing });
    await assert.rejects(jwtVerify(token, jwks, { currentDate: NOW }), { code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' }, signing);
  }
  // A header jose would not write reaches the token verbatim, and the profile's key still signs it.
  const { token } = await claimsAndHeader('customer', { typ: 'media-type' });
  await jwtVerify(token, jwks, { currentDate: NOW });
});

test('credentialsOfToken presents the token in the form the shape names', async () => {
  const sound = /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/;
  assert.match(String((await build('customer', { form: 'bearer-lower' })).headers.authorization), /^bearer [\w-]+\./);
  assert.match(String((await build('customer', { form: 'spaces' })).headers.authorization), /^Bearer {3}[\w-]+\./);
  assert.match(String((await build('customer', { form: 'no-scheme' })).headers.authorization), /^[\w-]+\.[\w-]+\.[\w-]+$/);
  assert.match(String((await build('customer', { form: 'dpop-scheme' })).headers.authorization), /^DPoP [\w-]+\./);
  for (const form of ['duplicate-bad-first', 'duplicate-bad-last'] as const) {
    const auth = (await build('customer', { form, signing: 'altered' })).headers.authorization as string[];
    assert.equal(auth.length, 2);
    const [shaped, other] = form === 'duplicate-bad-first' ? auth : [auth[1]!, auth[0]!];
    for (const a of auth) assert.match(a, sound);
    await assert.rejects(jwtVerify(tokenOf(shaped), jwks, { currentDate: NOW }));
    await jwtVerify(tokenOf(other), jwks, { currentDate: NOW });
  }
  const query = await build('guest', { form: 'query' });
  assert.equal(query.headers.authorization, undefined);
  assert.equal(query.headers['guest-session'], 'gs1.x.y');
  assert.match(String(query.query), /^access_token=[\w-]+\.[\w-]+\.[\w-]+$/);
  const cookie = await build('operator', { form: 'cookie' });
  assert.equal(cookie.headers.authorization, undefined);
  assert.match(String(cookie.headers.cookie), /^access_token=[\w-]+\./);
  for (const kind of TOKEN_KINDS) for (const f of TOKEN_FIELDS) for (const v of variationsFor(kind, f)) await build(kind, { [f]: v });
});
