// Blind defects of "Endpoints" (spec part 4): conventions (201, Location, 204, caching, 304), the public routes, the caller
// lists and the recovery endpoint, each broken on one route or for one caller kind.
import { readFileSync } from 'node:fs';
import { signPayload } from '../../../lib/stripe-signature.js';
import { editJson, headerOf, mapHeader, pathOf, problemAnswer, withHeader, withoutHeader } from '../helpers.js';
import { lenient, wire, wireWith, type Defect } from '../types.js';
import { bearerOf, fixtureSeedFile, isCode, isDpop, isOperation, kindOf, scopesOf, subOf, withStatus } from './shared.js';

/** Purpose of each recovery operation the deployment holds: the profile's, plus the fixture seed's. */
function recoveryPurposes(
  data: { recoveryOperations?: Record<string, { operationId: string; purpose: string }> | null } | null | undefined,
) {
  const out = new Map<string, string>();
  try {
    const seed = JSON.parse(readFileSync(fixtureSeedFile(), 'utf8')) as {
      recoveryOperations?: { operationId: string; purpose: string }[];
    };
    for (const o of seed.recoveryOperations ?? []) out.set(o.operationId, o.purpose);
  } catch {
    // No seed beside the package: the profile's operations only.
  }
  for (const o of Object.values(data?.recoveryOperations ?? {})) out.set(o.operationId, o.purpose);
  return out;
}

export const BLIND_ENDPOINTS_DEFECTS: readonly Defect[] = [
  // "creates answer 201 with a `Location` header where a GET URL exists". Broken on checkoutSavedCard: 200.
  wire('blind.endpoints.checkout-200', 'END-CONV-1', 'checkoutSavedCard answers 200 instead of 201', (a, r) =>
    isOperation(r, 'checkoutSavedCard') && a.status === 201 ? { ...a, status: 200 } : a,
  ),
  // Same sentence. Broken on requestReturn only (its order has a GET URL): the 201 has no Location.
  wire('blind.endpoints.return-no-location', 'END-CONV-2', 'requestReturn answers 201 without Location', (a, r) =>
    isOperation(r, 'requestReturn') && a.status === 201 ? { ...a, headers: withoutHeader(a.headers, 'location') } : a,
  ),
  // "deletes answer 204". Broken on deleteAddress only: 200 with a small JSON body.
  wire('blind.endpoints.delete-address-200', 'END-CONV-3', 'deleteAddress answers 200 {"deleted": true} instead of 204', (a, r) =>
    isOperation(r, 'deleteAddress') && a.status === 204
      ? {
          ...a,
          status: 200,
          headers: [...withoutHeader(a.headers, 'content-type'), ['Content-Type', 'application/json']],
          body: '{"deleted":true}',
        }
      : a,
  ),
  // "Catalog GETs carry a weak `ETag`". Broken on getProduct only: the ETag is strong.
  wire('blind.endpoints.product-strong-etag', 'END-CONV-6', 'getProduct carries a strong ETag', (a, r) =>
    isOperation(r, 'getProduct') ? { ...a, headers: mapHeader(a.headers, 'etag', (v) => v.replace(/^W\//, '')) } : a,
  ),
  // "Catalog GETs carry ... `Cache-Control: private, no-cache`". Broken on listCollections: private, max-age=60.
  wire('blind.endpoints.collections-max-age', 'END-CONV-7', 'listCollections carries Cache-Control: private, max-age=60', (a, r) =>
    isOperation(r, 'listCollections') && a.status < 400
      ? { ...a, headers: withHeader(a.headers, 'Cache-Control', 'private, max-age=60') }
      : a,
  ),
  // "a GET whose `ETag` matches `If-None-Match` answers 304". Broken on searchProducts: the condition is ignored.
  lenient('blind.endpoints.search-ignores-if-none-match', 'END-CONV-8', 'searchProducts ignores If-None-Match (always 200)', () => ({
    request: (r) => (isOperation(r, 'searchProducts') ? { ...r, headers: withoutHeader(r.headers, 'if-none-match') } : r),
  })),
  // "All other responses default to `Cache-Control: no-store`." Broken on checkoutSavedCard's 201: Cache-Control: private.
  wire('blind.endpoints.checkout-cache-private', 'END-CONV-9', "checkoutSavedCard's 201 carries Cache-Control: private", (a, r) =>
    isOperation(r, 'checkoutSavedCard') && a.status === 201 ? { ...a, headers: withHeader(a.headers, 'Cache-Control', 'private') } : a,
  ),
  // Same sentence. Broken on listOrders: its 200 is revalidated like a catalog read (private, no-cache).
  wire('blind.endpoints.orders-no-cache', 'END-CONV-9', 'listOrders carries Cache-Control: private, no-cache', (a, r) =>
    isOperation(r, 'listOrders') && a.status === 200 ? { ...a, headers: withHeader(a.headers, 'Cache-Control', 'private, no-cache') } : a,
  ),
  // "`GET /assistant/openapi.json` | none | cached 300 seconds". Broken: max-age=60.
  wire('blind.endpoints.assistant-doc-60', 'END-PUBLIC-5', '/assistant/openapi.json is cached 60 seconds', (a, r) =>
    pathOf(r) === '/assistant/openapi.json' && a.status === 200
      ? { ...a, headers: withHeader(a.headers, 'Cache-Control', 'public, max-age=60') }
      : a,
  ),
  // "`POST /webhooks/stripe` | provider signature over the raw body; never a bearer". Broken: a delivery with a bearer
  // token and no signature is taken as authenticated (the server signs it for itself).
  lenient(
    'blind.endpoints.webhook-bearer',
    'END-PUBLIC-7',
    'the webhook accepts a bearer token in place of the provider signature',
    (ctx) => ({
      requestBody(r, body) {
        const secret = ctx.profile.secrets.stripeWebhookSecret;
        if (pathOf(r) !== '/webhooks/stripe' || !secret || !bearerOf(r) || headerOf(r.headers, 'stripe-signature') !== undefined)
          return body;
        return { body, headers: [...r.headers, ['Stripe-Signature', signPayload(body, secret)]] };
      },
    }),
  ),
  // "`POST /internal/account/recover` | bearer `ACCOUNT_RECOVERY_SECRET` | ... only this credential is accepted". Broken:
  // the conversation hub's secret opens it too.
  lenient('blind.endpoints.recovery-hub-secret', 'END-PUBLIC-18', "the recovery endpoint accepts the conversation hub's secret", (ctx) => ({
    request(r) {
      const { conversationHubSecret: hub, accountRecoverySecret: own } = ctx.profile.secrets;
      if (pathOf(r) !== '/internal/account/recover' || !hub || !own || bearerOf(r) !== hub) return r;
      return { ...r, headers: withHeader(r.headers, 'Authorization', `Bearer ${own}`) };
    },
  })),
  // "It checks ownership, purpose and the persisted phase." Broken: the purpose is not checked (taken from the operation).
  lenient('blind.endpoints.recovery-purpose-unchecked', 'END-RECOVERY-2', 'the recovery endpoint ignores a wrong purpose', (ctx) => {
    const purposes = recoveryPurposes(ctx.profile.data);
    return {
      requestBody(r, body) {
        if (pathOf(r) !== '/internal/account/recover') return body;
        try {
          const v = JSON.parse(body) as Record<string, unknown>;
          const right = typeof v.operationId === 'string' ? purposes.get(v.operationId) : undefined;
          if (!right || (v.purpose !== 'email' && v.purpose !== 'delete') || v.purpose === right) return body;
          return JSON.stringify({ ...v, purpose: right });
        } catch {
          return body;
        }
      },
    };
  }),
  // Caller lists: "checkout | `customer`, `invited-agent`, `assistant`". Broken on getCheckoutMethods: a delegated caller
  // is served (as the customer it acts for).
  lenient('blind.endpoints.checkout-methods-delegated', 'END-LIST-3', 'getCheckoutMethods admits a delegated caller', (ctx) => ({
    async request(r) {
      const sub = subOf(r);
      if (!isOperation(r, 'getCheckoutMethods') || kindOf(ctx.profile, r) !== 'delegated' || !sub) return r;
      return { ...r, headers: withHeader(r.headers, 'Authorization', `Bearer ${await ctx.mint.customer({ sub })}`) };
    },
  })),
  // Caller lists: "agent checkout | `delegated`, `invited-agent`, `assistant`". Broken: a signed-in customer may check
  // out with a saved card (served as a delegated caller of its own account).
  lenient('blind.endpoints.checkout-by-customer', 'END-LIST-4', 'checkoutSavedCard admits a customer', (ctx) => ({
    async request(r) {
      const sub = subOf(r);
      if (!isOperation(r, 'checkoutSavedCard') || kindOf(ctx.profile, r) !== 'customer' || !sub) return r;
      const scope = [...new Set([...scopesOf(r), 'checkout'])];
      const token = await ctx.mint.delegated({ sub, channel: 'openapi', scope });
      return { ...r, headers: withHeader(r.headers, 'Authorization', `Bearer ${token}`) };
    },
  })),
  // "`/v1/ops/*` is operator-only". Broken on the operator order list: a customer token reads it.
  lenient('blind.endpoints.ops-orders-customer', 'PUR-RULE-3', 'GET /v1/ops/orders admits a customer token', (ctx) => ({
    async request(r) {
      if (r.method !== 'GET' || pathOf(r) !== '/v1/ops/orders' || kindOf(ctx.profile, r) !== 'customer') return r;
      const headers = withHeader(r.headers, 'Authorization', `Bearer ${await ctx.mint.operator()}`);
      return { ...r, headers: withHeader(headers, 'Operator', subOf(r) ?? 'customer') };
    },
  })),
  // "`GET /health` | none". Broken: without a token, health answers 401.
  wireWith(
    'blind.endpoints.health-needs-token',
    'END-PUBLIC-1',
    'GET /health without Authorization answers 401',
    (ctx) => (a, r) =>
      pathOf(r) === '/health' && headerOf(r.headers, 'authorization') === undefined
        ? problemAnswer(ctx, a, 401, 'invalid_token', 'Unauthorized', [['WWW-Authenticate', 'Bearer error="invalid_token"']])
        : a,
  ),
  // "`POST /internal/assistant/agents/connected` | header `X-Proxy-Idp-Secret`". Broken: without the header the report is
  // taken (as if the proxy had sent it).
  lenient(
    'blind.endpoints.agents-connected-without-secret',
    'END-PUBLIC-12',
    'agents/connected without X-Proxy-Idp-Secret is accepted',
    (ctx) => ({
      request(r) {
        const secret = ctx.profile.secrets.proxyIdpSecret;
        if (pathOf(r) !== '/internal/assistant/agents/connected' || !secret || headerOf(r.headers, 'x-proxy-idp-secret') !== undefined)
          return r;
        return { ...r, headers: [...r.headers, ['X-Proxy-Idp-Secret', secret]] };
      },
    }),
  ),
  // "Account data routes under `/v1/me/*` return data of the authenticated account only; every row is scoped by
  // ownership". Broken on deleteAddress: deleting an address the account does not own answers 204 (nothing is deleted).
  wire('blind.endpoints.delete-foreign-address-204', 'END-ME-2', "deleting another account's address answers 204", (a, r) =>
    isOperation(r, 'deleteAddress') && a.status === 404
      ? {
          status: 204,
          headers: a.headers
            .filter(([k]) => /^(x-request-id|date|traceparent|dpop-nonce)$/i.test(k))
            .concat([['Cache-Control', 'no-store']]),
          body: '',
        }
      : a,
  ),
  // "The identity read returns, among its data, a boolean telling whether the canonical database identity is eligible".
  // Broken for assistant callers: the boolean is left out.
  wire(
    'blind.endpoints.identity-no-eligibility-for-assistant',
    'END-IDENT-1',
    'the identity read to an assistant lacks the eligibility boolean',
    (a, r) =>
      isOperation(r, 'getIdentity') && a.status === 200 && isDpop(r)
        ? editJson(a, (b) => {
            for (const [k, v] of Object.entries(b)) if (typeof v === 'boolean') delete b[k];
          })
        : a,
  ),
  // "no such token, URL or transport passes through the service". Broken for customers: the identity read carries the
  // self-service feature's URL.
  wireWith(
    'blind.endpoints.identity-self-service-url',
    'END-IDENT-2',
    "the customer's identity read carries the self-service account URL",
    (ctx) => (a, r) =>
      isOperation(r, 'getIdentity') && a.status === 200 && kindOf(ctx.profile, r) === 'customer'
        ? editJson(a, (b) => void (b.self_service_url = `${new URL(ctx.profile.issuer).origin}/account/self-service`))
        : a,
  ),
  // Recovery results: "| 401 | recovery credential missing or wrong |". Broken for a wrong credential: 403.
  wire('blind.endpoints.recovery-wrong-secret-403', 'END-RECOVERY-11', 'a wrong recovery credential is answered 403', (a, r) =>
    pathOf(r) === '/internal/account/recover' && a.status === 401 && headerOf(r.headers, 'authorization') !== undefined
      ? withStatus(a, 403)
      : a,
  ),
  // Recovery results: "| 409 `recovery_pending` | recovery still incomplete |". Broken: 200 with status pending.
  wire(
    'blind.endpoints.recovery-pending-as-200',
    'END-RECOVERY-13',
    'an incomplete recovery answers 200 {status: pending} instead of 409',
    (a, r) =>
      pathOf(r) === '/internal/account/recover' && isCode(a, 'recovery_pending')
        ? {
            status: 200,
            headers: [...a.headers.filter(([k]) => !/^content-type$/i.test(k)), ['Content-Type', 'application/json']],
            body: JSON.stringify({ status: 'pending', operationId: 'unknown' }),
          }
        : a,
  ),
  // "creates answer 201". Broken on addCartItem for guests only (the guest cart's own branch): 200 with the cart.
  wireWith(
    'blind.endpoints.guest-add-item-200',
    'END-CONV-1',
    'addCartItem by a guest answers 200 instead of 201',
    (ctx) => (a, r) =>
      isOperation(r, 'addCartItem') && a.status === 201 && kindOf(ctx.profile, r) === 'guest' ? { ...a, status: 200 } : a,
  ),
  // "creates answer 201 with a `Location` header where a GET URL exists". Broken on the conversation opening (a
  // conversation has its GET URL): the 201 has no Location.
  wire('blind.endpoints.open-conversation-no-location', 'END-CONV-2', 'opening a conversation answers 201 without Location', (a, r) =>
    r.method === 'POST' && pathOf(r).replace(/\/$/, '') === '/assistant/conversations' && a.status === 201
      ? { ...a, headers: withoutHeader(a.headers, 'location') }
      : a,
  ),
  // "deletes answer 204". Broken on removeCartItem: the framework's `sendStatus(200)`, a text/plain "OK".
  wire('blind.endpoints.remove-item-200-ok', 'END-CONV-3', 'removeCartItem answers 200 text/plain "OK" instead of 204', (a, r) =>
    isOperation(r, 'removeCartItem') && a.status === 204
      ? {
          ...a,
          status: 200,
          headers: [...withoutHeader(a.headers, 'content-type'), ['Content-Type', 'text/plain; charset=utf-8']],
          body: 'OK',
        }
      : a,
  ),
  // "All other responses default to `Cache-Control: no-store`." Broken on GET /health: no-cache (revalidated, but stored).
  wire('blind.endpoints.health-no-cache', 'END-CONV-9', 'GET /health carries Cache-Control: no-cache', (a, r) =>
    pathOf(r) === '/health' && a.status < 400 ? { ...a, headers: withHeader(a.headers, 'Cache-Control', 'no-cache') } : a,
  ),
  // Same sentence. Broken on the webhook's 200 (mounted before the request stage): no Cache-Control.
  wire('blind.endpoints.webhook-200-no-cache-control', 'END-CONV-9', "the webhook's 200 carries no Cache-Control", (a, r) =>
    pathOf(r) === '/webhooks/stripe' && a.status === 200 ? { ...a, headers: withoutHeader(a.headers, 'cache-control') } : a,
  ),
  // Same sentence. Broken on the operator reads: Cache-Control: private, max-age=30.
  wire('blind.endpoints.ops-reads-private', 'END-CONV-9', 'GET /v1/ops/* answers carry Cache-Control: private, max-age=30', (a, r) =>
    r.method === 'GET' && pathOf(r).startsWith('/v1/ops/') && a.status < 400
      ? { ...a, headers: withHeader(a.headers, 'Cache-Control', 'private, max-age=30') }
      : a,
  ),
  // Same sentence. Broken on 204 answers (the framework drops the headers of an empty answer): no Cache-Control.
  wire('blind.endpoints.no-content-no-cache-control', 'END-CONV-9', '204 answers carry no Cache-Control', (a) =>
    a.status === 204 ? { ...a, headers: withoutHeader(a.headers, 'cache-control') } : a,
  ),
  // "creates answer 201". Broken on addAddress for delegated callers only (the agent-protocol branch): 200.
  wireWith(
    'blind.endpoints.delegated-add-address-200',
    'END-CONV-1',
    'addAddress by a delegated caller answers 200 instead of 201',
    (ctx) => (a, r) =>
      isOperation(r, 'addAddress') && a.status === 201 && kindOf(ctx.profile, r) === 'delegated' ? { ...a, status: 200 } : a,
  ),
  // "creates answer 201 with a `Location` header where a GET URL exists". Broken on requestReturn for assistants only.
  wire(
    'blind.endpoints.assistant-return-no-location',
    'END-CONV-2',
    'requestReturn by an assistant answers 201 without Location',
    (a, r) =>
      isOperation(r, 'requestReturn') && a.status === 201 && isDpop(r) ? { ...a, headers: withoutHeader(a.headers, 'location') } : a,
  ),
];
