// Spec part 4, Endpoints > Public and special routes: the internal routes called by other components, each behind its
// shared secret, and the account recovery endpoint (Resources > Account recovery request; recovery endpoint results;
// States and transitions; Limits > security intents, recovery bounds).
//
// Levels. The spec says who holds each secret and, for most routes, where it travels (X-Proxy-Idp-Secret; a bearer
// CONVERSATION_HUB_SECRET or ACCOUNT_RECOVERY_SECRET). It does not say where the identity provider's action script puts its
// secret: spec-level checks send it both as `Authorization: Bearer` and as `X-Idp-Action-Secret` (the reference reads the
// former). Request bodies of the internal routes other than recovery are not shown: spec-level checks send the reference's
// bodies and judge only refusals. "Refused" is any 4xx problem document, except for the recovery credential, which is 401
// exactly (END-RECOVERY-11). Codes and challenges (`invalid_credentials`, `Bearer error="invalid_token"`), success statuses
// and shapes are the reference's and are judged at the reference level.
//
// Data. Recovery checks use the seed's operations (docs/seed.md) that no request can change: complete (recop_0003,
// recop_0006), cancelled (recop_0005), proof_pending (recop_0002) and provider_pending (recop_0001, which stays pending
// however often it is resumed). The approved operation (recop_0004) is never touched: resuming it completes it, and a rerun
// would see another phase. Everything else uses operation ids that exist nowhere.
import { randomUUID } from 'node:crypto';
import { check, notApplicable, test, type Shop } from '../engine/check.js';
import type { ShopResponse } from '../engine/http.js';
import { CheckFailure, expectChallenge, expectNoStore, expectProblem, fail } from '../lib/assert.js';
import { LIMITS } from '../../contract/limits.js';

// ---------------------------------------------------------------------------------------------------------------- helpers

type Secrets = Shop['profile']['secrets'];
type SecretName = 'idpActionSecret' | 'proxyIdpSecret' | 'conversationHubSecret' | 'accountRecoverySecret';


const show = (res: ShopResponse) => `${res.status} ${res.text.slice(0, 300)}`;
const fresh = (prefix: string) => `${prefix}_${randomUUID().replace(/-/g, '')}`;

/** Names the case a failure belongs to. */
async function inCase(what: string, assertion: () => unknown): Promise<void> {
  try {
    await assertion();
  } catch (err) {
    if (err instanceof CheckFailure) err.message = err.message.replace(/^(\[[^\]]*\] )?/, (prefix) => `${prefix}${what}: `);
    throw err;
  }
}

/** Any 4xx problem document ("refused" where the spec names no status). */
function expectRefused(shop: Shop, res: ShopResponse, clause: string): void {
  if (res.status < 400 || res.status > 499) fail('refused', '4xx', show(res), clause);
  expectProblem(res, { status: res.status, error: typeof res.body?.error === 'string' ? res.body.error : '<missing>', docsUrl: shop.docsUrl, clause });
}

/** 401 with a problem document (the spec names the status of a recovery credential refusal, not its code). */
function expect401(shop: Shop, res: ShopResponse, clause: string): void {
  if (res.status !== 401) fail('status', 401, show(res), clause);
  expectProblem(res, { status: 401, error: typeof res.body?.error === 'string' ? res.body.error : '<missing>', docsUrl: shop.docsUrl, clause });
}

/** A value that is not the secret: the secret with its last character changed, or a random one when it is unset. */
function wrong(secret: string | null): string {
  if (secret === null) return `wrong-${randomUUID()}`;
  return secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A');
}

/** The profile's other secrets and keys (never the one named), non-null and distinct from it. */
function otherSecrets(secrets: Secrets, except: SecretName): [string, string][] {
  const own = secrets[except];
  const names = ['idpActionSecret', 'proxyIdpSecret', 'conversationHubSecret', 'accountRecoverySecret', 'guestSessionKey', 'webSessionContextKey', 'stripeWebhookSecret'] as const;
  return names.filter((n) => n !== except).flatMap((n) => {
    const v = secrets[n];
    return typeof v === 'string' && v !== own ? [[n, v] as [string, string]] : [];
  });
}

const bearer = (value: string) => ({ authorization: `Bearer ${value}` });

// ------------------------------------------------------------------------------------------- the reference's route bodies

interface InternalRoute {
  path: string;
  secret: SecretName;
  /** How the spec (or, for the action script, the reference) carries the secret. */
  carrier: 'bearer' | 'x-proxy-idp-secret';
  clause: string;
  /** A valid body of the reference's shape. */
  body: () => Record<string, unknown>;
  /** What the reference answers a valid request with its own secret. */
  accepted: { status: number; error?: string };
}

const ROUTES: readonly InternalRoute[] = [
  {
    path: '/internal/account/security-intents', secret: 'idpActionSecret', carrier: 'bearer', clause: 'END-PUBLIC-9',
    body: () => ({ intent_id: fresh('int'), subject: fresh('chk'), kind: 'email_change' }), accepted: { status: 202 },
  },
  {
    path: '/internal/assistant/sessions/signed-out', secret: 'proxyIdpSecret', carrier: 'x-proxy-idp-secret', clause: 'END-PUBLIC-11',
    body: () => ({ session_id: fresh('sess'), client_id: 'conformance-agent', scopes: [] }), accepted: { status: 201 },
  },
  {
    path: '/internal/assistant/agents/connected', secret: 'proxyIdpSecret', carrier: 'x-proxy-idp-secret', clause: 'END-PUBLIC-12',
    body: () => ({ subject: fresh('chk'), agent_id: fresh('agent'), client_id: 'conformance-agent', permissions: ['assistant:read'] }), accepted: { status: 201 },
  },
  {
    path: '/internal/agent-authorization', secret: 'proxyIdpSecret', carrier: 'x-proxy-idp-secret', clause: 'END-PUBLIC-13',
    body: () => ({ subject: fresh('chk'), agent_id: fresh('agent'), permissions: ['assistant:read'], decision: 'granted' }), accepted: { status: 200 },
  },
  {
    path: `/internal/conversations/${fresh('conv')}/turn`, secret: 'conversationHubSecret', carrier: 'bearer', clause: 'END-PUBLIC-14',
    body: () => ({ turn_id: fresh('turn'), author: 'agent', text: 'Hello from the conformance suite.' }), accepted: { status: 404, error: 'not_found' },
  },
  {
    path: `/internal/conversations/${fresh('conv')}/handoff-timeout`, secret: 'conversationHubSecret', carrier: 'bearer', clause: 'END-PUBLIC-15',
    body: () => ({ handoff_id: fresh('handoff'), timed_out_at: new Date().toISOString() }), accepted: { status: 404, error: 'not_found' },
  },
  {
    path: '/internal/account/recover', secret: 'accountRecoverySecret', carrier: 'bearer', clause: 'END-PUBLIC-16',
    body: () => ({ subject: fresh('chk'), operationId: fresh('recop'), purpose: 'email' }), accepted: { status: 404, error: 'recovery_not_found' },
  },
];

const route = (path: string) => ROUTES.find((r) => r.path.startsWith(path) || r.path.endsWith(path))!;

/** The headers that present `value` in the route's carrier (both plausible carriers for the action script's secret). */
function present(r: InternalRoute, value: string, o: { spec?: boolean } = {}): Record<string, string> {
  if (r.carrier === 'x-proxy-idp-secret') return { 'x-proxy-idp-secret': value };
  if (r.secret === 'idpActionSecret' && o.spec) return { ...bearer(value), 'x-idp-action-secret': value };
  return bearer(value);
}

// ------------------------------------------------------------------------------------------------ credentials (spec)

/** Ways to get a route's credential wrong, each with the headers that carry it. */
function credentialCases(shop: Shop, r: InternalRoute): [string, Record<string, string>][] {
  const own = shop.profile.secrets[r.secret];
  const cases: [string, Record<string, string>][] = [
    ['no credential', {}],
    ['a wrong secret', present(r, wrong(own), { spec: true })],
  ];
  for (const [name, value] of otherSecrets(shop.profile.secrets, r.secret)) cases.push([`the profile's ${name}`, present(r, value, { spec: true })]);
  if (own !== null) {
    if (r.carrier === 'x-proxy-idp-secret') cases.push(['the proxy secret as a bearer instead of X-Proxy-Idp-Secret', bearer(own)]);
    else if (r.secret !== 'idpActionSecret') cases.push(['the secret in X-Proxy-Idp-Secret instead of Authorization', { 'x-proxy-idp-secret': own }]);
    if (r.carrier === 'bearer') cases.push(['the secret under the Basic scheme', { authorization: `Basic ${Buffer.from(`x:${own}`).toString('base64')}` }]);
  }
  return cases;
}

for (const r of ROUTES.filter((x) => x.secret !== 'accountRecoverySecret')) {
  const name = r.path.replace(/^\/internal\//, '').replace(/conversations\/[^/]+\//, 'conversations.').replace(/\//g, '.');
  test(...check({
    id: `internal.secret-required.${name}`,
    title: `POST ${r.path.replace(/conv_[0-9a-f]+/, '{id}')} refuses a missing or wrong secret, another secret of the profile, or the secret in another carrier`,
    clauses: [r.clause],
  }, async (shop) => {
    for (const [what, headers] of credentialCases(shop, r)) {
      const res = await shop.http.post(r.path, { headers, json: r.body() });
      await inCase(what, () => expectRefused(shop, res, r.clause));
    }
  }));
}

test(...check({
  id: 'internal.not-operations',
  title: 'internal routes are their own group: a valid access token (customer, guest, operator) opens none of them, and the refusal is not the operation guard\'s',
  clauses: ['PUR-RULE-4'],
}, async (shop) => {
  const tokens: [string, Record<string, string>][] = [
    ['a customer token', bearer(await shop.mint.customer({ sub: shop.subject('cust') }))],
    ['a guest storefront token', bearer(await shop.mint.guest())],
    ['an operator token', { ...bearer(await shop.mint.operator()), operator: 'conformance@shop.test' }],
  ];
  for (const r of ROUTES) {
    for (const [what, headers] of tokens) {
      const res = await shop.http.post(r.path, { headers, json: r.body() });
      await inCase(`${r.path} with ${what}`, () => {
        expectRefused(shop, res, 'PUR-RULE-4');
        if (res.body?.error === 'caller_not_allowed' || res.body?.error === 'insufficient_scope') {
          fail('refused by its own authentication, not by the operations\' caller guard', 'a credential refusal', show(res), 'PUR-RULE-4');
        }
      });
    }
  }
}));

// ----------------------------------------------------------------------------------------- credentials (the reference)

test(...check({
  id: 'internal.invalid-credentials.reference',
  title: 'a missing or wrong secret is 401 invalid_credentials: bearer-secret routes carry Bearer error="invalid_token", X-Proxy-Idp-Secret routes no challenge',
  clauses: ['END-PUBLIC-9', 'END-PUBLIC-11', 'END-PUBLIC-12', 'END-PUBLIC-13', 'END-PUBLIC-14', 'END-PUBLIC-15', 'END-PUBLIC-16'],
  level: 'reference',
}, async (shop) => {
  for (const r of ROUTES) {
    if (shop.profile.secrets[r.secret] === null) continue; // closed: 404 not_configured, judged below
    for (const [what, headers] of [['no credential', {}], ['a wrong secret', present(r, wrong(shop.profile.secrets[r.secret]))]] as const) {
      const res = await shop.http.post(r.path, { headers, json: r.body() });
      await inCase(`${r.path}, ${what}`, () => {
        expectProblem(res, { status: 401, error: 'invalid_credentials', docsUrl: shop.docsUrl, clause: r.clause });
        expectNoStore(res, { clause: r.clause });
        if (r.carrier === 'bearer') expectChallenge(res, { scheme: 'Bearer', error: 'invalid_token', clause: r.clause });
        else if (res.headers.get('www-authenticate') !== null) fail('WWW-Authenticate on a header-secret route', 'absent', res.headers.get('www-authenticate'), r.clause);
      });
    }
  }
}));

test(...check({
  id: 'internal.own-secret-accepted.reference',
  title: 'with its own secret each internal route accepts the reference\'s body (conversations: an unknown id is 404 not_found); an unset secret closes the route (404 not_configured)',
  clauses: ['END-PUBLIC-9', 'END-PUBLIC-11', 'END-PUBLIC-12', 'END-PUBLIC-13', 'END-PUBLIC-14', 'END-PUBLIC-15'],
  level: 'reference',
}, async (shop) => {
  for (const r of ROUTES.filter((x) => x.secret !== 'accountRecoverySecret')) {
    const own = shop.profile.secrets[r.secret];
    const res = await shop.http.post(r.path, { headers: own === null ? {} : present(r, own), json: r.body() });
    await inCase(r.path, () => {
      if (own === null) return void expectProblem(res, { status: 404, error: 'not_configured', docsUrl: shop.docsUrl, clause: r.clause });
      if (r.accepted.error) return void expectProblem(res, { status: r.accepted.status, error: r.accepted.error, docsUrl: shop.docsUrl, clause: r.clause });
      if (res.status !== r.accepted.status) fail('status with the route\'s own secret', r.accepted.status, show(res), r.clause);
      expectNoStore(res, { clause: r.clause });
    });
  }
}));

// --------------------------------------------------------------------------------------- security intents: the 8 KiB cap

/** A valid intent (the reference's shape) padded with JSON whitespace to exactly `size` bytes. */
function paddedIntent(size: number): Buffer {
  const json = JSON.stringify({ intent_id: fresh('int'), subject: fresh('chk'), kind: 'email_change' });
  return Buffer.from(json.slice(0, -1) + ' '.repeat(size - json.length) + '}');
}

/**
 * POSTs `body` with `Transfer-Encoding: chunked` and no Content-Length, in 1 KiB chunks; with `hold` the request is left
 * open after the last chunk, so only a server that answers without waiting for the end answers at all. Recorded for the
 * transcript like any exchange.
 */
function postChunked(shop: Shop, path: string, headers: Record<string, string>, body: Buffer, o: { hold?: boolean } = {}): Promise<ShopResponse> {
  const chunks: Buffer[] = [];
  for (let at = 0; at < body.length; at += 1024) chunks.push(body.subarray(at, at + 1024));
  return shop.http.request('POST', path, { headers: { 'content-type': 'application/json', ...headers }, chunks, hold: o.hold ?? false, timeoutMs: 10_000 });
}

test(...check({
  id: 'internal.security-intents.bounded',
  title: 'POST /internal/account/security-intents refuses a body over 8 KiB sent chunked without Content-Length (with the action script\'s secret)',
  clauses: ['LIM-INTENT-1'],
}, async (shop) => {
  const secret = shop.profile.secrets.idpActionSecret;
  if (secret === null) notApplicable('the profile has no idpActionSecret: the route is closed, so a refusal would show nothing about its body cap');
  const r = route('/internal/account/security-intents');
  for (const size of [LIMITS.securityIntentBytes + 1024, 64 * 1024]) {
    const res = await postChunked(shop, r.path, present(r, secret!, { spec: true }), paddedIntent(size));
    await inCase(`a ${size}-byte valid intent, chunked`, () => expectRefused(shop, res, 'LIM-INTENT-1'));
  }
}));

test(...check({
  id: 'internal.security-intents.bounded.reference',
  title: 'the bounded reader: exactly 8 KiB chunked is accepted; 8 KiB + 1 is 413 payload_too_large, answered before the request ends',
  clauses: ['LIM-INTENT-1'],
  level: 'reference',
}, async (shop) => {
  const secret = shop.profile.secrets.idpActionSecret;
  if (secret === null) notApplicable('the profile has no idpActionSecret: the route is closed');
  const r = route('/internal/account/security-intents');
  const at = await postChunked(shop, r.path, present(r, secret!), paddedIntent(LIMITS.securityIntentBytes));
  if (at.status !== 202) fail('exactly 8 KiB (8192 bytes), chunked: status', 202, show(at), 'LIM-INTENT-1');
  const over = await postChunked(shop, r.path, present(r, secret!), paddedIntent(LIMITS.securityIntentBytes + 1), { hold: true });
  await inCase('8193 bytes, chunked, request left open', () => expectProblem(over, { status: 413, error: 'payload_too_large', docsUrl: shop.docsUrl, clause: 'LIM-INTENT-1' }));
}));

// ------------------------------------------------------------------------------------------------ recovery: credential

const RECOVER = '/internal/account/recover';

/** A well-formed request for an operation that exists nowhere. */
const unknownOperation = (purpose: 'email' | 'delete' = 'email') => ({ subject: fresh('chk'), operationId: fresh('recop'), purpose });

/** The seed's operations (docs/seed.md) that requests cannot change. */
const SEED = {
  proofPending: { operationId: 'recop_0002', subject: 'cust_transition', purpose: 'email' },
  providerPending: { operationId: 'recop_0001', subject: 'cust_deleting', purpose: 'delete' },
  completeDelete: { operationId: 'recop_0003', subject: 'cust_deleted', purpose: 'delete' },
  completeEmail: { operationId: 'recop_0006', subject: 'cust_ben', purpose: 'email' },
  cancelled: { operationId: 'recop_0005', subject: 'cust_dev', purpose: 'delete' },
} as const;

/** The recovery secret, or a not-applicable end when the profile has none (then the route is closed). */
function recoverySecret(shop: Shop): string {
  const secret = shop.profile.secrets.accountRecoverySecret;
  if (secret === null) notApplicable('the profile claims recovery but has no accountRecoverySecret');
  return secret!;
}

const recover = (shop: Shop, body: unknown, headers: Record<string, string> = bearer(recoverySecret(shop))) => shop.http.post(RECOVER, { headers, json: body });

/** The control: with its own credential a well-formed request reaches the lookup (404 recovery_not_found), so refusals are about credentials. */
async function expectControl(shop: Shop, clause: string): Promise<void> {
  const res = await recover(shop, unknownOperation());
  await inCase('control: own credential, unknown operation', () => expectProblem(res, { status: 404, error: 'recovery_not_found', docsUrl: shop.docsUrl, clause }));
}

test(...check({
  id: 'recovery.credential.missing-or-wrong',
  title: 'POST /internal/account/recover without its bearer credential, or with a wrong one, is 401',
  clauses: ['END-PUBLIC-16', 'END-RECOVERY-11'],
  requires: ['recovery'],
}, async (shop) => {
  const secret = recoverySecret(shop);
  await expectControl(shop, 'END-PUBLIC-16');
  const cases: [string, Record<string, string>][] = [
    ['no Authorization', {}],
    ['a wrong secret', bearer(wrong(secret))],
    ['the secret with a character appended', bearer(`${secret}x`)],
    ['a prefix of the secret', bearer(secret.slice(0, 8))],
    ['an empty Bearer', { authorization: 'Bearer ' }],
    ['the secret under the Basic scheme', { authorization: `Basic ${Buffer.from(`recovery:${secret}`).toString('base64')}` }],
    ['the secret without a scheme', { authorization: secret }],
  ];
  for (const [what, headers] of cases) {
    const res = await recover(shop, SEED.cancelled, headers);
    await inCase(what, () => expect401(shop, res, 'END-RECOVERY-11'));
  }
}));

test(...check({
  id: 'recovery.credential.only-its-own',
  title: 'POST /internal/account/recover accepts only ACCOUNT_RECOVERY_SECRET: the profile\'s other secrets, the secret in another header, and access tokens are 401',
  clauses: ['END-PUBLIC-18', 'END-RECOVERY-11'],
  requires: ['recovery'],
}, async (shop) => {
  const secret = recoverySecret(shop);
  await expectControl(shop, 'END-PUBLIC-18');
  const cases: [string, Record<string, string>][] = [];
  for (const [name, value] of otherSecrets(shop.profile.secrets, 'accountRecoverySecret')) {
    cases.push([`the profile's ${name} as a bearer`, bearer(value)]);
    cases.push([`the profile's ${name} in X-Proxy-Idp-Secret`, { 'x-proxy-idp-secret': value }]);
  }
  cases.push(['the recovery secret in X-Proxy-Idp-Secret', { 'x-proxy-idp-secret': secret }]);
  cases.push(['the recovery secret in X-Account-Recovery-Secret', { 'x-account-recovery-secret': secret }]);
  cases.push(['a customer access token (of the operation\'s own subject)', bearer(await shop.mint.customer({ sub: SEED.cancelled.subject }))]);
  cases.push(['a delegated access token', bearer(await shop.mint.delegated({ sub: SEED.cancelled.subject }))]);
  cases.push(['an operator token', { ...bearer(await shop.mint.operator()), operator: 'conformance@shop.test' }]);
  cases.push(['a guest storefront token', bearer(await shop.mint.guest())]);
  cases.push(['a backoffice machine token', bearer(await shop.mint.machine(shop.profile.clients.backoffice))]);
  for (const [what, headers] of cases) {
    const res = await recover(shop, SEED.cancelled, headers);
    await inCase(what, () => expect401(shop, res, 'END-PUBLIC-18'));
  }
}));

test(...check({
  id: 'recovery.closed-without-secret',
  title: 'with no ACCOUNT_RECOVERY_SECRET configured, POST /internal/account/recover never succeeds, whatever credential is sent',
  clauses: ['END-PUBLIC-17'],
}, async (shop) => {
  if (shop.profile.secrets.accountRecoverySecret !== null) notApplicable('the profile configures accountRecoverySecret: this deployment\'s recovery endpoint is open, not closed');
  const attempts: [string, Record<string, string>][] = [['no credential', {}], ['an empty bearer', { authorization: 'Bearer ' }]];
  for (const [name, value] of otherSecrets(shop.profile.secrets, 'accountRecoverySecret')) attempts.push([`the profile's ${name}`, bearer(value)]);
  attempts.push(['a customer token', bearer(await shop.mint.customer({ sub: SEED.cancelled.subject }))]);
  for (const [what, headers] of attempts) {
    for (const body of [SEED.cancelled, SEED.completeEmail, unknownOperation()]) {
      const res = await shop.http.post(RECOVER, { headers, json: body });
      await inCase(`${what}, ${body.operationId}`, () => expectRefused(shop, res, 'END-PUBLIC-17'));
    }
  }
}));

// ------------------------------------------------------------------------------------------------------ recovery: body

async function expectInvalid(shop: Shop, body: unknown, what: string, clause: string): Promise<void> {
  const res = await recover(shop, body);
  await inCase(what, () => expectProblem(res, { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause }));
}

async function expectNotFound(shop: Shop, body: unknown, what: string, clause: string): Promise<void> {
  const res = await recover(shop, body);
  await inCase(what, () => expectProblem(res, { status: 404, error: 'recovery_not_found', docsUrl: shop.docsUrl, clause }));
}

test(...check({
  id: 'recovery.body.no-other-members',
  title: 'the recovery request accepts no member beyond subject, operationId and purpose: a new email or a provider command is 400 invalid_request',
  clauses: ['RES-RECOVERY-4', 'END-RECOVERY-5', 'END-RECOVERY-6'],
  requires: ['recovery'],
}, async (shop) => {
  const cases: [string, string, Record<string, unknown>][] = [
    ['RES-RECOVERY-4', 'an unknown member', { note: 'hello' }],
    ['RES-RECOVERY-4', 'freshIntentId', { freshIntentId: fresh('intent') }],
    ['RES-RECOVERY-4', 'a status', { status: 'complete' }],
    ['END-RECOVERY-5', 'email', { email: 'new.address@example.com' }],
    ['END-RECOVERY-5', 'newEmail', { newEmail: 'new.address@example.com' }],
    ['END-RECOVERY-5', 'pendingEmail', { pendingEmail: 'new.address@example.com' }],
    ['END-RECOVERY-6', 'command', { command: 'delete_user' }],
    ['END-RECOVERY-6', 'a provider action', { provider: { action: 'force_complete' } }],
  ];
  for (const [clause, what, extra] of cases) {
    // An operation that exists nowhere: a service that ignored the member would answer 404, and change nothing.
    await expectInvalid(shop, { ...unknownOperation(), ...extra }, what, clause);
  }
}));

test(...check({
  id: 'recovery.body.subject',
  title: 'the recovery `subject` is a required string of 1–256 characters: missing, non-string, empty or 257 is 400; 1 and 256 reach the lookup',
  clauses: ['RES-RECOVERY-1', 'LIM-RECOVERY-1'],
  requires: ['recovery'],
}, async (shop) => {
  const base = unknownOperation();
  const { subject: _s, ...missing } = base;
  await expectInvalid(shop, missing, 'subject missing', 'RES-RECOVERY-1');
  await expectInvalid(shop, { ...base, subject: 42 }, 'subject a number', 'RES-RECOVERY-1');
  await expectInvalid(shop, { ...base, subject: null }, 'subject null', 'RES-RECOVERY-1');
  await expectInvalid(shop, { ...base, subject: '' }, 'subject of 0 characters', 'LIM-RECOVERY-1');
  await expectInvalid(shop, { ...base, subject: 's'.repeat(257) }, 'subject of 257 characters', 'LIM-RECOVERY-1');
  await expectNotFound(shop, { ...base, subject: 's' }, 'subject of 1 character (valid; the operation does not exist)', 'LIM-RECOVERY-1');
  await expectNotFound(shop, { ...base, subject: 's'.repeat(256) }, 'subject of 256 characters (valid; the operation does not exist)', 'LIM-RECOVERY-1');
}));

test(...check({
  id: 'recovery.body.operation-id',
  title: 'the recovery `operationId` is a required string of 1–128 characters: missing, non-string, empty or 129 is 400; 1 and 128 reach the lookup',
  clauses: ['RES-RECOVERY-2', 'LIM-RECOVERY-2'],
  requires: ['recovery'],
}, async (shop) => {
  const base = unknownOperation();
  const { operationId: _o, ...missing } = base;
  await expectInvalid(shop, missing, 'operationId missing', 'RES-RECOVERY-2');
  await expectInvalid(shop, { ...base, operationId: 7 }, 'operationId a number', 'RES-RECOVERY-2');
  await expectInvalid(shop, { ...base, operationId: ['recop_0005'] }, 'operationId an array', 'RES-RECOVERY-2');
  await expectInvalid(shop, { ...base, operationId: '' }, 'operationId of 0 characters', 'LIM-RECOVERY-2');
  await expectInvalid(shop, { ...base, operationId: 'o'.repeat(129) }, 'operationId of 129 characters', 'LIM-RECOVERY-2');
  // One character could name a real operation of another deployment: "~" is an unlikely id.
  await expectNotFound(shop, { ...base, operationId: '~' }, 'operationId of 1 character (valid; the operation does not exist)', 'LIM-RECOVERY-2');
  await expectNotFound(shop, { ...base, operationId: fresh('recop').padEnd(128, 'x') }, 'operationId of 128 characters (valid; the operation does not exist)', 'LIM-RECOVERY-2');
}));

test(...check({
  id: 'recovery.body.purpose',
  title: 'the recovery `purpose` is exactly `email` or `delete`: missing, another value, another case or a non-string is 400',
  clauses: ['RES-RECOVERY-3'],
  requires: ['recovery'],
}, async (shop) => {
  const base = unknownOperation();
  const { purpose: _p, ...missing } = base;
  await expectInvalid(shop, missing, 'purpose missing', 'RES-RECOVERY-3');
  for (const purpose of ['Email', 'DELETE', 'phone', 'deletion', '', 'email ', 1, null, ['email']]) {
    await expectInvalid(shop, { ...base, purpose }, `purpose ${JSON.stringify(purpose)}`, 'RES-RECOVERY-3');
  }
  for (const purpose of ['email', 'delete'] as const) await expectNotFound(shop, { ...base, purpose }, `purpose "${purpose}" (valid; the operation does not exist)`, 'RES-RECOVERY-3');
}));

// ------------------------------------------------------------------------------------------------ recovery: semantics

test(...check({
  id: 'recovery.unknown-operation',
  title: 'a recovery request for an operation that does not exist is 404 recovery_not_found',
  clauses: ['END-RECOVERY-12'],
  requires: ['recovery'],
}, async (shop) => {
  for (const purpose of ['email', 'delete'] as const) await expectNotFound(shop, unknownOperation(purpose), `unknown operation, purpose ${purpose}`, 'END-RECOVERY-12');
  await expectNotFound(shop, { subject: 'cust_ada', operationId: fresh('recop'), purpose: 'delete' }, 'unknown operation of a seeded account', 'END-RECOVERY-12');
}));

/** 200 with `status` equal to `want` (the member the spec names; others are not judged). */
function expectRecoveryStatus(res: ShopResponse, want: 'complete' | 'pending' | 'cancelled', clause: string): void {
  if (res.status !== 200) fail('status', 200, show(res), clause);
  if (typeof res.body !== 'object' || res.body === null) fail('a JSON object body', '{ "status": … }', res.text.slice(0, 300), clause);
  if (!['complete', 'pending', 'cancelled'].includes(res.body.status)) fail('"status" is one of complete, pending, cancelled', ['complete', 'pending', 'cancelled'], res.body.status, 'RES-RECOVERY-5');
  if (res.body.status !== want) fail('"status"', want, res.body.status, clause);
}

test(...check({
  id: 'recovery.cancelled',
  title: 'the seed\'s cancelled operation answers 200 status cancelled, and keeps answering it: a retired authorization is never reopened',
  clauses: ['STA-RECOVERY-3', 'STA-RECOVERY-4', 'END-RECOVERY-10', 'RES-RECOVERY-5'],
  requires: ['recovery'],
  seed: true,
}, async (shop) => {
  for (let i = 1; i <= 3; i++) {
    const res = await recover(shop, SEED.cancelled);
    await inCase(`request ${i} for ${SEED.cancelled.operationId}`, () => expectRecoveryStatus(res, 'cancelled', i === 1 ? 'STA-RECOVERY-3' : 'STA-RECOVERY-4'));
  }
}));

test(...check({
  id: 'recovery.complete',
  title: 'the seed\'s finished operations answer 200 status complete, and a repeat answers the same without reopening anything',
  clauses: ['STA-RECOVERY-1', 'END-RECOVERY-8', 'END-RECOVERY-7', 'RES-RECOVERY-5'],
  requires: ['recovery'],
  seed: true,
}, async (shop) => {
  for (const op of [SEED.completeDelete, SEED.completeEmail]) {
    for (let i = 1; i <= 2; i++) {
      const res = await recover(shop, op);
      await inCase(`request ${i} for ${op.operationId}`, () => expectRecoveryStatus(res, 'complete', i === 1 ? 'END-RECOVERY-8' : 'END-RECOVERY-7'));
    }
  }
  // The deleted account stays deleted: repeating its finished deletion granted it nothing.
  const after = await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub: SEED.completeDelete.subject }) });
  await inCase('a customer token of the deleted account after the repeats', () => expectProblem(after, { status: 401, error: 'account_access_ended', docsUrl: shop.docsUrl, clause: 'END-RECOVERY-7' }));
}));

test(...check({
  id: 'recovery.unconsumed-proof',
  title: 'an operation whose proof was never consumed (proof_pending) is 404 recovery_not_found, every time, and its account stays restricted',
  clauses: ['END-RECOVERY-4', 'END-RECOVERY-3'],
  requires: ['recovery'],
  seed: true,
}, async (shop) => {
  for (let i = 1; i <= 2; i++) await expectNotFound(shop, SEED.proofPending, `request ${i} for ${SEED.proofPending.operationId}`, 'END-RECOVERY-4');
  const res = await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub: SEED.proofPending.subject }) });
  await inCase('a customer token of the account in contact_transition', () => expectProblem(res, { status: 401, error: 'account_access_ended', docsUrl: shop.docsUrl, clause: 'END-RECOVERY-3' }));
}));

test(...check({
  id: 'recovery.ownership',
  title: 'a subject that does not own the operation gets 404 recovery_not_found (another account, another case)',
  clauses: ['END-RECOVERY-1'],
  requires: ['recovery'],
  seed: true,
}, async (shop) => {
  const cases: [string, object][] = [
    ['the cancelled operation for cust_ada', { ...SEED.cancelled, subject: 'cust_ada' }],
    ['the finished deletion for cust_ada', { ...SEED.completeDelete, subject: 'cust_ada' }],
    ['the finished email change for cust_dev', { ...SEED.completeEmail, subject: 'cust_dev' }],
    ['the provider-pending deletion for cust_ben', { ...SEED.providerPending, subject: 'cust_ben' }],
    ['the cancelled operation for CUST_DEV', { ...SEED.cancelled, subject: 'CUST_DEV' }],
    ['the cancelled operation for a fresh subject', { ...SEED.cancelled, subject: shop.subject('cust') }],
  ];
  for (const [what, body] of cases) await expectNotFound(shop, body, what, 'END-RECOVERY-1');
}));

test(...check({
  id: 'recovery.purpose-mismatch',
  title: 'a purpose other than the operation\'s gets 404 recovery_not_found',
  clauses: ['END-RECOVERY-2'],
  requires: ['recovery'],
  seed: true,
}, async (shop) => {
  const cases: [string, object][] = [
    ['the cancelled deletion as an email change', { ...SEED.cancelled, purpose: 'email' }],
    ['the finished deletion as an email change', { ...SEED.completeDelete, purpose: 'email' }],
    ['the provider-pending deletion as an email change', { ...SEED.providerPending, purpose: 'email' }],
    ['the proof-pending email change as a deletion', { ...SEED.proofPending, purpose: 'delete' }],
  ];
  for (const [what, body] of cases) await expectNotFound(shop, body, what, 'END-RECOVERY-2');
}));

/** Resumes the provider-pending operation; a concurrent resumption by another check may hold it: retry on 409 recovery_pending. */
async function resumeProviderPending(shop: Shop): Promise<ShopResponse> {
  let res = await recover(shop, SEED.providerPending);
  for (let i = 0; i < 5 && res.status === 409 && res.body?.error === 'recovery_pending'; i++) {
    await new Promise((r) => setTimeout(r, 200));
    res = await recover(shop, SEED.providerPending);
  }
  return res;
}

test(...check({
  id: 'recovery.provider-pending',
  title: 'the seed\'s provider-pending deletion answers 200 status pending on every retry, and its account stays restricted meanwhile',
  clauses: ['STA-RECOVERY-2', 'END-RECOVERY-9', 'STA-PARTIAL-1', 'STA-PARTIAL-2', 'RES-RECOVERY-5'],
  requires: ['recovery'],
  seed: true,
}, async (shop) => {
  for (let i = 1; i <= 2; i++) {
    const res = await resumeProviderPending(shop);
    await inCase(`attempt ${i} of ${SEED.providerPending.operationId}`, () => expectRecoveryStatus(res, 'pending', i === 1 ? 'STA-RECOVERY-2' : 'END-RECOVERY-9'));
  }
  const cart = await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub: SEED.providerPending.subject }) });
  await inCase('a customer token of the account being deleted', () => expectProblem(cart, { status: 401, error: 'account_access_ended', docsUrl: shop.docsUrl, clause: 'STA-PARTIAL-2' }));
}));

test(...check({
  id: 'recovery.concurrent',
  title: 'concurrent resumptions of one operation each answer its status (pending) or 409 recovery_pending, nothing else',
  clauses: ['END-RECOVERY-13'],
  requires: ['recovery'],
  seed: true,
}, async (shop) => {
  const answers = await Promise.all(Array.from({ length: 8 }, () => recover(shop, SEED.providerPending)));
  for (const [i, res] of answers.entries()) {
    await inCase(`concurrent request ${i + 1}`, () => {
      if (res.status === 409) return void expectProblem(res, { status: 409, error: 'recovery_pending', docsUrl: shop.docsUrl, clause: 'END-RECOVERY-13' });
      expectRecoveryStatus(res, 'pending', 'END-RECOVERY-13');
    });
  }
}));

test(...check({
  id: 'recovery.response.reference',
  title: 'the reference\'s recovery answer is exactly { status, operationId }, JSON, Cache-Control: no-store',
  clauses: ['RES-RECOVERY-5'],
  level: 'reference',
  requires: ['recovery'],
  seed: true,
}, async (shop) => {
  for (const [op, status] of [[SEED.cancelled, 'cancelled'], [SEED.completeEmail, 'complete'], [SEED.providerPending, 'pending']] as const) {
    const res = op === SEED.providerPending ? await resumeProviderPending(shop) : await recover(shop, op);
    await inCase(op.operationId, () => {
      expectRecoveryStatus(res, status, 'RES-RECOVERY-5');
      if (JSON.stringify(res.body) !== JSON.stringify({ status, operationId: op.operationId })) fail('body', { status, operationId: op.operationId }, res.body, 'RES-RECOVERY-5');
      if (!/^application\/json/.test(res.headers.get('content-type') ?? '')) fail('Content-Type', 'application/json', res.headers.get('content-type'), 'RES-RECOVERY-5');
      expectNoStore(res, { clause: 'RES-RECOVERY-5' });
    });
  }
}));
