// The verification cache reuses successes only while the token is valid and the key set would still be trusted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { withVerificationCache } from '../../../reference/src/auth/token-cache.js';
import type { TokenVerifier, VerifiedToken } from '../../../reference/src/auth/verify-token.js';

const T0 = Date.UTC(2026, 0, 1) / 1000;

function counting(exp: number): { verifier: TokenVerifier; calls: () => number } {
  let calls = 0;
  return {
    calls: () => calls,
    verifier: {
      async verify(token, now) {
        calls++;
        if (token === 'bad' || now.getTime() / 1000 >= exp) throw new Error('refused');
        return { raw: token, claims: { sub: 's', client_id: 'c', exp }, header: {} } as VerifiedToken;
      },
    },
  };
}
const at = (seconds: number) => new Date((T0 + seconds) * 1000);

test('a verified token is reused until its exp, then verified again (and refused)', async () => {
  const inner = counting(T0 + 60);
  const cached = withVerificationCache(inner.verifier, { maxEntries: 10, maxAgeSeconds: 600 });
  await cached.verify('a', at(0));
  await cached.verify('a', at(59));
  assert.equal(inner.calls(), 1);
  await assert.rejects(cached.verify('a', at(60)));
  assert.equal(inner.calls(), 2);
});

test('reuse never outlives the key set cache, nor serves a clock before the verification', async () => {
  const inner = counting(T0 + 3600);
  const cached = withVerificationCache(inner.verifier, { maxEntries: 10, maxAgeSeconds: 30 });
  await cached.verify('a', at(100));
  await cached.verify('a', at(129));
  assert.equal(inner.calls(), 1);
  await cached.verify('a', at(130));
  assert.equal(inner.calls(), 2);
  await cached.verify('a', at(10));
  assert.equal(inner.calls(), 3);
});

test('refusals are never cached, and the cache is bounded', async () => {
  const inner = counting(T0 + 3600);
  const cached = withVerificationCache(inner.verifier, { maxEntries: 2, maxAgeSeconds: 600 });
  await assert.rejects(cached.verify('bad', at(0)));
  await assert.rejects(cached.verify('bad', at(0)));
  assert.equal(inner.calls(), 2);
  for (const t of ['a', 'b', 'c']) await cached.verify(t, at(0));
  await cached.verify('a', at(0)); // evicted by c: verified again
  assert.equal(inner.calls(), 6);
  await cached.verify('c', at(0));
  assert.equal(inner.calls(), 6);
});
