// Spec part 4, Endpoints > Operations and Additional route facts, for the reads of account data: a customer reads its own
// profile, addresses, saved cards and orders, and nothing of another account's; the identity read carries the display
// name and the self-service eligibility boolean, and no email, address, card, URL or token (part 1, What the service does,
// rule 5; Endpoints: the self-service feature's tokens and URLs never pass through the service).
//
// Levels. The spec shows no payload shapes: spec-level checks observe responses through the seed's data (docs/seed.md),
// never through member names; the exact identity body is the reference's (docs/account.md).
import { judgeCases, mapCases } from '../engine/runner/cases.js';
import { check, notApplicable, test, type Shop } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { brief, expectNoStore, expectSuccess, fail, failSoft, is2xx, notDeclared } from '../lib/assert.js';
import { scopeWith } from '../lib/mint.js';
import { apiScopesOf, guardRefused, unknownScopeRefusal } from './_shared/caller-guard.js';
import { forwardedBrowserHeaders } from './_shared/artifact-headers.js';
import { AssistantAgent } from './_shared/assistant.js';
import { customerToken, delegatedToken } from '../lib/callers.js';
import { invitedAgent } from './_shared/probe-agents.js';
import { ADA, CHLOE, NOT_ADAS, ORDERS } from './_shared/seed-data.js';

// --- reads of the account's own data -----------------------------------------------------------------------------------

test(
  ...check(
    {
      id: 'endpoints.account.reads',
      title: 'a customer reads its profile, addresses, saved cards, orders and one order: 2xx, no-store, its own seed data',
      clauses: ['PUR-SERVE-4', 'END-ME-1', 'END-CONV-9'],
      seed: true,
    },
    async (shop) => {
      const token = await customerToken(shop, ADA.sub);
      // The profile record is not shown: any datum of Ada's account shows it is hers (a display name split into given
      // and family names still carries her sub or email); the reference's members are judged at its level.
      const reads: [string, readonly string[]][] = [
        ['/v1/me/profile', [ADA.name, ADA.email, ADA.sub]],
        ['/v1/me/addresses', [ADA.line1]],
        ['/v1/me/payment-methods', [ADA.last4[0]!]],
        ['/v1/me/orders', [ORDERS.adaDelivered.id]],
        [`/v1/me/orders/${ORDERS.adaDelivered.id}`, [ORDERS.adaDelivered.id]],
      ];
      // Reads only: a case each.
      await judgeCases(reads, async ([path, own]) => {
        const res = await shop.http.get(path, { token });
        expectSuccess(res, { what: `GET ${path} as ${ADA.sub}`, clause: 'PUR-SERVE-4' });
        expectNoStore(res, { clause: 'END-CONV-9' });
        if (!own.some((datum) => res.text.includes(datum)))
          fail(`GET ${path} as ${ADA.sub} shows Ada's seed data`, `a body mentioning ${own.join(' or ')}`, res.text.slice(0, 300), {
            clause: 'PUR-SERVE-4',
          });
        for (const other of NOT_ADAS)
          if (res.text.includes(other))
            fail(`GET ${path} as ${ADA.sub} shows another account's data`, `nothing of ${other}`, res.text.slice(0, 300), {
              clause: 'END-ME-1',
            });
      });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.account.isolation',
      title: "a fresh account sees none of another account's profile, identity, addresses, saved cards or orders",
      clauses: ['END-ME-1'],
      seed: true,
    },
    async (shop) => {
      // The token carries the checkout reads' API scopes as far as the spec or the documents name them.
      const token = await customerToken(shop, shop.subject('cust'), scopeWith('customer', CHECKOUT_READ_SCOPES()));
      const needles = [ADA.sub, ADA.name, ADA.email, ADA.line1, ...ADA.addressIds, ADA.cardPrefix, ...ADA.orderIds, ...NOT_ADAS];
      // [path, its checkout read's operationId]: what a fresh account's checkout read answers when there is nothing to show
      // (200 with nothing, 404, ...) is not shown; any answer but the guard's refusal will do, and it carries nothing foreign.
      const paths: [string, string?][] = [
        ['/v1/me/profile'],
        ['/v1/me/addresses'],
        ['/v1/me/payment-methods'],
        ['/v1/me/orders'],
        ['/v1/me/checkout-address', 'getCheckoutAddress'],
        ['/v1/me/checkout-methods', 'getCheckoutMethods'],
      ];
      // Reads only: a case each.
      await judgeCases(paths, async ([path, checkoutRead]) => {
        const res = await shop.http.get(path, { token });
        if (checkoutRead === undefined) expectSuccess(res, { what: `GET ${path} as a fresh account`, clause: 'END-ME-1' });
        else if (guardRefused(res) && !unknownScopeRefusal(shop, res, checkoutRead, 'a fresh customer'))
          fail(
            `GET ${path} as a fresh account`,
            'past the guard (any answer but 401, 403 caller_not_allowed/insufficient_scope)',
            brief(res),
            {
              clause: 'END-ME-1',
            },
          );
        for (const n of needles)
          if (res.text.includes(n))
            fail(`GET ${path} as a fresh account`, `nothing of ${n}`, res.text.slice(0, 300), { clause: 'END-ME-1' });
      });
    },
  ),
);

// --- identity (What the service does 5; Endpoints, identity read) -------------------------------------------------------

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/;
const URL_LIKE = /\bhttps?:\/\/[^\s"'<>]+/gi;

/**
 * The URLs of a body that belong to the identity provider's self-service feature (Endpoints: "no such token, URL or
 * transport passes through the service"): on the identity provider's host (the profile's issuer or jwksUri), or named
 * for the feature (in the URL or its member). Other URLs (a `self` link, an avatar) are not barred.
 */
function selfServiceUrls(shop: Shop, body: unknown): string[] {
  const idpHosts = [shop.profile.issuer, shop.profile.jwksUri].flatMap((u) => (u ? [new URL(u).host] : []));
  const onIdp = (u: string) => URL.canParse(u) && idpHosts.includes(new URL(u).host);
  return leaves(body).flatMap(([path, v]) =>
    typeof v !== 'string'
      ? []
      : (v.match(URL_LIKE) ?? []).filter((u) => onIdp(u) || /self[-_ ]?service/i.test(`${path} ${u}`)).map((u) => `${path}: ${u}`),
  );
}
const JWT_LIKE = /eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/;
/** A member that is a telephone number in international form (+, then 7 to 15 digits, spaced or not). */
const PHONE_LIKE = /^\+(?:[\s().-]*\d){7,15}[\s().-]*$/;

/** Every string and boolean leaf of a JSON value, with its path. */
function leaves(value: unknown, path = ''): [string, unknown][] {
  if (Array.isArray(value)) return value.flatMap((v, i) => leaves(v, `${path}[${i}]`));
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([k, v]) => leaves(v, path ? `${path}.${k}` : k));
  return [[path, value]];
}

/**
 * The banner rule on one identity read of Ada's account (What the service does, rule 5): no email (PUR-BANNER-2), and of
 * the account's personal data only the display name (PUR-BANNER-1). Judged softly, so that every caller kind is reached.
 */
function expectBanner(res: ShopResponse, who: string): void {
  if (EMAIL.test(res.text) || res.text.includes('@') || res.text.includes(ADA.email))
    failSoft(`getIdentity (${who}) carries an email address`, 'no email', res.text.slice(0, 300), { clause: 'PUR-BANNER-2' });
  if (!leaves(res.body).some(([, v]) => v === ADA.name))
    failSoft(`getIdentity (${who}) shows the display name`, `a member equal to ${JSON.stringify(ADA.name)}`, res.text.slice(0, 300), {
      clause: 'PUR-BANNER-1',
    });
  // A telephone number in the account's identity read is a contact detail: personal data other than the display name,
  // whether it is the one the seed holds or another (the spec names the display name alone).
  const phones = leaves(res.body).filter(([, v]) => typeof v === 'string' && v !== ADA.name && PHONE_LIKE.test(v));
  if (phones.length > 0)
    failSoft(
      `getIdentity (${who}) carries only the display name of the account's personal data`,
      'no telephone number',
      phones.map(([path, v]) => `${path}: ${String(v)}`),
      { clause: 'PUR-BANNER-1' },
    );
  const personal = [ADA.line1, ADA.phone, ...ADA.last4, ...ADA.addressIds, ADA.cardPrefix].filter((p) => res.text.includes(p));
  if (personal.length > 0)
    failSoft(
      `getIdentity (${who}) carries only the display name of the account's personal data`,
      `nothing of ${personal.join(', ')}`,
      res.text.slice(0, 300),
      { clause: 'PUR-BANNER-1' },
    );
}

/** The API scopes of the three checkout reads, as far as the spec or the target's documents name them. */
const CHECKOUT_READ_SCOPES = () => ['getIdentity', 'getCheckoutAddress', 'getCheckoutMethods'].flatMap((id) => apiScopesOf(id).scopes);

/** A customer's identity read, its token carrying getIdentity's API scopes as far as they are known. */
const identityOf = async (shop: Shop, sub: string) =>
  shop.http.get('/v1/me/identity', { token: await customerToken(shop, sub, scopeWith('customer', apiScopesOf('getIdentity').scopes)) });

/** A 403 insufficient_scope to a customer's identity read where nothing names its scopes: the read is not judged. */
function requireIdentityScopes(res: ShopResponse): void {
  if (res.status === 403 && res.body?.error === 'insufficient_scope' && !apiScopesOf('getIdentity').known)
    notDeclared(
      "the API scope of getIdentity (a customer's token with every scope of the spec was answered 403 insufficient_scope)",
      "the scopes in getIdentity's OpenAPI security requirement in /openapi.json",
    );
}

test(
  ...check(
    {
      id: 'endpoints.account.identity',
      title: 'the identity read carries the display name and an eligibility boolean, and no email, address, phone, card, URL or token',
      clauses: ['PUR-BANNER-1', 'PUR-BANNER-2', 'END-IDENT-1', 'END-IDENT-2', 'END-OPS-GETIDENTITY-1', 'PUR-SERVE-4'],
      seed: true,
    },
    async (shop) => {
      // Ada is eligible for the self-service feature, Chloé is not (docs/seed.md).
      // Two reads of two accounts: at once.
      const [ada, chloe] = await Promise.all([identityOf(shop, ADA.sub), identityOf(shop, CHLOE.sub)]);
      for (const [who, res] of [
        [ADA.sub, ada],
        [CHLOE.sub, chloe],
      ] as const) {
        requireIdentityScopes(res);
        expectSuccess(res, { what: `getIdentity as ${who}`, clause: 'PUR-SERVE-4' });
        if (typeof res.body !== 'object' || res.body === null)
          fail(`getIdentity body (${who})`, 'a JSON object', res.text.slice(0, 300), { clause: 'PUR-SERVE-4' });
        if (EMAIL.test(res.text) || res.text.includes('@'))
          fail(`getIdentity (${who}) carries an email address`, 'no email', res.text.slice(0, 300), { clause: 'PUR-BANNER-2' });
        const featureUrls = selfServiceUrls(shop, res.body);
        if (featureUrls.length > 0)
          fail(`getIdentity (${who}) carries a URL of the self-service feature`, 'no such URL', featureUrls, { clause: 'END-IDENT-2' });
        if (JWT_LIKE.test(res.text))
          fail(`getIdentity (${who}) carries a token`, 'no token of the self-service feature', res.text.slice(0, 300), {
            clause: 'END-IDENT-2',
          });
      }
      expectBanner(ada, `customer ${ADA.sub}`);
      // The eligibility boolean: some boolean member that is true for Ada and false for Chloé.
      const chloeLeaves = new Map(leaves(chloe.body));
      const flips = leaves(ada.body).filter(([path, v]) => v === true && chloeLeaves.get(path) === false);
      if (flips.length === 0)
        fail(
          'getIdentity carries the self-service eligibility boolean',
          `a boolean member true for ${ADA.sub} and false for ${CHLOE.sub}`,
          `${ada.text.slice(0, 200)} / ${chloe.text.slice(0, 200)}`,
          { clause: 'END-IDENT-1' },
        );
    },
  ),
);

// The banner rule is about agent callers: every agent kind that reaches an identity read of Ada's account is judged on its
// own answer (the checkout list's invited agent and assistant, the latter directly and through the web agent forwarder),
// and the delegated caller, which the list refuses, is judged too wherever it is answered.
test(
  ...check(
    {
      id: 'endpoints.account.identity.agents',
      title:
        'the identity read of an account by each agent caller kind (invited agent, assistant, assistant browser session, delegated) carries the display name and no email',
      clauses: ['PUR-BANNER-1', 'PUR-BANNER-2', 'END-LIST-3', 'END-IDENT-1'],
      seed: true,
    },
    async (shop) => {
      const reads: [string, () => Promise<ShopResponse>, boolean][] = [];
      const caps = shop.profile.capabilities;
      if (caps.invitedAgents) {
        const inv = await invitedAgent(shop, { sub: ADA.sub });
        reads.push(['invited agent', () => shop.http.get('/v1/me/identity', { headers: inv.headers }), true]);
      }
      if (caps.assistants) {
        const agent = await AssistantAgent.create(shop, { sub: ADA.sub });
        reads.push(['assistant (DPoP)', async () => (await agent.get('/v1/me/identity')).res, true]);
        const headers = await forwardedBrowserHeaders(shop, agent.identity.sessionId);
        reads.push([
          "assistant (web agent forwarder with the agent's browser session)",
          () => shop.http.get('/v1/me/identity', { headers }),
          true,
        ]);
      }
      if (caps.delegated) {
        const token = await delegatedToken(shop, ADA.sub);
        reads.push(['delegated', () => shop.http.get('/v1/me/identity', { token }), false]);
      }
      if (reads.length === 0) return notApplicable('the profile claims no agent caller kind');
      // The eligibility boolean, where the customer's reads show it (true for Ada, false for Chloé): an agent's read of Ada's
      // account carries it too (the identity read returns it, whoever reads).
      // Reads only, each by a caller of its own (one request through the assistant's agent): the customers' reads and the
      // agents' (a case each) go at once, the agents' answers judged in their order.
      const [ada, chloe, answers] = await Promise.all([
        identityOf(shop, ADA.sub),
        identityOf(shop, CHLOE.sub),
        mapCases(reads, ([, read]) => read()),
      ]);
      const chloeLeaves = new Map(leaves(chloe.body));
      const flips = leaves(ada.body)
        .filter(([path, v]) => v === true && chloeLeaves.get(path) === false)
        .map(([path]) => path);
      for (const [i, [who, , listed]] of reads.entries()) {
        const res = answers[i]!;
        if (!is2xx(res)) {
          if (listed) failSoft(`getIdentity as ${who} (in the checkout list)`, '2xx', brief(res), { clause: 'END-LIST-3' });
          continue;
        }
        expectBanner(res, who);
        const mine = new Map(leaves(res.body));
        if (flips.length > 0 && !flips.some((path) => mine.get(path) === true))
          failSoft(
            `getIdentity as ${who}: the self-service eligibility boolean`,
            `${flips.join(' or ')}: true, as the customer reads it`,
            res.text.slice(0, 300),
            { clause: 'END-IDENT-1' },
          );
      }
    },
  ),
);
