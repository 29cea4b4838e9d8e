// explore's generated body shapes (conformance/explore/bodies.ts) against the embedded reference: for addAddress,
// addCartItem and the recovery endpoint, 200 sampled shapes each (a fixed seed) applied to a valid body; every answer
// fits expectedOfBody, and every answer of 400 or above is a problem document.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import fc from 'fast-check';
import { startEmbedded } from '../../cli/commands/run.js';
import { FIXTURE_PROFILE } from '../../reference/src/paths.js';
import { readProfileFile } from '../../conformance/engine/runner/params.js';
import { createMinter, type Minter } from '../../conformance/lib/mint.js';
import { SPECIAL_PATHS } from '../../contract/routes.js';
import { applyBodyShape, bodyShapeArbitrary, describeBody, expectedOfBody, type BodyShape } from '../../conformance/explore/bodies.js';
import type { Profile } from '../../contract/profile.js';

type Embedded = Awaited<ReturnType<typeof startEmbedded>>;
let embedded: Embedded;
let profile: Profile;
let mint: Minter;

before(async () => {
  embedded = await startEmbedded(FIXTURE_PROFILE);
  profile = readProfileFile(FIXTURE_PROFILE, { toMint: true });
  mint = createMinter(profile);
});
after(async () => {
  await embedded.server.close();
  rmSync(embedded.dir, { recursive: true, force: true });
});

const SHAPES: readonly BodyShape[] = fc.sample(bodyShapeArbitrary(), { seed: 7, numRuns: 200 });

interface Case {
  route: { operationId: string; method: string; path: string };
  valid: unknown;
  headers: () => Promise<Record<string, string>>;
}

/** A fresh account per route, so that 200 addresses and cart lines land where nothing else looks. */
const customer = async () => ({ authorization: `Bearer ${await mint.customer({ sub: `cust_bodies_${randomUUID()}` })}` });

const CASES: readonly Case[] = [
  {
    route: { operationId: 'addAddress', method: 'POST', path: '/v1/me/addresses' },
    valid: { name: 'Body Shaper', line1: '1 Corner Street', city: 'Denver', postal_code: '80202', country: 'US' },
    headers: customer,
  },
  {
    route: { operationId: 'addCartItem', method: 'POST', path: '/v1/cart/items' },
    valid: { variant_id: 'var_0101', quantity: 1 },
    headers: customer,
  },
  {
    // An operation that exists nowhere: a valid body reaches the lookup and finds nothing, so nothing is resumed.
    route: { operationId: 'recoverAccount', method: 'POST', path: SPECIAL_PATHS.recoverAccount },
    valid: { subject: 'cust_bodies_nobody', operationId: 'recop_bodies_nobody', purpose: 'email' },
    headers: async () => ({ authorization: `Bearer ${profile.secrets.accountRecoverySecret ?? ''}` }),
  },
];

for (const c of CASES)
  test(`${c.route.operationId}: 200 generated bodies are answered as the spec pins`, async (t) => {
    const headers = await c.headers();
    const misfits: string[] = [];
    const tally = new Map<number, number>();
    // The valid body first: the shapes start from a body the reference takes (the recovery endpoint: looks up, finds
    // nothing), so that the credentials are known good and a refusal is the shape's.
    for (const shape of [{ steps: [] }, ...SHAPES]) {
      const sent = applyBodyShape(c.valid, shape);
      const expected = expectedOfBody(c.route, shape, c.valid);
      const body = 'json' in sent ? JSON.stringify(sent.json) : sent.text;
      const contentType = 'json' in sent ? 'application/json' : (sent.contentType ?? 'application/json');
      const res = await fetch(new URL(c.route.path, embedded.server.url), {
        method: c.route.method,
        headers: { ...headers, 'content-type': contentType },
        body,
      });
      const text = await res.text();
      tally.set(res.status, (tally.get(res.status) ?? 0) + 1);
      if (shape.steps.length === 0) assert.equal(res.status, c.route.operationId === 'recoverAccount' ? 404 : 201, text);
      let error: unknown;
      try {
        error = (JSON.parse(text) as { error?: unknown }).error;
      } catch {
        error = undefined;
      }
      const fits =
        expected.statuses === 'any-not-5xx'
          ? res.status < 500
          : expected.statuses.includes(res.status) &&
            (res.status < 400 || !('errors' in expected) || !expected.errors || expected.errors.includes(String(error)));
      const problem = res.status < 400 || (res.headers.get('content-type') ?? '').startsWith('application/problem+json');
      if (!fits || !problem)
        misfits.push(
          `${describeBody(shape)}: ${res.status} ${String(error ?? '')} ${problem ? '' : `(${res.headers.get('content-type')}) `}` +
            `expected ${expected.statuses === 'any-not-5xx' ? 'any-not-5xx' : `${expected.statuses.length > 10 ? 'any 4xx' : expected.statuses.join('/')}${'errors' in expected && expected.errors ? ` ${expected.errors.join('/')}` : ''}`}: ${expected.why}`,
        );
    }
    t.diagnostic(
      `statuses: ${[...tally]
        .sort(([a], [b]) => a - b)
        .map(([s, n]) => `${s}×${n}`)
        .join(' ')}`,
    );
    assert.deepEqual(misfits, []);
  });
