// explore's generated guest-session and invited-agent context shapes (conformance/explore/sessions.ts, contexts.ts)
// against the embedded reference: shapes drawn with a fixed seed are sent on the cart read (sessions: a cart write too;
// contexts: the order list, which needs assistant:read), and every answer fits what the expectation says the spec
// requires (accepted: 2xx; refused: one of its statuses with one of that status's codes; either: no 5xx). An accepted
// session read shows the cart its `actsAs` names (the guest's own line, the other guest's, or none).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import fc from 'fast-check';
import { startEmbedded } from '../../cli/commands/run.js';
import { FIXTURE_PROFILE } from '../../reference/src/paths.js';
import { OPERATIONS_BY_ID } from '../../contract/operations.js';
import { HEADERS } from '../../contract/headers.js';
import type { Profile } from '../../contract/profile.js';
import { ShopHttp, type HeaderField, type ShopResponse } from '../../conformance/engine/transport/http.js';
import { createMinter, type Minter } from '../../conformance/lib/mint.js';
import { signGuestSession } from '../../conformance/lib/guest-session.js';
import { freshShopperIp } from '../../conformance/lib/shopper.js';
import { fixtureOf } from '../../conformance/explore/world.js';
import {
  buildSession,
  describeSession,
  expectedOfSession,
  GUEST_SESSION_CARRIER,
  judgeSessionAnswer,
  sessionShapeArbitrary,
  type TokenExpectation,
} from '../../conformance/explore/sessions.js';
import {
  buildContext,
  contextShapeArbitrary,
  describeContext,
  expectedOfContext,
  judgeContextAnswer,
} from '../../conformance/explore/contexts.js';

const SEED = 20261204;
const SAMPLES = 200;

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

/** Sends `headers` (an array value: a repeated field) on an operation, with a JSON body for a write. */
function send(operationId: string, headers: Record<string, string | string[]>, json?: unknown): Promise<ShopResponse> {
  const op = OPERATIONS_BY_ID.get(operationId)!;
  const single: Record<string, string> = {};
  const raw: HeaderField[] = [];
  for (const [name, value] of Object.entries(headers))
    if (Array.isArray(value)) for (const v of value) raw.push([name, v]);
    else single[name] = value;
  return http.request(op.method, op.path, { headers: single, rawHeaders: raw, ...(json === undefined ? {} : { json }) });
}

const tallyOf = (e: TokenExpectation) => (e.accept === true ? 'accept' : e.accept === false ? 'refuse' : 'either');
const errorOf = (res: ShopResponse) => (res.body as { error?: unknown } | undefined)?.error;

/** A guest's own headers beside its session: a Shopper-IP of its own, so that no guest budget is spent twice. */
const shopper = (headers: Record<string, string | string[]>, guest: boolean) =>
  guest ? { ...headers, 'shopper-ip': freshShopperIp() } : headers;

test(`guest sessions: ${SAMPLES} generated shapes on the cart read and ${SAMPLES / 2} on a cart write`, { timeout: 60_000 }, async () => {
  const { accounts, variants } = fixtureOf(profile);
  const key = profile.secrets.guestSessionKey;
  const [guestToken, customerToken] = await Promise.all([mint.guest(), mint.customer({ sub: accounts.a.sub })]);
  // Two guest carts, each with a line of its own variant: what a read shows tells whose cart it acted on.
  const own = randomUUID();
  const other = randomUUID();
  for (const [uuid, variant] of [
    [own, variants[0]],
    [other, variants[1]],
  ] as const) {
    const res = await send(
      'addCartItem',
      shopper({ authorization: `Bearer ${guestToken}`, 'guest-session': signGuestSession(uuid, key) }, true),
      {
        variant_id: variant,
        quantity: 1,
      },
    );
    assert.ok(res.status >= 200 && res.status < 300, `setup: ${res.status} ${res.text}`);
  }
  const wrong: string[] = [];
  const tally = { accept: 0, refuse: 0, either: 0 };
  const base = { profile, mint, key, carrier: GUEST_SESSION_CARRIER, guestToken, customerToken };
  const read = OPERATIONS_BY_ID.get('getCart')!;
  for (const shape of fc.sample(sessionShapeArbitrary(), { seed: SEED, numRuns: SAMPLES })) {
    const built = buildSession(shape, { ...base, uuid: own, otherUuid: other });
    const res = await send('getCart', shopper(built.headers, shape.token === undefined));
    const e = expectedOfSession(shape, { profile, operation: read });
    tally[tallyOf(e)]++;
    const v = judgeSessionAnswer(e, res.status, errorOf(res));
    if (v)
      wrong.push(`read ${describeSession(shape)}: ${res.status} ${String(errorOf(res))}, expected ${v.expected} (${v.clauses.join(' ')})`);
    // The cart an accepted read showed is the one its actsAs names.
    if (res.status === 200 && built.actsAs !== undefined && built.actsAs !== 'customer') {
      const shows = [res.text.includes(variants[0]), res.text.includes(variants[1])];
      const want = { own: [true, false], other: [false, true], new: [false, false] }[built.actsAs];
      if (shows.join() !== want.join())
        wrong.push(`read ${describeSession(shape)}: acts as ${built.actsAs}, the cart shows ${shows.join()}`);
    }
  }
  const write = OPERATIONS_BY_ID.get('addCartItem')!;
  for (const shape of fc.sample(sessionShapeArbitrary(), { seed: SEED + 1, numRuns: SAMPLES / 2 })) {
    // Fresh carts for every write, so that no write changes what another one meets.
    const built = buildSession(shape, { ...base, uuid: randomUUID(), otherUuid: randomUUID() });
    const res = await send('addCartItem', shopper(built.headers, shape.token === undefined), { variant_id: variants[0], quantity: 1 });
    const e = expectedOfSession(shape, { profile, operation: write });
    tally[tallyOf(e)]++;
    const v = judgeSessionAnswer(e, res.status, errorOf(res));
    if (v)
      wrong.push(`write ${describeSession(shape)}: ${res.status} ${String(errorOf(res))}, expected ${v.expected} (${v.clauses.join(' ')})`);
  }
  http.exchanges.length = 0;
  assert.deepEqual(wrong, []);
  assert.ok(tally.accept > 20 && tally.refuse > 100 && tally.either > 10, JSON.stringify(tally));
});

test(`invited-agent contexts: ${SAMPLES} generated shapes on the cart read and on the order list`, { timeout: 60_000 }, async () => {
  const { accounts } = fixtureOf(profile);
  const contextHeader = profile.conventions?.headers?.invitedAgentContext ?? HEADERS.invitedAgentContext;
  const wrong: string[] = [];
  const tally = { accept: 0, refuse: 0, either: 0 };
  const shapes = fc.sample(contextShapeArbitrary(), { seed: SEED, numRuns: SAMPLES });
  for (const [i, shape] of shapes.entries()) {
    for (const operationId of ['getCart', 'listOrders']) {
      const built = await buildContext(shape, {
        profile,
        mint,
        sub: accounts.a.sub,
        otherSub: accounts.b.sub,
        agentId: `xpl_ctx_${SEED}_${i}`,
        contextHeader,
      });
      const res = await send(operationId, built.headers);
      const e = expectedOfContext(shape, { profile, operation: OPERATIONS_BY_ID.get(operationId)! });
      tally[tallyOf(e)]++;
      const v = judgeContextAnswer(e, res.status, errorOf(res));
      if (v)
        wrong.push(
          `${operationId} ${describeContext(shape)}: ${res.status} ${String(errorOf(res))}, expected ${v.expected} (${v.clauses.join(' ')})`,
        );
    }
  }
  http.exchanges.length = 0;
  assert.deepEqual(wrong, []);
  assert.ok(tally.accept > 40 && tally.refuse > 100 && tally.either > 40, JSON.stringify(tally));
});
