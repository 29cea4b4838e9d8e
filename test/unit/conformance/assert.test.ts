// The suite's assertions: each passes on a conforming response and fails, with expected and actual, on one deviation.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CheckFailure,
  softFailures,
  expectCacheControl,
  expectChallenge,
  expectNoStore,
  expectProblem,
  expectStatus,
  expectWeakEtag,
  type HttpResult,
} from '../../../conformance/lib/assert.js';

const DOCS = 'https://docs.shop.test';
const RID = '0b7c7d5e-5d44-4b1c-8d87-1c1f1d2b2a90';

function response(status: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return {
    status,
    headers: new Headers({ 'content-type': 'application/problem+json', 'x-request-id': RID, 'cache-control': 'no-store', ...headers }),
    body,
  };
}

const problem = (error: string, status: number, title: string, extra: Record<string, unknown> = {}) => ({
  type: `${DOCS}/api/problems/${error}`,
  title,
  status,
  error,
  instance: RID,
  ...extra,
});

const issue = (i: number) => ({ path: `items[${i}].quantity`, code: 'too_small', message: 'must be at least 1' });

/** Runs `fn`, which must throw a CheckFailure; returns it for further assertions. */
function failure(fn: () => unknown): CheckFailure {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof CheckFailure, `expected a CheckFailure, got ${String(err)}`);
    return err;
  }
  assert.fail('the check passed');
}

test('expectProblem passes on a correct document and returns it', () => {
  const body = problem('invalid_token', 401, 'Unauthorized', { detail: 'The token has expired.' });
  assert.deepStrictEqual(expectProblem(response(401, body), { status: 401, error: 'invalid_token', docsUrl: DOCS, requestId: RID }), body);
});

test('expectProblem passes with issues (string or array paths), scope, charset and a docsUrl with a trailing slash', () => {
  const issues = [issue(0), { path: ['items', 1, 'quantity'], code: 'too_small', message: 'm' }];
  expectProblem(
    response(400, problem('invalid_request', 400, 'Bad Request', { issues }), {
      'content-type': 'application/problem+json; charset=utf-8',
    }),
    {
      status: 400,
      error: 'invalid_request',
      docsUrl: `${DOCS}/`,
    },
  );
  expectProblem(response(403, problem('insufficient_scope', 403, 'Forbidden', { scope: 'orders:read' })), {
    status: 403,
    error: 'insufficient_scope',
    docsUrl: DOCS,
    scope: 'orders:read',
  });
  expectProblem(response(500, problem('internal_error', 500, 'Internal Server Error')), {
    status: 500,
    error: 'internal_error',
    docsUrl: DOCS,
  });
});

interface Deviation {
  description: string;
  res: HttpResult;
  want?: { status: number; error: string; requestId?: string; scope?: string };
  expected: unknown;
  actual: unknown;
  /** The clause the failure names: the format's own clause, or (absent) the caller's. */
  clause?: string;
  /** Every clause the failure blames, as its message lists them, where more than one. */
  blamed?: string;
}

const ok401 = problem('invalid_token', 401, 'Unauthorized');
const deviations: Deviation[] = [
  { description: 'wrong status', res: response(400, { ...ok401, status: 400 }), expected: 401, actual: 400 },
  {
    description: 'wrong media type',
    res: response(401, ok401, { 'content-type': 'application/json' }),
    expected: 'application/problem+json',
    actual: 'application/json',
    clause: 'ERR-PROBLEM-4',
  },
  {
    description: 'wrong type URL',
    res: response(401, { ...ok401, type: `${DOCS}/problems/invalid_token` }),
    expected: `${DOCS}/api/problems/invalid_token`,
    actual: `${DOCS}/problems/invalid_token`,
    clause: 'RES-PROBLEM-3',
  },
  {
    description: 'wrong title',
    res: response(401, { ...ok401, title: 'Invalid Token' }),
    expected: 'Unauthorized',
    actual: 'Invalid Token',
    clause: 'RES-PROBLEM-4',
  },
  {
    description: 'status member differs from the real status',
    res: response(401, { ...ok401, status: '401' }),
    expected: 401,
    actual: '401',
    clause: 'RES-PROBLEM-5',
  },
  {
    description: 'wrong error',
    res: response(401, { ...ok401, error: 'invalid_dpop_proof' }),
    expected: 'invalid_token',
    actual: 'invalid_dpop_proof',
  },
  {
    description: 'instance differs from X-Request-Id',
    res: response(401, { ...ok401, instance: 'other-id' }),
    expected: RID,
    actual: 'other-id',
    clause: 'RES-PROBLEM-8',
  },
  {
    description: 'no X-Request-Id header',
    res: response(401, { ...ok401, instance: undefined }, { 'x-request-id': '' }),
    expected: 'present',
    actual: '',
    clause: 'ERR-PROBLEM-7',
  },
  {
    description: 'no Cache-Control: no-store',
    res: response(401, ok401, { 'cache-control': 'private' }),
    expected: 'no-store',
    actual: 'private',
    clause: 'ERR-PROBLEM-5',
  },
  {
    description: 'X-Request-Id not the one the request sent',
    res: response(401, ok401),
    want: { status: 401, error: 'invalid_token', requestId: 'sent-id' },
    expected: 'sent-id',
    actual: RID,
  },
  { description: 'body not an object', res: response(401, [ok401]), expected: 'a JSON object', actual: [ok401] },
  {
    description: '21 issues',
    res: response(400, problem('invalid_request', 400, 'Bad Request', { issues: Array.from({ length: 21 }, (_, i) => issue(i)) })),
    want: { status: 400, error: 'invalid_request' },
    expected: 'at most 20',
    actual: 21,
    clause: 'RES-PROBLEM-9',
  },
  {
    description: 'an issue without code',
    res: response(400, problem('invalid_request', 400, 'Bad Request', { issues: [{ path: 'a', message: 'm' }] })),
    want: { status: 400, error: 'invalid_request' },
    expected: '{ path: string | (string|number)[], code: string, message: string }',
    actual: { path: 'a', message: 'm' },
    clause: 'RES-PROBLEM-10',
  },
  {
    description: 'issues on a non-validation error',
    res: response(401, { ...ok401, issues: [] }),
    expected: 'absent',
    actual: [],
    clause: 'RES-PROBLEM-9',
  },
  {
    description: 'detail on internal_error',
    res: response(500, problem('internal_error', 500, 'Internal Server Error', { detail: 'TypeError: x is undefined' })),
    want: { status: 500, error: 'internal_error' },
    expected: 'absent',
    actual: 'TypeError: x is undefined',
    clause: 'RES-PROBLEM-7',
  },
  {
    description: 'detail not a string',
    res: response(401, { ...ok401, detail: { msg: 'x' } }),
    expected: 'a string',
    actual: { msg: 'x' },
    clause: 'RES-PROBLEM-6',
  },
  {
    description: 'insufficient_scope without scope',
    res: response(403, problem('insufficient_scope', 403, 'Forbidden')),
    want: { status: 403, error: 'insufficient_scope' },
    expected: 'a non-empty string',
    actual: undefined,
    // The error table's row is blamed beside the caller's clause.
    blamed: 'ERR-PROBLEM, ERR-TABLE-9',
  },
  {
    description: 'insufficient_scope naming another scope',
    res: response(403, problem('insufficient_scope', 403, 'Forbidden', { scope: 'orders:write' })),
    want: { status: 403, error: 'insufficient_scope', scope: 'orders:read' },
    expected: 'orders:read',
    actual: 'orders:write',
    blamed: 'ERR-PROBLEM, ERR-TABLE-9',
  },
  {
    description: 'scope on another error',
    res: response(401, { ...ok401, scope: 'x' }),
    expected: 'absent',
    actual: 'x',
    clause: 'RES-PROBLEM-11',
  },
];

for (const d of deviations) {
  test(`expectProblem fails on: ${d.description}`, () => {
    const want = { status: 401, error: 'invalid_token', ...d.want, docsUrl: DOCS, clause: 'ERR-PROBLEM' };
    const err = failure(() => expectProblem(d.res, want));
    assert.deepStrictEqual(err.expected, d.expected);
    assert.deepStrictEqual(err.actual, d.actual);
    assert.equal(err.clause, d.clause ?? 'ERR-PROBLEM');
    assert.match(err.message, new RegExp(`^\\[${d.blamed ?? d.clause ?? 'ERR-PROBLEM'}\\] .+: expected .+, got `));
  });
}

test('expectStatus: one status or a list', () => {
  expectStatus({ status: 204 }, 204);
  expectStatus({ status: 401 }, [400, 401]);
  const err = failure(() => expectStatus({ status: 500 }, 200));
  assert.deepStrictEqual([err.expected, err.actual, err.clause], [200, 500, undefined]);
  assert.equal(err.message, 'status: expected 200, got 500');
});

const challengeRes = (value?: string) => ({ headers: new Headers(value === undefined ? {} : { 'www-authenticate': value }) });

test('expectChallenge finds the scheme case-insensitively and checks error and params', () => {
  const res = challengeRes('Bearer error="invalid_token", DPoP error="invalid_token", algs="ES256"');
  const dpop = expectChallenge(res, { scheme: 'dpop', error: 'invalid_token', params: { ALGS: 'ES256', error_description: undefined } });
  assert.equal(dpop.scheme, 'DPoP');
  expectChallenge(res, { scheme: 'Bearer', error: 'invalid_token' });
});

test('expectChallenge fails with expected and actual', () => {
  let err = failure(() => expectChallenge(challengeRes(), { scheme: 'Bearer' }));
  assert.deepStrictEqual([err.expected, err.actual], ['a Bearer challenge', null]);
  err = failure(() => expectChallenge(challengeRes('Bearer error="invalid_token"'), { scheme: 'DPoP' }));
  assert.deepStrictEqual([err.expected, err.actual], ['DPoP', ['Bearer']]);
  err = failure(() => expectChallenge(challengeRes('Bearer error="invalid_token"'), { scheme: 'Bearer', error: 'sign_in_required' }));
  assert.deepStrictEqual([err.expected, err.actual], ['sign_in_required', 'invalid_token']);
  err = failure(() => expectChallenge(challengeRes('Bearer error="x", scope="a"'), { scheme: 'Bearer', params: { scope: undefined } }));
  assert.deepStrictEqual([err.expected, err.actual], ['absent', 'a']);
  err = failure(() => expectChallenge(challengeRes('Bearer error="x'), { scheme: 'Bearer', clause: 'AUTH-CHALLENGE' }));
  assert.equal(err.actual, 'Bearer error="x');
  assert.equal(err.clause, 'AUTH-CHALLENGE');
  assert.match(err.message, /unterminated quoted-string/);
});

const cacheRes = (value?: string) => ({ headers: new Headers(value === undefined ? {} : { 'cache-control': value }) });

test('expectNoStore and expectCacheControl', () => {
  expectNoStore(cacheRes('no-store'));
  expectNoStore(cacheRes('private, No-Store'));
  expectCacheControl(cacheRes('private, no-cache'), ['private', 'no-cache'], { exact: true });
  expectCacheControl(cacheRes('public, max-age="300"'), ['max-age=300']);
  assert.equal(failure(() => expectNoStore(cacheRes())).actual, null);
  assert.equal(failure(() => expectNoStore(cacheRes('no-cache'))).actual, 'no-cache');
  assert.equal(failure(() => expectCacheControl(cacheRes('max-age=60'), ['max-age=300'])).expected, 'max-age=300');
  assert.equal(
    failure(() => expectCacheControl(cacheRes('private, no-cache, no-store'), ['private', 'no-cache'], { exact: true })).actual,
    'private, no-cache, no-store',
  );
});

test('expectWeakEtag', () => {
  assert.equal(expectWeakEtag({ headers: new Headers({ etag: 'W/"abc-123"' }) }), 'W/"abc-123"');
  expectWeakEtag({ headers: new Headers({ etag: 'W/""' }) });
  for (const etag of ['"abc"', 'W/abc', 'w/"abc"', 'W/"a"b"']) {
    assert.equal(failure(() => expectWeakEtag({ headers: new Headers({ etag }) })).actual, etag);
  }
  assert.equal(failure(() => expectWeakEtag({ headers: new Headers() })).actual, null);
});

test('expectCreated and expectNoContent', async () => {
  const { expectCreated, expectNoContent, CheckFailure } = await import('../../../conformance/lib/assert.js');
  const h = (o: Record<string, string>) => new Headers(o);
  const at = { requestUrl: 'https://api.shop.test/v1/me/addresses', baseUrl: 'https://api.shop.test' };
  const ADDRESS = /^\/v1\/me\/addresses\/[^/]+$/;
  assert.equal(
    expectCreated({ status: 201, headers: h({ location: '/v1/me/addresses/addr_1234' }) }, { location: ADDRESS, ...at }),
    'https://api.shop.test/v1/me/addresses/addr_1234',
  );
  expectCreated({ status: 201, headers: h({ location: 'https://api.shop.test/v1/me/addresses/addr_1' }) }, { location: ADDRESS, ...at });
  // A relative reference resolves against the request's URL (RFC 3986 §5.2): "addresses/addr_2" from /v1/me/addresses.
  assert.equal(
    expectCreated({ status: 201, headers: h({ location: 'addresses/addr_2' }) }, { location: ADDRESS, ...at }),
    'https://api.shop.test/v1/me/addresses/addr_2',
  );
  // Behind a path prefix: an absolute path or a full URL carrying the prefix, resolved once.
  const prefixed = { requestUrl: 'http://host.test/shop/v1/me/addresses', baseUrl: 'http://host.test/shop' };
  for (const location of ['/shop/v1/me/addresses/addr_3', 'http://host.test/shop/v1/me/addresses/addr_3', 'addresses/addr_3'])
    assert.equal(
      expectCreated({ status: 201, headers: h({ location }) }, { location: ADDRESS, ...prefixed }),
      'http://host.test/shop/v1/me/addresses/addr_3',
    );
  // The prefix left out, another origin: not a URL of this deployment.
  for (const location of ['/v1/me/addresses/addr_3', 'http://other.test/shop/v1/me/addresses/addr_3', '/shop/shop/v1/me/addresses/addr_3'])
    assert.throws(() => expectCreated({ status: 201, headers: h({ location }) }, { location: ADDRESS, ...prefixed }), CheckFailure);
  expectCreated({ status: 201, headers: h({}) });
  assert.throws(() => expectCreated({ status: 200, headers: h({}) }), CheckFailure);
  assert.throws(
    () => expectCreated({ status: 201, headers: h({}) }, { location: /x/, ...at, clause: 'END-CONV-2' }),
    (e: unknown) => e instanceof CheckFailure && e.clause === 'END-CONV-2',
  );
  assert.throws(
    () => expectCreated({ status: 201, headers: h({ location: '/v1/other' }) }, { location: /^\/v1\/me/, ...at }),
    CheckFailure,
  );
  expectNoContent({ status: 204, text: '' });
  assert.throws(() => expectNoContent({ status: 200, text: '' }), CheckFailure);
  assert.throws(() => expectNoContent({ status: 204, text: '{}' }), CheckFailure);
});

test("inside a check, format failures are recorded softly and the caller's clause is still judged", () => {
  const ledger: CheckFailure[] = [];
  softFailures.ledger = ledger;
  try {
    const res = response(401, { ...ok401, title: 'Nope' }, { 'x-request-id': '' });
    expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: DOCS, clause: 'ERR-TABLE-1' });
    assert.deepEqual(
      ledger.map((f) => f.clause),
      ['RES-PROBLEM-4', 'ERR-PROBLEM-7'],
    );
    const wrong = failure(() =>
      expectProblem(response(401, { ...ok401, error: 'other' }), {
        status: 401,
        error: 'invalid_token',
        docsUrl: DOCS,
        clause: 'ERR-TABLE-1',
      }),
    );
    assert.equal(wrong.clause, 'ERR-TABLE-1');
  } finally {
    softFailures.ledger = undefined;
  }
});

test('expectSuccess shows the answer; inCase names the case after the clause, for sync and async assertions', async () => {
  const { expectSuccess, inCase, fail, CheckFailure } = await import('../../../conformance/lib/assert.js');
  expectSuccess({ status: 201, text: '' }, { what: 'add', clause: 'END-CONV-1' });
  const refused = failure(() => expectSuccess({ status: 404, text: '{"error":"not_found"}' }, { what: 'add', clause: 'END-CONV-1' }));
  assert.equal(refused.message, '[END-CONV-1] add: status: expected "2xx", got "404 {\\"error\\":\\"not_found\\"}"');

  assert.equal(
    inCase('no failure', () => undefined),
    undefined,
  );
  const named = failure(() => inCase('a forged session', () => fail('status', 401, 400, { clause: 'AUTH-GUEST-5' })));
  assert.equal(named.message, '[AUTH-GUEST-5] a forged session: status: expected 401, got 400');
  assert.equal(failure(() => inCase('no clause', () => fail('status', 401, 400))).message, 'no clause: status: expected 401, got 400');
  await assert.rejects(
    inCase('async', async () => fail('status', 200, 500, { clause: 'EVT-WEBHOOK-1' })),
    (e: unknown) => e instanceof CheckFailure && e.message === '[EVT-WEBHOOK-1] async: status: expected 200, got 500',
  );
  await inCase('async, no failure', async () => undefined);
  // Other errors pass through unnamed.
  assert.throws(
    () =>
      inCase('x', () => {
        throw new TypeError('boom');
      }),
    (e: unknown) => e instanceof TypeError && e.message === 'boom',
  );
});

test("expectProblem: a challenge on insufficient_scope is the server's choice; on a domain error or caller_not_allowed it fails", () => {
  const challenge = { 'www-authenticate': 'Bearer error="insufficient_scope", scope="orders:read"' };
  expectProblem(response(403, problem('insufficient_scope', 403, 'Forbidden', { scope: 'orders:read' }), challenge), {
    status: 403,
    error: 'insufficient_scope',
    docsUrl: DOCS,
  });
  const domain = failure(() =>
    expectProblem(response(422, problem('cart_empty', 422, 'Unprocessable Content'), challenge), {
      status: 422,
      error: 'cart_empty',
      docsUrl: DOCS,
    }),
  );
  assert.deepEqual(domain.clauses, ['ERR-PROBLEM-8']);
  const caller = failure(() =>
    expectProblem(response(403, problem('caller_not_allowed', 403, 'Forbidden'), challenge), {
      status: 403,
      error: 'caller_not_allowed',
      docsUrl: DOCS,
    }),
  );
  assert.deepEqual(caller.clauses, ['ERR-PROBLEM-8']);
});

test('expectStatus names what it looks at and shows the answer; expectHeader and expectNoHeader judge one header', async () => {
  const { expectHeader, expectNoHeader, expectStatus: status } = await import('../../../conformance/lib/assert.js');
  status({ status: 403, text: '' }, [401, 403], { clause: 'END-PUBLIC-19' });
  const wrong = failure(() => status({ status: 500, text: '{"error":"internal_error"}' }, 200, { what: 'getCart', clause: 'END-CONV-1' }));
  assert.equal(wrong.message, '[END-CONV-1] getCart: expected 200, got "500 {\\"error\\":\\"internal_error\\"}"');
  assert.equal(failure(() => status({ status: 500 }, [200, 204])).message, 'status: expected [200,204], got 500');

  const h = (headers: Record<string, string>) => ({ headers: new Headers(headers) });
  assert.equal(expectHeader(h({ 'x-request-id': 'abc' }), 'x-request-id', { clause: 'ERR-PROBLEM-7' }), 'abc');
  assert.equal(expectHeader(h({ etag: 'W/"1"' }), 'etag', { value: /^W\// }), 'W/"1"');
  assert.equal(failure(() => expectHeader(h({}), 'x-request-id', { clause: 'ERR-PROBLEM-7' })).clause, 'ERR-PROBLEM-7');
  assert.equal(failure(() => expectHeader(h({ 'x-request-id': '' }), 'x-request-id')).expected, 'present');
  assert.equal(failure(() => expectHeader(h({ allow: 'GET' }), 'allow', { value: 'GET, POST' })).actual, 'GET');
  expectNoHeader(h({}), 'www-authenticate', { clause: 'ERR-TABLE-8' });
  const challenged = failure(() =>
    expectNoHeader(h({ 'www-authenticate': 'Bearer' }), 'www-authenticate', {
      what: 'WWW-Authenticate on caller_not_allowed',
      clause: 'ERR-TABLE-8',
    }),
  );
  assert.equal(challenged.message, '[ERR-TABLE-8] WWW-Authenticate on caller_not_allowed: expected "absent", got "Bearer"');
});

test('problem members: each condition judges its own clause, hard by default, softly on request, named by `at`', async () => {
  const { expectProblemTitle, expectOwnedMembers, expectIssues, expectProblemError, expectProblemInstance } =
    await import('../../../conformance/lib/assert.js');
  const res401 = response(401, ok401);
  expectProblemTitle(res401, ok401);
  assert.equal(failure(() => expectProblemTitle(res401, { ...ok401, title: 'Nope' })).clause, 'RES-PROBLEM-4');
  // Any phrase registered for the status, of any edition, or the response's own reason phrase (RES-PROBLEM-4).
  for (const [status, title] of [
    [413, 'Payload Too Large'],
    [413, 'Content Too Large'],
    [413, 'Request Entity Too Large'],
    [422, 'Unprocessable Entity'],
    [422, 'unprocessable content'],
  ] as const)
    expectProblemTitle(response(status, {}), { title });
  expectProblemTitle({ ...response(400, {}), reason: 'Malformed' }, { title: 'Malformed' });
  assert.equal(failure(() => expectProblemTitle(response(413, {}), { title: 'Bad Request' })).clause, 'RES-PROBLEM-4');
  assert.equal(failure(() => expectProblemTitle(response(422, {}), { title: 'Unprocessable' })).clause, 'RES-PROBLEM-4');
  assert.equal(failure(() => expectOwnedMembers({ ...ok401, scope: 'x' }, 'invalid_token')).clause, 'RES-PROBLEM-11');
  expectOwnedMembers({ ...ok401, scope: 'cart:read' }, 'insufficient_scope');
  assert.equal(failure(() => expectIssues({ issues: [{ path: 'a' }] })).clause, 'RES-PROBLEM-10');
  assert.equal(failure(() => expectIssues({ issues: 'x' })).clause, 'RES-PROBLEM-9');
  // A clause given replaces the member's, even none (the check's own clauses).
  assert.equal(failure(() => expectProblemError({ error: 'x' }, { error: 'y', clause: 'ERR-TABLE-1' })).clause, 'ERR-TABLE-1');
  assert.deepEqual(failure(() => expectProblemError({ error: 'x' }, { error: 'y', clause: undefined })).clauses, []);
  assert.equal(failure(() => expectProblemError({ error: '' })).clause, 'RES-PROBLEM-2');

  const ledger: CheckFailure[] = [];
  softFailures.ledger = ledger;
  try {
    expectProblemInstance(res401, { ...ok401, instance: 'other' }, { soft: true, at: 'getCart (401)' });
    expectIssues({ issues: [1] }, { soft: true, at: 'addCartItem (400)' });
  } finally {
    softFailures.ledger = undefined;
  }
  assert.deepEqual(
    ledger.map((f) => [f.clause, f.what]),
    [
      ['RES-PROBLEM-8', 'getCart (401): problem "instance" (the X-Request-Id)'],
      ['RES-PROBLEM-10', 'addCartItem (400): problem "issues[0]"'],
    ],
  );
});

test('expect4xx shows the answer; expectSameJson compares as JSON, member order included', async () => {
  const { expect4xx, expectSameJson } = await import('../../../conformance/lib/assert.js');
  expect4xx({ status: 404, text: '' }, { clause: 'ERR-TABLE-15' });
  assert.equal(
    failure(() => expect4xx({ status: 500, text: 'oops' }, { what: 'a refusal', clause: 'ERR-TABLE-15' })).message,
    '[ERR-TABLE-15] a refusal: expected "4xx", got "500 oops"',
  );
  expectSameJson({ items: [] }, { items: [] }, { what: 'addresses' });
  const reordered = failure(() => expectSameJson({ b: 1, a: 2 }, { a: 2, b: 1 }, { what: 'record', clause: 'END-CONV-1' }));
  assert.deepEqual([reordered.clause, reordered.expected, reordered.actual], ['END-CONV-1', { a: 2, b: 1 }, { b: 1, a: 2 }]);
});

test('expectNoAnswer refuses a 2xx or 3xx; expectNoServerError refuses a 5xx and shows it', async () => {
  const { expectNoAnswer, expectNoServerError } = await import('../../../conformance/lib/assert.js');
  for (const status of [404, 405, 401, 500]) expectNoAnswer({ status }, { clause: 'PUR-RULE-6' });
  for (const status of [200, 204, 302])
    assert.equal(failure(() => expectNoAnswer({ status }, { what: 'GET /x', clause: 'PUR-RULE-6' })).actual, status);
  expectNoServerError({ status: 422, text: '' });
  assert.equal(failure(() => expectNoServerError({ status: 503, text: 'down' }, { clause: 'PUR-SERVE-3' })).actual, '503 down');
});
