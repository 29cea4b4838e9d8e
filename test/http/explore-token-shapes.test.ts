// explore's generated token shapes (conformance/explore/tokens-api.ts) against the embedded reference: for each Bearer
// kind, 300 shapes drawn with a fixed seed are sent on a read the kind may use (the cart; the operators' order search),
// and every answer fits what expectedOfToken says the spec requires (accepted: 2xx; refused: one of its statuses with
// one of that status's codes; either: no 5xx), so that explore never blames the reference for a token the spec lets it
// take, nor lets it take one the spec refuses.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import fc from 'fast-check';
import { startEmbedded } from '../../cli/commands/run.js';
import { FIXTURE_PROFILE } from '../../reference/src/paths.js';
import { OPERATIONS_BY_ID } from '../../contract/operations.js';
import type { Profile } from '../../contract/profile.js';
import { ShopHttp, type HeaderField } from '../../conformance/engine/transport/http.js';
import { createMinter, type Minter } from '../../conformance/lib/mint.js';
import { newGuestSession } from '../../conformance/lib/guest-session.js';
import { freshShopperIp } from '../../conformance/lib/shopper.js';
import { fixtureOf } from '../../conformance/explore/world.js';
import {
  credentialsOfToken,
  describeToken,
  expectedOfToken,
  judgeTokenAnswer,
  TOKEN_KINDS,
  tokenShapeArbitrary,
  type TokenKind,
} from '../../conformance/explore/tokens-api.js';

const SEED = 20261128;
const PER_KIND = 300;

let embedded: Awaited<ReturnType<typeof startEmbedded>>;
let profile: Profile;
let mint: Minter;
let http: ShopHttp;

before(async () => {
  embedded = await startEmbedded(FIXTURE_PROFILE);
  profile = embedded.profile;
  mint = createMinter(profile);
  http = new ShopHttp(embedded.server.url);
});
after(async () => {
  await embedded.server.close();
  rmSync(embedded.dir, { recursive: true, force: true });
});

const READ: Record<TokenKind, string> = {
  customer: 'getCart',
  delegated: 'getCart',
  guest: 'getCart',
  operator: 'searchOpsOrders',
};

for (const kind of TOKEN_KINDS) {
  test(`${kind}: ${PER_KIND} generated token shapes get answers their expectation allows`, { timeout: 120_000 }, async () => {
    const op = OPERATIONS_BY_ID.get(READ[kind])!;
    const sub = fixtureOf(profile).accounts.a.sub;
    const shapes = fc.sample(tokenShapeArbitrary(kind), { seed: SEED, numRuns: PER_KIND });
    const wrong: string[] = [];
    const tally = { accept: 0, refuse: 0, either: 0 };
    for (const shape of shapes) {
      const guestHeaders = { 'guest-session': newGuestSession(profile.secrets.guestSessionKey), 'shopper-ip': freshShopperIp() };
      const creds = await credentialsOfToken(kind, shape, { profile, mint, sub, operation: op, guestHeaders });
      const single: Record<string, string> = {};
      const raw: HeaderField[] = [];
      for (const [name, value] of Object.entries(creds.headers))
        if (Array.isArray(value)) for (const v of value) raw.push([name, v]);
        else single[name] = value;
      const path = creds.query ? `${op.path}?${creds.query}` : op.path;
      const res = await http.request(op.method, path, { headers: single, rawHeaders: raw });
      const e = expectedOfToken(kind, shape, profile, op);
      tally[e.accept === true ? 'accept' : e.accept === false ? 'refuse' : 'either']++;
      const error = (res.body as { error?: unknown } | undefined)?.error;
      const v = judgeTokenAnswer(e, res.status, error);
      if (v) wrong.push(`${describeToken(shape)}: ${res.status} ${String(error)}, expected ${v.expected} (${v.clauses.join(' ')})`);
    }
    http.exchanges.length = 0;
    assert.deepEqual(wrong, []);
    // The sample judges something: tokens to accept, to refuse, and some the spec leaves open.
    assert.ok(tally.accept > 10 && tally.refuse > 100 && tally.either > 10, JSON.stringify(tally));
  });
}
