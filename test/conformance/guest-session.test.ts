// Guest session values (docs/tokens.md, "Guest session value"): known vectors and forged variants.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import {
  GUEST_SESSION_FORGERIES,
  GUEST_SESSION_FORMAT,
  forgeGuestSession,
  newGuestSession,
  signGuestSession,
  type GuestSessionForgery,
} from '../../conformance/lib/guest-session.js';

const FORMAT = /^gs1\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.[A-Za-z0-9_-]{43}$/;

// Expected signatures pinned from `openssl dgst -sha256 -hmac <key> -binary | base64 | tr '+/' '-_' | tr -d '='`.
const vectors = [
  {
    key: 'ZiBt6itFftxhdTpUVTVGqu_qmiw5D_yLTckvs8AdlqM',
    uuid: '3f1c2a9e-8b7d-4c6e-9f00-1a2b3c4d5e6f',
    sig: 'pwX1K9IFKlL4DeJzvlOihdCLznIQfzycUbi_I2eOwic',
  },
  {
    key: '9kcLEIzTV-p2uru3vKEdBoe4yLf2QRjXQd-FhYQFy8c',
    uuid: '00000000-0000-4000-8000-000000000000',
    sig: 'Ohl2selOpFRNTeeTU0_jWalAT7Rrde-auTvRnC_mPHM',
  },
  // A non-ASCII key: the key is its UTF-8 bytes.
  {
    key: 'clé-de-test-ünïcode-0123456789',
    uuid: 'f47ac10b-58cc-4372-a567-0e02b2c3d479',
    sig: 'v4edidXlc8Z5NJaTeEre77QBUwxz0Syp7Db5jFOjrLQ',
  },
];

/** The test's own reading of docs/tokens.md, independent of the module. */
function expectedValue(uuid: string, key: string): string {
  const mac = createHmac('sha256', Buffer.from(key, 'utf8')).update(Buffer.from(uuid, 'utf8')).digest();
  return `gs1.${uuid}.${mac.toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`;
}

for (const v of vectors) {
  test(`signGuestSession: known vector ${v.uuid}`, () => {
    const value = signGuestSession(v.uuid, v.key);
    assert.equal(value, `gs1.${v.uuid}.${v.sig}`);
    assert.equal(value, expectedValue(v.uuid, v.key));
    assert.match(value, FORMAT);
  });
}

test('signGuestSession accepts the key as bytes', () => {
  const v = vectors[0]!;
  assert.equal(signGuestSession(v.uuid, new TextEncoder().encode(v.key)), `gs1.${v.uuid}.${v.sig}`);
});

test('GUEST_SESSION_FORMAT is the documented format', () => {
  assert.equal(GUEST_SESSION_FORMAT.source, FORMAT.source);
});

test('newGuestSession: a fresh lowercase UUID, correctly signed, different each time', () => {
  const key = vectors[0]!.key;
  const a = newGuestSession(key);
  const b = newGuestSession(key);
  assert.match(a, FORMAT);
  assert.notEqual(a, b);
  const uuid = a.split('.')[1]!;
  assert.equal(a, expectedValue(uuid, key));
});

test('newGuestSession takes injected randomness', () => {
  const v = vectors[1]!;
  assert.equal(newGuestSession(v.key, { randomUUID: () => v.uuid }), `gs1.${v.uuid}.${v.sig}`);
});

// Forgeries that stay well-formed, so that only the HMAC check can refuse them.
const WELL_FORMED: readonly GuestSessionForgery[] = ['bad-signature', 'wrong-key', 'other-uuid'];

for (const forgery of GUEST_SESSION_FORGERIES) {
  test(`forgeGuestSession: ${forgery}`, () => {
    const { key, uuid } = vectors[0]!;
    const valid = signGuestSession(uuid, key);
    const forged = forgeGuestSession(forgery, key, uuid);
    assert.notEqual(forged, valid);
    if (WELL_FORMED.includes(forgery)) {
      assert.match(forged, FORMAT);
      assert.equal(forged.split('.')[1], uuid, 'a well-formed forgery keeps the cart id');
      assert.notEqual(forged, expectedValue(uuid, key));
    } else {
      assert.doesNotMatch(forged, FORMAT);
    }
  });
}

test('forgeGuestSession: malformed variants have the promised defect', () => {
  const { key, uuid, sig } = vectors[0]!;
  assert.equal(forgeGuestSession('uppercase-uuid', key, uuid), expectedValue(uuid.toUpperCase(), key));
  assert.equal(forgeGuestSession('missing-part', key, uuid), `gs1.${uuid}`);
  assert.equal(forgeGuestSession('short-signature', key, uuid).split('.')[2]!.length, 42);
  assert.equal(forgeGuestSession('wrong-prefix', key, uuid), `gs2.${uuid}.${sig}`);
  assert.equal(forgeGuestSession('padded-signature', key, uuid), `gs1.${uuid}.${sig}=`);
});

test('forgeGuestSession: bad-signature changes decoded bytes, not only spare bits', () => {
  const { key, uuid, sig } = vectors[0]!;
  const forgedSig = forgeGuestSession('bad-signature', key, uuid).split('.')[2]!;
  assert.notDeepEqual(Buffer.from(forgedSig, 'base64url'), Buffer.from(sig, 'base64url'));
});
