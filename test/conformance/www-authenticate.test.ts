// Vector table for the WWW-Authenticate parser (RFC 9110 §11.6.1). A vector without `expected` must be rejected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChallengeParseError, findChallenge, parseChallenges, type Challenge } from '../../conformance/lib/www-authenticate.js';

interface Vector {
  description: string;
  header: string;
  expected?: Challenge[];
}

const vectors: Vector[] = [
  // accepted
  { description: 'simple challenge', header: 'Scheme realm="foo"', expected: [{ scheme: 'Scheme', params: { realm: 'foo' } }] },
  {
    description: 'scheme kept as written, parameter names lowercased',
    header: 'SCHEME REALM="foo", Error="x"',
    expected: [{ scheme: 'SCHEME', params: { realm: 'foo', error: 'x' } }],
  },
  { description: 'token value', header: 'Scheme realm=foo', expected: [{ scheme: 'Scheme', params: { realm: 'foo' } }] },
  {
    description: 'single quotes are token characters',
    header: "Scheme realm='foo'",
    expected: [{ scheme: 'Scheme', params: { realm: "'foo'" } }],
  },
  {
    description: '%-escape is not special',
    header: 'Scheme realm="foo%20bar"',
    expected: [{ scheme: 'Scheme', params: { realm: 'foo%20bar' } }],
  },
  {
    description: 'empty list element between scheme and first param',
    header: 'Scheme , realm="foo"',
    expected: [{ scheme: 'Scheme', params: { realm: 'foo' } }],
  },
  { description: 'BWS around "="', header: 'Scheme realm = \t"foo"', expected: [{ scheme: 'Scheme', params: { realm: 'foo' } }] },
  {
    description: 'escaped quotes \\" in a quoted-string',
    header: 'Scheme realm="\\"foo\\""',
    expected: [{ scheme: 'Scheme', params: { realm: '"foo"' } }],
  },
  {
    description: 'escaped backslash \\\\ in a quoted-string',
    header: 'Bearer error_description="bad \\\\ token"',
    expected: [{ scheme: 'Bearer', params: { error_description: 'bad \\ token' } }],
  },
  {
    description: 'quoted-pair of an ordinary character',
    header: 'Scheme realm="\\f\\o\\o"',
    expected: [{ scheme: 'Scheme', params: { realm: 'foo' } }],
  },
  { description: 'empty quoted-string value', header: 'Bearer realm=""', expected: [{ scheme: 'Bearer', params: { realm: '' } }] },
  {
    description: 'empty list elements between params',
    header: 'Scheme realm="foo", bar="xyz",, a=b,,,c=d',
    expected: [{ scheme: 'Scheme', params: { realm: 'foo', bar: 'xyz', a: 'b', c: 'd' } }],
  },
  { description: 'leading comma', header: ',Scheme realm="basic"', expected: [{ scheme: 'Scheme', params: { realm: 'basic' } }] },
  {
    description: 'trailing comma and whitespace',
    header: 'Bearer realm="foo" ,  ',
    expected: [{ scheme: 'Bearer', params: { realm: 'foo' } }],
  },
  {
    description: 'comma and "realm=" inside a quoted-string',
    header: 'Scheme foo="a, realm=nottherealm", realm="basic"',
    expected: [{ scheme: 'Scheme', params: { foo: 'a, realm=nottherealm', realm: 'basic' } }],
  },
  {
    description: 'two challenges, the first with an escaped title',
    header: 'Newauth realm="apps", type=1, title="Login to \\"apps\\"", Basic realm="simple" ',
    expected: [
      { scheme: 'Newauth', params: { realm: 'apps', type: '1', title: 'Login to "apps"' } },
      { scheme: 'Basic', params: { realm: 'simple' } },
    ],
  },
  {
    description: "the spec's missing-token challenge",
    header: 'Bearer error="invalid_token", DPoP error="invalid_token", algs="ES256"',
    expected: [
      { scheme: 'Bearer', params: { error: 'invalid_token' } },
      { scheme: 'DPoP', params: { error: 'invalid_token', algs: 'ES256' } },
    ],
  },
  {
    description: 'DPoP challenge with a space-separated algs list',
    header: 'DPoP error="invalid_dpop_proof", error_description="bad htu", algs="ES256 PS256"',
    expected: [{ scheme: 'DPoP', params: { error: 'invalid_dpop_proof', error_description: 'bad htu', algs: 'ES256 PS256' } }],
  },
  {
    description: 'token68 without "="',
    header: 'NTLS Y2hhbGxlbmdlIHdpdGggYmFzZTY0IGRhdGEgd2l0aG91dCBlcXVhbCBzaWdu',
    expected: [{ scheme: 'NTLS', params: {}, token68: 'Y2hhbGxlbmdlIHdpdGggYmFzZTY0IGRhdGEgd2l0aG91dCBlcXVhbCBzaWdu' }],
  },
  {
    description: 'token68 with a trailing "="',
    header: 'NTLS Y2hhbGxlbmdlIHdpdGggYmFzZTY0IGRhdGE=',
    expected: [{ scheme: 'NTLS', params: {}, token68: 'Y2hhbGxlbmdlIHdpdGggYmFzZTY0IGRhdGE=' }],
  },
  {
    description: 'token68 with "==" and "/" followed by another challenge',
    header: 'Negotiate YIIB/wYJKoZIhvcSAQICAQ==, Basic realm="test"',
    expected: [
      { scheme: 'Negotiate', params: {}, token68: 'YIIB/wYJKoZIhvcSAQICAQ==' },
      { scheme: 'Basic', params: { realm: 'test' } },
    ],
  },
  {
    description: '"name=" alone is, by the grammar, a token68',
    header: 'Bearer error=',
    expected: [{ scheme: 'Bearer', params: {}, token68: 'error=' }],
  },
  { description: 'a scheme alone', header: 'Negotiate', expected: [{ scheme: 'Negotiate', params: {} }] },
  {
    description: 'two schemes alone',
    header: 'Negotiate, NTLM',
    expected: [
      { scheme: 'Negotiate', params: {} },
      { scheme: 'NTLM', params: {} },
    ],
  },
  { description: 'tchar punctuation forms a token scheme', header: '%%%', expected: [{ scheme: '%%%', params: {} }] },
  {
    description: 'several challenges, one of them token68',
    header: 'Bearer realm="foo", Digest blah==, Basic realm="bar"',
    expected: [
      { scheme: 'Bearer', params: { realm: 'foo' } },
      { scheme: 'Digest', params: {}, token68: 'blah==' },
      { scheme: 'Basic', params: { realm: 'bar' } },
    ],
  },
  {
    description: 'irregular spacing around params and commas',
    header: 'Bearer   realm =   "something"   ,error="bad_token" ,  error_description = " spaced "',
    expected: [{ scheme: 'Bearer', params: { realm: 'something', error: 'bad_token', error_description: ' spaced ' } }],
  },
  {
    description: 'repeated header fields joined by Headers.get()',
    header: 'Bearer error="invalid_token", DPoP algs="ES256", error="invalid_token"',
    expected: [
      { scheme: 'Bearer', params: { error: 'invalid_token' } },
      { scheme: 'DPoP', params: { algs: 'ES256', error: 'invalid_token' } },
    ],
  },
  {
    description: 'obs-text inside a quoted-string',
    header: 'Basic realm="caf\u00e9"',
    expected: [{ scheme: 'Basic', params: { realm: 'caf\u00e9' } }],
  },

  // rejected
  { description: 'empty header', header: '' },
  { description: 'only a comma', header: ',' },
  { description: 'only whitespace and commas', header: ' , ,  ' },
  { description: 'comma between scheme and param without SP (param is no challenge)', header: 'Scheme, realm="foo"' },
  { description: 'missing scheme', header: 'error="invalid_token"' },
  { description: 'missing scheme after leading whitespace', header: '  error="invalid_token", error_description="no scheme"' },
  { description: 'unterminated quoted-string', header: 'Scheme realm="basic' },
  { description: 'stray escape ends the quoted-string early', header: 'Bearer error="bad\\escape\\"' },
  { description: 'backslash at the very end', header: 'Bearer error="bad\\' },
  { description: 'token value with backslashes', header: 'Scheme realm=\\f\\o\\o' },
  { description: 'param without value before another param', header: 'Bearer realm="x", error=, scope="a"' },
  { description: 'param without value at the end of a param list', header: 'Bearer realm="x", error=' },
  { description: 'missing "=" between name and value', header: 'Bearer error"invalid_token"' },
  { description: 'garbage', header: '@@@' },
  { description: 'scheme followed by garbage', header: 'Bearer ???' },
  { description: 'unparseable junk after a valid challenge', header: 'Bearer error="ok", ???' },
  { description: 'token68 with trailing garbage', header: 'Negotiate abc== ???' },
  { description: 'token68 and auth-param in one challenge', header: 'Negotiate abc123==, realm="ignored"' },
  { description: 'two params without a comma', header: 'Bearer error="a" scope="b"' },
  { description: 'parameter repeated in one challenge (RFC 9110 §11.2)', header: 'Bearer error="a", ERROR="b"' },
  { description: 'control character inside a quoted-string', header: 'Bearer error="a\u0001b"' },
  { description: 'scheme directly followed by a quoted-string', header: 'Bearer"x"' },
];

for (const v of vectors) {
  test(`parseChallenges: ${v.description}`, () => {
    if (v.expected) {
      assert.deepStrictEqual(parseChallenges(v.header), v.expected);
    } else {
      assert.throws(() => parseChallenges(v.header), ChallengeParseError);
    }
  });
}

test('the vector table is large and covers both outcomes', () => {
  assert.ok(vectors.length >= 25);
  assert.ok(vectors.some((v) => v.expected) && vectors.some((v) => !v.expected));
});

test('ChallengeParseError names the reason and the position', () => {
  assert.throws(
    () => parseChallenges('Bearer realm="x'),
    (err: unknown) => {
      assert.ok(err instanceof ChallengeParseError);
      assert.equal(err.reason, 'unterminated quoted-string');
      assert.equal(err.position, 13);
      assert.equal(err.header, 'Bearer realm="x');
      return true;
    },
  );
});

test('findChallenge compares schemes case-insensitively and returns the first', () => {
  const challenges = parseChallenges('bearer error="a", DPOP algs="ES256", dpop error="b"');
  assert.deepStrictEqual(findChallenge(challenges, 'Bearer'), { scheme: 'bearer', params: { error: 'a' } });
  assert.deepStrictEqual(findChallenge(challenges, 'DPoP'), { scheme: 'DPOP', params: { algs: 'ES256' } });
  assert.equal(findChallenge(challenges, 'Basic'), undefined);
});

test('a parameter named __proto__ is an ordinary member', () => {
  const [challenge] = parseChallenges('X __proto__="y"');
  assert.equal(Object.getPrototypeOf(challenge!.params), Object.prototype);
  assert.equal(Object.getOwnPropertyDescriptor(challenge!.params, '__proto__')?.value, 'y');
});
