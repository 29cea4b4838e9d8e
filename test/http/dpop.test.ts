// Vector tables for the pure DPoP checks (reference/src/auth/dpop.ts, dpop-nonce.ts): every negative of the resource-server
// checklist (RFC 9449 §4.3, §7.1, §9, §11) with the reason it must be refused for, and the positives a correct client
// relies on (htu with query or fragment, extra claims, nonces issued a lifetime ago). A vector without `want` must be accepted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { createDpopKey, dpopProof, type DpopKey, type DpopProofOptions } from '../../conformance/lib/dpop.js';
import { b64url, signWith } from '../../conformance/lib/jws.js';
import {
  accessTokenHash,
  checkDpopProof,
  ecThumbprint,
  MAX_JTI_CHARS,
  normaliseHtu,
  singleDpopHeader,
  type ProofExpectations,
  type ProofReason,
} from '../../reference/src/auth/dpop.js';
import { createDpopNonces } from '../../reference/src/auth/dpop-nonce.js';

const NOW = new Date('2030-01-01T12:00:00Z');
const NOW_S = NOW.getTime() / 1000;
const URL_ = 'https://api.shop.test/v1/cart';
const TOKEN = 'eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJjdXN0In0.c2ln';
const nonces = createDpopNonces('a-test-only-nonce-key-of-32-bytes!', 300);
const NONCE = nonces.current(NOW);

let key: DpopKey;
let other: DpopKey;

const expectations = (o: Partial<ProofExpectations> = {}): ProofExpectations => ({
  method: 'GET',
  url: URL_,
  accessToken: TOKEN,
  jkt: key.thumbprint,
  now: NOW,
  iatWindowSeconds: 300,
  nonces,
  ...o,
});

/** A proof as a correct client makes it, with options overridden. */
const proof = (o: Partial<DpopProofOptions> = {}) =>
  dpopProof({ key, htm: 'GET', htu: URL_, accessToken: TOKEN, nonce: NONCE, iat: NOW_S, now: () => NOW, ...o });

/** Replaces one part of a compact proof. */
const withPart = (p: string, i: 0 | 1 | 2, value: string) =>
  p
    .split('.')
    .map((x, j) => (j === i ? value : x))
    .join('.');

interface Vector {
  d: string;
  make: () => Promise<string>;
  expect?: Partial<ProofExpectations>;
  want?: { error: 'invalid_dpop_proof' | 'use_dpop_nonce'; reason: ProofReason };
}

const bad = (reason: ProofReason) => ({ error: 'invalid_dpop_proof' as const, reason });
const nonceWanted = { error: 'use_dpop_nonce' as const, reason: 'nonce' as const };

function vectors(): Vector[] {
  return [
    // --- accepted ------------------------------------------------------------------------------------------------------
    { d: 'a correct proof', make: () => proof() },
    { d: 'htu with a query', make: () => proof({ htu: `${URL_}?page=2&q=x` }) },
    { d: 'htu with a fragment', make: () => proof({ htu: `${URL_}#frag` }) },
    { d: 'request URL with a query, htu without', make: () => proof(), expect: { url: `${URL_}?a=1` } },
    { d: 'htu with upper-case scheme and host', make: () => proof({ htu: 'HTTPS://API.SHOP.TEST/v1/cart' }) },
    { d: 'htu with the default port written out', make: () => proof({ htu: 'https://api.shop.test:443/v1/cart' }) },
    {
      d: 'http URL with its default port written out',
      make: () => proof({ htu: 'http://127.0.0.1:80/v1/cart' }),
      expect: { url: 'http://127.0.0.1/v1/cart' },
    },
    { d: 'extra claims', make: () => proof({ claims: { extra: 'x', nested: { a: 1 }, exp: NOW_S + 60 } }) },
    { d: 'extra header members (kid)', make: () => proof({ header: { kid: 'k1' } }) },
    {
      d: 'jwk with alg ES256, use and kid',
      make: () => proof({ header: { jwk: { ...key.publicJwk, alg: 'ES256', use: 'sig', kid: 'x' } } }),
    },
    { d: 'iat exactly at the window (past)', make: () => proof({ iat: NOW_S - 300 }) },
    { d: 'iat exactly at the window (future)', make: () => proof({ iat: NOW_S + 300 }) },
    { d: 'fractional iat', make: () => proof({ iat: NOW_S + 0.5 }) },
    { d: 'a nonce issued one lifetime ago', make: () => proof({ nonce: nonces.current(new Date(NOW.getTime() - 300_000)) }) },
    { d: 'jti of the maximum length', make: () => proof({ jti: 'j'.repeat(MAX_JTI_CHARS) }) },
    {
      d: 'no token and no binding: ath not needed',
      make: () => proof({ accessToken: undefined }),
      expect: { accessToken: null, jkt: null },
    },
    { d: 'nonces not in use: no nonce needed', make: () => proof({ nonce: undefined }), expect: { nonces: null } },

    // --- structure -----------------------------------------------------------------------------------------------------
    { d: 'a JWE (five parts)', make: async () => `${await proof()}.AAAA.BBBB`, want: bad('structure') },
    { d: 'two parts', make: async () => (await proof()).split('.').slice(0, 2).join('.'), want: bad('structure') },
    { d: 'an empty signature', make: async () => withPart(await proof(), 2, ''), want: bad('structure') },
    { d: 'padding in a part', make: async () => withPart(await proof(), 2, (await proof()).split('.')[2]! + '='), want: bad('structure') },
    { d: 'a header that is not JSON', make: async () => withPart(await proof(), 0, b64url('not json')), want: bad('header') },
    { d: 'a header that is a JSON array', make: async () => withPart(await proof(), 0, b64url('[1]')), want: bad('header') },
    { d: 'claims that are not JSON', make: async () => withPart(await proof(), 1, b64url('{')), want: bad('claims') },
    { d: 'claims that are JSON null', make: async () => withPart(await proof(), 1, b64url('null')), want: bad('claims') },
    { d: 'a proof over 8192 characters', make: () => proof({ claims: { pad: 'x'.repeat(9000) } }), want: bad('too_large') },

    // --- header --------------------------------------------------------------------------------------------------------
    { d: 'no typ', make: () => proof({ header: { typ: undefined } }), want: bad('typ') },
    { d: 'typ JWT', make: () => proof({ header: { typ: 'JWT' } }), want: bad('typ') },
    { d: 'typ at+jwt (token confusion)', make: () => proof({ header: { typ: 'at+jwt' } }), want: bad('typ') },
    { d: 'typ in another case', make: () => proof({ header: { typ: 'DPoP+JWT' } }), want: bad('typ') },
    { d: 'alg none', make: async () => withPart(await proof({ header: { alg: 'none' } }), 2, 'c2ln'), want: bad('alg') },
    {
      d: 'alg HS256 (signed with a secret)',
      make: () => proof({ header: { alg: 'HS256' }, signingKey: 'a-shared-secret-of-some-length' }),
      want: bad('alg'),
    },
    { d: 'alg RS256', make: () => proof({ header: { alg: 'RS256' } }), want: bad('alg') },
    { d: 'alg ES384', make: () => proof({ header: { alg: 'ES384' } }), want: bad('alg') },
    { d: 'alg a list', make: () => proof({ header: { alg: ['ES256'] } }), want: bad('alg') },
    { d: 'alg a number', make: () => proof({ header: { alg: 256 } }), want: bad('alg') },
    { d: 'crit present', make: () => proof({ header: { crit: ['exp'], exp: 1 } }), want: bad('crit') },
    { d: 'crit empty', make: () => proof({ header: { crit: [] } }), want: bad('crit') },
    { d: 'b64 false', make: () => proof({ header: { b64: false } }), want: bad('crit') },
    { d: 'no jwk', make: () => proof({ header: { jwk: undefined } }), want: bad('jwk') },
    { d: 'jwk a string', make: () => proof({ header: { jwk: 'key' } }), want: bad('jwk') },
    { d: 'jwk with the private part d', make: () => proof({ exposePrivateKey: true }), want: bad('jwk') },
    { d: 'jwk of kty oct', make: () => proof({ header: { jwk: { kty: 'oct', k: b64url(randomBytes(32)) } } }), want: bad('jwk') },
    {
      d: 'jwk of kty RSA',
      make: () => proof({ header: { jwk: generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey.export({ format: 'jwk' }) } }),
      want: bad('jwk'),
    },
    {
      d: 'jwk on P-384',
      make: async () => proof({ header: { jwk: await exportJWK((await generateKeyPair('ES384', { extractable: true })).publicKey) } }),
      want: bad('jwk'),
    },
    { d: 'jwk with malformed coordinates', make: () => proof({ header: { jwk: { ...key.publicJwk, x: 'short' } } }), want: bad('jwk') },
    {
      d: 'jwk with a point off the curve',
      make: () => proof({ header: { jwk: { ...key.publicJwk, y: b64url(randomBytes(32)) } } }),
      want: bad('jwk'),
    },
    { d: 'jwk meant for RS256', make: () => proof({ header: { jwk: { ...key.publicJwk, alg: 'RS256' } } }), want: bad('jwk') },

    // --- signature -----------------------------------------------------------------------------------------------------
    { d: 'signed by another key than its jwk', make: () => proof({ signingKey: other }), want: bad('signature') },
    {
      d: 'a signature of another proof',
      make: async () => withPart(await proof(), 2, (await proof({ jti: 'other' })).split('.')[2]!),
      want: bad('signature'),
    },
    {
      d: 'a signature in DER form (not JWS)',
      make: async () => withPart(await proof(), 2, b64url(randomBytes(70))),
      want: bad('signature'),
    },
    {
      d: 'claims altered after signing',
      make: async () =>
        withPart(
          await proof(),
          1,
          b64url(JSON.stringify({ jti: 'x', htm: 'GET', htu: URL_, iat: NOW_S, ath: accessTokenHash(TOKEN), nonce: NONCE })),
        ),
      want: bad('signature'),
    },

    // --- claims --------------------------------------------------------------------------------------------------------
    { d: 'no jti', make: () => proof({ claims: { jti: undefined } }), want: bad('jti') },
    { d: 'jti a number', make: () => proof({ claims: { jti: 7 } }), want: bad('jti') },
    { d: 'jti empty', make: () => proof({ claims: { jti: '' } }), want: bad('jti') },
    { d: 'jti over 256 characters', make: () => proof({ jti: 'j'.repeat(MAX_JTI_CHARS + 1) }), want: bad('jti') },
    { d: 'no htm', make: () => proof({ claims: { htm: undefined } }), want: bad('htm') },
    { d: 'no htu', make: () => proof({ claims: { htu: undefined } }), want: bad('htu') },
    { d: 'htu a number', make: () => proof({ claims: { htu: 1 } }), want: bad('htu') },
    { d: 'no iat', make: () => proof({ claims: { iat: undefined } }), want: bad('iat') },
    { d: 'iat a string', make: () => proof({ claims: { iat: String(NOW_S) } }), want: bad('iat') },
    { d: 'nonce a number', make: () => proof({ claims: { nonce: 1 } }), want: bad('nonce') },
    { d: 'ath a number', make: () => proof({ claims: { ath: 1 } }), want: bad('ath') },

    // --- htm, htu ------------------------------------------------------------------------------------------------------
    { d: 'htm of another method', make: () => proof({ htm: 'POST' }), want: bad('htm') },
    { d: 'htm in lower case', make: () => proof({ htm: 'get' }), want: bad('htm') },
    { d: 'htu of another host', make: () => proof({ htu: 'https://evil.test/v1/cart' }), want: bad('htu') },
    { d: 'htu of another scheme', make: () => proof({ htu: 'http://api.shop.test/v1/cart' }), want: bad('htu') },
    { d: 'htu of another port', make: () => proof({ htu: 'https://api.shop.test:8443/v1/cart' }), want: bad('htu') },
    { d: 'htu of another path', make: () => proof({ htu: 'https://api.shop.test/v1/me' }), want: bad('htu') },
    { d: 'htu with a trailing slash', make: () => proof({ htu: `${URL_}/` }), want: bad('htu') },
    { d: 'htu with the path in another case', make: () => proof({ htu: 'https://api.shop.test/v1/CART' }), want: bad('htu') },
    { d: 'a relative htu', make: () => proof({ htu: '/v1/cart' }), want: bad('htu') },
    { d: 'htu with user information', make: () => proof({ htu: 'https://user@api.shop.test/v1/cart' }), want: bad('htu') },
    { d: 'htu of another scheme family', make: () => proof({ htu: 'wss://api.shop.test/v1/cart' }), want: bad('htu') },
    { d: 'htu with surrounding spaces', make: () => proof({ htu: ` ${URL_}` }), want: bad('htu') },

    // --- binding -------------------------------------------------------------------------------------------------------
    { d: 'no ath with a token', make: () => proof({ accessToken: undefined }), want: bad('ath') },
    { d: 'ath of another token', make: () => proof({ accessToken: `${TOKEN}x` }), want: bad('ath') },
    { d: 'ath padded', make: () => proof({ claims: { ath: `${accessTokenHash(TOKEN)}=` } }), want: bad('ath') },
    {
      d: 'ath in standard base64',
      make: () => proof({ claims: { ath: Buffer.from(accessTokenHash(TOKEN), 'base64url').toString('base64') + 'x' } }),
      want: bad('ath'),
    },
    { d: 'a key other than the token is bound to', make: () => proof({ key: other }), want: bad('jkt') },

    // --- nonce and iat -------------------------------------------------------------------------------------------------
    { d: 'no nonce', make: () => proof({ nonce: undefined }), want: nonceWanted },
    { d: 'a nonce the server never issued', make: () => proof({ nonce: b64url(randomBytes(32)) }), want: nonceWanted },
    {
      d: 'a nonce issued two lifetimes ago',
      make: () => proof({ nonce: nonces.current(new Date(NOW.getTime() - 600_000)) }),
      want: nonceWanted,
    },
    {
      d: 'a nonce issued in the future',
      make: () => proof({ nonce: nonces.current(new Date(NOW.getTime() + 300_000)) }),
      want: nonceWanted,
    },
    {
      d: 'a nonce of another key',
      make: () => proof({ nonce: createDpopNonces('another-test-only-nonce-key-xxxxx', 300).current(NOW) }),
      want: nonceWanted,
    },
    {
      d: 'a stale iat without a nonce: use_dpop_nonce first',
      make: () => proof({ nonce: undefined, iat: NOW_S - 3600 }),
      want: nonceWanted,
    },
    { d: 'a stale iat with the current nonce', make: () => proof({ iat: NOW_S - 301 }), want: bad('iat') },
    { d: 'an iat in the future', make: () => proof({ iat: NOW_S + 301 }), want: bad('iat') },
    { d: 'an iat far in the past', make: () => proof({ iat: 0 }), want: bad('iat') },
    { d: 'a narrower window', make: () => proof({ iat: NOW_S - 11 }), expect: { iatWindowSeconds: 10 }, want: bad('iat') },
  ];
}

test('checkDpopProof: vector table', async (t) => {
  key = await createDpopKey();
  other = await createDpopKey();
  for (const v of vectors()) {
    await t.test(v.d, async () => {
      const result = await checkDpopProof(await v.make(), expectations(v.expect));
      if (v.want === undefined) {
        assert.equal(result.ok, true, result.ok ? '' : `refused: ${result.reason}: ${result.detail}`);
      } else {
        assert.equal(result.ok, false, 'accepted a proof that must be refused');
        if (!result.ok) assert.deepEqual({ error: result.error, reason: result.reason }, v.want, result.detail);
      }
    });
  }
});

test('checkDpopProof: an accepted proof names its jti, iat and the RFC 7638 thumbprint of its key', async () => {
  key ??= await createDpopKey();
  const result = await checkDpopProof(await proof({ jti: 'jti-1' }), expectations());
  assert.ok(result.ok);
  assert.equal(result.jti, 'jti-1');
  assert.equal(result.iat, NOW_S);
  assert.equal(result.thumbprint, await calculateJwkThumbprint(key.publicJwk, 'sha256'));
  assert.equal(ecThumbprint({ crv: 'P-256', x: key.publicJwk.x!, y: key.publicJwk.y! }), key.thumbprint);
});

test('checkDpopProof: a raw JWS signed with the right key but an ES256 header written by hand is accepted (no library quirk needed)', async () => {
  key ??= await createDpopKey();
  const header = { alg: 'ES256', typ: 'dpop+jwt', jwk: key.publicJwk };
  const claims = { jti: 'raw', htm: 'GET', htu: URL_, iat: NOW_S, ath: accessTokenHash(TOKEN), nonce: NONCE };
  assert.equal((await checkDpopProof(await signWith(claims, header, key.privateKey), expectations())).ok, true);
});

test('singleDpopHeader: exactly one DPoP field holding one proof', () => {
  const vectors: { d: string; raw: string[]; want: 'ok' | 'missing' | 'multiple' }[] = [
    { d: 'one header', raw: ['Host', 'x', 'DPoP', 'a.b.c'], want: 'ok' },
    { d: 'name in any case', raw: ['dpop', 'a.b.c'], want: 'ok' },
    { d: 'none', raw: ['Host', 'x'], want: 'missing' },
    { d: 'an empty one', raw: ['DPoP', ''], want: 'missing' },
    { d: 'two fields', raw: ['DPoP', 'a.b.c', 'DPoP', 'd.e.f'], want: 'multiple' },
    { d: 'two fields, one empty', raw: ['DPoP', 'a.b.c', 'dpop', ''], want: 'multiple' },
    { d: 'a comma-joined list', raw: ['DPoP', 'a.b.c, d.e.f'], want: 'multiple' },
    { d: 'a trailing comma', raw: ['DPoP', 'a.b.c,'], want: 'multiple' },
  ];
  for (const v of vectors) {
    const r = singleDpopHeader(v.raw);
    assert.equal(r.ok ? 'ok' : r.reason, v.want, v.d);
    if (!r.ok) assert.equal(r.error, 'invalid_dpop_proof', v.d);
  }
});

test('normaliseHtu: scheme and host lower-cased, default port dropped, query and fragment removed, path kept', () => {
  const vectors: [string, string | undefined][] = [
    ['https://api.shop.test/v1/cart', 'https://api.shop.test/v1/cart'],
    ['HTTPS://Api.Shop.Test:443/v1/cart?x=1#y', 'https://api.shop.test/v1/cart'],
    ['http://127.0.0.1:80/v1/cart', 'http://127.0.0.1/v1/cart'],
    ['http://127.0.0.1:8787/v1/cart', 'http://127.0.0.1:8787/v1/cart'],
    ['https://api.shop.test/v1/cart/', 'https://api.shop.test/v1/cart/'],
    ['https://api.shop.test', 'https://api.shop.test/'],
    ['https://api.shop.test/v1/CART', 'https://api.shop.test/v1/CART'],
    ['/v1/cart', undefined],
    ['api.shop.test/v1/cart', undefined],
    ['ftp://api.shop.test/v1/cart', undefined],
    ['https://u:p@api.shop.test/v1/cart', undefined],
    ['https://api.shop.test/v1/cart\n', undefined],
    ['', undefined],
  ];
  for (const [input, want] of vectors) assert.equal(normaliseHtu(input), want, JSON.stringify(input));
});

test('DPoP nonces: stateless, fresh per response, valid for the lifetime after issue, one spelling, keyed', () => {
  const n = createDpopNonces('a-test-only-nonce-key-of-32-bytes!', 60);
  const t0 = new Date('2030-01-01T00:00:00Z');
  const at = (s: number) => new Date(t0.getTime() + s * 1000);
  const nonce = n.current(t0);
  assert.match(nonce, /^[A-Za-z0-9_-]{43}$/);
  assert.notEqual(n.current(t0), nonce, 'every response gets a new nonce, even in the same second');
  assert.equal(n.accepts(n.current(at(10)), at(10)), true, 'a later nonce is accepted too');
  assert.equal(n.accepts(nonce, at(0)), true);
  assert.equal(n.accepts(nonce, at(60)), true, 'still accepted one lifetime after issue');
  assert.equal(n.accepts(nonce, at(61)), false, 'refused after its lifetime');
  assert.equal(n.accepts(nonce, at(-5)), true, 'another instance a few seconds behind accepts it');
  assert.equal(n.accepts(nonce, at(-6)), false, 'a nonce from further in the future was never issued');
  assert.equal(createDpopNonces('another-test-only-nonce-key-xxxxx', 60).accepts(nonce, t0), false, 'another key');
  assert.equal(n.accepts(`${nonce}x`, t0), false);
  assert.equal(n.accepts('', t0), false);
  // The last character of 43 base64url characters carries 2 spare bits: a second spelling of the same bytes is refused.
  const last = nonce.at(-1)!;
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const twin = nonce.slice(0, -1) + alphabet[alphabet.indexOf(last) ^ 1]!;
  assert.equal(n.accepts(twin, t0), false);
  assert.throws(() => createDpopNonces('k', 0), RangeError);
});
