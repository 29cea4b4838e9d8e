// Assistant agents as the suite drives them (spec, Assistant authority; Credentials per consumer; RFC 9449): a fresh
// assistant session registered through the identity-provider proxy's internal routes (docs/internal-routes.md), a DPoP key,
// a DPoP-bound access token from the suite's identity provider, and requests that carry a proof per request: `htu` is the
// base URL plus the path (no query, no fragment), `ath` hashes the token, and a `use_dpop_nonce` answer with a `DPoP-Nonce`
// header is retried once with that nonce. Every answer's `DPoP-Nonce` is kept for the next proof, as clients do.
//
// Checks never share a session: each provisions its own (fresh session id, agent id and, by default, a fresh account
// subject), so workers and reruns agree.
//
// Sessions and the credentials beside their tokens: ./assistant-session.ts (re-exported here, the one import of a check).
import type { ShopResponse } from '../../engine/transport/http.js';
import type { Shop } from '../../engine/runner/check.js';
import { createDpopKey, dpopProof, type DpopKey, type DpopProofOptions } from '../../lib/dpop.js';
import type { Audience } from '../../lib/mint.js';
import { errorOf } from '../../lib/expect/dpop.js';
import { provisionAssistantSession, signedOutProxyToken, type AssistantIdentity, type ProvisionOptions } from './assistant-session.js';

export * from './assistant-session.js';

// ------------------------------------------------------------------------------------------------------------ requests

/** Proof overrides of one request: header and claim overrides (`undefined` deletes), or any other proof option. */
export type ProofOverrides = Partial<Omit<DpopProofOptions, 'htm' | 'htu' | 'accessToken' | 'nonce'>> & {
  htm?: string;
  htu?: string;
  /** The token whose hash becomes `ath` (defaults to the request's token). */
  athToken?: string;
  /** `null` sends no nonce even when one is known. */
  nonce?: string | null;
};

export interface AssistantRequestOptions {
  method: string;
  /** Path relative to the base URL, query included (`htu` leaves the query out). */
  path: string;
  json?: unknown;
  body?: string;
  headers?: Record<string, string | undefined>;
  /** The access token; sent as `Authorization: <scheme> <token>`. */
  token: string;
  key: DpopKey;
  /** The server nonce to put in the proof (the last DPoP-Nonce seen). */
  nonce?: string;
  /** Authorization scheme, `DPoP` by default (`Bearer` for the downgrade negatives). */
  scheme?: string;
  /** Alter the proof (negative checks); `false` sends no DPoP header at all. */
  proof?: ProofOverrides | false;
  /** Retry once on 401 use_dpop_nonce with the DPoP-Nonce of the answer (default true). */
  retryOnNonce?: boolean;
}

export interface AssistantResult {
  /** The final answer (after the nonce retry, when there was one). */
  res: ShopResponse;
  /** The first answer when it asked for a nonce and the request was retried. */
  nonceChallenge?: ShopResponse;
  /** The proof of the final request (to replay it). */
  proof: string | undefined;
  /** The DPoP-Nonce of the final answer, else the one the request was sent with. */
  nonce: string | undefined;
}

/** The `htu` of a request: base URL plus path, without query and fragment (RFC 9449 §4.2). */
export function htuOf(shop: Shop, path: string): string {
  const url = new URL(shop.http.url(path));
  return `${url.origin}${url.pathname}`;
}

export function asksForNonce(res: ShopResponse): boolean {
  return res.status === 401 && errorOf(res) === 'use_dpop_nonce' && Boolean(res.headers.get('dpop-nonce'));
}

async function buildProof(shop: Shop, o: AssistantRequestOptions, nonce: string | undefined): Promise<string | undefined> {
  if (o.proof === false) return undefined;
  const { athToken, nonce: nonceOverride, htm, htu, ...rest } = o.proof ?? {};
  const proofNonce = nonceOverride === null ? undefined : (nonceOverride ?? nonce);
  return dpopProof({
    key: o.key,
    htm: htm ?? o.method.toUpperCase(),
    htu: htu ?? htuOf(shop, o.path),
    accessToken: athToken ?? o.token,
    ...(proofNonce !== undefined ? { nonce: proofNonce } : {}),
    ...rest,
  });
}

async function sendOnce(shop: Shop, o: AssistantRequestOptions, proof: string | undefined): Promise<ShopResponse> {
  const headers: Record<string, string | undefined> = {
    authorization: `${o.scheme ?? 'DPoP'} ${o.token}`,
    ...(proof !== undefined ? { dpop: proof } : {}),
    ...o.headers,
  };
  return shop.http.request(o.method.toUpperCase(), o.path, {
    headers,
    ...(o.json !== undefined ? { json: o.json } : {}),
    ...(o.body !== undefined ? { body: o.body } : {}),
  });
}

/**
 * One assistant request as RFC 9449 §7 has it: `Authorization: DPoP <token>` and a fresh proof. When the server answers
 * 401 `use_dpop_nonce` with a `DPoP-Nonce` header, the request is sent once more with a new proof carrying that nonce.
 */
export async function assistantRequest(shop: Shop, o: AssistantRequestOptions): Promise<AssistantResult> {
  const proof = await buildProof(shop, o, o.nonce);
  const res = await sendOnce(shop, o, proof);
  const nonce = res.headers.get('dpop-nonce') ?? o.nonce;
  const pinnedNonce = o.proof !== false && o.proof?.nonce !== undefined;
  if ((o.retryOnNonce ?? true) && !pinnedNonce && o.proof !== false && asksForNonce(res)) {
    const retryProof = await buildProof(shop, o, res.headers.get('dpop-nonce')!);
    const retried = await sendOnce(shop, o, retryProof);
    return { res: retried, nonceChallenge: res, proof: retryProof, nonce: retried.headers.get('dpop-nonce') ?? nonce };
  }
  return { res, proof, nonce: nonce ?? undefined };
}

export interface AssistantAgentOptions extends ProvisionOptions {
  /** API scopes of the token (space-delimited or a list); defaults to every scope a customer can hold. */
  scope?: string | readonly string[];
  audience?: Audience;
  /** The DPoP key; a fresh ES256 key by default. */
  key?: DpopKey;
  /** Present a signed-out proxy token (no account) instead of a signed-in personal_agent token. */
  signedOutToken?: boolean;
}

/**
 * A provisioned assistant: its session, DPoP key and bound token, with the last server nonce. `request` sends a correct
 * proof unless told otherwise and keeps the nonce of every answer.
 */
export class AssistantAgent {
  nonce: string | undefined;

  private constructor(
    readonly shop: Shop,
    readonly identity: AssistantIdentity,
    readonly key: DpopKey,
    public token: string,
  ) {}

  /** A fresh session (signed in to a fresh account unless said otherwise), a fresh key and a token bound to it. */
  static async create(shop: Shop, o: AssistantAgentOptions = {}): Promise<AssistantAgent> {
    const identity = await provisionAssistantSession(shop, o);
    const key = o.key ?? (await createDpopKey());
    // A signed-out session has no account: its signed-in token names the subject it would have had.
    const sub = identity.sub ?? o.sub ?? shop.subject('asst');
    const scoped = { ...(o.scope !== undefined ? { scope: o.scope } : {}), ...(o.audience ? { audience: o.audience } : {}) };
    const token = o.signedOutToken
      ? await signedOutProxyToken(shop, { sid: identity.sessionId, jkt: key.thumbprint, ...scoped })
      : await shop.mint.assistant({ sub, jkt: key.thumbprint, sid: identity.sessionId, ...scoped });
    return new AssistantAgent(shop, identity, key, token);
  }

  /** The account subject the agent acts for (the token's `sub`). */
  get sub(): string {
    const payload = JSON.parse(Buffer.from(this.token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub?: unknown };
    return String(payload.sub);
  }

  /** Another token for the same session and key (other scopes, audience, claims). */
  async mintToken(
    o: {
      scope?: string | readonly string[];
      audience?: Audience;
      claims?: Record<string, unknown>;
      header?: Record<string, unknown>;
      jkt?: string;
      sub?: string;
      expiresIn?: number;
    } = {},
  ): Promise<string> {
    return this.shop.mint.assistant({
      sub: o.sub ?? this.sub,
      jkt: o.jkt ?? this.key.thumbprint,
      sid: this.identity.sessionId,
      ...(o.scope !== undefined ? { scope: o.scope } : {}),
      ...(o.audience ? { audience: o.audience } : {}),
      ...(o.claims ? { claims: o.claims } : {}),
      ...(o.header ? { header: o.header } : {}),
      ...(o.expiresIn !== undefined ? { expiresIn: o.expiresIn } : {}),
    });
  }

  async request(method: string, path: string, o: Partial<Omit<AssistantRequestOptions, 'method' | 'path'>> = {}): Promise<AssistantResult> {
    const result = await assistantRequest(this.shop, {
      method,
      path,
      token: this.token,
      key: this.key,
      ...(this.nonce !== undefined ? { nonce: this.nonce } : {}),
      ...o,
    });
    if (result.res.headers.get('dpop-nonce')) this.nonce = result.res.headers.get('dpop-nonce')!;
    return result;
  }

  get = (path: string, o?: Partial<Omit<AssistantRequestOptions, 'method' | 'path'>>) => this.request('GET', path, o);
  post = (path: string, o?: Partial<Omit<AssistantRequestOptions, 'method' | 'path'>>) => this.request('POST', path, o);
  patch = (path: string, o?: Partial<Omit<AssistantRequestOptions, 'method' | 'path'>>) => this.request('PATCH', path, o);
  delete = (path: string, o?: Partial<Omit<AssistantRequestOptions, 'method' | 'path'>>) => this.request('DELETE', path, o);

  /** A correct proof for `method` `path` with the current nonce (to send it twice, or by another channel). */
  async proof(method: string, path: string, overrides: ProofOverrides = {}): Promise<string> {
    return (await buildProof(this.shop, { method, path, token: this.token, key: this.key, proof: overrides }, this.nonce))!;
  }
}

// --------------------------------------------------------------------------------------------- raw header field lines

/**
 * A request whose header fields are sent exactly as listed, repeated names included (a Headers object would join them into
 * one line): for the "two DPoP header fields" negative. Recorded in the transcript like every other exchange.
 */
export async function rawRequest(
  shop: Shop,
  method: string,
  path: string,
  fields: readonly (readonly [string, string])[],
  body?: string,
): Promise<ShopResponse> {
  const typed = fields.some(([name]) => name.toLowerCase() === 'content-type');
  const rawHeaders = body !== undefined && !typed ? [...fields, ['content-type', 'application/json'] as const] : fields;
  return shop.http.request(method, path, { rawHeaders, ...(body !== undefined ? { body } : {}) });
}
