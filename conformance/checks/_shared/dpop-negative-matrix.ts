// The negative matrix of the DPoP checks (conformance/checks/05-authentication.dpop-negatives.check.ts): each defective
// assistant request, the errors the spec (with RFC 9449) allows for it and the one the reference documents.
import { randomBytes } from 'node:crypto';
import { learned, type Shop } from '../../engine/runner/check.js';
import { conversationRoute } from './open-conversation.js';
import type { ShopResponse } from '../../engine/transport/http.js';
import { htuOf, rawRequest, type AssistantAgent, type ProofOverrides } from './assistant.js';
import { createDpopKey, dpopProofDraft } from '../../lib/dpop.js';
import { nowSeconds } from '../../lib/jws.js';
import { publicKeyAsSecret, unsecured } from '../../lib/mint.js';
import { CART } from './dpop-agents.js';
import { PROOF, PROOF_OR_NONCE } from '../../lib/expect/dpop.js';
import { IAT_TIMED_BY_NONCE } from '../../rules/05-authentication.js';

export interface Negative {
  what: string;
  clause: string;
  /** Errors the spec (with RFC 9449) allows for this defect. */
  spec: readonly string[];
  /** The reference's documented error (docs/assistants.md). */
  reference: string;
  /** false where the request is not in the DPoP scheme (the Bearer downgrade): no DPoP-Nonce is required. */
  nonce?: boolean;
  /** Where the spec (with RFC 9449) reads two ways and a conforming deployment may take the request: why (a 2xx passes at spec level). */
  mayAccept?: string;
  send(agent: AssistantAgent, shop: Shop): Promise<ShopResponse>;
}

/** GET /v1/cart as the agent, with the current nonce and `proof` overrides, no nonce retry (the answer is what is judged). */
const once = (agent: AssistantAgent, proof: ProofOverrides | false) => agent.get(CART, { proof, retryOnNonce: false }).then((r) => r.res);

/**
 * The same `proof` overrides on a conversation route of the target (its documents describe them; the spec does not show
 * them), so that a proof failure is judged on the conversation routes as on the operations. Without one: GET /v1/cart.
 */
const onConversation = (agent: AssistantAgent, proof: ProofOverrides) => {
  const { method, path } = learned().has('listConversations') ? conversationRoute('listConversations') : { method: 'GET', path: CART };
  return agent.request(method, path, { proof, retryOnNonce: false }).then((r) => r.res);
};

export const NEGATIVES: readonly Negative[] = [
  {
    what: 'DPoP scheme without a DPoP header',
    clause: 'AUTH-ASST-1',
    // A missing proof is a proof failure (RFC 9449 §7.1); some servers answer it as a token error.
    spec: ['invalid_dpop_proof', 'invalid_token'],
    reference: 'invalid_dpop_proof',
    send: (agent) => once(agent, false),
  },
  {
    what: 'typ JWT',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: (agent) => once(agent, { header: { typ: 'JWT' } }),
  },
  {
    what: 'typ at+jwt',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: (agent) => once(agent, { header: { typ: 'at+jwt' } }),
  },
  {
    what: 'no typ',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: (agent) => once(agent, { header: { typ: undefined } }),
  },
  {
    what: 'alg none (unsigned)',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: async (agent, shop) => {
      const d = dpopProofDraft({
        key: agent.key,
        htm: 'GET',
        htu: htuOf(shop, CART),
        accessToken: agent.token,
        ...(agent.nonce ? { nonce: agent.nonce } : {}),
      });
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
    what: "HS256 keyed with the proof's own jwk",
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
      const rsa = await createDpopKey('RS256');
      const token = await agent.mintToken({ jkt: rsa.thumbprint });
      return (await agent.get(CART, { token, key: rsa, proof: { header: { alg: 'RS256' } }, retryOnNonce: false })).res;
    },
  },
  {
    what: 'jwk with the private part d',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: (agent) => once(agent, { exposePrivateKey: true }),
  },
  {
    what: 'signed by another key than its jwk',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: async (agent) => once(agent, { signingKey: await createDpopKey() }),
  },
  {
    what: 'crit header',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: (agent) => once(agent, { header: { crit: ['exp'] }, claims: { exp: nowSeconds() + 60 } }),
  },
  {
    what: 'no jti',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: (agent) => once(agent, { claims: { jti: undefined } }),
  },
  {
    what: 'no htm',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: (agent) => once(agent, { claims: { htm: undefined } }),
  },
  {
    what: 'no htu',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: (agent) => once(agent, { claims: { htu: undefined } }),
  },
  {
    what: 'no iat',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: (agent) => once(agent, { claims: { iat: undefined } }),
  },
  {
    what: 'no ath',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: (agent) => once(agent, { claims: { ath: undefined } }),
  },
  {
    what: 'htm POST on a GET',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: (agent) => once(agent, { htm: 'POST' }),
  },
  {
    what: 'htm get (lower case)',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: (agent) => once(agent, { htm: 'get' }),
  },
  {
    what: 'htu of another path',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: (agent, shop) => once(agent, { htu: htuOf(shop, '/v1/catalog/products') }),
  },
  {
    what: 'htu with a trailing slash',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: (agent, shop) => once(agent, { htu: `${htuOf(shop, CART)}/` }),
  },
  {
    what: 'htu of another host',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: (agent, shop) => once(agent, { htu: `https://evil.example${new URL(htuOf(shop, CART)).pathname}` }),
  },
  {
    what: 'htu relative',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: (agent) => once(agent, { htu: CART }),
  },
  // RFC 9449 §11.1: with server nonces, a server may answer a stale iat with a nonce challenge, and §4.3 item 11 lets it
  // time the proof by its nonce instead (IAT_TIMED_BY_NONCE): these proofs carry the current nonce, so a deployment may
  // take them. The reference times proofs by iat too and checks the nonce first: invalid_dpop_proof.
  {
    what: 'iat an hour ago',
    clause: 'ERR-TABLE-4',
    spec: PROOF_OR_NONCE,
    mayAccept: IAT_TIMED_BY_NONCE,
    reference: 'invalid_dpop_proof',
    send: (agent) => once(agent, { iat: nowSeconds() - 3600 }),
  },
  {
    what: 'iat in an hour',
    clause: 'ERR-TABLE-4',
    spec: PROOF_OR_NONCE,
    mayAccept: IAT_TIMED_BY_NONCE,
    reference: 'invalid_dpop_proof',
    send: (agent) => once(agent, { iat: nowSeconds() + 3600 }),
  },
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
      return rawRequest(shop, 'GET', CART, [
        ['authorization', `DPoP ${agent.token}`],
        ['dpop', a],
        ['dpop', b],
      ]);
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
    what: 'typ JWT, on a conversation route',
    clause: 'ERR-TABLE-4',
    spec: PROOF,
    reference: 'invalid_dpop_proof',
    send: (agent) => onConversation(agent, { header: { typ: 'JWT' } }),
  },
  {
    what: 'a nonce the server never issued, on a conversation route',
    clause: 'ERR-TABLE-4',
    spec: PROOF_OR_NONCE,
    reference: 'use_dpop_nonce',
    send: (agent) => onConversation(agent, { nonce: randomBytes(32).toString('base64url') }),
  },
  {
    // A token refused in the DPoP scheme is still a DPoP request: its 401 invalid_token carries a fresh nonce too.
    what: 'an expired token in the DPoP scheme, with a correct proof',
    clause: 'ERR-TABLE-2',
    spec: ['invalid_token'],
    reference: 'invalid_token',
    send: async (agent) => (await agent.get(CART, { token: await agent.mintToken({ expiresIn: -120 }), retryOnNonce: false })).res,
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
