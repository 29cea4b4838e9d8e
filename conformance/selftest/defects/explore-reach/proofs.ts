// Reach defects of DPoP proofs (spec, Assistant authority and Errors; RFC 9449 §4.3, §7.1, §11.1), written blind: an htu
// check that compares against the request URL with its query, a replay store that records only unsafe methods, and an
// `ath` check that runs only when the claim is present. The proxy cannot sign with the client's proof key, so the
// leniencies re-issue the credential: the same access token claims bound (`cnf.jkt`) to a key of the proxy's own, re-signed
// with the profile's key, and a proof with the client's claims signed with that key. Everything the lax server still checks
// (the token's signature, the proof's signature and key binding, htm, htu, nonce, iat) is either checked here first or
// carried over for upstream to judge.
import { randomUUID } from 'node:crypto';
import { calculateJwkThumbprint, compactVerify, createLocalJWKSet, importJWK, type JWK } from 'jose';
import { createDpopKey, type DpopKey } from '../../../lib/dpop.js';
import { accessTokenHash, signDraft } from '../../../lib/jws.js';
import { publicJwks } from '../../../lib/mint.js';
import type { ProxyAnswer, ProxyRequest } from '../../proxy.js';
import { headerOf, jsonSegment, mapHeader, problemAnswer, usesDpop, type Claims } from '../helpers.js';
import { lenient, wireWith, type Defect, type DefectContext } from '../types.js';

interface Jws {
  readonly header: Claims;
  readonly claims: Claims;
}

/** A compact JWS decoded (unverified). */
function decoded(value: string | undefined): Jws | undefined {
  const m = /^([\w-]+)\.([\w-]+)\.([\w-]+)$/.exec(value ?? '');
  const header = m && jsonSegment(m[1]!);
  const claims = m && jsonSegment(m[2]!);
  return header && claims ? { header, claims } : undefined;
}

const dpopToken = (r: ProxyRequest): string | undefined => /^DPoP\s+(\S+)$/i.exec(headerOf(r.headers, 'authorization') ?? '')?.[1];
const proofOf = (r: ProxyRequest): Jws | undefined => decoded(headerOf(r.headers, 'dpop'));

/** A signed-out proxy token (HS256, keyed with the proxy secret); every other token is the issuer's (ES256, its key set). */
const signedOut = (header: Claims): boolean => header.alg === 'HS256';

/** The token verifies with the key of its kind (its claims, expiry included, stay upstream's to judge). */
async function tokenVerifies(token: string, header: Claims, ctx: DefectContext): Promise<boolean> {
  const secret = ctx.profile.secrets.proxyIdpSecret;
  try {
    if (!signedOut(header)) await compactVerify(token, createLocalJWKSet(publicJwks(ctx.profile)));
    else if (secret) await compactVerify(token, new TextEncoder().encode(secret));
    else return false;
    return true;
  } catch {
    return false;
  }
}

/** The token's claims bound to `jkt` and signed again as its kind is (the profile's first key, or the proxy secret). */
async function rebound(token: Jws, jkt: string, ctx: DefectContext): Promise<string> {
  const payload = { ...token.claims, cnf: { ...(token.claims.cnf as Claims), jkt } };
  const secret = ctx.profile.secrets.proxyIdpSecret;
  if (signedOut(token.header) && secret) return signDraft({ header: token.header, payload }, secret);
  return ctx.mint.sign({ header: { ...token.header, kid: ctx.profile.signingKeys[0]!.kid }, payload });
}

/** The proof's signature verifies with its own `jwk`, and that key is the one the token is bound to (`cnf.jkt`). */
async function proofBound(proof: string, p: Jws, token: Jws): Promise<boolean> {
  const jwk = p.header.jwk as JWK | undefined;
  const jkt = (token.claims.cnf as { jkt?: unknown } | undefined)?.jkt;
  if (!jwk || typeof jwk !== 'object' || typeof jkt !== 'string') return false;
  try {
    await compactVerify(proof, await importJWK(jwk, 'ES256'));
    return (await calculateJwkThumbprint(jwk, 'sha256')) === jkt;
  } catch {
    return false;
  }
}

/** How the lax server sees a genuine proof: what the re-issued proof changes (`ath` added when absent, a fresh `jti`). */
interface Reissue {
  readonly addAth: boolean;
  readonly freshJti: boolean;
}

/**
 * The request re-issued with the proxy's key: the token's claims bound to it, the proof's claims signed with it. Only a
 * genuine token and a genuine, bound proof are re-issued, and its `ath` only when it is absent (with `addAth`) or right;
 * anything else goes on as it came, for upstream to refuse.
 */
async function reissued(req: ProxyRequest, ctx: DefectContext, own: DpopKey, o: Reissue): Promise<ProxyRequest> {
  const raw = dpopToken(req);
  const token = decoded(raw);
  const proofs = req.headers.filter(([k]) => k.toLowerCase() === 'dpop').map(([, v]) => v);
  const p = proofOf(req);
  if (!raw || !token || proofs.length !== 1 || !p) return req;
  if (p.claims.ath === undefined ? !o.addAth : p.claims.ath !== accessTokenHash(raw)) return req;
  if (!(await tokenVerifies(raw, token.header, ctx)) || !(await proofBound(proofs[0]!, p, token))) return req;
  const access = await rebound(token, own.thumbprint, ctx);
  const claims = { ...p.claims, ath: accessTokenHash(access), ...(o.freshJti ? { jti: randomUUID() } : {}) };
  const proof = await signDraft({ header: { ...p.header, jwk: own.publicJwk }, payload: claims }, own.privateKey);
  const headers = mapHeader(
    mapHeader(req.headers, 'authorization', () => `DPoP ${access}`),
    'dpop',
    () => proof,
  );
  return { ...req, headers };
}

/** One key of the proxy's own per run of a defect, made on first use. */
const ownKey = (): (() => Promise<DpopKey>) => {
  let key: Promise<DpopKey> | undefined;
  return () => (key ??= createDpopKey());
};

/** The query of a URL or path, `?` included; empty when it has none. */
const queryOf = (url: string): string => {
  try {
    return new URL(url, 'http://x').search;
  } catch {
    return '';
  }
};

/** Answers the authenticate stage gives before or instead of a proof check, and decoding refusals: left as they are. */
const beforeProofCheck = (a: ProxyAnswer): boolean => a.status === 401 || a.status === 400 || a.status === 413 || a.status >= 500;

export const REACH_PROOFS_DEFECTS: readonly Defect[] = [
  // "session tokens use `DPoP` with a proof" (RFC 9449 §4.3: htu is matched "ignoring any query and fragment parts").
  // Broken: htu is compared with the request URL query included, so a correct proof for a request with a query (whose htu,
  // as RFC 9449 §4.2 has it, carries none) is refused.
  wireWith(
    'reach.proofs.htu-compared-with-query',
    'AUTH-ASST-1',
    'a correct DPoP proof for a request with a query string is refused 401 invalid_dpop_proof unless its htu repeats the query',
    (ctx) => (a, r) => {
      const htu = proofOf(r)?.claims.htu;
      if (!usesDpop(r) || typeof htu !== 'string' || beforeProofCheck(a)) return a;
      if (queryOf(r.path) === '' || queryOf(htu) === queryOf(r.path)) return a;
      return problemAnswer(ctx, a, 401, 'invalid_dpop_proof', 'Unauthorized', [
        ['WWW-Authenticate', 'DPoP error="invalid_dpop_proof", algs="ES256"'],
      ]);
    },
  ),
  // "an accepted proof `jti` is recorded in shared storage, so every instance refuses it". Broken: only proofs of unsafe
  // methods are recorded (GET is taken as harmless to repeat), so a proof accepted on a GET is accepted again.
  lenient(
    'reach.proofs.replay-accepted-on-get',
    'AUTH-ASST-11',
    'a DPoP proof already accepted on a GET request is accepted again when replayed on a GET',
    (ctx) => {
      const key = ownKey();
      const accepted = new Set<string>();
      const seen = (r: ProxyRequest): string | undefined => {
        const p = proofOf(r);
        const jwk = p?.header.jwk as { x?: unknown; y?: unknown } | undefined;
        return p && jwk && typeof p.claims.jti === 'string' ? `${String(jwk.x)}.${String(jwk.y)}.${p.claims.jti}` : undefined;
      };
      const safe = (r: ProxyRequest) => r.method === 'GET' || r.method === 'HEAD';
      return {
        async request(req: ProxyRequest): Promise<ProxyRequest> {
          const id = seen(req);
          if (!usesDpop(req) || !safe(req) || id === undefined || !accepted.has(id)) return req;
          return reissued(req, ctx, await key(), { addAth: false, freshJti: true });
        },
        response(a: ProxyAnswer, r: ProxyRequest): ProxyAnswer {
          const id = seen(r);
          if (usesDpop(r) && safe(r) && id !== undefined && a.status < 400) accepted.add(id);
          return a;
        },
      };
    },
  ),
  // "| DPoP proof or nonce failure | 401 | `invalid_dpop_proof` or `use_dpop_nonce` |" (RFC 9449 §7.1: with an access
  // token, the proof's `ath` must hash it). Broken: `ath` is compared only when present, so a proof without it is taken.
  lenient(
    'reach.proofs.ath-checked-only-when-present',
    'ERR-TABLE-4',
    'a DPoP proof without ath, sent with an access token, is accepted (a wrong ath is still refused)',
    (ctx) => {
      const key = ownKey();
      return {
        async request(req: ProxyRequest): Promise<ProxyRequest> {
          if (!usesDpop(req) || proofOf(req)?.claims.ath !== undefined) return req;
          return reissued(req, ctx, await key(), { addAth: true, freshJti: false });
        },
      };
    },
  ),
];
