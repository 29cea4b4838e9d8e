// Spec part 4, Endpoints (checkout), with the `cart_empty` row of part 7: the two checkout operations
// (createCheckoutPreview, checkoutSavedCard), their callers and scope, and the empty-cart refusal. The orders the
// reference places are checked in 04-endpoints.checkout.saved-card; "there is no request idempotency" (part 1, rule 6) in
// 01-purpose.idempotency.
//
// Data. Placing an order needs a saved card, which a fresh subject does not have, so checks that reach the cart use the
// seed's checkout accounts (docs/seed.md, `CHECKOUT_ACCOUNTS` of _shared/seed-data.ts): ONE account per check, so that
// parallel checks never share a cart; every check empties its account's cart first and leaves it empty, so a re-run gives
// the same verdict.
//
// Levels. The spec shows no payload shapes: the checkout body is the target's own, learned from its description
// documents, and a 400 to it fails checkoutSavedCard's clause; a check fails only on what the spec says. The
// preview's callers and scopes are not shown either, so its caller matrix is reference-level. Delegated tokens use the API
// audience (channel openapi); customers may not call these operations.
import { judgeCases, mapCases } from '../engine/runner/cases.js';
import { check, test, type Shop } from '../engine/runner/check.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { KINDS, type Kind } from '../lib/callers.js';
import { brief, expectNoHeader, expectProblem, fail, expectNoServerError } from '../lib/assert.js';
import { credentialsFor, guardRefused, unknownScopeRefusal } from './_shared/caller-guard.js';
import { emptyCart } from './_shared/cart-lines.js';
import { customerToken, delegatedToken } from '../lib/callers.js';
import { CHECKOUT, checkout, checkoutBody, PREVIEW } from './_shared/place-order.js';
import { ABSENT_IDS, CHECKOUT_ACCOUNTS } from './_shared/seed-data.js';
import { describeUnmatched, looksUnmatched, probeUnmatched } from '../lib/routes.js';
import { answersAsNoRoute, noRouteAnswers, type Who } from './_shared/probe-routes.js';

// --- callers and scope ------------------------------------------------------------------------------------------------

const AGENT_CHECKOUT: readonly Kind[] = ['delegated'];

/**
 * Each kind the profile claims: the agent-checkout list passes the guard, every other kind gets 403 caller_not_allowed.
 * When every kind, members and others, gets the answer of no route, the refusals the lists require are missing because
 * the operation is not served: its row's clause is blamed with the list's. Every token carries the operation's API scopes
 * (the guard's checks are not ordered: only the caller refusal may apply).
 */
async function callerMatrix(
  shop: Shop,
  operationId: string,
  path: string,
  json: unknown,
  opClause: string,
  { reference = false } = {},
): Promise<void> {
  const tried: [Kind, Who][] = [];
  for (const { kind, capability } of KINDS) {
    if (capability && !shop.profile.capabilities[capability]) {
      shop.info.annotations.push({ type: 'note', description: `${kind} not tried: the profile does not claim "${capability}"` });
      continue;
    }
    tried.push([kind, await credentialsFor(shop, kind, [operationId])]);
  }
  // Each kind is a fresh subject of its own, refused or answered for an empty cart: a case each. Whether every kind got the
  // answer of no route is then asked in the kinds' order, a probe only while it still may be so.
  const sent = await mapCases(tried, ([, who]) => shop.http.post(path, { ...who, json }));
  const answers: [Kind, ShopResponse][] = tried.map(([kind], i) => [kind, sent[i]!]);
  let unserved = true;
  for (const [i, [, who]] of tried.entries()) unserved &&= await answersAsNoRoute(shop, sent[i]!, { method: 'POST', path, who, json });
  for (const [kind, res] of answers) {
    // At the reference level the reference's scopes are the ones judged: no refusal for a missing scope is accepted.
    if (!reference && unknownScopeRefusal(shop, res, operationId, kind)) continue;
    if (AGENT_CHECKOUT.includes(kind)) {
      // Past the guard: anything but the guard's refusals (401, 403 caller_not_allowed or insufficient_scope). A later
      // stage's answer counts as admitted: 422 cart_empty for its empty cart, or a handler's 403 for a card that is not
      // its account's, where the handler looks at the card before the cart.
      if (guardRefused(res))
        fail(
          `${kind} on ${path} (in the agent-checkout list) must pass the guard`,
          'not 401, not 403 caller_not_allowed/insufficient_scope',
          `${res.status} ${String(res.body?.error ?? '')}`,
          { clause: opClause },
        );
    } else {
      const clause = kind === 'operator' ? 'END-LIST-5' : 'END-LIST-4';
      if (unserved)
        fail(
          `${kind} on ${path} (outside the agent-checkout list): every caller kind is answered as on a path no service has`,
          '403 caller_not_allowed from a served route',
          noRouteAnswers(answers),
          { clause: [clause, opClause] },
        );
      expectProblem(res, { status: 403, error: 'caller_not_allowed', docsUrl: shop.docsUrl, clause });
      expectNoHeader(res, 'www-authenticate', { what: `WWW-Authenticate on caller_not_allowed (${kind})`, clause: 'ERR-TABLE-8' });
    }
  }
}

test(
  ...check(
    {
      id: 'endpoints.checkout.callers.checkoutSavedCard',
      title:
        'checkoutSavedCard (POST /v1/checkouts/saved-card) admits the agent-checkout list; customer, guest and operator get 403 caller_not_allowed',
      clauses: ['END-OPS-CHECKOUTSAVEDCARD-1', 'END-LIST-4', 'END-LIST-5', 'PUR-RULE-2', 'ERR-TABLE-8'],
      // The guard answers before any lookup; the delegated caller is a fresh subject with an empty cart.
    },
    async (shop) => {
      await callerMatrix(shop, 'checkoutSavedCard', CHECKOUT, checkoutBody(CHECKOUT_ACCOUNTS[1].card), 'END-OPS-CHECKOUTSAVEDCARD-1');
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.checkout.callers.createCheckoutPreview.reference',
      title:
        "createCheckoutPreview admits the agent-checkout list (the reference's choice); customer, guest and operator get 403 caller_not_allowed",
      clauses: ['END-OPS-CREATECHECKOUTPREVIEW-1', 'END-LIST-4', 'END-LIST-5', 'ERR-TABLE-8'],
      level: 'reference',
    },
    async (shop) => {
      await callerMatrix(shop, 'createCheckoutPreview', PREVIEW, {}, 'END-OPS-CREATECHECKOUTPREVIEW-1', { reference: true });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.checkout.preview-route',
      title: "createCheckoutPreview is served at POST /v1/checkout-previews: an agent's request is not answered 404 or 405",
      clauses: ['END-OPS-CREATECHECKOUTPREVIEW-1', 'PUR-SERVE-3'],
      requires: ['delegated'],
    },
    async (shop) => {
      // Two fresh subjects, each with an empty cart: a case each. The probe of a path no service has needs nothing of the
      // answer: a case's request and probe go at once.
      const tokens = [await delegatedToken(shop, shop.subject('cust')), await customerToken(shop)];
      await judgeCases(tokens, async (token) => {
        const [res, unmatched] = await Promise.all([
          shop.http.post(PREVIEW, { token, json: {} }),
          probeUnmatched((path) => shop.http.post(path, { token, json: {} }), PREVIEW, shop.subject()),
        ]);
        if (looksUnmatched(res, unmatched))
          fail(
            'POST /v1/checkout-previews is a route of the service',
            `not an unmatched-route answer (${describeUnmatched(unmatched)})`,
            brief(res),
            // The preview unserved is the operation's route missing and the service not serving previews.
            { clause: ['END-OPS-CREATECHECKOUTPREVIEW-1', 'PUR-SERVE-3'] },
          );
        expectNoServerError(res, { what: 'POST /v1/checkout-previews', clause: 'PUR-SERVE-3' });
      });
    },
  ),
);

/** The refusal of a token without the API scope checkout: 403 insufficient_scope naming it (ERR-TABLE-9). */
const expectCheckoutScopeMissing = (shop: Shop, res: ShopResponse) =>
  expectProblem(res, { status: 403, error: 'insufficient_scope', scope: 'checkout', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-9' });

test(
  ...check(
    {
      id: 'endpoints.checkout.scope',
      title: 'checkoutSavedCard needs the API scope checkout: a delegated token without it gets 403 insufficient_scope naming checkout',
      clauses: ['END-OPS-CHECKOUTSAVEDCARD-1', 'AUTH-SCOPE-2', 'ERR-TABLE-9'],
      requires: ['delegated'],
    },
    async (shop) => {
      const token = await delegatedToken(
        shop,
        shop.subject('cust'),
        'catalog:read cart:read cart:write account:read payment_methods:read orders:read',
      );
      expectCheckoutScopeMissing(shop, await shop.http.post(CHECKOUT, { token, json: checkoutBody(CHECKOUT_ACCOUNTS[1].card) }));
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.checkout.scope.preview.reference',
      title:
        "createCheckoutPreview needs the API scope checkout (the reference's choice): without it, 403 insufficient_scope naming checkout",
      clauses: ['END-OPS-CREATECHECKOUTPREVIEW-1', 'AUTH-SCOPE-2', 'ERR-TABLE-9'],
      level: 'reference',
      requires: ['delegated'],
    },
    async (shop) => {
      const token = await delegatedToken(shop, shop.subject('cust'), 'catalog:read cart:read cart:write');
      expectCheckoutScopeMissing(shop, await shop.http.post(PREVIEW, { token, json: {} }));
    },
  ),
);

// --- cart_empty -------------------------------------------------------------------------------------------------------

test(
  ...check(
    {
      id: 'endpoints.errors.checkout.cart-empty',
      title: 'a saved-card checkout of a cart with no lines is 422 cart_empty (an account with a saved card and an address)',
      clauses: ['ERR-TABLE-14', 'PUR-SERVE-3'],
      requires: ['delegated'],
      seed: true,
    },
    async (shop) => {
      // Checkout account 8 is this check's: nothing ever fills its cart, but a deployment may keep state, so empty it first.
      const token = await delegatedToken(shop, CHECKOUT_ACCOUNTS[8].sub);
      await emptyCart(shop, token);
      const res = await checkout(shop, token, checkoutBody(CHECKOUT_ACCOUNTS[8].card));
      // Its row's status and code; the problem document's own headers (no-store) are judged on their clauses, softly.
      expectProblem(res, { status: 422, error: 'cart_empty', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-14' });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.errors.checkout.cart-empty.reference',
      title:
        'a fresh agent subject (empty cart, no card, no address) gets 422 cart_empty from both the preview and the checkout: the cart is checked first',
      clauses: ['ERR-TABLE-14', 'END-OPS-CREATECHECKOUTPREVIEW-1'],
      level: 'reference',
      requires: ['delegated'],
    },
    async (shop) => {
      const token = await delegatedToken(shop, shop.subject('cust'));
      // Both refused for the empty cart, neither writes: they go at once, judged in turn.
      const [preview, placed] = await Promise.all([
        shop.http.post(PREVIEW, { token, json: {} }),
        shop.http.post(CHECKOUT, { token, json: checkoutBody(ABSENT_IDS.card) }),
      ]);
      expectProblem(preview, {
        status: 422,
        error: 'cart_empty',
        docsUrl: shop.docsUrl,
        clause: 'ERR-TABLE-14',
      });
      expectProblem(placed, {
        status: 422,
        error: 'cart_empty',
        docsUrl: shop.docsUrl,
        clause: 'ERR-TABLE-14',
      });
    },
  ),
);
