// Configuration: parsed once, env over profile, frozen; an invalid value stops the start naming the variable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadConfig } from '../../../reference/src/config.js';
import { FIXTURE_PROFILE_PATH, fixtureProfile } from '../../helpers/reference.js';

const load = (env: NodeJS.ProcessEnv, profilePath = FIXTURE_PROFILE_PATH) => loadConfig({ env, profilePath });

test('values come from the profile unless the environment names them', () => {
  const c = load({});
  assert.equal(c.issuer, fixtureProfile.issuer);
  assert.equal(c.guestSessionKey, fixtureProfile.secrets.guestSessionKey);
  assert.equal(c.port, 8787);
  const e = load({ GUEST_SESSION_KEY: 'k'.repeat(32), PORT: '9000', ISSUER: 'https://other.test/' });
  assert.deepEqual([e.guestSessionKey, e.port, e.issuer], ['k'.repeat(32), 9000, 'https://other.test/']);
});

test('the result is frozen', () => {
  const c = load({});
  assert.throws(() => {
    (c as { port: number }).port = 1;
  }, TypeError);
  assert.ok(Object.isFrozen(c.profileKeys[0]));
  assert.equal('d' in c.profileKeys[0]!, false, 'no private key material in the reference');
});

test('an invalid value is refused with a message naming the variable', () => {
  const vectors: [NodeJS.ProcessEnv, RegExp][] = [
    [{ PORT: 'eighty' }, /^PORT:/],
    [{ PORT: '70000' }, /^PORT:/],
    [{ GUEST_SESSION_KEY: 'short' }, /^GUEST_SESSION_KEY:/],
    [{ GUEST_SESSION_KEY_PREVIOUS_UNTIL: 'next tuesday' }, /^GUEST_SESSION_KEY_PREVIOUS_UNTIL:/],
    [{ GUEST_SESSION_KEY_PREVIOUS_UNTIL: '' }, /GUEST_SESSION_KEY_PREVIOUS and GUEST_SESSION_KEY_PREVIOUS_UNTIL/],
    [{ JWKS_URI: 'not a url' }, /^JWKS_URI:/],
    [{ STRIPE_WEBHOOK_SECRET: 'sk_live_x' }, /^STRIPE_WEBHOOK_SECRET:/],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL:/],
    [{ GUEST_RATE_LIMIT_BUDGET: '0' }, /^GUEST_RATE_LIMIT_BUDGET:/],
  ];
  for (const [env, message] of vectors) {
    assert.throws(
      () => load(env),
      (err: unknown) => err instanceof ConfigError && message.test(err.message),
      JSON.stringify(env),
    );
  }
});

test('an invalid profile is refused naming the field', () => {
  const dir = mkdtempSync(join(tmpdir(), 'shop-config-'));
  const path = join(dir, 'profile.json');
  writeFileSync(path, JSON.stringify({ ...fixtureProfile, audiences: { api: '' } }));
  assert.throws(() => load({}, path), /audiences\.api|audiences\.agent/);
  writeFileSync(path, '{not json');
  assert.throws(() => load({}, path), /cannot read profile/);
});

test('an empty variable unsets a nullable field', () => {
  assert.equal(load({ ACCOUNT_RECOVERY_SECRET: '' }).accountRecoverySecret, null);
});

test("the webhook's replay window is the stripe library's own default", async () => {
  const { SIGNATURE_TOLERANCE_SECONDS } = await import('../../../reference/src/routes/webhook.js');
  const { stripeLib } = await import('../../../reference/src/payments/stripe-module.js');
  assert.equal(SIGNATURE_TOLERANCE_SECONDS, stripeLib().webhooks.DEFAULT_TOLERANCE);
});
