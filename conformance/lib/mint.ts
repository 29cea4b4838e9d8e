// The suite's identity provider: mints the access tokens of every caller kind exactly as docs/tokens.md fixes them, signed
// with the profile's first signing key. Drafts (unsigned header + payload) are exposed too, so that negative checks can alter
// a well-formed token and sign it with a key of their choice (signWith) or none at all (unsecured).
import { relocate } from './credential-formats.js';
import { randomUUID, createHash, createPublicKey, type JsonWebKey } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JSONWebKeySet, type JWK } from 'jose';
import type { CallerKind } from '../../contract/callers.js';
import type { Profile, SigningKey } from '../../contract/profile.js';
import { AGENT_FORWARD_SCOPE, BASE_API_SCOPES, OPERATOR_SCOPES, PERMISSION_API_SCOPES } from '../../contract/scopes.js';
import { artifactFormat } from './credential-formats.js';
import { accessTokenHash, applyOverrides, epochSeconds, signDraft, type JsonObject, type TokenDraft } from './jws.js';

export { signWith, unsecured, accessTokenHash, type SigningMaterial, type TokenDraft } from './jws.js';

/** Every API scope a signed-in customer can hold: the base scopes plus those each account permission unlocks. */
export const CUSTOMER_SCOPES: readonly string[] = [...new Set([...BASE_API_SCOPES, ...Object.values(PERMISSION_API_SCOPES).flat()])];

/** Default `scope` per kind of token (docs/tokens.md; machine tokens of other clients get the base scopes). */
export const DEFAULT_SCOPES = {
  customer: CUSTOMER_SCOPES.join(' '),
  delegated: CUSTOMER_SCOPES.join(' '),
  assistant: CUSTOMER_SCOPES.join(' '),
  guest: BASE_API_SCOPES.join(' '),
  operator: OPERATOR_SCOPES.join(' '),
  forwarder: AGENT_FORWARD_SCOPE,
  machine: BASE_API_SCOPES.join(' '),
} as const;

/**
 * A kind's default `scope` with more scopes added, space-delimited: the scopes a target declares an operation needs (its
 * OpenAPI security requirements), which the spec does not show for every operation (the checkout reads, /v1/ops/*).
 */
export function scopeWith(kind: keyof typeof DEFAULT_SCOPES, extra: readonly string[] = []): string {
  return [...new Set([...DEFAULT_SCOPES[kind].split(' '), ...extra])].join(' ');
}

/** The `act.sub` of assistant tokens (docs/tokens.md: single-level `personal_agent` token exchange). */
export const PERSONAL_AGENT_ACTOR = 'personal_agent';

export type Audience = 'api' | 'agent';

/** The audience each caller kind's tokens use when the profile declares none (docs/tokens.md). */
export const DEFAULT_AUDIENCES: Readonly<Record<CallerKind, readonly Audience[]>> = {
  customer: ['api'],
  delegated: ['agent'],
  guest: ['api'],
  'invited-agent': ['api'],
  operator: ['api'],
  assistant: ['api'],
};

/**
 * The audience to mint a caller kind's token with: the first the profile declares for it, or `prefer` (a check's own
 * choice, such as the OpenAPI channel of a delegated caller) when the profile declares none or declares it too.
 */
export function audienceOf(profile: Profile, kind: CallerKind, prefer?: Audience): Audience {
  const declared = profile.audiences.callers?.[kind];
  if (declared) return prefer !== undefined && declared.includes(prefer) ? prefer : declared[0]!;
  return prefer ?? DEFAULT_AUDIENCES[kind][0]!;
}

export interface TokenOptions {
  /** Space-delimited string or list; replaces the kind's default. */
  scope?: string | readonly string[];
  /** Which profile audience goes in `aud`; defaults to the caller kind's (audienceOf: `audiences.callers`, else docs/tokens.md). */
  audience?: Audience;
  /** Lifetime in seconds (default 300); negative values mint expired tokens. */
  expiresIn?: number;
  /** Claim overrides merged last; `undefined` deletes the claim. */
  claims?: JsonObject;
  /** Header overrides merged last; `undefined` deletes the member. */
  header?: JsonObject;
}

export interface UserTokenOptions extends TokenOptions {
  sub: string;
}

export interface DelegatedOptions extends UserTokenOptions {
  /**
   * `mcp` mints for the agent audience, `openapi` for the API audience (docs/tokens.md, reference's choice); absent, the
   * kind's audience (the profile's `audiences.callers.delegated`, else the agent audience).
   */
  channel?: 'mcp' | 'openapi';
  /** Subjects of the actors nested under the outermost `act` (which is always the agent-protocol client), outermost first. */
  actChain?: readonly string[];
}

export interface AssistantOptions extends UserTokenOptions {
  /** RFC 7638 thumbprint of the assistant's DPoP key: `cnf.jkt`. */
  jkt: string;
  /** Assistant session id. */
  sid: string;
}

export interface InvitedAgentContextOptions {
  sub: string;
  agentId: string;
  permissions: readonly string[];
  /** The forwarder access token the context travels with; `ath` binds the context to it. */
  forwarderToken: string;
  /** The admission snapshot time (epoch seconds or a Date); defaults to now. */
  admittedAt?: number | Date;
  expiresIn?: number;
  claims?: JsonObject;
  header?: JsonObject;
  /** HMAC key; defaults to the profile's `webSessionContextKey` (a different one forges the context). */
  key?: string | Uint8Array;
}

export interface Drafts {
  customer(opts: UserTokenOptions): TokenDraft;
  delegated(opts: DelegatedOptions): TokenDraft;
  guest(opts?: TokenOptions): TokenDraft;
  operator(opts?: TokenOptions): TokenDraft;
  invitedAgentForwarder(opts?: TokenOptions): TokenDraft;
  invitedAgentContext(opts: InvitedAgentContextOptions): TokenDraft;
  assistant(opts: AssistantOptions): TokenDraft;
  mcpAgentForwarder(opts?: TokenOptions): TokenDraft;
  machine(clientId: string, opts?: TokenOptions): TokenDraft;
}

export interface Minter {
  readonly profile: Profile;
  /** Unsigned tokens of each kind, for negative checks to alter. */
  readonly draft: Drafts;
  /** Signs an access-token draft with the profile's first signing key. */
  sign(draft: TokenDraft): Promise<string>;
  customer(opts: UserTokenOptions): Promise<string>;
  delegated(opts: DelegatedOptions): Promise<string>;
  guest(opts?: TokenOptions): Promise<string>;
  operator(opts?: TokenOptions): Promise<string>;
  invitedAgentForwarder(opts?: TokenOptions): Promise<string>;
  /** HS256 `invited-agent+jwt` signed with the UTF-8 bytes of `webSessionContextKey` (or `opts.key`). */
  invitedAgentContext(opts: InvitedAgentContextOptions): Promise<string>;
  assistant(opts: AssistantOptions): Promise<string>;
  mcpAgentForwarder(opts?: TokenOptions): Promise<string>;
  /** A client-credentials token of any client id: `sub` = `<clientId>@clients`. */
  machine(clientId: string, opts?: TokenOptions): Promise<string>;
}

const DEFAULT_LIFETIME_SECONDS = 300;

export function createMinter(profile: Profile, opts: { now?: () => Date } = {}): Minter {
  const now = opts.now ?? (() => new Date());
  const signingKey = firstSigningKey(profile);
  let privateKey: Promise<CryptoKey> | undefined;
  const loadKey = () => (privateKey ??= importPrivateKey(signingKey));
  const machineSub = (clientId: string) => `${clientId}@clients`;

  // docs/tokens.md, "Access tokens (all kinds)": the header and the claims every kind shares.
  function accessDraft(
    kind: CallerKind | null,
    clientId: string,
    sub: string,
    defaultScope: string,
    o: TokenOptions,
    extra: JsonObject = {},
  ): TokenDraft {
    const iat = epochSeconds(now());
    const base: JsonObject = {
      iss: profile.issuer,
      aud: profile.audiences[o.audience ?? (kind ? audienceOf(profile, kind) : 'api')],
      sub,
      client_id: clientId,
      scope: joinScope(o.scope ?? defaultScope),
      iat,
      exp: iat + (o.expiresIn ?? DEFAULT_LIFETIME_SECONDS),
      jti: randomUUID(),
      ...extra,
    };
    return {
      header: applyOverrides({ alg: 'ES256', typ: 'at+jwt', kid: signingKey.kid }, o.header),
      payload: applyOverrides(base, o.claims),
    };
  }

  const { clients } = profile;
  const draft: Drafts = {
    customer: (o) => accessDraft('customer', clients.website, o.sub, DEFAULT_SCOPES.customer, o),
    // The outermost `act.sub` equals `client_id` (spec, Caller kinds); the channel is chosen by the audience.
    delegated: (o) =>
      accessDraft(
        'delegated',
        clients.agentProtocol,
        o.sub,
        DEFAULT_SCOPES.delegated,
        { ...(o.channel ? { audience: o.channel === 'openapi' ? 'api' : 'agent' } : {}), ...o },
        {
          act: nestActors([clients.agentProtocol, ...(o.actChain ?? [])]),
        },
      ),
    guest: (o = {}) => accessDraft('guest', clients.storefront, machineSub(clients.storefront), DEFAULT_SCOPES.guest, o),
    operator: (o = {}) => accessDraft('operator', clients.backoffice, machineSub(clients.backoffice), DEFAULT_SCOPES.operator, o),
    invitedAgentForwarder: (o = {}) =>
      accessDraft('invited-agent', clients.webAgentForwarder, machineSub(clients.webAgentForwarder), DEFAULT_SCOPES.forwarder, o),
    mcpAgentForwarder: (o = {}) =>
      accessDraft('assistant', clients.mcpAgentForwarder, machineSub(clients.mcpAgentForwarder), DEFAULT_SCOPES.forwarder, o),
    // The session id's claim is a convention (docs/assistants.md): a deployment that names it otherwise declares where.
    assistant: (o) => {
      const d = accessDraft('assistant', clients.personalAgentProxy, o.sub, DEFAULT_SCOPES.assistant, o, {
        act: { sub: PERSONAL_AGENT_ACTOR },
        cnf: { jkt: o.jkt },
        sid: o.sid,
      });
      return { ...d, payload: relocate(d.payload, profile.conventions?.credentials?.assistantToken?.claims) };
    },
    machine: (clientId, o = {}) => accessDraft(null, clientId, machineSub(clientId), DEFAULT_SCOPES.machine, o),
    // docs/tokens.md, "Invited-agent context": no iss/aud; bound to the forwarder's bearer by `ath`.
    invitedAgentContext: (o) => {
      const iat = epochSeconds(now());
      const admittedAt = o.admittedAt instanceof Date ? epochSeconds(o.admittedAt) : (o.admittedAt ?? iat);
      const base: JsonObject = {
        sub: o.sub,
        agent_id: o.agentId,
        permissions: [...o.permissions],
        admitted_at: admittedAt,
        iat,
        exp: iat + (o.expiresIn ?? DEFAULT_LIFETIME_SECONDS),
        jti: randomUUID(),
        ath: accessTokenHash(o.forwarderToken),
      };
      // The reference's claims, placed as the deployment takes them (profile conventions.credentials).
      const format = artifactFormat(profile.conventions, 'invitedAgentContext');
      return {
        header: applyOverrides({ alg: 'HS256', typ: format.typ }, o.header),
        payload: format.place(applyOverrides(base, o.claims)),
      };
    },
  };

  const sign = async (d: TokenDraft) => signDraft(d, await loadKey());
  return {
    profile,
    draft,
    sign,
    customer: (o) => sign(draft.customer(o)),
    delegated: (o) => sign(draft.delegated(o)),
    guest: (o) => sign(draft.guest(o)),
    operator: (o) => sign(draft.operator(o)),
    invitedAgentForwarder: (o) => sign(draft.invitedAgentForwarder(o)),
    invitedAgentContext: (o) => signDraft(draft.invitedAgentContext(o), o.key ?? profile.secrets.webSessionContextKey),
    assistant: (o) => sign(draft.assistant(o)),
    mcpAgentForwarder: (o) => sign(draft.mcpAgentForwarder(o)),
    machine: (clientId, o) => sign(draft.machine(clientId, o)),
  };
}

/** The issuer's public key set: the profile's signing keys without their private part `d`. */
/** Where the suite's identity provider (`shop-conformance idp`) takes requests to simulate a key-set outage. */
export const OUTAGE_PATH = '/outage';

/**
 * The bearer token that controls the suite's identity provider: derived from the profile's private signing key, so only
 * who holds the profile can take its key set down.
 */
export function idpControlToken(profile: Profile): string {
  const key = firstSigningKey(profile);
  return createHash('sha256')
    .update(`shop-conformance idp control\n${key.kid ?? ''}\n${String(key.d)}`)
    .digest('base64url');
}

export function publicJwks(profile: Profile): JSONWebKeySet {
  return { keys: profile.signingKeys.map(publicJwk) };
}

/**
 * The bytes a confused verifier would use as an HMAC secret if it let the token's `alg: HS256` pick the algorithm with the
 * issuer's public key (the classic RS/HS confusion): the public JWK as JSON, or the SPKI PEM.
 */
export function publicKeyAsSecret(profile: Profile, form: 'jwk' | 'pem' = 'jwk'): Uint8Array {
  const jwk = publicJwk(firstSigningKey(profile));
  if (form === 'jwk') return new TextEncoder().encode(JSON.stringify(jwk));
  const pem = createPublicKey({ key: jwk as JsonWebKey, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
  return new TextEncoder().encode(pem.toString());
}

/** A fresh ES256 key the server does not trust, for "signed by an unknown key" checks (reuse the profile's kid to be nasty). */
export async function createForeignKey(): Promise<{ privateKey: CryptoKey; publicJwk: JWK }> {
  const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
  return { privateKey, publicJwk: await exportJWK(publicKey) };
}

function publicJwk({ d: _private, ...pub }: SigningKey): JWK {
  return pub;
}

function firstSigningKey(profile: Profile): SigningKey {
  const key = profile.signingKeys[0];
  if (!key) throw new TypeError('the profile has no signing key');
  return key;
}

async function importPrivateKey(key: SigningKey): Promise<CryptoKey> {
  // Only a profile made for the suite carries `d`; a deployment's copy of the profile need not.
  if (!key.d) throw new TypeError(`signing key ${key.kid} has no private part "d": the suite cannot mint with it`);
  const imported = await importJWK(key, 'ES256');
  if (imported instanceof Uint8Array) throw new TypeError('an ES256 JWK imported as a secret');
  return imported;
}

function joinScope(scope: string | readonly string[]): string {
  return typeof scope === 'string' ? scope : scope.join(' ');
}

/** ['a', 'b'] -> { sub: 'a', act: { sub: 'b' } } (RFC 8693 §4.1: the outermost actor is the current one). */
function nestActors(subjects: readonly string[]): JsonObject | undefined {
  const [sub, ...rest] = subjects;
  if (sub === undefined) return undefined;
  const inner = nestActors(rest);
  return inner ? { sub, act: inner } : { sub };
}
