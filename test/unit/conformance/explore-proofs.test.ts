// explore's DPoP proof shapes (conformance/explore/proofs.ts): the arbitrary reaches every variation, shapes survive a
// replay file, expectedOfProof says what the spec and RFC 9449 pin on hand-picked shapes (and leaves open what they
// leave open), and buildProof writes the header members, claims, signature and form each shape names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compactVerify, decodeJwt, decodeProtectedHeader, importJWK, type JWK } from 'jose';
import { OPERATIONS_BY_ID } from '../../../contract/operations.js';
import { CLAUSES_BY_ID } from '../../../contract/clauses/catalogue.js';
import { accessTokenHash, createDpopKey, type DpopKey } from '../../../conformance/lib/dpop.js';
import {
  asSent,
  buildProof,
  describeProof,
  expectedOfProof,
  judgeProofAnswer,
  judgeShapedProof,
  PROOF_FIELDS,
  PROOF_VARIATION_NAMES,
  PROOF_VARIATIONS,
  proofShapeArbitrary,
  proofVariationNamesOf,
  type ProofBuildOptions,
  type ProofExpectation,
  type ProofShape,
} from '../../../conformance/explore/proofs.js';

test('the arbitrary reaches every variation, and none, two and three at once; shapes are as sent and JSON', () => {
  const samples = fc.sample(proofShapeArbitrary(), { seed: 7, numRuns: 4000 });
  const seen = new Set(samples.flatMap(proofVariationNamesOf));
  const never = PROOF_VARIATION_NAMES.filter((v) => !seen.has(v));
  assert.deepEqual(never, [], 'variations never drawn');
  const counts = new Set(samples.map((s) => Object.keys(s).length));
  for (const n of [0, 1, 2, 3]) assert.ok(counts.has(n), `a shape of ${n} variations`);
  assert.ok(samples.filter((s) => Object.keys(s).length === 1).length > samples.length / 2, 'mostly one variation at a time');
  for (const s of samples) {
    assert.deepEqual(JSON.parse(JSON.stringify(s)), s, 'JSON round trip');
    assert.deepEqual(asSent(s), s, 'drawn as sent');
    assert.equal(Object.keys(s).join(), PROOF_FIELDS.filter((f) => f in s).join(), "in the catalogue's order");
  }
});

test('asSent and describeProof', () => {
  // A replay sends nothing else of the proof, no proof sends none, a replay without an earlier proof is made afresh.
  assert.deepEqual(asSent({ jti: 'replay', typ: 'JWT', form: 'bearer' }), { jti: 'replay', form: 'bearer' });
  assert.deepEqual(asSent({ jti: 'replay', typ: 'JWT' }, false), { typ: 'JWT' });
  assert.deepEqual(asSent({ htu: 'query', form: 'no-proof' }), { form: 'no-proof' });
  assert.equal(describeProof({}), 'a correct proof');
  assert.equal(describeProof({ typ: 'JWT', htu: 'query' }), 'proof typ: JWT, htu: with a query string');
  const two = describeProof({ signature: 'altered', form: 'bearer' });
  assert.equal(two, 'proof signed: a byte altered, sent as: the Bearer scheme, the proof beside it');
});

const PROOF = { 401: ['invalid_dpop_proof'] };
const PROOF_OR_NONCE = { 401: ['invalid_dpop_proof', 'use_dpop_nonce'] };
const PROOF_OR_TOKEN = { 401: ['invalid_dpop_proof', 'invalid_token'] };
type Want = 'accept' | 'either' | { errorsOf: object; clauses?: string[] };
interface Vector {
  shape: ProofShape;
  want: Want;
  nonceAsked?: boolean;
  operation?: string;
}
const VECTORS: Vector[] = [
  { shape: {}, want: 'accept' },
  // RFC 9449 §4.3 item 9 ignores query and fragment; RFC 9110 §11.1 scheme names are case-insensitive.
  { shape: { htu: 'query' }, want: 'accept' },
  { shape: { htu: 'fragment' }, want: 'accept' },
  { shape: { form: 'scheme-lower' }, want: 'accept' },
  { shape: { typ: 'upper' }, want: 'either' },
  { shape: { typ: 'media-type' }, want: 'either' },
  { shape: { typ: 'JWT' }, want: { errorsOf: PROOF, clauses: ['AUTH-ASST-1', 'ERR-TABLE-4'] } },
  { shape: { typ: 'absent' }, want: { errorsOf: PROOF } },
  { shape: { alg: 'none' }, want: { errorsOf: PROOF } },
  { shape: { alg: 'hs256' }, want: { errorsOf: PROOF } },
  { shape: { alg: 'rs256' }, want: { errorsOf: PROOF } },
  { shape: { jwk: 'private' }, want: { errorsOf: PROOF } },
  { shape: { jwk: 'other-key' }, want: { errorsOf: PROOF } },
  { shape: { jwk: 'unbound' }, want: { errorsOf: PROOF_OR_TOKEN } },
  { shape: { signature: 'altered' }, want: { errorsOf: PROOF } },
  { shape: { jti: 'absent' }, want: { errorsOf: PROOF } },
  { shape: { jti: 'replay' }, want: { errorsOf: PROOF_OR_NONCE, clauses: ['AUTH-ASST-11', 'ERR-TABLE-4'] } },
  { shape: { htm: 'lower-case' }, want: { errorsOf: PROOF } },
  { shape: { htu: 'trailing-slash' }, want: { errorsOf: PROOF } },
  { shape: { htu: 'other-scheme' }, want: { errorsOf: PROOF } },
  { shape: { htu: 'relative' }, want: { errorsOf: PROOF } },
  { shape: { htu: 'upper-case' }, want: 'either' },
  { shape: { htu: 'dot-segment' }, want: 'either' },
  { shape: { htu: 'percent-encoded' }, want: 'either' },
  { shape: { iat: 'skew-past' }, want: 'either' },
  { shape: { iat: 'skew-future' }, want: 'either' },
  // With an issued nonce the nonce may time the proof (RFC 9449 §4.3 item 11); without one, iat alone does.
  { shape: { iat: 'stale-far' }, want: 'either' },
  { shape: { iat: 'future-far', nonce: 'unissued' }, want: { errorsOf: PROOF_OR_NONCE } },
  { shape: { iat: 'stale-far' }, nonceAsked: false, want: { errorsOf: PROOF_OR_NONCE } },
  { shape: { iat: 'string' }, want: { errorsOf: PROOF } },
  { shape: { ath: 'absent' }, want: { errorsOf: PROOF } },
  { shape: { ath: 'not-base64url' }, want: { errorsOf: PROOF } },
  { shape: { nonce: 'absent' }, want: { errorsOf: PROOF_OR_NONCE, clauses: ['ERR-TABLE-4'] } },
  { shape: { nonce: 'unissued' }, want: { errorsOf: PROOF_OR_NONCE } },
  { shape: { nonce: 'previous' }, want: 'either' },
  { shape: {}, nonceAsked: false, want: 'either' },
  { shape: { nonce: 'unissued' }, nonceAsked: false, want: 'either' },
  { shape: { form: 'no-proof' }, want: { errorsOf: PROOF_OR_TOKEN } },
  { shape: { form: 'two-proofs' }, want: { errorsOf: PROOF } },
  { shape: { form: 'bearer' }, want: { errorsOf: { 401: ['invalid_token'] }, clauses: ['AUTH-ASST-2', 'ERR-TABLE-3'] } },
  // One stage, no order among its checks: every refusal's code may be the answer.
  { shape: { form: 'bearer', typ: 'JWT' }, want: { errorsOf: { 401: ['invalid_token', 'invalid_dpop_proof'] } } },
  { shape: { typ: 'upper', alg: 'none' }, want: { errorsOf: PROOF } },
  { shape: { typ: 'JWT', nonce: 'previous' }, want: { errorsOf: PROOF_OR_NONCE } },
  // The guard after authentication: operations whose lists name assistants, and ones whose list the spec does not show.
  { shape: {}, operation: 'cancelOrder', want: 'accept' },
  { shape: {}, operation: 'getIdentity', want: 'accept' },
  { shape: {}, operation: 'getMe', want: 'either' },
  { shape: {}, operation: 'searchOpsOrders', want: 'either' },
  { shape: { typ: 'JWT' }, operation: 'getMe', want: { errorsOf: PROOF } },
];

const judgeOf = (v: Vector): ProofExpectation =>
  expectedOfProof(v.shape, {
    method: 'GET',
    nonceAsked: v.nonceAsked ?? true,
    ...(v.operation ? { operation: OPERATIONS_BY_ID.get(v.operation)! } : {}),
  });

test('expectedOfProof: what the spec and RFC 9449 pin, on hand-picked shapes', () => {
  for (const v of VECTORS) {
    const e = judgeOf(v);
    const d = `${describeProof(v.shape)} (nonce asked: ${v.nonceAsked ?? true}, ${v.operation ?? 'getCart'})`;
    if (v.want === 'accept' || v.want === 'either') {
      assert.equal(e.accept, v.want === 'accept' ? true : 'either', d);
      continue;
    }
    assert.equal(e.accept, false, d);
    if (e.accept !== false) continue;
    const sorted = (o: object) => Object.fromEntries(Object.entries(o).map(([k, c]) => [k, [...(c as string[])].sort()]));
    assert.deepEqual(sorted(e.errorsOf), sorted(v.want.errorsOf), d);
    for (const c of v.want.clauses ?? []) assert.ok(e.clauses.includes(c), `${d}: cites ${c}`);
  }
});

test('every clause an expectation cites is in the catalogue', () => {
  const samples = fc.sample(proofShapeArbitrary(), { seed: 11, numRuns: 2000 });
  for (const shape of samples)
    for (const nonceAsked of [true, false]) {
      const e = expectedOfProof(shape, { method: 'POST', nonceAsked, operation: OPERATIONS_BY_ID.get('addCartItem')! });
      for (const c of e.accept === true ? [] : e.clauses) assert.ok(CLAUSES_BY_ID.has(c), `${c} (${describeProof(shape)})`);
      if (e.accept === 'either') assert.ok(e.why.length > 0);
    }
});

test('judgeProofAnswer and judgeShapedProof', () => {
  const refused = expectedOfProof({ form: 'bearer' }, { method: 'GET', nonceAsked: true });
  assert.equal(judgeProofAnswer(refused, 401, 'invalid_token'), undefined);
  assert.ok(judgeProofAnswer(refused, 401, 'invalid_dpop_proof'));
  assert.ok(judgeProofAnswer(refused, 200, undefined));
  const accepted = expectedOfProof({}, { method: 'GET', nonceAsked: true });
  assert.equal(judgeProofAnswer(accepted, 200, undefined), undefined);
  assert.deepEqual(judgeProofAnswer(accepted, 401, 'invalid_dpop_proof')?.expected, 'accepted (2xx)');
  const either = expectedOfProof({ typ: 'upper' }, { method: 'GET', nonceAsked: true });
  assert.equal(judgeProofAnswer(either, 401, 'invalid_dpop_proof'), undefined);
  assert.equal(judgeProofAnswer(either, 502, undefined)?.expected, 'no 5xx');
  // On explore's operations an accepted proof may be refused for the request, never for the credential.
  assert.equal(judgeShapedProof({}, { method: 'POST', nonceAsked: true }, 400, 'invalid_request'), undefined);
  assert.ok(judgeShapedProof({}, { method: 'POST', nonceAsked: true }, 401, 'invalid_dpop_proof'));
});

// --- buildProof --------------------------------------------------------------------------------------------------------------

const NOW = new Date('2030-01-02T03:04:05.678Z');
const IAT = Math.floor(NOW.getTime() / 1000);
const URL_ = 'http://127.0.0.1:8123/v1/cart';
const TOKEN = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhc3Npc3RhbnQifQ.c2lnbmF0dXJl';
const NONCE = 'current-nonce-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const PREVIOUS = 'previous-nonce-BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB';
let key: DpopKey;
const opts = async (o: Partial<ProofBuildOptions> = {}): Promise<ProofBuildOptions> => ({
  key: (key ??= await createDpopKey()),
  token: TOKEN,
  method: 'GET',
  url: URL_,
  nonce: NONCE,
  previousNonce: PREVIOUS,
  now: () => NOW,
  ...o,
});

/** The single proof of built headers, decoded. */
async function built(shape: ProofShape, o: Partial<ProofBuildOptions> = {}) {
  const b = await buildProof(shape, await opts(o));
  const dpop = b.headers.dpop;
  const proof = Array.isArray(dpop) ? dpop[0]! : dpop!;
  return { ...b, proof, header: decodeProtectedHeader(proof), claims: decodeJwt(proof) };
}

/** Whether the proof's signature verifies with the ES256 key its own jwk holds. */
async function verifiesWithOwnJwk(proof: string): Promise<boolean> {
  const jwk = decodeProtectedHeader(proof).jwk as JWK | undefined;
  if (!jwk) return false;
  try {
    await compactVerify(proof, await importJWK({ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } as JWK, 'ES256'), {
      algorithms: ['ES256'],
    });
    return true;
  } catch {
    return false;
  }
}

test('buildProof: a correct proof for no variation', async () => {
  const b = await built({});
  assert.equal(b.headers.authorization, `DPoP ${TOKEN}`);
  assert.equal(b.replayed, false);
  assert.deepEqual(b.header, { typ: 'dpop+jwt', alg: 'ES256', jwk: key.publicJwk });
  const want = { htm: 'GET', htu: URL_, iat: IAT, ath: accessTokenHash(TOKEN), nonce: NONCE, jti: 'string' };
  assert.deepEqual({ ...b.claims, jti: typeof b.claims.jti }, want);
  assert.ok(await verifiesWithOwnJwk(b.proof));
});

test('buildProof: the JOSE header and the signature each variation names', async () => {
  assert.equal((await built({ typ: 'absent' })).header.typ, undefined);
  assert.equal((await built({ typ: 'upper' })).header.typ, 'DPoP+JWT');
  assert.equal((await built({ typ: 'media-type' })).header.typ, 'application/dpop+jwt');
  assert.equal((await built({ typ: 'other' })).header.typ, 'at+jwt');
  assert.ok(await verifiesWithOwnJwk((await built({ typ: 'JWT' })).proof), 'only typ differs');
  const none = await built({ alg: 'none' });
  assert.equal(none.header.alg, 'none');
  assert.ok(none.proof.endsWith('.'));
  const hs = await built({ alg: 'hs256' });
  assert.equal(hs.header.alg, 'HS256');
  await compactVerify(hs.proof, new TextEncoder().encode(JSON.stringify(key.publicJwk)), { algorithms: ['HS256'] });
  assert.equal((await built({ alg: 'rs256' })).header.alg, 'RS256');
  assert.equal('alg' in (await built({ alg: 'absent' })).header, false);
  assert.equal('jwk' in (await built({ jwk: 'absent' })).header, false);
  assert.equal(((await built({ jwk: 'private' })).header.jwk as JWK).d, key.privateJwk.d);
  const other = await built({ jwk: 'other-key' });
  assert.notDeepEqual(other.header.jwk, key.publicJwk);
  assert.equal(await verifiesWithOwnJwk(other.proof), false, 'jwk other-key: signed by the session key');
  await compactVerify(other.proof, key.publicKey);
  const unbound = await built({ jwk: 'unbound' });
  assert.notDeepEqual(unbound.header.jwk, key.publicJwk);
  assert.ok(await verifiesWithOwnJwk(unbound.proof), 'unbound: a valid proof of another key');
  assert.equal(await verifiesWithOwnJwk((await built({ signature: 'altered' })).proof), false);
  const foreign = await built({ signature: 'other-key' });
  assert.deepEqual(foreign.header.jwk, key.publicJwk);
  assert.equal(await verifiesWithOwnJwk(foreign.proof), false);
  assert.equal(await verifiesWithOwnJwk((await built({ jwk: 'unbound', signature: 'other-key' })).proof), false);
});

test('buildProof: the claims each variation names', async () => {
  assert.equal('jti' in (await built({ jti: 'absent' })).claims, false);
  assert.equal((await built({ jti: 'wrong-type' })).claims.jti, 12345);
  assert.equal((await built({ htm: 'other' })).claims.htm, 'POST');
  assert.equal((await built({ htm: 'lower-case' })).claims.htm, 'get');
  const HTU: Record<NonNullable<ProofShape['htu']>, string> = {
    'other-path': 'http://127.0.0.1:8123/elsewhere/v1/cart',
    query: `${URL_}?page=2&q=x`,
    fragment: `${URL_}#section`,
    'trailing-slash': `${URL_}/`,
    'other-scheme': 'https://127.0.0.1:8123/v1/cart',
    'other-host': 'http://elsewhere.invalid:8123/v1/cart',
    'upper-case': 'HTTP://127.0.0.1:8123/v1/cart',
    'dot-segment': 'http://127.0.0.1:8123/elsewhere/../v1/cart',
    'percent-encoded': 'http://127.0.0.1:8123/v1/car%74',
    relative: '/v1/cart',
  };
  for (const [v, want] of Object.entries(HTU)) assert.equal((await built({ htu: v as keyof typeof HTU })).claims.htu, want, v);
  assert.equal((await built({ htu: 'upper-case' }, { url: 'https://api.shop.test/v1/cart' })).claims.htu, 'HTTPS://API.SHOP.TEST/v1/cart');
  const IATS = { 'stale-far': IAT - 3600, 'skew-past': IAT - 15, 'skew-future': IAT + 15, 'future-far': IAT + 3600, string: String(IAT) };
  for (const [v, want] of Object.entries(IATS)) assert.equal((await built({ iat: v as keyof typeof IATS })).claims.iat, want, v);
  assert.equal('ath' in (await built({ ath: 'absent' })).claims, false);
  const otherAth = (await built({ ath: 'other-token' })).claims.ath as string;
  assert.match(otherAth, /^[\w-]{43}$/);
  assert.notEqual(otherAth, accessTokenHash(TOKEN));
  assert.match((await built({ ath: 'not-base64url' })).claims.ath as string, /^[A-Za-z0-9+/]{43}=$/);
  assert.equal('nonce' in (await built({ nonce: 'absent' })).claims, false);
  const unissued = (await built({ nonce: 'unissued' })).claims.nonce;
  assert.ok(typeof unissued === 'string' && unissued !== NONCE && unissued !== PREVIOUS);
  assert.equal((await built({ nonce: 'previous' })).claims.nonce, PREVIOUS);
  assert.equal((await built({ nonce: 'previous' }, { previousNonce: undefined })).claims.nonce, NONCE);
  assert.equal('nonce' in (await built({}, { nonce: undefined })).claims, false);
  // Every claim variation leaves the signature valid: only what it names is wrong.
  for (const f of ['jti', 'htm', 'htu', 'iat', 'ath', 'nonce'] as const)
    for (const v of Object.keys(PROOF_VARIATIONS[f]))
      if (v !== 'replay') assert.ok(await verifiesWithOwnJwk((await built({ [f]: v })).proof), `${f}: ${v}`);
});

test('buildProof: the forms and the replay', async () => {
  const noProof = await buildProof({ form: 'no-proof' }, await opts());
  assert.deepEqual(noProof.headers, { authorization: `DPoP ${TOKEN}` });
  const two = await buildProof({ form: 'two-proofs' }, await opts());
  assert.ok(Array.isArray(two.headers.dpop) && two.headers.dpop.length === 2);
  const [a, b] = two.headers.dpop as string[];
  assert.notEqual(decodeJwt(a!).jti, decodeJwt(b!).jti, 'two fresh proofs');
  assert.equal((await buildProof({ form: 'bearer' }, await opts())).headers.authorization, `Bearer ${TOKEN}`);
  assert.equal((await buildProof({ form: 'scheme-lower' }, await opts())).headers.authorization, `dpop ${TOKEN}`);
  const last = (await built({})).proof;
  const replay = await buildProof({ jti: 'replay' }, await opts({ lastProof: last }));
  assert.deepEqual(replay, { headers: { authorization: `DPoP ${TOKEN}`, dpop: last }, replayed: true });
  const twice = await buildProof({ jti: 'replay', form: 'two-proofs' }, await opts({ lastProof: last }));
  assert.deepEqual(twice.headers.dpop, [last, last]);
  const none = await built({ jti: 'replay' });
  assert.equal(none.replayed, false);
  assert.notEqual(none.proof, last);
  assert.ok(await verifiesWithOwnJwk(none.proof), 'a fresh correct proof');
  assert.equal(expectedOfProof(asSent({ jti: 'replay' }, none.replayed), { method: 'GET', nonceAsked: true }).accept, true);
});
