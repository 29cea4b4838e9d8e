// Spec part 5, Authentication > Assistant authority, with the DPoP rows of Errors: assistant session tokens are DPoP-bound
// (RFC 9449) and presented with a proof. Every check provisions its own assistant session through the identity-provider
// proxy's internal routes (conformance/lib/assistant.ts), so checks stay isolated and rerunnable.
//
// Levels. The spec's error table allows `invalid_dpop_proof` or `use_dpop_nonce` for a proof or nonce failure; where RFC 9449
// lets a server answer either (a stale `iat` may be answered with a nonce challenge, §11.1), the spec-level checks accept
// both, and the reference-level checks (ids ending in `.reference`) hold the reference to the code it documents.
import { randomBytes, randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { OPERATIONS } from '../../contract/operations.js';
import { check, test, type Shop } from '../engine/check.js';
import type { ShopResponse } from '../engine/http.js';
import { ASSISTANT_BROWSER_SESSION_HEADER, AssistantAgent, browserSession, errorOf, htuOf, rawRequest, signOutSession, type ProofOverrides } from '../lib/assistant.js';
import { CheckFailure, expectChallenge, expectProblem, fail } from '../lib/assert.js';
import { createDpopKey, dpopProofDraft, type DpopKey } from '../lib/dpop.js';
import { publicKeyAsSecret, unsecured } from '../lib/mint.js';
import { findChallenge, parseChallenges } from '../lib/www-authenticate.js';

// ---------------------------------------------------------------------------------------------------------------- helpers

const CART = '/v1/cart';


const epoch = () => Math.floor(Date.now() / 1000);

/** Names the case a failure belongs to: `[CLAUSE] <what>: <the assertion's own text>`. */
function inCase(what: string, assertion: () => void): void {
  try {
    assertion();
  } catch (err) {
    if (err instanceof CheckFailure) err.message = err.message.replace(/^(\[[^\]]*\] )?/, (prefix) => `${prefix}${what}: `);
    throw err;
  }
}

function expectSuccess(res: ShopResponse, what: string, clause: string): void {
  if (res.status < 200 || res.status > 299) fail(`${what}: status`, '2xx', `${res.status} ${res.text.slice(0, 300)}`, clause);
}

function challengesOf(res: ShopResponse, clause: string) {
  const header = res.headers.get('www-authenticate');
  if (header === null) fail('WWW-Authenticate header', 'present', null, clause);
  return parseChallenges(header!);
}

/** Exactly one challenge, in the DPoP scheme (a client library retries a nonce challenge only when it stands alone). */
function expectSingleDpopChallenge(res: ShopResponse, error: string, clause: string): void {
  expectChallenge(res, { scheme: 'DPoP', error, clause });
  const challenges = challengesOf(res, clause);
  if (challenges.length !== 1) fail('WWW-Authenticate: a single DPoP challenge', 'one challenge', res.headers.get('www-authenticate'), clause);
}

function expectNonceHeader(res: ShopResponse, clause: string): void {
  const nonce = res.headers.get('dpop-nonce');
  if (nonce === null || nonce.trim() === '') fail('DPoP-Nonce header on the answer to a DPoP request', 'a nonce', nonce, clause);
}

/**
 * A DPoP failure (spec, Errors): 401 with one of `allowed` as the problem's error, the same error in a single DPoP
 * challenge, and a DPoP-Nonce header (Request processing order: every response to a DPoP request carries one).
 */
function expectDpopFailure(shop: Shop, res: ShopResponse, allowed: readonly string[], clause: string, o: { nonce?: boolean; algs?: boolean } = {}): void {
  const error = errorOf(res) ?? '<missing>';
  if (res.status !== 401 || !allowed.includes(error)) fail('answer', `401 ${allowed.join(' or ')}`, `${res.status} ${error} ${res.text.slice(0, 200)}`, clause);
  expectProblem(res, { status: 401, error, docsUrl: shop.docsUrl, clause });
  expectSingleDpopChallenge(res, error, clause);
  if (o.algs) expectChallenge(res, { scheme: 'DPoP', error, params: { algs: 'ES256' }, clause });
  if (o.nonce ?? true) expectNonceHeader(res, 'AUTH-ORDER-4');
}

/** An RS256 key pair shaped like a DpopKey (the proof then names an RSA jwk, and a token can be bound to it). */
async function createRsaKey(): Promise<DpopKey> {
  const { privateKey, publicKey } = await generateKeyPair('RS256', { extractable: true });
  const publicJwk = await exportJWK(publicKey);
  return { privateKey, publicKey, publicJwk, privateJwk: await exportJWK(privateKey), thumbprint: await calculateJwkThumbprint(publicJwk, 'sha256') };
}

/** A provisioned agent whose nonce is known: a first correct request (the control) succeeded. */
async function readyAgent(shop: Shop, clause: string): Promise<AssistantAgent> {
  const agent = await AssistantAgent.create(shop);
  expectSuccess((await agent.get(CART)).res, 'control: a correct DPoP request', clause);
  return agent;
}

// ------------------------------------------------------------------------------------------------- the negative matrix

interface Negative {
  what: string;
  clause: string;
  /** Errors the spec (with RFC 9449) allows for this defect. */
  spec: readonly string[];
  /** The reference's documented error (docs/assistants.md). */
  reference: string;
  /** false where the request is not in the DPoP scheme (the Bearer downgrade): no DPoP-Nonce is required. */
  nonce?: boolean;
  send(agent: AssistantAgent, shop: Shop): Promise<ShopResponse>;
}

const PROOF = ['invalid_dpop_proof'] as const;
const PROOF_OR_NONCE = ['invalid_dpop_proof', 'use_dpop_nonce'] as const;

/** GET /v1/cart as the agent, with the current nonce and `proof` overrides, no nonce retry (the answer is what is judged). */
const once = (agent: AssistantAgent, proof: ProofOverrides | false) => agent.get(CART, { proof, retryOnNonce: false }).then((r) => r.res);

const NEGATIVES: readonly Negative[] = [
  {
    what: 'DPoP scheme without a DPoP header',
    clause: 'AUTH-ASST-1',
    // A missing proof is a proof failure (RFC 9449 §7.1); some servers answer it as a token error.
    spec: ['invalid_dpop_proof', 'invalid_token'],
    reference: 'invalid_dpop_proof',
    send: (agent) => once(agent, false),
  },
  { what: 'typ JWT', clause: 'ERR-TABLE-4', spec: PROOF, reference: 'invalid_dpop_proof', send: (agent) => once(agent, { header: { typ: 'JWT' } }) },
  { what: 'typ at+jwt', clause: 'ERR-TABLE-4', spec: PROOF, reference: 'invalid_dpop_proof', send: (agent) => once(agent, { header: { typ: 'at+jwt' } }) },
  { what: 'no typ', clause: 'ERR-TABLE-4', spec: PROOF, reference: 'invalid_dpop_proof', send: (agent) => once(agent, { header: { typ: undefined } }) },
  {
    what: 'alg none (unsigned)',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: async (agent, shop) => {
      const d = dpopProofDraft({ key: agent.key, htm: 'GET', htu: htuOf(shop, CART), accessToken: agent.token, ...(agent.nonce ? { nonce: agent.nonce } : {}) });
      const proof = unsecured(d.payload, { ...d.header, alg: 'none' });
      return (await agent.get(CART, { headers: { dpop: proof }, proof: false, retryOnNonce: false })).res;
    },
  },
  {
    what: 'HS256 keyed with the public JWK of the issuer',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: (agent, shop) => once(agent, { header: { alg: 'HS256' }, signingKey: publicKeyAsSecret(shop.profile, 'jwk') }),
  },
  {
    what: 'HS256 keyed with the proof\'s own jwk',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: (agent) => once(agent, { header: { alg: 'HS256' }, signingKey: new TextEncoder().encode(JSON.stringify(agent.key.publicJwk)) }),
  },
  {
    what: 'RS256 with an RSA jwk (the token bound to that key)',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: async (agent) => {
      const rsa = await createRsaKey();
      const token = await agent.mintToken({ jkt: rsa.thumbprint });
      return (await agent.get(CART, { token, key: rsa, proof: { header: { alg: 'RS256' } }, retryOnNonce: false })).res;
    },
  },
  { what: 'jwk with the private part d', clause: 'ERR-TABLE-4', spec: PROOF, reference: 'invalid_dpop_proof', send: (agent) => once(agent, { exposePrivateKey: true }) },
  {
    what: 'signed by another key than its jwk',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: async (agent) => once(agent, { signingKey: await createDpopKey() }),
  },
  { what: 'crit header', clause: 'ERR-TABLE-4', spec: PROOF, reference: 'invalid_dpop_proof', send: (agent) => once(agent, { header: { crit: ['exp'] }, claims: { exp: epoch() + 60 } }) },
  { what: 'no jti', clause: 'ERR-TABLE-4', spec: PROOF, reference: 'invalid_dpop_proof', send: (agent) => once(agent, { claims: { jti: undefined } }) },
  { what: 'no htm', clause: 'ERR-TABLE-4', spec: PROOF, reference: 'invalid_dpop_proof', send: (agent) => once(agent, { claims: { htm: undefined } }) },
  { what: 'no htu', clause: 'ERR-TABLE-4', spec: PROOF, reference: 'invalid_dpop_proof', send: (agent) => once(agent, { claims: { htu: undefined } }) },
  { what: 'no iat', clause: 'ERR-TABLE-4', spec: PROOF, reference: 'invalid_dpop_proof', send: (agent) => once(agent, { claims: { iat: undefined } }) },
  { what: 'no ath', clause: 'ERR-TABLE-4', spec: PROOF, reference: 'invalid_dpop_proof', send: (agent) => once(agent, { claims: { ath: undefined } }) },
  { what: 'htm POST on a GET', clause: 'ERR-TABLE-4', spec: PROOF, reference: 'invalid_dpop_proof', send: (agent) => once(agent, { htm: 'POST' }) },
  { what: 'htm get (lower case)', clause: 'ERR-TABLE-4', spec: PROOF, reference: 'invalid_dpop_proof', send: (agent) => once(agent, { htm: 'get' }) },
  { what: 'htu of another path', clause: 'ERR-TABLE-4', spec: PROOF, reference: 'invalid_dpop_proof', send: (agent, shop) => once(agent, { htu: htuOf(shop, '/v1/catalog/products') }) },
  { what: 'htu with a trailing slash', clause: 'ERR-TABLE-4', spec: PROOF, reference: 'invalid_dpop_proof', send: (agent, shop) => once(agent, { htu: `${htuOf(shop, CART)}/` }) },
  {
    what: 'htu of another host',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: (agent, shop) => once(agent, { htu: `https://evil.example${new URL(htuOf(shop, CART)).pathname}` }),
  },
  { what: 'htu relative', clause: 'ERR-TABLE-4', spec: PROOF, reference: 'invalid_dpop_proof', send: (agent) => once(agent, { htu: CART }) },
  // RFC 9449 §11.1: with server nonces, a server may answer a stale iat with a nonce challenge. The reference checks the
  // nonce first, so a proof with a current nonce and a stale iat is invalid_dpop_proof.
  { what: 'iat an hour ago', clause: 'ERR-TABLE-4', spec: PROOF_OR_NONCE, reference: 'invalid_dpop_proof', send: (agent) => once(agent, { iat: epoch() - 3600 }) },
  { what: 'iat in an hour', clause: 'ERR-TABLE-4', spec: PROOF_OR_NONCE, reference: 'invalid_dpop_proof', send: (agent) => once(agent, { iat: epoch() + 3600 }) },
  {
    what: 'ath of another token',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: async (agent) => once(agent, { athToken: await agent.mintToken() }),
  },
  {
    what: 'a nonce the server never issued',
    clause: 'ERR-TABLE-4',
    // RFC 9449 §9: an invalid nonce is answered use_dpop_nonce (with a fresh one).
    spec: PROOF_OR_NONCE,
    reference: 'use_dpop_nonce',
    send: (agent) => once(agent, { nonce: randomBytes(32).toString('base64url') }),
  },
  {
    what: 'a token bound to another key (cnf.jkt)',
    clause: 'ERR-TABLE-4',
    // RFC 9449 §7.1 names both a proof error and a token error for a binding mismatch.
    spec: ['invalid_dpop_proof', 'invalid_token'],
    reference: 'invalid_dpop_proof',
    send: async (agent) => {
      const token = await agent.mintToken({ jkt: (await createDpopKey()).thumbprint });
      return (await agent.get(CART, { token, retryOnNonce: false })).res;
    },
  },
  {
    what: 'two DPoP header fields',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: async (agent, shop) => {
      const [a, b] = [await agent.proof('GET', CART), await agent.proof('GET', CART)];
      return rawRequest(shop, 'GET', CART, [['authorization', `DPoP ${agent.token}`], ['dpop', a], ['dpop', b]]);
    },
  },
  {
    what: 'two proofs comma-joined in one DPoP header',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: async (agent) => {
      const [a, b] = [await agent.proof('GET', CART), await agent.proof('GET', CART)];
      return (await agent.get(CART, { headers: { dpop: `${a}, ${b}` }, proof: false, retryOnNonce: false })).res;
    },
  },
  {
    what: 'the token sent as Bearer with a correct proof',
    clause: 'ERR-TABLE-3',
    spec: ['invalid_token'],
    reference: 'invalid_token',
    nonce: false,
    send: (agent) => agent.get(CART, { scheme: 'Bearer', retryOnNonce: false }).then((r) => r.res),
  },
  {
    what: 'the token sent as Bearer without a proof',
    clause: 'ERR-TABLE-3',
    spec: ['invalid_token'],
    reference: 'invalid_token',
    nonce: false,
    send: (agent) => agent.get(CART, { scheme: 'Bearer', proof: false, retryOnNonce: false }).then((r) => r.res),
  },
];

for (const level of ['spec', 'reference'] as const) {
  test(...check({
    id: level === 'spec' ? 'dpop.negatives' : 'dpop.negatives.reference',
    title: level === 'spec'
      ? 'each defective DPoP request is 401 with a single DPoP challenge naming the DPoP error and a DPoP-Nonce; a correct proof works before and after'
      : 'each defective DPoP request gets the reference\'s documented code (invalid_dpop_proof, use_dpop_nonce for an unknown nonce, invalid_token for Bearer) and DPoP challenge with algs="ES256"',
    clauses: ['ERR-TABLE-4', 'AUTH-ORDER-4', 'AUTH-ASST-1', 'AUTH-ASST-2', 'ERR-TABLE-3'],
    ...(level === 'reference' ? { level } : {}),
    requires: ['assistants'],
  }, async (shop) => {
    const agent = await readyAgent(shop, 'AUTH-ASST-1');
    for (const n of NEGATIVES) {
      const res = await n.send(agent, shop);
      const fresh = res.headers.get('dpop-nonce');
      if (fresh) agent.nonce = fresh;
      inCase(n.what, () => {
        if (n.clause === 'ERR-TABLE-3') {
          // Downgrade (spec, Errors): the DPoP challenge with algs, never a Bearer one.
          expectDpopFailure(shop, res, n.spec, n.clause, { nonce: false, algs: true });
          if (findChallenge(challengesOf(res, n.clause), 'Bearer')) fail('WWW-Authenticate', 'no Bearer challenge', res.headers.get('www-authenticate'), n.clause);
          return;
        }
        expectDpopFailure(shop, res, level === 'spec' ? n.spec : [n.reference], n.clause, { nonce: n.nonce ?? true, algs: level === 'reference' });
      });
    }
    // None of the refused requests spent anything: the correct proof still works.
    expectSuccess((await agent.get(CART)).res, 'a correct proof after all the negatives', 'AUTH-ASST-1');
  }));
}

// ---------------------------------------------------------------------------------------------------------- positives

test(...check({ id: 'dpop.htu-query', title: 'a request with a query string is accepted with htu without the query, and with htu carrying query and fragment (RFC 9449 §4.3: ignored)', clauses: ['AUTH-ASST-1', 'AUTH-KIND-12'], requires: ['assistants'], seed: true }, async (shop) => {
  const agent = await readyAgent(shop, 'AUTH-ASST-1');
  const path = '/v1/catalog/products?limit=2';
  expectSuccess((await agent.get(path)).res, 'htu without the query', 'AUTH-ASST-1');
  expectSuccess((await agent.get(path, { proof: { htu: `${htuOf(shop, path)}?limit=2` } })).res, 'htu with the query', 'AUTH-ASST-1');
  expectSuccess((await agent.get(path, { proof: { htu: `${htuOf(shop, path)}?limit=2#top` } })).res, 'htu with query and fragment', 'AUTH-ASST-1');
}));

test(...check({ id: 'dpop.tolerant', title: 'the DPoP scheme name is case-insensitive, and extra proof claims and header members are ignored', clauses: ['AUTH-ASST-1'], requires: ['assistants'] }, async (shop) => {
  const agent = await readyAgent(shop, 'AUTH-ASST-1');
  for (const scheme of ['dpop', 'DPOP']) expectSuccess((await agent.get(CART, { scheme })).res, `Authorization scheme ${scheme}`, 'AUTH-ASST-1');
  expectSuccess((await agent.get(CART, { proof: { claims: { extra: 'ignored', exp: epoch() + 60 } } })).res, 'extra claims', 'AUTH-ASST-1');
  expectSuccess((await agent.get(CART, { proof: { header: { kid: 'ignored' } } })).res, 'an extra header member (kid)', 'AUTH-ASST-1');
}));

test(...check({ id: 'dpop.nonce', title: 'a proof without a nonce is accepted or answered 401 use_dpop_nonce with a DPoP-Nonce; with that nonce it is accepted; every answer carries DPoP-Nonce', clauses: ['ERR-TABLE-4', 'AUTH-ORDER-4', 'AUTH-ASST-1'], requires: ['assistants'] }, async (shop) => {
  const agent = await AssistantAgent.create(shop);
  const first = (await agent.get(CART, { retryOnNonce: false })).res;
  expectNonceHeader(first, 'AUTH-ORDER-4');
  if (first.status !== 200) {
    inCase('a proof without a nonce', () => expectDpopFailure(shop, first, ['use_dpop_nonce'], 'ERR-TABLE-4'));
    const second = (await agent.get(CART, { proof: { nonce: first.headers.get('dpop-nonce')! }, retryOnNonce: false })).res;
    expectSuccess(second, 'the same request with the DPoP-Nonce of the challenge', 'ERR-TABLE-4');
    expectNonceHeader(second, 'AUTH-ORDER-4');
  }
  // Success and failure alike carry a nonce (AUTH-ORDER-4): a refused write too.
  const refused = (await agent.post('/v1/cart/items', { json: { variant_id: 42 } })).res;
  expectNonceHeader(refused, 'AUTH-ORDER-4');
}));

test(...check({ id: 'dpop.nonce.reference', title: 'the reference requires a nonce: a proof without one is 401 use_dpop_nonce with a single DPoP challenge and DPoP-Nonce, then accepted', clauses: ['ERR-TABLE-4', 'AUTH-ORDER-4'], level: 'reference', requires: ['assistants'] }, async (shop) => {
  const agent = await AssistantAgent.create(shop);
  const { res, nonceChallenge } = await agent.get(CART);
  if (!nonceChallenge) fail('a proof without a nonce', '401 use_dpop_nonce', 'accepted', 'ERR-TABLE-4');
  inCase('a proof without a nonce', () => expectDpopFailure(shop, nonceChallenge!, ['use_dpop_nonce'], 'ERR-TABLE-4', { algs: true }));
  expectSuccess(res, 'the retry with the nonce', 'ERR-TABLE-4');
  expectNonceHeader(res, 'AUTH-ORDER-4');
}));

test(...check({ id: 'dpop.replay', title: 'an accepted proof sent again is refused (401 with a DPoP challenge); of concurrent uses of one fresh proof at most one succeeds', clauses: ['AUTH-ASST-11', 'AUTH-ORDER-12', 'ERR-TABLE-4'], requires: ['assistants'] }, async (shop) => {
  const agent = await readyAgent(shop, 'AUTH-ORDER-12');
  // A fresh proof is accepted once: it is not refused as a replay of itself (each stage runs once).
  const accepted = await agent.get(CART, { retryOnNonce: false });
  expectSuccess(accepted.res, 'a fresh proof', 'AUTH-ORDER-12');
  const replay = await agent.get(CART, { headers: { dpop: accepted.proof }, proof: false, retryOnNonce: false });
  inCase('the same proof again', () => expectDpopFailure(shop, replay.res, PROOF_OR_NONCE, 'AUTH-ASST-11'));
  // Concurrent uses of one fresh proof: the jti is recorded atomically, so at most one goes through.
  const proof = await agent.proof('GET', CART);
  const answers = await Promise.all(Array.from({ length: 4 }, () => agent.get(CART, { headers: { dpop: proof }, proof: false, retryOnNonce: false })));
  const ok = answers.filter((a) => a.res.status >= 200 && a.res.status < 300).length;
  if (ok > 1) fail('concurrent uses of one proof that succeeded', 'at most 1', ok, 'AUTH-ASST-11');
  for (const a of answers) if (a.res.status >= 300) inCase('a concurrent replay', () => expectDpopFailure(shop, a.res, PROOF_OR_NONCE, 'AUTH-ASST-11'));
}));

test(...check({ id: 'dpop.replay.reference', title: 'a replayed proof is 401 invalid_dpop_proof', clauses: ['AUTH-ASST-11'], level: 'reference', requires: ['assistants'] }, async (shop) => {
  const agent = await readyAgent(shop, 'AUTH-ASST-11');
  const accepted = await agent.get(CART, { retryOnNonce: false });
  expectSuccess(accepted.res, 'a fresh proof', 'AUTH-ASST-11');
  const replay = await agent.get(CART, { headers: { dpop: accepted.proof }, proof: false, retryOnNonce: false });
  expectDpopFailure(shop, replay.res, ['invalid_dpop_proof'], 'AUTH-ASST-11', { algs: true });
}));

// ------------------------------------------------------------------------------------------------------ token carriers

test(...check({ id: 'dpop.token-carriers', title: 'an assistant token in the query string or a cookie is not accepted: 401 invalid_token, as with no token', clauses: ['AUTH-ASST-3', 'AUTH-ASST-4', 'ERR-TABLE-1'], requires: ['assistants'] }, async (shop) => {
  const agent = await readyAgent(shop, 'AUTH-ASST-3');
  const proof = () => agent.proof('GET', CART);
  const cases: [string, string, () => Promise<ShopResponse>][] = [
    ['AUTH-ASST-3', 'query access_token with a proof', async () => shop.http.get(`${CART}?access_token=${encodeURIComponent(agent.token)}`, { headers: { dpop: await proof() } })],
    ['AUTH-ASST-4', 'cookie access_token with a proof', async () => shop.http.get(CART, { headers: { cookie: `access_token=${agent.token}`, dpop: await proof() } })],
  ];
  for (const [clause, what, send] of cases) {
    const res = await send();
    inCase(what, () => {
      expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause });
      expectChallenge(res, { scheme: 'DPoP', error: 'invalid_token', clause });
    });
  }
}));

test(...check({ id: 'dpop.token-defects', title: 'a malformed, expired or rejected assistant token with a correct proof is 401 invalid_token in the DPoP scheme only', clauses: ['AUTH-ASST-5', 'ERR-TABLE-2'], requires: ['assistants'] }, async (shop) => {
  const agent = await readyAgent(shop, 'AUTH-ASST-5');
  const tokens: [string, string][] = [
    ['expired an hour ago', await agent.mintToken({ claims: { iat: epoch() - 7200, exp: epoch() - 3600 } })],
    ['signed by a foreign key', await (async () => {
      const t = await agent.mintToken();
      const [h, p] = t.split('.');
      const other = (await shop.mint.customer({ sub: shop.subject('cust') })).split('.')[2];
      return `${h}.${p}.${other}`;
    })()],
    ['another audience', await agent.mintToken({ claims: { aud: 'https://other.example' } })],
    ['malformed', 'abc.def.ghi'],
  ];
  for (const [what, token] of tokens) {
    const res = (await agent.get(CART, { token, retryOnNonce: false })).res;
    inCase(what, () => {
      expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause: 'AUTH-ASST-5' });
      expectSingleDpopChallenge(res, 'invalid_token', 'AUTH-ASST-5');
    });
  }
}));

// -------------------------------------------------------------------------------------------------------- conversations

/** No WWW-Authenticate, or challenges of the DPoP scheme only; a 401 must carry one. */
function expectDpopSchemeOnly(res: ShopResponse, clause: string): void {
  const header = res.headers.get('www-authenticate');
  if (header === null) {
    if (res.status === 401) fail('WWW-Authenticate on a 401', 'a DPoP challenge', null, clause);
    return;
  }
  const challenges = parseChallenges(header);
  if (!findChallenge(challenges, 'DPoP') || findChallenge(challenges, 'Bearer')) fail('WWW-Authenticate: the DPoP scheme only', 'DPoP', header, clause);
}

/** A body the reference would accept for openConversation (payloads are not shown by the spec), so only the credential is judged. */
const OPEN_BODY = { mode: 'handoff', topic: 'conformance probe' };

test(...check({ id: 'dpop.conversations.scheme', title: 'on /assistant/conversations every challenge is in the DPoP scheme and no Bearer credential is enough; the assistant\'s own DPoP session is admitted', clauses: ['AUTH-SCHEME-1', 'END-PUBLIC-19', 'ERR-TABLE-10'], requires: ['assistants'] }, async (shop) => {
  const agent = await AssistantAgent.create(shop);
  const customer = await shop.mint.customer({ sub: shop.subject('cust') });
  const forwarder = await shop.mint.mcpAgentForwarder();
  const credentials: [string, Record<string, string>, boolean][] = [
    // [what, headers, must be a 401 invalid_token]
    ['no token', {}, true],
    ['a garbage Bearer token', { authorization: 'Bearer abc.def.ghi' }, true],
    ['the assistant token as Bearer', { authorization: `Bearer ${agent.token}` }, true],
    ['a customer Bearer token', { authorization: `Bearer ${customer}` }, false],
    ['the MCP forwarder with the assistant token in Assistant-Subject', { authorization: `Bearer ${forwarder}`, 'assistant-subject': agent.token }, false],
  ];
  // The conversation routes of contract/operations.ts (methods and sub-paths are the reference's choice), on a conversation
  // id nobody has: every credential here is refused before the id is looked up.
  const id = `conv_${randomUUID().replace(/-/g, '')}`;
  const routes = OPERATIONS.filter((op) => op.group === 'conversation').map((op) => [op.method, op.path.replace('{id}', id), op.path.endsWith('/messages') ? { text: 'probe' } : op.method === 'POST' ? OPEN_BODY : undefined] as const);
  for (const [method, path, json] of routes) {
    for (const [what, headers, unauthenticated] of credentials) {
      const res = await shop.http.request(method, path, { headers, ...(json !== undefined ? { json } : {}) });
      inCase(`${method} ${path} with ${what}`, () => {
        if (res.status !== 401 && res.status !== 403) fail('refused (a Bearer credential is never enough)', '401 or 403', `${res.status} ${res.text.slice(0, 200)}`, 'END-PUBLIC-19');
        expectProblem(res, { status: res.status, error: errorOf(res) ?? '<missing>', docsUrl: shop.docsUrl, clause: 'END-PUBLIC-19' });
        if (unauthenticated) expectProblem(res, { status: 401, error: 'invalid_token', docsUrl: shop.docsUrl, clause: 'AUTH-SCHEME-1' });
        expectDpopSchemeOnly(res, 'AUTH-SCHEME-1');
      });
    }
  }
  // DPoP plus live session admission: the assistant's own signed-in session is let in; the same token once the proxy
  // signed the session out is not.
  const listed = (await agent.get('/assistant/conversations')).res;
  expectSuccess(listed, 'the assistant lists its conversations with DPoP', 'END-PUBLIC-19');
  await signOutSession(shop, agent.identity);
  const stale = (await agent.get('/assistant/conversations')).res;
  inCase('the same token after the session signed out', () => {
    expectProblem(stale, { status: 403, error: 'sign_in_required', docsUrl: shop.docsUrl, clause: 'END-PUBLIC-19' });
    expectChallenge(stale, { scheme: 'DPoP', error: 'sign_in_required', clause: 'ERR-TABLE-10' });
  });
}));

test(...check({ id: 'dpop.conversations.browser-session', title: 'an assistant browser session (web agent forwarder) admitted on /v1/cart is refused on /assistant/conversations', clauses: ['AUTH-ORDER-7', 'AUTH-CRED-8'], requires: ['assistants'] }, async (shop) => {
  const agent = await AssistantAgent.create(shop);
  const headers = { authorization: `Bearer ${await shop.mint.invitedAgentForwarder()}`, [ASSISTANT_BROWSER_SESSION_HEADER.toLowerCase()]: browserSession(shop, agent.identity.sessionId) };
  expectSuccess(await shop.http.get('/v1/cart', { headers }), 'control: the browser session on getCart', 'AUTH-CRED-8');
  for (const [method, path] of [['GET', '/assistant/conversations'], ['POST', '/assistant/conversations']] as const) {
    const res = await shop.http.request(method, path, { headers, ...(method === 'POST' ? { json: OPEN_BODY } : {}) });
    inCase(`${method} ${path}`, () => {
      if (res.status !== 401 && res.status !== 403) fail('refused', '401 or 403', `${res.status} ${res.text.slice(0, 200)}`, 'AUTH-ORDER-7');
      expectProblem(res, { status: res.status, error: errorOf(res) ?? '<missing>', docsUrl: shop.docsUrl, clause: 'AUTH-ORDER-7' });
    });
  }
}));

test(...check({ id: 'dpop.conversations.browser-session.reference', title: 'an assistant browser session on /assistant/conversations is 403 caller_not_allowed', clauses: ['AUTH-ORDER-7'], level: 'reference', requires: ['assistants'] }, async (shop) => {
  const agent = await AssistantAgent.create(shop);
  const headers = { authorization: `Bearer ${await shop.mint.invitedAgentForwarder()}`, [ASSISTANT_BROWSER_SESSION_HEADER.toLowerCase()]: browserSession(shop, agent.identity.sessionId) };
  expectProblem(await shop.http.get('/assistant/conversations', { headers }), { status: 403, error: 'caller_not_allowed', docsUrl: shop.docsUrl, clause: 'AUTH-ORDER-7' });
}));
