// explore's guest-session shapes (conformance/explore/sessions.ts): the arbitrary reaches every variation, shapes survive
// a replay file, expectedOfSession says what the spec pins on hand-picked shapes (combinations ordered by stage), and
// buildSession writes the value, carrier, token and actsAs each shape names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { readProfileFile } from '../../../conformance/engine/runner/params.js';
import { FIXTURE_PROFILE } from '../../../reference/src/paths.js';
import { OPERATIONS_BY_ID } from '../../../contract/operations.js';
import { CLAUSES_BY_ID } from '../../../contract/clauses/catalogue.js';
import { createMinter } from '../../../conformance/lib/mint.js';
import { GUEST_SESSION_FORMAT, guestSessionSignature, signGuestSession } from '../../../conformance/lib/guest-session.js';
import {
  ANY_4XX,
  buildSession,
  describeSession,
  expectedOfSession,
  GUEST_SESSION_CARRIER,
  isMeaningfulSession,
  judgeSessionAnswer,
  judgeShapedSession,
  sessionShapeArbitrary,
  sessionValue,
  sessionVariationNames,
  sessionVariationNamesOf,
  type SessionShape,
  type TokenExpectation,
} from '../../../conformance/explore/sessions.js';

const profile = readProfileFile(FIXTURE_PROFILE, { toMint: true });
const NOW = new Date('2030-01-02T03:04:05.678Z');
const mint = createMinter(profile, { now: () => NOW });
const KEY = profile.secrets.guestSessionKey;
const OWN = '0f8e2a4c-1b3d-4e5f-9a7b-c6d5e4f3a2b1';
const OTHER = '7c6b5a49-3827-4165-8f4e-3d2c1b0a9f8e';
const NEW = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
const op = (id: string) => OPERATIONS_BY_ID.get(id)!;

test('the arbitrary reaches every variation, none, two and three at once, and only meaningful shapes', () => {
  const samples = fc.sample(sessionShapeArbitrary(), { seed: 7, numRuns: 4000 });
  const seen = new Set(samples.flatMap(sessionVariationNamesOf));
  assert.deepEqual(
    sessionVariationNames().filter((v) => !seen.has(v)),
    [],
    'variations never drawn',
  );
  const counts = new Set(samples.map((s) => Object.keys(s).length));
  for (const n of [0, 1, 2, 3]) assert.ok(counts.has(n), `a shape of ${n} variations`);
  assert.ok(samples.filter((s) => Object.keys(s).length === 1).length > samples.length / 2, 'mostly one variation at a time');
  for (const s of samples) {
    assert.deepEqual(JSON.parse(JSON.stringify(s)), s, 'JSON round trip');
    assert.ok(isMeaningfulSession(s), describeSession(s));
  }
  assert.equal(isMeaningfulSession({ value: 'empty', uuid: 'upper-case' }), false);
  assert.equal(isMeaningfulSession({ carrier: 'absent', value: 'whitespace' }), false);
  assert.equal(isMeaningfulSession({ carrier: 'absent', token: 'customer' }), true);
});

test('describeSession: one short line', () => {
  assert.equal(describeSession({}), 'as minted');
  assert.equal(describeSession({ uuid: 'upper-case', token: 'none' }), 'uuid: upper-case hex, signed as written, token: no access token');
});

const INVALID_SESSION = { 401: ['invalid_guest_session'] };
const NO_TOKEN = { 401: ['invalid_token'] };
// A guest write without a session; a spent guest budget may answer first (the rate limit precedes the handler).
const REQUIRED = { 400: ['guest_session_required'], 429: ['rate_limited'] };
const GUARD = { 403: ['caller_not_allowed', 'insufficient_scope'] };
type Want = 'accept' | 'either' | { errorsOf: object; clauses?: string[] };
const VECTORS: [string, SessionShape, Want, string?][] = [
  ['getCart', {}, 'accept'],
  ['addCartItem', {}, 'accept'],
  ['getCart', { value: 'whitespace' }, 'accept', 'RFC 9110 §5.5: not part of the value'],
  ['getCart', { uuid: 'other-guest' }, 'accept', "another guest's valid session: that cart"],
  ['addCartItem', { uuid: 'new' }, 'accept', 'a new cart'],
  ['getCart', { signature: 'previous-key' }, 'accept', 'the previous key before its deadline (2099)'],
  ['getCart', { prefix: 'version' }, { errorsOf: INVALID_SESSION, clauses: ['RES-GUEST-1', 'AUTH-GUEST-6'] }],
  ['getCart', { prefix: 'absent' }, { errorsOf: INVALID_SESSION }],
  ['getCart', { uuid: 'upper-case' }, { errorsOf: INVALID_SESSION, clauses: ['RES-GUEST-2'] }],
  ['addCartItem', { uuid: 'not-uuid' }, { errorsOf: INVALID_SESSION, clauses: ['RES-GUEST-2'] }],
  ['getCart', { signature: 'altered' }, { errorsOf: INVALID_SESSION, clauses: ['AUTH-GUEST-5', 'ERR-TABLE-6'] }],
  ['getCart', { signature: 'other-key' }, { errorsOf: INVALID_SESSION, clauses: ['AUTH-GUEST-5'] }],
  ['getCart', { signature: 'other-uuid' }, { errorsOf: INVALID_SESSION, clauses: ['AUTH-GUEST-5'] }],
  ['getCart', { signature: 'truncated' }, { errorsOf: INVALID_SESSION, clauses: ['RES-GUEST-3', 'AUTH-GUEST-6'] }],
  ['getCart', { signature: 'padded' }, { errorsOf: INVALID_SESSION, clauses: ['RES-GUEST-3'] }],
  ['getCart', { value: 'empty' }, 'either'],
  ['addCartItem', { value: 'empty' }, { errorsOf: { ...REQUIRED, 401: ['invalid_guest_session'] } }],
  ['getCart', { carrier: 'absent' }, 'accept', 'Guest sessions 2: an empty cart'],
  ['getCart', { carrier: 'other' }, 'accept', 'a cookie is no session'],
  ['addCartItem', { carrier: 'absent' }, { errorsOf: REQUIRED, clauses: ['AUTH-GUEST-4', 'ERR-TABLE-7'] }],
  ['addCartItem', { carrier: 'other', signature: 'altered' }, { errorsOf: REQUIRED }],
  ['getCart', { carrier: 'twice' }, 'either'],
  ['addCartItem', { carrier: 'twice', uuid: 'upper-case' }, 'either'],
  ['getCart', { token: 'none' }, { errorsOf: NO_TOKEN, clauses: ['AUTH-TOKEN-1', 'ERR-TABLE-1'] }],
  ['addCartItem', { token: 'none', signature: 'altered' }, { errorsOf: NO_TOKEN }, 'no token is answered first'],
  ['getCart', { token: 'customer' }, { errorsOf: ANY_4XX, clauses: ['AUTH-GUEST-11'] }],
  ['getCart', { token: 'customer', uuid: 'upper-case' }, { errorsOf: ANY_4XX }],
  ['getCart', { token: 'customer', carrier: 'absent' }, 'accept', "the customer's own cart"],
  ['getCart', { token: 'customer', carrier: 'other' }, 'accept'],
  ['getCart', { token: 'customer', value: 'empty' }, 'either'],
  // Sessions are verified on cart routes only; elsewhere a guest is judged by the guard.
  ['searchProducts', { signature: 'altered' }, 'accept', 'AUTH-GUEST-2'],
  ['searchProducts', { carrier: 'absent' }, 'accept'],
  ['listOrders', { signature: 'altered' }, { errorsOf: GUARD, clauses: ['END-LIST-2', 'ERR-TABLE-8'] }],
  ['listOrders', {}, { errorsOf: GUARD }],
  ['getMe', {}, 'either', 'the diagnostic list is not shown'],
  ['getIdentity', { token: 'customer', carrier: 'absent' }, 'either', "the checkout reads' scopes are not shown"],
  ['searchOpsOrders', { token: 'customer', carrier: 'absent' }, { errorsOf: ANY_4XX, clauses: ['PUR-RULE-3'] }],
  ['searchOpsOrders', { signature: 'altered' }, { errorsOf: ANY_4XX, clauses: ['PUR-RULE-3'] }],
];

const kindOf = (e: TokenExpectation) => (e.accept === true ? 'accept' : e.accept === false ? 'refuse' : 'either');

test('expectedOfSession: hand-picked shapes', () => {
  for (const [operationId, shape, want, note] of VECTORS) {
    const e = expectedOfSession(shape, { profile, operation: op(operationId), now: NOW });
    const what = `${operationId} ${describeSession(shape)}${note ? ` (${note})` : ''}`;
    if (typeof want === 'string') {
      assert.equal(kindOf(e), want, what);
      continue;
    }
    assert.equal(e.accept, false, what);
    if (e.accept !== false) continue;
    assert.deepEqual(e.errorsOf, want.errorsOf, what);
    for (const c of want.clauses ?? []) assert.ok(e.clauses.includes(c), `${what}: clause ${c} in ${e.clauses.join(' ')}`);
  }
});

test("expectedOfSession: the previous key by the profile's deadline; a cookie carrier; every clause cited exists", () => {
  const at = (until: string | null, previous: string | null = 'prev') => ({
    ...profile,
    secrets: { ...profile.secrets, guestSessionKeyPrevious: previous, guestSessionKeyPreviousUntil: until },
  });
  const of = (p: typeof profile) => kindOf(expectedOfSession({ signature: 'previous-key' }, { profile: p, now: NOW }));
  assert.equal(of(at('2030-01-02T03:00:00.000Z')), 'refuse', 'AUTH-GUEST-14: past the deadline');
  assert.equal(of(at('2030-01-02T03:04:30.000Z')), 'either', 'within a minute of it');
  assert.equal(of(at('2030-01-02T04:00:00.000Z')), 'accept', 'AUTH-GUEST-13: before it');
  assert.equal(of(at(null, null)), 'refuse', 'no previous key configured');
  const cookie = { in: 'cookie' as const, name: 'gs' };
  assert.equal(kindOf(expectedOfSession({ carrier: 'other' }, { profile, carrier: cookie })), 'either');
  assert.equal(kindOf(expectedOfSession({}, { profile, carrier: cookie })), 'accept');
  assert.equal(kindOf(expectedOfSession({ value: 'whitespace' }, { profile, carrier: cookie })), 'either');
  for (const id of ['getCart', 'addCartItem', 'removeCartItem', 'searchProducts', 'listOrders', 'getMe'])
    for (const s of fc.sample(sessionShapeArbitrary(), { seed: 3, numRuns: 1500 })) {
      const e = expectedOfSession(s, { profile, operation: op(id), now: NOW });
      if (e.accept === true) continue;
      for (const c of e.clauses) assert.ok(CLAUSES_BY_ID.has(c), `${c} (${describeSession(s)})`);
      if (e.accept === 'either') assert.ok(e.why.length > 0);
      else assert.ok(e.statuses.length > 0 && e.statuses.every((st) => st >= 400 && st < 500));
    }
});

test('judgeSessionAnswer: accepted is 2xx, refused is a listed status and code, either is anything but a 5xx', () => {
  const forged = expectedOfSession({ signature: 'altered' }, { profile });
  const customer = expectedOfSession({ token: 'customer' }, { profile });
  const cases: [TokenExpectation, number, unknown, boolean][] = [
    [{ accept: true }, 200, undefined, true],
    [{ accept: true }, 401, 'invalid_guest_session', false],
    [forged, 401, 'invalid_guest_session', true],
    [forged, 401, 'invalid_token', false],
    [forged, 200, undefined, false],
    [customer, 400, 'invalid_request', true],
    [customer, 422, 'whatever', true],
    [customer, 200, undefined, false],
    [{ accept: 'either', clauses: ['AUTH-GUEST-6'], why: 'x' }, 400, 'invalid_request', true],
    [{ accept: 'either', clauses: ['AUTH-GUEST-6'], why: 'x' }, 502, undefined, false],
  ];
  for (const [e, status, error, fits] of cases)
    assert.equal(judgeSessionAnswer(e, status, error) === undefined, fits, `${status} ${String(error)}`);
  assert.equal(judgeSessionAnswer(customer, 200, undefined)?.expected, 'any 4xx');
  // explore's judge: an accepted shape may meet a refusal of its request (an unknown line), never one of its session.
  const remove = { profile, operation: op('removeCartItem') };
  assert.equal(judgeShapedSession({}, remove, 404, 'not_found'), undefined);
  assert.ok(judgeShapedSession({}, remove, 401, 'invalid_guest_session'));
  assert.ok(judgeShapedSession({ carrier: 'absent' }, remove, 404, 'not_found'));
});

// --- buildSession -----------------------------------------------------------------------------------------------------------

const TOKENS = { guestToken: 'guest.token.sig', customerToken: 'customer.token.sig' };
const build = (shape: SessionShape, carrier = GUEST_SESSION_CARRIER) =>
  buildSession(shape, { profile, mint, key: KEY, uuid: OWN, otherUuid: OTHER, carrier, ...TOKENS, randomUUID: () => NEW });
const valueOf = (shape: SessionShape) =>
  sessionValue(shape, { profile, key: KEY, uuid: OWN, otherUuid: OTHER, carrier: GUEST_SESSION_CARRIER, ...TOKENS, randomUUID: () => NEW });

test('buildSession: the sound session, in its carrier, with the storefront token, acting as the guest', () => {
  const b = build({});
  assert.deepEqual(b, { headers: { authorization: 'Bearer guest.token.sig', 'guest-session': signGuestSession(OWN, KEY) }, actsAs: 'own' });
  assert.match(String(b.headers['guest-session']), GUEST_SESSION_FORMAT);
  assert.deepEqual(build({ uuid: 'other-guest' }).headers['guest-session'], signGuestSession(OTHER, KEY));
  assert.equal(build({ uuid: 'other-guest' }).actsAs, 'other');
  assert.deepEqual(build({ uuid: 'new' }).headers['guest-session'], signGuestSession(NEW, KEY));
  assert.equal(build({ uuid: 'new' }).actsAs, 'new');
  assert.equal(valueOf({ signature: 'previous-key' }), signGuestSession(OWN, profile.secrets.guestSessionKeyPrevious!));
});

test('buildSession: each format variation writes what it names', () => {
  const sig = guestSessionSignature(OWN, KEY);
  const up = OWN.toUpperCase();
  const cases: [SessionShape, string][] = [
    [{ prefix: 'other' }, `guest.${OWN}.${sig}`],
    [{ prefix: 'absent' }, `${OWN}.${sig}`],
    [{ prefix: 'version' }, `gs2.${OWN}.${sig}`],
    [{ prefix: 'upper-case' }, `GS1.${OWN}.${sig}`],
    [{ uuid: 'upper-case' }, `gs1.${up}.${guestSessionSignature(up, KEY)}`],
    [{ uuid: 'no-hyphens' }, signGuestSession(OWN.replace(/-/g, ''), KEY)],
    [{ uuid: 'not-uuid' }, signGuestSession(`cart-${OWN.slice(0, 8)}`, KEY)],
    [{ signature: 'other-uuid' }, `gs1.${OWN}.${guestSessionSignature(NEW, KEY)}`],
    [{ signature: 'truncated' }, `gs1.${OWN}.${sig.slice(0, 42)}`],
    [{ signature: 'padded' }, `gs1.${OWN}.${sig}=`],
    [{ signature: 'absent' }, `gs1.${OWN}`],
    [{ value: 'empty' }, ''],
    [{ value: 'whitespace' }, ` \tgs1.${OWN}.${sig}  `],
  ];
  for (const [shape, want] of cases) assert.equal(valueOf(shape), want, describeSession(shape));
  const altered = valueOf({ signature: 'altered' });
  assert.match(altered, GUEST_SESSION_FORMAT);
  assert.notEqual(altered, signGuestSession(OWN, KEY));
  assert.equal(altered.slice(-42), sig.slice(1), 'only the first character changed');
  const foreign = valueOf({ signature: 'other-key' });
  assert.match(foreign, GUEST_SESSION_FORMAT);
  assert.notEqual(foreign, signGuestSession(OWN, KEY));
});

test('buildSession: carriers and tokens', () => {
  const sound = signGuestSession(OWN, KEY);
  assert.deepEqual(build({ carrier: 'other' }).headers, { authorization: 'Bearer guest.token.sig', cookie: `Guest-Session=${sound}` });
  assert.equal(build({ carrier: 'other' }).actsAs, 'new');
  const twice = build({ carrier: 'twice' });
  assert.deepEqual(twice.headers['guest-session'], [sound, signGuestSession(OTHER, KEY)]);
  assert.equal(twice.actsAs, undefined);
  assert.deepEqual(build({ carrier: 'absent' }), { headers: { authorization: 'Bearer guest.token.sig' }, actsAs: 'new' });
  assert.deepEqual(build({ token: 'none' }), { headers: { 'guest-session': sound } });
  assert.deepEqual(build({ token: 'customer', carrier: 'absent' }), {
    headers: { authorization: 'Bearer customer.token.sig' },
    actsAs: 'customer',
  });
  // A target that declares a cookie: the shape's own carrier is the cookie, the other one the spec's header.
  const cookie = { in: 'cookie' as const, name: 'gs' };
  assert.deepEqual(build({}, cookie).headers, { authorization: 'Bearer guest.token.sig', cookie: `gs=${sound}` });
  assert.deepEqual(build({ carrier: 'other' }, cookie).headers, { authorization: 'Bearer guest.token.sig', 'guest-session': sound });
  assert.equal(build({ carrier: 'other' }, cookie).actsAs, undefined);
  assert.equal(build({ carrier: 'twice' }, cookie).headers.cookie, `gs=${sound}; gs=${signGuestSession(OTHER, KEY)}`);
});
