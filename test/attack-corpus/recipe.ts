// The attack corpus's interpreter: turns one data row of test/attack-corpus/*.json (a request recipe) into the bytes sent
// on a raw socket, with credentials minted from the fixture profile (conformance/lib), and judges the answer against the
// row's expected one. Every answer is also held to the spec's invariants: exactly one answer per request, X-Request-Id,
// and for a failure the problem document (spec, Errors), at most PROBLEM_MAX_BYTES long.
import { randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { createDpopKey, dpopProof, type DpopKey } from '../../conformance/lib/dpop.js';
import { forgeGuestSession, newGuestSession, signGuestSession, type GuestSessionForgery } from '../../conformance/lib/guest-session.js';
import { signWith, type JsonObject, type TokenDraft } from '../../conformance/lib/jws.js';
import { createForeignKey, createMinter, publicKeyAsSecret, unsecured, type Minter } from '../../conformance/lib/mint.js';
import { alterOneByte, ignoredEvent, signPayload } from '../../conformance/lib/stripe-signature.js';
import type { Profile } from '../../contract/profile.js';
import { exchange, serialize, type Framing, type RawAnswer } from '../../scripts/fuzz/raw-http.js';

/** The bound on a problem document's size (headers excluded): a few KiB whatever the request held. */
export const PROBLEM_MAX_BYTES = 8192;

export interface AttackCase {
  id: string;
  description: string;
  request: RequestRecipe;
  expect: Expectation;
}

export interface RequestRecipe {
  method: string;
  path: string;
  credential?: CredentialRecipe;
  /** Literal headers, in order; `{{name}}` in a value is replaced by a credential of that name (see placeholders). */
  headers?: [string, string][];
  body?: BodyRecipe;
  framing?: FramingRecipe;
}

export interface CredentialRecipe {
  token?: TokenRecipe;
  /** Authorization scheme written before the token (default Bearer, DPoP with `dpop`). */
  scheme?: string;
  guestSession?: 'new' | 'previous-key' | GuestSessionForgery | { literal: string };
  dpop?: DpopRecipe;
  stripeSignature?: SignatureRecipe;
}

export interface TokenRecipe {
  kind: 'customer' | 'delegated' | 'guest' | 'operator' | 'assistant' | 'web-forwarder' | 'mcp-forwarder' | 'machine';
  sub?: string;
  clientId?: string;
  scope?: string;
  audience?: 'api' | 'agent';
  channel?: 'mcp' | 'openapi';
  actChain?: string[];
  expiresIn?: number;
  /** Claim and header overrides; `null` deletes the member; `{"$now": n}` is now + n seconds. */
  claims?: JsonObject;
  header?: JsonObject;
  sign?: 'profile' | 'foreign' | 'foreign-same-kid' | 'none' | 'hs256-public-jwk' | 'hs256-public-pem' | 'hs256-guest-key';
  tamper?:
    | 'drop-signature'
    | 'flip-signature'
    | 'truncate-signature'
    | 'swap-payload'
    | 'extra-segment'
    | 'two-segments'
    | 'padding'
    | 'whitespace';
  literal?: string;
}

export interface DpopRecipe {
  /** The access token's `cnf.jkt`: of the proof's key (default) or of another key. */
  tokenJkt?: 'key' | 'other';
  /** The assistant session of the token is registered (default) or unknown to the service. */
  session?: 'registered' | 'unknown';
  htm?: string;
  /** `request` (default): the request's URL; or a literal URL ({{base}} is the server's origin). */
  htu?: string;
  ath?: 'token' | 'other' | 'none';
  nonce?: 'fresh' | 'none' | 'forged';
  iatOffset?: number;
  sign?: 'key' | 'foreign';
  exposePrivateKey?: boolean;
  header?: JsonObject;
  claims?: JsonObject;
  /** How many DPoP headers carry the proof (2: the same proof twice). */
  count?: number;
  /** The same proof is sent once before, and accepted; the judged request replays it. */
  replay?: boolean;
}

export interface SignatureRecipe {
  /** valid; stale (t 10 min ago); future; wrong-secret; altered (one body byte changed after signing); decoys; no-v1; literal. */
  kind: 'valid' | 'stale' | 'future' | 'wrong-secret' | 'altered' | 'decoys' | 'no-v1' | 'literal';
  literal?: string;
}

export interface BodyRecipe {
  json?: unknown;
  text?: string;
  /** A provider event the service ignores (accepted without effect). */
  event?: 'ignored';
  nested?: { kind: 'array' | 'object'; depth: number };
  wide?: { kind: 'array' | 'object'; count: number };
  /** Default application/json; null sends none. */
  contentType?: string | null;
  encoding?: 'gzip';
}

export interface FramingRecipe {
  /** Content-Length written in place of the body's length; with `sendBytes`, only that many body bytes are sent. */
  declaredLength?: number;
  sendBytes?: number;
  chunked?: 'chunked' | 'chunked-bytes' | 'chunked-odd';
  /** Bytes written after the request on the same connection (latin1). */
  trailing?: string;
  /** Leave out the Host header the runner adds. */
  noHost?: boolean;
  /** Leave out the Connection: close header the runner adds. */
  keepAlive?: boolean;
  version?: string;
}

export interface Expectation {
  status: number;
  error?: string;
  /** WWW-Authenticate, exactly; null: absent. */
  challenge?: string | null;
  /** Headers by lowercase name: exact value, true (present) or null (absent). */
  headers?: Record<string, string | true | null>;
  /**
   * The answer arrives within this many milliseconds although the body is not all sent (a declared length over the cap):
   * any answer proves the server did not wait for the body; this is how long the runner waits for one.
   */
  withinMs?: number;
}

export interface Verdict {
  ok: boolean;
  problems: string[];
  status?: number;
  summary: string;
}

/** What the runner shares between cases: the server's port, the minter, a DPoP key, and a way to register a session. */
export interface Bench {
  port: number;
  profile: Profile;
  minter: Minter;
  key: DpopKey;
  otherKey: DpopKey;
  foreign: Awaited<ReturnType<typeof createForeignKey>>;
  placeholders: Record<string, string>;
}

export async function prepareBench(port: number, profile: Profile): Promise<Bench> {
  const minter = createMinter(profile);
  const key = await createDpopKey();
  const otherKey = await createDpopKey();
  const foreign = await createForeignKey();
  const life = { expiresIn: 3600 };
  const web = await minter.invitedAgentForwarder(life);
  const sid = await registerSession(port, profile);
  const s = profile.secrets;
  const placeholders: Record<string, string> = {
    customer: await minter.customer({ sub: 'cust_ada', ...life }),
    delegated: await minter.delegated({ sub: 'cust_ada', channel: 'openapi', ...life }),
    guest: await minter.guest(life),
    operator: await minter.operator(life),
    webForwarder: web,
    mcpForwarder: await minter.mcpAgentForwarder(life),
    assistant: await minter.assistant({ sub: 'cust_ada', sid, jkt: key.thumbprint, ...life }),
    invitedContext: await minter.invitedAgentContext({
      sub: 'cust_ada',
      agentId: 'inv_corpus',
      permissions: ['assistant:read', 'assistant:write', 'checkout'],
      forwarderToken: web,
    }),
    guestSession: newGuestSession(s.guestSessionKey),
    proxySecret: s.proxyIdpSecret ?? '',
    hubSecret: s.conversationHubSecret ?? '',
    recoverySecret: s.accountRecoverySecret ?? '',
    idpActionSecret: s.idpActionSecret ?? '',
    webhookSecret: s.stripeWebhookSecret ?? '',
  };
  return { port, profile, minter, key, otherKey, foreign, placeholders };
}

/** Registers a live assistant session for `cust_ada` through the identity-provider proxy's internal route. */
async function registerSession(port: number, profile: Profile): Promise<string> {
  const sid = `sess_corpus_${randomUUID()}`;
  const res = await fetch(`http://127.0.0.1:${port}/internal/assistant/agents/connected`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-proxy-idp-secret': profile.secrets.proxyIdpSecret ?? '' },
    body: JSON.stringify({
      subject: 'cust_ada',
      agent_id: 'agent_corpus',
      client_id: 'agent-client',
      permissions: ['assistant:read', 'assistant:write', 'checkout'],
      session_id: sid,
    }),
  });
  await res.arrayBuffer();
  if (res.status >= 300) throw new Error(`cannot register an assistant session: ${res.status}`);
  return sid;
}

/** `{"$now": n}` anywhere in a value becomes now + n (epoch seconds); `null` members are deleted. */
function resolveClaims(o: JsonObject | undefined): JsonObject | undefined {
  if (!o) return undefined;
  const now = Math.floor(Date.now() / 1000);
  const walk = (v: unknown): unknown => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const rec = v as JsonObject;
      if (Object.keys(rec).length === 1 && typeof rec.$now === 'number') return now + rec.$now;
      return Object.fromEntries(Object.entries(rec).map(([k, x]) => [k, walk(x)]));
    }
    return Array.isArray(v) ? v.map(walk) : v;
  };
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, v === null ? undefined : walk(v)]));
}

async function mintToken(b: Bench, t: TokenRecipe, extra: { sid?: string; jkt?: string } = {}): Promise<string> {
  if (t.literal !== undefined) return t.literal;
  const o = {
    sub: t.sub ?? 'cust_ada',
    expiresIn: t.expiresIn ?? 3600,
    ...(t.scope !== undefined ? { scope: t.scope } : {}),
    ...(t.audience ? { audience: t.audience } : {}),
    claims: resolveClaims(t.claims),
    header: resolveClaims(t.header),
  };
  const d = b.minter.draft;
  let draft: TokenDraft;
  switch (t.kind) {
    case 'customer':
      draft = d.customer(o);
      break;
    case 'delegated':
      draft = d.delegated({ ...o, channel: t.channel ?? 'openapi', ...(t.actChain ? { actChain: t.actChain } : {}) });
      break;
    case 'guest':
      draft = d.guest(o);
      break;
    case 'operator':
      draft = d.operator(o);
      break;
    case 'web-forwarder':
      draft = d.invitedAgentForwarder(o);
      break;
    case 'mcp-forwarder':
      draft = d.mcpAgentForwarder(o);
      break;
    case 'machine':
      draft = d.machine(t.clientId ?? 'unknown-client', o);
      break;
    case 'assistant':
      draft = d.assistant({ ...o, sid: extra.sid ?? 'sess_unknown', jkt: extra.jkt ?? b.key.thumbprint });
      break;
  }
  let token: string;
  switch (t.sign ?? 'profile') {
    case 'profile':
      token = await b.minter.sign(draft);
      break;
    case 'foreign':
      token = await signWith(draft.payload, { ...draft.header, kid: 'foreign-key' }, b.foreign.privateKey);
      break;
    case 'foreign-same-kid':
      token = await signWith(draft.payload, draft.header, b.foreign.privateKey);
      break;
    case 'none':
      token = unsecured(draft.payload, { ...draft.header, alg: 'none' });
      break;
    case 'hs256-public-jwk':
      token = await signWith(draft.payload, { ...draft.header, alg: 'HS256' }, publicKeyAsSecret(b.profile, 'jwk'));
      break;
    case 'hs256-public-pem':
      token = await signWith(draft.payload, { ...draft.header, alg: 'HS256' }, publicKeyAsSecret(b.profile, 'pem'));
      break;
    case 'hs256-guest-key':
      token = await signWith(draft.payload, { ...draft.header, alg: 'HS256' }, b.profile.secrets.guestSessionKey);
      break;
  }
  return tamper(token, t.tamper);
}

function tamper(token: string, how: TokenRecipe['tamper']): string {
  const [h, p, s] = token.split('.') as [string, string, string];
  switch (how) {
    case undefined:
      return token;
    case 'drop-signature':
      return `${h}.${p}.`;
    case 'flip-signature':
      return `${h}.${p}.${s[0] === 'A' ? 'B' : 'A'}${s.slice(1)}`;
    case 'truncate-signature':
      return `${h}.${p}.${s.slice(0, 20)}`;
    case 'swap-payload': {
      const claims = JSON.parse(Buffer.from(p, 'base64url').toString('utf8')) as JsonObject;
      claims.sub = 'cust_bob';
      return `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
    }
    case 'extra-segment':
      return `${token}.AAAA`;
    case 'two-segments':
      return `${h}.${p}`;
    case 'padding':
      return `${h}==.${p}.${s}`;
    case 'whitespace':
      return `${h}. ${p}.${s}`;
  }
}

/** The request's body bytes, and the Content-Type it goes with. */
function bodyOf(r: BodyRecipe | undefined): { bytes: Buffer; contentType: string | null } {
  if (!r) return { bytes: Buffer.alloc(0), contentType: null };
  let text: string;
  if (r.nested) text = r.nested.kind === 'array' ? '['.repeat(r.nested.depth) + ']'.repeat(r.nested.depth) : nestedObject(r.nested.depth);
  else if (r.wide) text = r.wide.kind === 'array' ? `[${Array(r.wide.count).fill('0').join(',')}]` : wideObject(r.wide.count);
  else if (r.event) text = JSON.stringify(ignoredEvent());
  else if (r.text !== undefined) text = r.text;
  else text = JSON.stringify(r.json);
  const bytes = r.encoding === 'gzip' ? gzipSync(Buffer.from(text, 'utf8')) : Buffer.from(text, 'utf8');
  return { bytes, contentType: r.contentType === undefined ? 'application/json' : r.contentType };
}

const nestedObject = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);
const wideObject = (count: number) => `{${Array.from({ length: count }, (_, i) => `"m${i}":0`).join(',')}}`;

function fill(value: string, b: Bench): string {
  return value.replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    if (name === 'base') return `http://127.0.0.1:${b.port}`;
    if (name === 'long') return 'x'.repeat(300);
    const v = b.placeholders[name];
    if (v === undefined) throw new Error(`unknown placeholder {{${name}}}`);
    return v;
  });
}

async function freshNonce(url: string, token: string): Promise<string | undefined> {
  const res = await fetch(url, { headers: { authorization: `DPoP ${token}` } });
  await res.arrayBuffer();
  return res.headers.get('dpop-nonce') ?? undefined;
}

/** The request's bytes, and a request to send first (the accepted proof a replay case repeats). */
export async function buildRequest(b: Bench, r: RequestRecipe): Promise<{ bytes: Buffer; before?: Buffer; trailing?: Buffer }> {
  const base = `http://127.0.0.1:${b.port}`;
  const headers: [string, string][] = [];
  if (!r.framing?.noHost) headers.push(['Host', `127.0.0.1:${b.port}`]);
  const { bytes: body, contentType } = bodyOf(r.body);
  if (contentType !== null) headers.push(['Content-Type', contentType]);
  if (r.body?.encoding) headers.push(['Content-Encoding', r.body.encoding]);
  const c = r.credential ?? {};
  let beforeHeaders: [string, string][] | undefined;
  if (c.dpop) {
    const p = c.dpop;
    const sid = p.session === 'unknown' ? `sess_unknown_${randomUUID()}` : await registerSession(b.port, b.profile);
    const jkt = p.tokenJkt === 'other' ? b.otherKey.thumbprint : b.key.thumbprint;
    const token = await mintToken(b, c.token ?? { kind: 'assistant' }, { sid, jkt });
    const url = `${base}${r.path.split('?')[0]}`;
    const nonce = p.nonce === 'none' ? undefined : p.nonce === 'forged' ? 'forged-nonce-value' : await freshNonce(url, token);
    const proofFor = () =>
      dpopProof({
        key: b.key,
        htm: p.htm ?? r.method,
        htu: p.htu ? fill(p.htu, b) : url,
        ...(p.ath === 'none' ? {} : { accessToken: p.ath === 'other' ? `${token}x` : token }),
        ...(nonce ? { nonce } : {}),
        ...(p.iatOffset !== undefined ? { iat: Math.floor(Date.now() / 1000) + p.iatOffset } : {}),
        ...(p.sign === 'foreign' ? { signingKey: b.otherKey } : {}),
        ...(p.exposePrivateKey ? { exposePrivateKey: true } : {}),
        header: resolveClaims(p.header),
        claims: resolveClaims(p.claims),
      });
    const proof = await proofFor();
    const auth: [string, string] = ['Authorization', `${c.scheme ?? 'DPoP'} ${token}`];
    headers.push(auth);
    for (let i = 0; i < (p.count ?? 1); i++) headers.push(['DPoP', proof]);
    if (p.replay) beforeHeaders = [['Host', `127.0.0.1:${b.port}`], auth, ['DPoP', proof]];
  } else if (c.token) {
    headers.push(['Authorization', `${c.scheme ?? 'Bearer'} ${await mintToken(b, c.token)}`]);
  } else if (c.scheme !== undefined) {
    headers.push(['Authorization', fill(c.scheme, b)]);
  }
  if (c.guestSession) {
    const key = b.profile.secrets.guestSessionKey;
    const g = c.guestSession;
    const value =
      typeof g === 'object'
        ? g.literal
        : g === 'new'
          ? newGuestSession(key)
          : g === 'previous-key'
            ? signGuestSession(randomUUID(), b.profile.secrets.guestSessionKeyPrevious ?? key)
            : forgeGuestSession(g, key);
    headers.push(['Guest-Session', value]);
  }
  let sent = body;
  if (c.stripeSignature) {
    const secret = b.profile.secrets.stripeWebhookSecret ?? '';
    const payload = body.toString('latin1');
    const now = Math.floor(Date.now() / 1000);
    const s = c.stripeSignature;
    const value =
      s.kind === 'literal'
        ? fill(s.literal ?? '', b)
        : s.kind === 'stale'
          ? signPayload(payload, secret, { timestamp: now - 600 })
          : s.kind === 'future'
            ? signPayload(payload, secret, { timestamp: now + 600 })
            : s.kind === 'wrong-secret'
              ? signPayload(payload, 'whsec_not_the_secret')
              : s.kind === 'decoys'
                ? signPayload(payload, secret, { decoys: 3, decoysAfter: 2 })
                : s.kind === 'no-v1'
                  ? `t=${now}`
                  : signPayload(payload, secret);
    if (s.kind === 'altered') sent = Buffer.from(alterOneByte(payload), 'latin1');
    headers.push(['Stripe-Signature', value]);
  }
  for (const [k, v] of r.headers ?? []) headers.push([k, fill(v, b)]);
  if (!r.framing?.keepAlive) headers.push(['Connection', 'close']);
  const f = r.framing ?? {};
  let framing: Framing = sent.length > 0 ? 'length' : 'none';
  if (f.chunked) framing = f.chunked;
  if (f.declaredLength !== undefined) framing = 'declared';
  if (f.sendBytes !== undefined) sent = sent.subarray(0, f.sendBytes);
  const bytes = serialize({
    method: r.method,
    target: r.path,
    version: f.version ?? 'HTTP/1.1',
    headers,
    body: sent,
    framing,
    ...(f.declaredLength !== undefined ? { declaredLength: f.declaredLength } : {}),
  });
  return {
    bytes,
    ...(beforeHeaders
      ? {
          before: serialize({
            method: r.method,
            target: r.path,
            headers: [...beforeHeaders, ['Connection', 'close']],
            body: Buffer.alloc(0),
          }),
        }
      : {}),
    ...(f.trailing !== undefined ? { trailing: Buffer.from(f.trailing, 'latin1') } : {}),
  };
}

/** Sends one case and judges its answer. */
export async function runCase(b: Bench, c: AttackCase, timeoutMs = 4000): Promise<Verdict> {
  const req = await buildRequest(b, c.request);
  if (req.before) await exchange(b.port, req.before, { timeoutMs, method: c.request.method });
  const outcome = await exchange(b.port, req.bytes, {
    timeoutMs: c.expect.withinMs ?? timeoutMs,
    method: c.request.method,
    ...(req.trailing ? { trailing: req.trailing } : {}),
  });
  if (outcome.kind === 'no-answer') return { ok: false, problems: [`no answer (${outcome.reason})`], summary: 'no answer' };
  const problems = judgeAnswer(outcome.answer, c.request.method, c.expect);
  if (outcome.extra.length > 0)
    problems.push(`${outcome.extra.length} more answer(s) on the connection: ${outcome.extra.map((a) => a.status).join(', ')}`);
  const a = outcome.answer;
  return {
    ok: problems.length === 0,
    problems,
    status: a.status,
    summary: `${a.status} ${a.headers.get('www-authenticate')?.join(' | ') ?? ''} ${a.body.subarray(0, 300).toString('utf8')}`,
  };
}

export function judgeAnswer(a: RawAnswer, method: string, e: Expectation): string[] {
  const problems: string[] = [];
  if (a.status !== e.status) problems.push(`status ${a.status}, expected ${e.status}`);
  const requestId = a.headers.get('x-request-id')?.[0];
  if (!requestId) problems.push('no X-Request-Id');
  let body: Record<string, unknown> | undefined;
  try {
    body = JSON.parse(a.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    body = undefined;
  }
  if (a.status >= 400 && method !== 'HEAD') {
    if (!/^application\/problem\+json/.test(a.headers.get('content-type')?.[0] ?? '')) problems.push('not application/problem+json');
    if (!body || typeof body.type !== 'string' || typeof body.title !== 'string' || body.status !== a.status || body.instance !== requestId)
      problems.push('not a problem document (type, title, status, instance)');
    if (a.bodyBytes > PROBLEM_MAX_BYTES) problems.push(`problem document of ${a.bodyBytes} bytes (bound ${PROBLEM_MAX_BYTES})`);
  }
  if (e.error !== undefined && body?.error !== e.error) problems.push(`error ${String(body?.error)}, expected ${e.error}`);
  const challenge = a.headers.get('www-authenticate')?.join(', ') ?? null;
  if (e.challenge !== undefined && challenge !== e.challenge)
    problems.push(`WWW-Authenticate ${String(challenge)}, expected ${String(e.challenge)}`);
  for (const [name, want] of Object.entries(e.headers ?? {})) {
    const got = a.headers.get(name)?.join(', ') ?? null;
    if (want === true ? got === null : got !== want)
      problems.push(`${name}: ${String(got)}, expected ${want === true ? 'present' : String(want)}`);
  }
  return problems;
}
