// The rule book (conformance/rules/) and the contract's request lookups it reads (contract/requests.ts), from vector
// tables: each rule's clause is in the catalogue, each judges one answer as a failure record, and each lookup is pinned.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLAUSES_BY_ID } from '../../../contract/clauses/index.js';
import {
  challengeSchemeOf,
  credentialsOf,
  headerOf,
  isDpopRequest,
  matchesTemplate,
  mayBeDpopRequest,
  routeOf,
  templatePattern,
  type Credentials,
} from '../../../contract/requests.js';
import { softFailures, CheckFailure } from '../../../conformance/lib/expect/failure.js';
import {
  RULES,
  NONCE_ON_EVERY_RESPONSE,
  PROBLEM_TITLE,
  NO_NONCE_ON_DOMAIN_ERROR,
  expectDomainErrorHeaders,
  expectDpopNonce,
  expectTitle,
  failureOf,
  nonceAllowed,
  nonceOf,
} from '../../../conformance/rules/index.js';

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const jwt = (header: object, claims: object) => `${b64(header)}.${b64(claims)}.sig`;
const ASSISTANT_ACT = jwt({ alg: 'ES256', typ: 'at+jwt' }, { sub: 'u', act: { sub: 'personal_agent' } });
const SIGNED_OUT = jwt({ alg: 'HS256', typ: 'signed-out-proxy+jwt' }, { sub: 'c@clients' });
const CUSTOMER = jwt({ alg: 'RS256', typ: 'at+jwt' }, { sub: 'u' });

test('every rule of the book cites clauses of the catalogue, has a scope and a name', () => {
  assert.ok(RULES.length >= 4);
  for (const { rule, file } of RULES) {
    for (const id of typeof rule.clause === 'string' ? [rule.clause] : rule.clause) assert.ok(CLAUSES_BY_ID.has(id), `${file}: ${id}`);
    assert.ok(rule.name && rule.section && rule.scope.route && rule.scope.request, file);
  }
});

test('path templates: one segment per parameter, the rest literal; a trailing slash only when asked', () => {
  const vectors: [template: string, path: string, matches: boolean, trailing?: boolean][] = [
    ['/v1/me/orders/{id}', '/v1/me/orders/ord_1', true],
    ['/v1/me/orders/{id}', '/v1/me/orders/', false],
    ['/v1/me/orders/{id}', '/v1/me/orders/a/b', false],
    ['/v1/me/orders/{id}', '/v1/me/orders/ord_1/', false],
    ['/v1/me/orders/{id}', '/v1/me/orders/ord_1/', true, true],
    ['/v1/catalog/products.json', '/v1/catalog/productsxjson', false],
    ['/a/{x}/b/{y}', '/a/1/b/2', true],
  ];
  for (const [template, path, matches, trailing] of vectors)
    assert.equal(templatePattern(template, { trailingSlash: trailing ?? false }).test(path), matches, `${template} ${path}`);
  assert.equal(matchesTemplate('/v1/me/addresses/{id}', '/v1/me/addresses/adr_1'), true);
  assert.deepEqual(templatePattern('/a/{x}/b/{y}', { capture: true }).exec('/a/1/b/2')?.slice(1), ['1', '2']);
});

test('the route of a request: the operation by method and template, HEAD as GET', () => {
  assert.equal(routeOf('GET', '/v1/cart')?.operationId, 'getCart');
  assert.equal(routeOf('HEAD', '/v1/cart')?.operationId, 'getCart');
  assert.equal(routeOf('get', '/v1/me/orders/ord_1')?.operationId, 'getOrder');
  assert.equal(routeOf('GET', '/v1/no-such-route'), undefined);
  assert.equal(routeOf('PUT', '/v1/cart'), undefined);
});

test('credentials, the DPoP request and the challenge scheme of a request (spec, Challenge scheme)', () => {
  const vectors: {
    what: string;
    path?: string;
    headers: Record<string, string | string[]>;
    dpop: boolean;
    either: boolean;
    scheme: 'DPoP' | 'Bearer';
  }[] = [
    { what: 'no credential', headers: {}, dpop: false, either: false, scheme: 'Bearer' },
    {
      what: 'no credential on a conversation path',
      path: '/assistant/conversations/c1',
      headers: {},
      dpop: false,
      either: false,
      scheme: 'DPoP',
    },
    { what: 'a customer token', headers: { authorization: `Bearer ${CUSTOMER}` }, dpop: false, either: false, scheme: 'Bearer' },
    {
      what: 'the DPoP scheme with a proof',
      headers: { Authorization: `DPoP ${ASSISTANT_ACT}`, DPoP: 'p' },
      dpop: true,
      either: true,
      scheme: 'DPoP',
    },
    {
      what: 'the DPoP scheme in any case',
      headers: { authorization: `dpop ${CUSTOMER}`, dpop: 'p' },
      dpop: true,
      either: true,
      scheme: 'DPoP',
    },
    {
      what: 'the DPoP scheme without a proof',
      headers: { authorization: `DPoP ${ASSISTANT_ACT}` },
      dpop: false,
      either: true,
      scheme: 'DPoP',
    },
    {
      what: 'a proof beside Bearer',
      headers: { authorization: `Bearer ${CUSTOMER}`, dpop: 'p' },
      dpop: false,
      either: true,
      scheme: 'Bearer',
    },
    {
      what: "an assistant's token as Bearer (act)",
      headers: { authorization: `Bearer ${ASSISTANT_ACT}` },
      dpop: false,
      either: false,
      scheme: 'DPoP',
    },
    {
      what: 'a signed-out proxy token as Bearer (typ)',
      headers: { authorization: `Bearer ${SIGNED_OUT}` },
      dpop: false,
      either: false,
      scheme: 'DPoP',
    },
    { what: 'a malformed Bearer token', headers: { authorization: 'Bearer not-a-jwt' }, dpop: false, either: false, scheme: 'Bearer' },
    { what: 'a removed Authorization header', headers: { authorization: [] }, dpop: false, either: false, scheme: 'Bearer' },
  ];
  for (const v of vectors) {
    const c = credentialsOf(v.headers);
    assert.equal(isDpopRequest(c), v.dpop, `${v.what}: DPoP request`);
    assert.equal(mayBeDpopRequest(c), v.either, `${v.what}: DPoP request in either reading`);
    assert.equal(challengeSchemeOf(v.path ?? '/v1/cart', c), v.scheme, `${v.what}: challenge scheme`);
  }
  assert.equal(headerOf(new Headers({ 'DPoP-Nonce': 'n' }), 'dpop-nonce'), 'n');
  assert.equal(headerOf({ 'X-A': ['1', '2'] }, 'x-a'), '1, 2');
});

const answer = (status: number, headers: Record<string, string> = {}, body?: unknown) => ({ status, headers: new Headers(headers), body });

test('AUTH-ORDER-4: a nonce on every answer to a DPoP request, a blank one is none', () => {
  const dpop: Credentials = { scheme: 'dpop', proof: true, assistantToken: true };
  assert.equal(NONCE_ON_EVERY_RESPONSE.applies(dpop), true);
  assert.equal(NONCE_ON_EVERY_RESPONSE.applies({ ...dpop, proof: false }), false);
  assert.equal(NONCE_ON_EVERY_RESPONSE.judge(answer(404, { 'dpop-nonce': 'n' })), undefined);
  assert.equal(nonceOf(new Headers({ 'dpop-nonce': '  ' })), undefined);
  const failure = failureOf(NONCE_ON_EVERY_RESPONSE, answer(400, { 'dpop-nonce': ' ' }), { at: 'GET /v1/cart (400)' });
  assert.ok(failure instanceof CheckFailure);
  assert.deepEqual(failure.clauses, ['AUTH-ORDER-4']);
  assert.equal(
    failure.message,
    '[AUTH-ORDER-4] GET /v1/cart (400): DPoP-Nonce on the answer to a DPoP request: expected "a nonce", got ""',
  );
  // Hard by default, with the caller's clause in place of the rule's; soft into the open ledger.
  assert.throws(
    () => expectDpopNonce(answer(200), { clause: ['AUTH-ASST-1', 'ERR-TABLE-4'] }),
    (e: CheckFailure) => e.clauses.length === 2,
  );
  const ledger: CheckFailure[] = [];
  softFailures.ledger = ledger;
  try {
    expectDpopNonce(answer(200), { soft: true, at: 'x' });
    expectDpopNonce(answer(200), { soft: true, at: 'x' });
  } finally {
    softFailures.ledger = undefined;
  }
  assert.equal(ledger.length, 1);
});

test("RES-PROBLEM-4: a title is a registered phrase of the status or the answer's own, any case; any text without one", () => {
  const vectors: [status: number, reason: string | undefined, title: unknown, ok: boolean][] = [
    [413, undefined, 'Payload Too Large', true],
    [413, undefined, 'content too large', true],
    [422, undefined, 'Unprocessable Entity', true],
    [404, undefined, 'Missing', false],
    [404, 'Missing', 'Missing', true],
    [404, undefined, undefined, false],
    [499, undefined, 'Client Closed', true],
    [499, undefined, '  ', false],
  ];
  for (const [status, reason, title, ok] of vectors)
    assert.equal(PROBLEM_TITLE.judge({ res: { status, reason }, doc: { title } }) === undefined, ok, `${status} ${String(title)}`);
  assert.throws(
    () => expectTitle({ status: 404 }, { title: 'Nope' }),
    (e: CheckFailure) => e.clause === 'RES-PROBLEM-4' && e.expected === 'Not Found',
  );
});

test('ERR-PROBLEM-8: no challenge on a domain error, nor a nonce unless one may answer the request', () => {
  const none: Credentials = { scheme: undefined, proof: false, assistantToken: false };
  assert.equal(nonceAllowed({ path: '/v1/cart', credentials: none }), false);
  assert.equal(nonceAllowed({ path: '/assistant/conversations', credentials: none }), true);
  assert.equal(nonceAllowed({ path: '/v1/cart', credentials: { ...none, scheme: 'bearer', assistantToken: true } }), true);
  assert.equal(NO_NONCE_ON_DOMAIN_ERROR.applies({ path: '/v1/cart', credentials: { ...none, proof: true } }), false);
  const cartEmpty = answer(422, { 'dpop-nonce': 'n', 'www-authenticate': 'Bearer' }, { error: 'cart_empty' });
  const ledger: CheckFailure[] = [];
  softFailures.ledger = ledger;
  try {
    expectDomainErrorHeaders(cartEmpty, 'POST /v1/checkout', { path: '/v1/checkout', credentials: { ...none, scheme: 'bearer' } });
    expectDomainErrorHeaders(answer(401, { 'dpop-nonce': 'n', 'www-authenticate': 'Bearer' }, { error: 'invalid_token' }), 'GET /v1/cart');
  } finally {
    softFailures.ledger = undefined;
  }
  assert.deepEqual(
    ledger.map((f) => f.message),
    [
      '[ERR-PROBLEM-8] POST /v1/checkout (422 cart_empty): WWW-Authenticate on a domain error: expected "absent", got "Bearer"',
      '[ERR-PROBLEM-8] POST /v1/checkout (422 cart_empty): DPoP-Nonce on a domain error to a request without a proof: expected "absent", got "n"',
    ],
  );
});
