// DPoP proofs (RFC 9449 §4.2): a default proof is what a server must accept; each override yields the defect it names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { EmbeddedJWK, calculateJwkThumbprint, decodeJwt, decodeProtectedHeader, errors, jwtVerify } from 'jose';
import { createDpopKey, dpopProof, dpopProofDraft } from '../../conformance/lib/dpop.js';

const HTU = 'https://api.shop.test/v1/me/profile';
const key = await createDpopKey();

test('createDpopKey: public JWK without d, RFC 7638 thumbprint', async () => {
  assert.deepStrictEqual(Object.keys(key.publicJwk).sort(), ['crv', 'kty', 'x', 'y']);
  assert.equal(key.publicJwk.crv, 'P-256');
  assert.equal(typeof key.privateJwk.d, 'string');
  // RFC 7638 §3: SHA-256 over the required members in lexicographic order, no whitespace.
  const { crv, kty, x, y } = key.publicJwk;
  const canonical = JSON.stringify({ crv, kty, x, y });
  assert.equal(key.thumbprint, createHash('sha256').update(canonical).digest('base64url'));
  assert.equal(key.thumbprint, await calculateJwkThumbprint(key.publicJwk));
});

test('a proof verifies with its embedded jwk and carries typ, htm, htu, iat, jti, ath', async () => {
  const accessToken = 'eyJhbGciOiJFUzI1NiJ9.e30.c2ln';
  const before = Math.floor(Date.now() / 1000);
  const proof = await dpopProof({ key, htm: 'GET', htu: HTU, accessToken });
  const { payload, protectedHeader } = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: ['ES256'] });
  assert.deepStrictEqual(protectedHeader, { typ: 'dpop+jwt', alg: 'ES256', jwk: key.publicJwk });
  assert.equal(await calculateJwkThumbprint(protectedHeader.jwk!), key.thumbprint);
  assert.equal(payload.htm, 'GET');
  assert.equal(payload.htu, HTU);
  assert.ok(typeof payload.iat === 'number' && payload.iat >= before && payload.iat <= before + 5);
  assert.match(String(payload.jti), /^[0-9a-f-]{36}$/);
  assert.equal(payload.ath, createHash('sha256').update(accessToken).digest('base64url'));
  assert.equal('nonce' in payload, false);
  assert.deepStrictEqual(Object.keys(payload).sort(), ['ath', 'htm', 'htu', 'iat', 'jti']);
});

test('without an access token there is no ath; nonce, iat, jti and the clock are settable', async () => {
  const proof = await dpopProof({ key, htm: 'POST', htu: HTU, nonce: 'n-1', jti: 'jti-1', now: () => new Date('2030-01-01T00:00:00Z') });
  assert.deepStrictEqual(decodeJwt(proof), { jti: 'jti-1', htm: 'POST', htu: HTU, iat: 1893456000, nonce: 'n-1' });
  assert.equal(decodeJwt(await dpopProof({ key, htm: 'GET', htu: HTU, iat: 5 })).iat, 5);
});

test('two proofs get different jti', async () => {
  const a = decodeJwt(await dpopProof({ key, htm: 'GET', htu: HTU }));
  const b = decodeJwt(await dpopProof({ key, htm: 'GET', htu: HTU }));
  assert.notEqual(a.jti, b.jti);
});

test('header and claim overrides merge last; undefined deletes', async () => {
  const proof = await dpopProof({
    key,
    htm: 'GET',
    htu: HTU,
    accessToken: 't',
    header: { typ: 'jwt', kid: 'k1' },
    claims: { htm: undefined, ath: 'wrong', extra: true },
  });
  assert.deepStrictEqual(decodeProtectedHeader(proof), { typ: 'jwt', alg: 'ES256', jwk: key.publicJwk, kid: 'k1' });
  const payload = decodeJwt(proof);
  assert.equal('htm' in payload, false);
  assert.equal(payload.ath, 'wrong');
  assert.equal(payload.extra, true);
  await assert.rejects(jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt' }), errors.JWTClaimValidationFailed);
});

test('deleting jwk or changing alg is written verbatim', async () => {
  const noJwk = await dpopProof({ key, htm: 'GET', htu: HTU, header: { jwk: undefined } });
  assert.deepStrictEqual(decodeProtectedHeader(noJwk), { typ: 'dpop+jwt', alg: 'ES256' });
  const hs = await dpopProof({ key, htm: 'GET', htu: HTU, header: { alg: 'HS256' } });
  assert.equal(decodeProtectedHeader(hs).alg, 'HS256');
  await assert.rejects(jwtVerify(hs, EmbeddedJWK));
});

test('signingKey: a proof signed by another key than its jwk does not verify', async () => {
  const other = await createDpopKey();
  const proof = await dpopProof({ key, htm: 'GET', htu: HTU, signingKey: other });
  assert.deepStrictEqual(decodeProtectedHeader(proof).jwk, key.publicJwk);
  await assert.rejects(jwtVerify(proof, EmbeddedJWK), errors.JWSSignatureVerificationFailed);
  await jwtVerify(proof, other.publicKey);
});

test('exposePrivateKey: the jwk header carries d (and jose refuses it)', async () => {
  const proof = await dpopProof({ key, htm: 'GET', htu: HTU, exposePrivateKey: true });
  // jose's header type omits private members, so read the raw header.
  const header = JSON.parse(Buffer.from(proof.split('.')[0]!, 'base64url').toString('utf8')) as { jwk: { d?: string } };
  assert.equal(header.jwk.d, key.privateJwk.d);
  await assert.rejects(jwtVerify(proof, EmbeddedJWK));
});

test('dpopProofDraft exposes the unsigned proof', () => {
  const draft = dpopProofDraft({ key, htm: 'DELETE', htu: HTU, jti: 'j', iat: 1 });
  assert.deepStrictEqual(draft, {
    header: { typ: 'dpop+jwt', alg: 'ES256', jwk: key.publicJwk },
    payload: { jti: 'j', htm: 'DELETE', htu: HTU, iat: 1 },
  });
});
