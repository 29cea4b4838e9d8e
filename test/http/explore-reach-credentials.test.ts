// The explore-reach defects of credentials (guest sessions, invited-agent contexts, DPoP proofs; conformance/selftest/
// defects/explore-reach/{guest-sessions,contexts,proofs}.ts) are real and narrow: for each, the exact requests that show it,
// sent through the self-test proxy in front of the embedded reference, show the deviation, and the same requests sent
// straight to the reference do not; a near miss of the same corner (one step outside the break) is still answered through
// the proxy as the spec says. Sequences use fresh subjects, carts, sessions and keys of their own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { startEmbedded } from '../../cli/commands/run.js';
import { FIXTURE_PROFILE } from '../../reference/src/paths.js';
import { CLAUSES_BY_ID } from '../../contract/clauses/catalogue.js';
import { createMinter, type Minter } from '../../conformance/lib/mint.js';
import { createDpopKey, dpopProof, type DpopKey } from '../../conformance/lib/dpop.js';
import { guestSessionSignature, newGuestSession } from '../../conformance/lib/guest-session.js';
import { sendUpstream, startProxy } from '../../conformance/selftest/proxy.js';
import { REACH_SESSIONS_DEFECTS } from '../../conformance/selftest/defects/explore-reach/guest-sessions.js';
import { REACH_CONTEXTS_DEFECTS } from '../../conformance/selftest/defects/explore-reach/contexts.js';
import { REACH_PROOFS_DEFECTS } from '../../conformance/selftest/defects/explore-reach/proofs.js';
import { EXPLORE_REACH_DEFECTS } from '../../conformance/selftest/defects/explore-reach/index.js';
import type { Profile } from '../../contract/profile.js';

type Headers = Record<string, string>;
interface Answer {
  status: number;
  headers: globalThis.Headers;
  text: string;
  json: any;
}

const DEFECTS = [...REACH_SESSIONS_DEFECTS, ...REACH_CONTEXTS_DEFECTS, ...REACH_PROOFS_DEFECTS];

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

async function send(base: string, method: string, path: string, o: { headers?: Headers; json?: unknown } = {}): Promise<Answer> {
  const body = o.json !== undefined ? JSON.stringify(o.json) : undefined;
  const headers = { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...o.headers };
  const res = await fetch(new URL(path, base), { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

const ok = (a: Answer) => a.status >= 200 && a.status < 300;
const seen = (...answers: Answer[]) => answers.map((a) => `${a.status} ${a.text.slice(0, 200)}`).join(' | ');
const bearer = (token: string): Headers => ({ authorization: `Bearer ${token}` });
const line = { variant_id: 'var_0101', quantity: 1 };
const contextHeader = () => profile.conventions?.headers?.invitedAgentContext ?? 'Invited-Agent-Context';

// ------------------------------------------------------------------------------------------------------ guest sessions

const guest = async (session: string): Promise<Headers> => ({ ...bearer(await mint.guest()), 'guest-session': session });
/** A fresh cart's session with its signature altered by `alter`. */
function alteredSession(alter: (sig: string) => string): string {
  const id = randomUUID();
  return `gs1.${id}.${alter(guestSessionSignature(id, profile.secrets.guestSessionKey))}`;
}
const otherChar = (c: string) => (c === 'A' ? 'B' : 'A');
const swapCase = (s: string) => [...s].map((c) => (c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())).join('');

// ---------------------------------------------------------------------------------------------------- invited agents

async function invited(sub: string, permissions: readonly string[], o: { header?: Record<string, unknown> } = {}) {
  const forwarderToken = await mint.invitedAgentForwarder();
  const context = await mint.invitedAgentContext({ sub, agentId: 'agent_reach_cred', permissions, forwarderToken, ...o });
  return { forwarderToken, context, headers: { ...bearer(forwarderToken), [contextHeader()]: context } as Headers };
}

// ------------------------------------------------------------------------------------------------------- DPoP proofs

type Assistant = { key: DpopKey; token: string };

/** A signed-out assistant session registered through `base`, and a token for it bound to a fresh key. */
async function assistant(base: string): Promise<Assistant> {
  const sid = `sess_reach_${randomUUID()}`;
  const res = await send(base, 'POST', '/internal/assistant/sessions/signed-out', {
    headers: { 'x-proxy-idp-secret': profile.secrets.proxyIdpSecret! },
    json: { session_id: sid, client_id: 'agent-client-reach', scopes: [] },
  });
  assert.equal(res.status, 201, res.text);
  const key = await createDpopKey();
  return { key, token: await mint.assistant({ sub: `cust_reach_${randomUUID()}`, sid, jkt: key.thumbprint }) };
}

/** A current server nonce (every answer to a DPoP request carries one). */
async function nonce(base: string): Promise<string> {
  const res = await fetch(new URL('/v1/cart', base), { headers: { authorization: 'DPoP x.y.z' } });
  return res.headers.get('dpop-nonce')!;
}

/** The headers of a DPoP request to `path` (htu without the query, as RFC 9449 §4.2 has it), the proof altered by `claims`. */
async function dpop(base: string, a: Assistant, method: string, path: string, claims: Record<string, unknown> = {}): Promise<Headers> {
  const { origin, pathname } = new URL(path, base);
  const o = { key: a.key, htm: method, htu: `${origin}${pathname}`, accessToken: a.token, nonce: await nonce(base), claims };
  return { authorization: `DPoP ${a.token}`, dpop: await dpopProof(o) };
}

/** A defect's proof: `show`, whether the deviation appears at `base`; `near`, whether a near miss is answered as the spec says. */
interface Proof {
  readonly id: string;
  show(base: string): Promise<{ deviates: boolean; seen: string }>;
  near(base: string): Promise<{ conforms: boolean; seen: string }>;
}

const PROOFS: readonly Proof[] = [
  {
    id: 'reach.sessions.signature-tail-uncompared',
    async show(base) {
      const session = alteredSession((sig) => `${sig.slice(0, 40)}${otherChar(sig[40]!)}${sig.slice(41)}`);
      const res = await send(base, 'POST', '/v1/cart/items', { headers: await guest(session), json: line });
      return { deviates: ok(res), seen: seen(res) };
    },
    async near(base) {
      const session = alteredSession((sig) => `${sig.slice(0, 31)}${otherChar(sig[31]!)}${sig.slice(32)}`);
      const res = await send(base, 'POST', '/v1/cart/items', { headers: await guest(session), json: line });
      return { conforms: res.status === 401 && res.json?.error === 'invalid_guest_session', seen: seen(res) };
    },
  },
  {
    id: 'reach.sessions.signature-case-folded',
    async show(base) {
      const res = await send(base, 'GET', '/v1/cart', { headers: await guest(alteredSession(swapCase)) });
      return { deviates: res.status === 200, seen: seen(res) };
    },
    async near(base) {
      const res = await send(base, 'GET', '/v1/cart', {
        headers: await guest(alteredSession((sig) => `${otherChar(sig[0]!)}${sig.slice(1)}`)),
      });
      return { conforms: res.status === 401 && res.json?.error === 'invalid_guest_session', seen: seen(res) };
    },
  },
  {
    id: 'reach.sessions.customer-add-goes-to-guest-cart',
    async show(base) {
      const session = newGuestSession(profile.secrets.guestSessionKey);
      const customer = bearer(await mint.customer({ sub: `cust_reach_${randomUUID()}` }));
      const added = await send(base, 'POST', '/v1/cart/items', { headers: { ...customer, 'guest-session': session }, json: line });
      const cart = await send(base, 'GET', '/v1/cart', { headers: await guest(session) });
      return { deviates: ok(added) && cart.text.includes('var_0101'), seen: seen(added, cart) };
    },
    async near(base) {
      // The same pair on getCart: refused as the spec says (the break is addCartItem's alone).
      const session = newGuestSession(profile.secrets.guestSessionKey);
      const customer = bearer(await mint.customer({ sub: `cust_reach_${randomUUID()}` }));
      const res = await send(base, 'GET', '/v1/cart', { headers: { ...customer, 'guest-session': session } });
      return { conforms: res.status >= 400 && res.status < 500, seen: seen(res) };
    },
  },
  {
    id: 'reach.contexts.typ-absent-accepted',
    async show(base) {
      const agent = await invited('cust_ada', ['assistant:read'], { header: { typ: undefined } });
      const res = await send(base, 'GET', '/v1/me/orders', { headers: agent.headers });
      return { deviates: res.status === 200, seen: seen(res) };
    },
    async near(base) {
      const agent = await invited('cust_ada', ['assistant:read'], { header: { typ: 'JWT' } });
      const res = await send(base, 'GET', '/v1/me/orders', { headers: agent.headers });
      return { conforms: res.status === 401, seen: seen(res) };
    },
  },
  {
    id: 'reach.contexts.cached-context-unbound',
    async show(base) {
      const agent = await invited('cust_ada', ['assistant:read']);
      const first = await send(base, 'GET', '/v1/me/profile', { headers: agent.headers });
      const other = await mint.invitedAgentForwarder();
      const lifted = await send(base, 'GET', '/v1/me/profile', { headers: { ...bearer(other), [contextHeader()]: agent.context } });
      return { deviates: first.status === 200 && lifted.status === 200, seen: seen(first, lifted) };
    },
    async near(base) {
      // A context never taken before, lifted onto another forwarder token at once: still refused.
      const agent = await invited('cust_ada', ['assistant:read']);
      const other = await mint.invitedAgentForwarder();
      const res = await send(base, 'GET', '/v1/me/profile', { headers: { ...bearer(other), [contextHeader()]: agent.context } });
      return { conforms: res.status === 401, seen: seen(res) };
    },
  },
  {
    id: 'reach.contexts.write-permission-reads',
    async show(base) {
      const agent = await invited('cust_ada', ['assistant:write']);
      const res = await send(base, 'GET', '/v1/me/orders', { headers: agent.headers });
      return { deviates: res.status === 200, seen: seen(res) };
    },
    async near(base) {
      const agent = await invited('cust_ada', ['checkout']);
      const res = await send(base, 'GET', '/v1/me/orders', { headers: agent.headers });
      return { conforms: res.status === 403 && res.json?.error === 'insufficient_scope', seen: seen(res) };
    },
  },
  {
    id: 'reach.proofs.htu-compared-with-query',
    async show(base) {
      const a = await assistant(base);
      const path = '/v1/catalog/products?limit=2';
      const res = await send(base, 'GET', path, { headers: await dpop(base, a, 'GET', path) });
      return { deviates: res.status === 401 && res.json?.error === 'invalid_dpop_proof', seen: seen(res) };
    },
    async near(base) {
      // No query: the same proof is taken.
      const a = await assistant(base);
      const res = await send(base, 'GET', '/v1/catalog/products', { headers: await dpop(base, a, 'GET', '/v1/catalog/products') });
      return { conforms: res.status === 200, seen: seen(res) };
    },
  },
  {
    id: 'reach.proofs.replay-accepted-on-get',
    async show(base) {
      const a = await assistant(base);
      const headers = await dpop(base, a, 'GET', '/v1/cart');
      const first = await send(base, 'GET', '/v1/cart', { headers });
      const replay = await send(base, 'GET', '/v1/cart', { headers });
      return { deviates: first.status === 200 && replay.status === 200, seen: seen(first, replay) };
    },
    async near(base) {
      // A write's proof replayed: still refused.
      const a = await assistant(base);
      const headers = await dpop(base, a, 'POST', '/v1/cart/items');
      const first = await send(base, 'POST', '/v1/cart/items', { headers, json: line });
      const replay = await send(base, 'POST', '/v1/cart/items', { headers, json: line });
      return { conforms: ok(first) && replay.status === 401 && replay.json?.error === 'invalid_dpop_proof', seen: seen(first, replay) };
    },
  },
  {
    id: 'reach.proofs.ath-checked-only-when-present',
    async show(base) {
      const a = await assistant(base);
      const res = await send(base, 'GET', '/v1/cart', { headers: await dpop(base, a, 'GET', '/v1/cart', { ath: undefined }) });
      return { deviates: res.status === 200, seen: seen(res) };
    },
    async near(base) {
      const a = await assistant(base);
      const wrong = await dpop(base, a, 'GET', '/v1/cart', { ath: 'A'.repeat(43) });
      const res = await send(base, 'GET', '/v1/cart', { headers: wrong });
      return { conforms: res.status === 401 && res.json?.error === 'invalid_dpop_proof', seen: seen(res) };
    },
  },
];

test('nine credential defects, three per family, each citing one testable clause, all in the explore-reach list', () => {
  assert.equal(DEFECTS.length, 9);
  assert.equal(new Set(DEFECTS.map((d) => d.id)).size, 9, 'ids are unique');
  for (const [family, list] of [
    ['sessions', REACH_SESSIONS_DEFECTS],
    ['contexts', REACH_CONTEXTS_DEFECTS],
    ['proofs', REACH_PROOFS_DEFECTS],
  ] as const) {
    assert.equal(list.length, 3, family);
    for (const d of list) assert.match(d.id, new RegExp(`^reach\\.${family}\\.[\\w-]+$`));
  }
  for (const d of DEFECTS) {
    assert.ok(CLAUSES_BY_ID.has(d.clause), `${d.id}: ${d.clause}`);
    assert.equal(CLAUSES_BY_ID.get(d.clause)!.notTestable, undefined, `${d.id}: ${d.clause} is testable`);
    assert.ok(EXPLORE_REACH_DEFECTS.includes(d), `${d.id} is in EXPLORE_REACH_DEFECTS`);
  }
  assert.deepEqual(
    PROOFS.map((p) => p.id),
    DEFECTS.map((d) => d.id),
    'every defect has its proof',
  );
});

describe('each credential defect shows through the proxy and not on the reference', { concurrency: 4 }, () => {
  for (const proof of PROOFS) {
    test(proof.id, { timeout: 30_000 }, async () => {
      const defect = DEFECTS.find((d) => d.id === proof.id)!;
      const target = embedded.server.url;
      const rules = defect.rules({ profile, mint, send: sendUpstream(target), target });
      const proxy = await startProxy(target, { ...rules, label: defect.id });
      try {
        const straight = await proof.show(target);
        assert.equal(straight.deviates, false, `straight to the reference: ${straight.seen}`);
        const through = await proof.show(proxy.url);
        assert.equal(through.deviates, true, `through the proxy: ${through.seen}`);
        const near = await proof.near(proxy.url);
        assert.equal(near.conforms, true, `a near miss through the proxy, answered as the spec says: ${near.seen}`);
      } finally {
        await proxy.close();
      }
    });
  }
});
