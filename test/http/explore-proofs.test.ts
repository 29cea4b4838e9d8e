// explore's generated DPoP proof shapes (conformance/explore/proofs.ts) against the embedded reference: assistant sessions
// registered as explore's agent callers register them (the identity-provider proxy's report, a DPoP key, a token bound to
// it), each asked for a nonce first (a proof without one is answered 401 use_dpop_nonce with a DPoP-Nonce), then 300
// shapes drawn with a fixed seed sent on GET /v1/cart, each proof carrying the last DPoP-Nonce its session was given; every
// answer fits what expectedOfProof says the spec requires (accepted: 2xx; refused: one of its statuses with one of that
// status's codes; either: no 5xx), so that explore never blames the reference for a proof the spec lets it take, nor lets
// it take one the spec refuses.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import fc from 'fast-check';
import { startEmbedded } from '../../cli/commands/run.js';
import { FIXTURE_PROFILE } from '../../reference/src/paths.js';
import { OPERATIONS_BY_ID } from '../../contract/operations.js';
import { ShopHttp, type HeaderField, type ShopResponse } from '../../conformance/engine/transport/http.js';
import { createMinter } from '../../conformance/lib/mint.js';
import { createDpopKey, type DpopKey } from '../../conformance/lib/dpop.js';
import { ALL_PERMISSIONS, provisionSession, refusedReport } from '../../conformance/lib/assistant-session.js';
import { fixtureOf } from '../../conformance/explore/world.js';
import {
  asSent,
  buildProof,
  describeProof,
  expectedOfProof,
  judgeProofAnswer,
  proofShapeArbitrary,
} from '../../conformance/explore/proofs.js';

const SEED = 20261205;
const SHAPES = 300;
/** Shapes per session: fewer proofs than the fixture's session budget (100 a minute) can be accepted by one session. */
const PER_SESSION = 50;
const CART = OPERATIONS_BY_ID.get('getCart')!;

let embedded: Awaited<ReturnType<typeof startEmbedded>>;
let http: ShopHttp;

before(async () => {
  embedded = await startEmbedded(FIXTURE_PROFILE);
  http = new ShopHttp(embedded.server.url);
});
after(async () => {
  await embedded.server.close();
  rmSync(embedded.dir, { recursive: true, force: true });
});

/** One assistant session as AgentCallers.register makes it, and what the test keeps of its answers. */
interface Session {
  key: DpopKey;
  token: string;
  nonce?: string;
  previousNonce?: string;
  lastProof?: string;
}

async function newSession(): Promise<Session> {
  const { profile } = embedded;
  const sub = fixtureOf(profile).accounts.a.sub;
  const identity = await provisionSession(
    (path, o) => http.post(path, o),
    profile,
    { sub, permissions: ALL_PERMISSIONS },
    () => sub,
    {
      noSecret: () => {
        throw new Error('the fixture profile has no secrets.proxyIdpSecret');
      },
      refused: refusedReport,
    },
  );
  const key = await createDpopKey();
  return { key, token: await createMinter(profile).assistant({ sub, sid: identity.sessionId, jkt: key.thumbprint }), nonce: undefined };
}

async function send(headers: Record<string, string | string[]>): Promise<ShopResponse> {
  const single: Record<string, string> = {};
  const raw: HeaderField[] = [];
  for (const [name, value] of Object.entries(headers))
    if (Array.isArray(value)) for (const v of value) raw.push([name, v]);
    else single[name] = value;
  return http.request(CART.method, CART.path, { headers: single, rawHeaders: raw });
}

/** Keeps the nonce an answer carries (every answer to a DPoP request carries a fresh one, AUTH-ORDER-4). */
function keepNonce(s: Session, res: ShopResponse): void {
  const nonce = res.headers.get('dpop-nonce');
  if (!nonce) return;
  s.previousNonce = s.nonce;
  s.nonce = nonce;
}

const errorOf = (res: ShopResponse) => (res.body as { error?: unknown } | undefined)?.error;

test(`${SHAPES} generated DPoP proof shapes get answers their expectation allows`, { timeout: 60_000 }, async () => {
  const url = http.url(CART.path);
  const shapes = fc.sample(proofShapeArbitrary(), { seed: SEED, numRuns: SHAPES });
  const wrong: string[] = [];
  const tally = { accept: 0, refuse: 0, either: 0, replayed: 0 };
  let session: Session | undefined;
  for (const [i, shape] of shapes.entries()) {
    if (i % PER_SESSION === 0) {
      session = await newSession();
      // A correct proof without a nonce: the reference requires one (RFC 9449 §9), and says so with the nonce to use.
      const first = await buildProof({}, { key: session.key, token: session.token, method: CART.method, url });
      const asked = await send(first.headers);
      assert.equal(asked.status, 401, asked.text);
      assert.equal(errorOf(asked), 'use_dpop_nonce');
      keepNonce(session, asked);
      assert.ok(session.nonce, 'a DPoP-Nonce with use_dpop_nonce');
    }
    const s = session!;
    const built = await buildProof(shape, {
      key: s.key,
      token: s.token,
      method: CART.method,
      url,
      ...(s.nonce !== undefined ? { nonce: s.nonce } : {}),
      ...(s.previousNonce !== undefined ? { previousNonce: s.previousNonce } : {}),
      ...(s.lastProof !== undefined ? { lastProof: s.lastProof } : {}),
    });
    const res = await send(built.headers);
    keepNonce(s, res);
    const sent = asSent(shape, built.replayed);
    const e = expectedOfProof(sent, { method: CART.method, operation: CART, nonceAsked: true });
    tally[e.accept === true ? 'accept' : e.accept === false ? 'refuse' : 'either']++;
    if (built.replayed) tally.replayed++;
    const v = judgeProofAnswer(e, res.status, errorOf(res));
    if (v) wrong.push(`${describeProof(sent)}: ${res.status} ${String(errorOf(res))}, expected ${v.expected} (${v.clauses.join(' ')})`);
    // The last proof the deployment accepted is what a replay sends again.
    if (res.status >= 200 && res.status < 300 && typeof built.headers.dpop === 'string') s.lastProof = built.headers.dpop;
    http.exchanges.length = 0;
  }
  assert.deepEqual(wrong, []);
  // The sample judges something: proofs to accept, to refuse, some the spec leaves open, and real replays.
  assert.ok(tally.accept > 15 && tally.refuse > 100 && tally.either > 15 && tally.replayed > 3, JSON.stringify(tally));
});
