// explore's token shapes (conformance/explore/tokens.ts) against the embedded reference: every shape, for every Bearer
// kind it applies to, sent on a read the kind may use, gets the answer the shape's expectation allows (accepted, refused
// with its statuses, or at least no 5xx), so explore never blames the reference for a token the spec lets it take.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { startEmbedded } from '../../cli/commands/run.js';
import { FIXTURE_PROFILE } from '../../reference/src/paths.js';
import { createMinter, type Minter } from '../../conformance/lib/mint.js';
import { newGuestSession } from '../../conformance/lib/guest-session.js';
import { freshShopperIp } from '../../conformance/lib/shopper.js';
import { operatorAttribution } from '../../conformance/lib/credential-formats.js';
import { judgeTokenAnswer, shapedToken, shapesFor, type TokenKind } from '../../conformance/explore/tokens.js';
import type { Profile } from '../../contract/profile.js';

let embedded: Awaited<ReturnType<typeof startEmbedded>>;
let profile: Profile;
let mint: Minter;

before(async () => {
  embedded = await startEmbedded(FIXTURE_PROFILE);
  profile = embedded.profile;
  mint = createMinter(profile);
});
after(async () => {
  await embedded.server.close();
  rmSync(embedded.dir, { recursive: true, force: true });
});

/** A read each kind may use, and the headers the kind sends besides its token. */
const READS: Record<TokenKind, { path: string; headers: () => Record<string, string> }> = {
  customer: { path: '/v1/me/profile', headers: () => ({}) },
  delegated: { path: '/v1/cart', headers: () => ({}) },
  guest: {
    path: '/v1/cart',
    headers: () => ({ 'guest-session': newGuestSession(profile.secrets.guestSessionKey), 'shopper-ip': freshShopperIp() }),
  },
  operator: { path: '/v1/ops/orders', headers: () => ({ operator: operatorAttribution(profile) }) },
};

test('every token shape gets an answer its expectation allows, and a sound token is accepted', async () => {
  const wrong: string[] = [];
  for (const kind of Object.keys(READS) as TokenKind[]) {
    const read = READS[kind];
    for (const shape of shapesFor(kind)) {
      const token = await shapedToken(mint, kind, shape, 'cust_checkout_8', 'api');
      const res = await fetch(`${embedded.server.url}${read.path}`, { headers: { ...read.headers(), authorization: `Bearer ${token}` } });
      const body = (await res.json().catch(() => undefined)) as { error?: unknown } | undefined;
      const v = judgeTokenAnswer(shape, res.status, body?.error);
      if (v) wrong.push(`${kind} ${shape}: ${res.status} ${String(body?.error)} (expected ${v.expected}, ${v.clauses.join(' ')})`);
    }
  }
  assert.deepEqual(wrong, []);
});
