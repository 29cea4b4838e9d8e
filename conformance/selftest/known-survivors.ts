// Narrowed variants (selftest/scoped.ts) known to survive against the embedded reference: each a check that judges its
// clause on part of its domain, with why (unreached: no check of the clause sends an exchange of that cell; otherwise the
// checks that reach the cell and miss the break). The self-test reports them as known survivors and does not fail for
// them; a check made to judge the whole domain kills its variant, the run says so ("Known survivors killed in this run"),
// and the entry goes. Reviewed like code: an entry is a known gap of the suite, not a waiver. Recorded from a full
// `self-test --scoped all` at the reference level.
export const KNOWN_SURVIVORS: Readonly<Record<string, string>> = {
  'endpoints.create-answers-200@operation=checkoutSavedCard':
    'purpose.checkout.idempotency.reference (failing on END-CONV-2), endpoints.checkout.saved-card.reference (failing on END-CONV-2) reach operation=checkoutSavedCard and miss the break',
  'endpoints.create-answers-200@operation=requestReturn': 'no check of END-CONV-1 sends an exchange in operation=requestReturn',
  'endpoints.identity-leaks-email@caller=assistant': 'no check of PUR-BANNER-2 sends an exchange in caller=assistant',
  'endpoints.identity-leaks-email@caller=invited-agent': 'no check of PUR-BANNER-2 sends an exchange in caller=invited-agent',
  'errors.domain-error-challenge@error=cart_changed': 'no check of ERR-PROBLEM-8 sends an exchange in error=cart_changed',
  'errors.domain-error-challenge@error=not_configured': 'no check of ERR-PROBLEM-8 sends an exchange in error=not_configured',
  'errors.domain-error-challenge@error=unavailable': 'no check of ERR-PROBLEM-8 sends an exchange in error=unavailable',
  'errors.domain-error-challenge@error=webhook_secret_missing':
    'no check of ERR-PROBLEM-8 sends an exchange in error=webhook_secret_missing',
  'errors.forbidden-body-not-problem@status=503': 'no check of ERR-PROBLEM-1 sends an exchange in status=503',
  'errors.no-store-dropped-on-auth-refusals@status=503': 'no check of ERR-PROBLEM-5 sends an exchange in status=503',
  'errors.percent-escape-500@status=402': 'no check of ERR-PROBLEM-1 sends an exchange in status=402',
  'errors.percent-escape-500@status=405': 'no check of ERR-PROBLEM-1 sends an exchange in status=405',
  'errors.percent-escape-500@status=409': 'no check of ERR-PROBLEM-1 sends an exchange in status=409',
  'errors.percent-escape-500@status=413': 'no check of ERR-PROBLEM-1 sends an exchange in status=413',
  'errors.percent-escape-500@status=422': 'no check of ERR-PROBLEM-1 sends an exchange in status=422',
  'errors.percent-escape-500@status=429': 'no check of ERR-PROBLEM-1 sends an exchange in status=429',
  'errors.percent-escape-500@status=431': 'no check of ERR-PROBLEM-1 sends an exchange in status=431',
  'errors.percent-escape-500@status=503': 'no check of ERR-PROBLEM-1 sends an exchange in status=503',
  'errors.problem-as-plain-json@status=503': 'no check of ERR-PROBLEM-4 sends an exchange in status=503',
  'errors.request-id-dropped-on-success@status=503': 'no check of ERR-PROBLEM-7 sends an exchange in status=503',
  'limits.client-budget-unenforced@group=conversation': 'no check of LIM-RATE-3 sends an exchange in group=conversation',
  'limits.dpop-nonce-after-authentication-only@status=402': 'no check of AUTH-ORDER-4 sends an exchange in status=402',
  'limits.dpop-nonce-after-authentication-only@status=503': 'no check of AUTH-ORDER-4 sends an exchange in status=503',
  'limits.dpop-nonce-only-on-failures@status=402': 'no check of AUTH-ORDER-4 sends an exchange in status=402',
  'limits.dpop-nonce-only-on-failures@status=503': 'no check of AUTH-ORDER-4 sends an exchange in status=503',
  'limits.rate-limited-without-retry-after@caller=assistant': 'no check of LIM-RATE-4 sends an exchange in caller=assistant',
  'limits.request-id-dropped-on-failures@status=503': 'no check of AUTH-ORDER-2 sends an exchange in status=503',
  'limits.session-budget-unenforced@group=conversation': 'no check of LIM-RATE-2 sends an exchange in group=conversation',
  'purpose.banner-leaks-phone@caller=assistant': 'no check of PUR-BANNER-1 sends an exchange in caller=assistant',
  'purpose.banner-leaks-phone@caller=invited-agent': 'no check of PUR-BANNER-1 sends an exchange in caller=invited-agent',
  'strength.guest-rate-per-path@operation=addCartItem': 'limits.rate.guest reach operation=addCartItem and miss the break',
  'strength.guest-rate-per-path@operation=getCart': 'limits.rate.guest reach operation=getCart and miss the break',
  'strength.guest-rate-per-path@operation=getMe': 'no check of LIM-RATE-1 sends an exchange in operation=getMe',
  'strength.guest-rate-per-path@operation=listCollections': 'no check of LIM-RATE-1 sends an exchange in operation=listCollections',
  'strength.guest-rate-per-path@operation=removeCartItem': 'no check of LIM-RATE-1 sends an exchange in operation=removeCartItem',
  'strength.guest-rate-per-path@operation=searchProducts': 'limits.rate.guest reach operation=searchProducts and miss the break',
  'strength.guest-rate-per-path@operation=updateCartItem': 'no check of LIM-RATE-1 sends an exchange in operation=updateCartItem',
  'strength.guest-rate-per-prefix@operation=getMe': 'no check of LIM-RATE-1 sends an exchange in operation=getMe',
  'strength.guest-rate-per-prefix@operation=listCollections': 'no check of LIM-RATE-1 sends an exchange in operation=listCollections',
  'strength.guest-rate-per-prefix@operation=removeCartItem': 'no check of LIM-RATE-1 sends an exchange in operation=removeCartItem',
  'strength.guest-rate-per-prefix@operation=updateCartItem': 'no check of LIM-RATE-1 sends an exchange in operation=updateCartItem',
  // Blind-written defects that survive the merged library (found by the full self-test; a gap of the checks, kept in the
  // library unweakened until a check kills it).
  'blind.resources.issues-21':
    'the reference never answers 20 issues, so no request of the suite provokes a validation problem the break applies to',
  'blind.endpoints.return-no-location':
    "needs a delivered order of the caller's own to return; the suite can place orders but not deliver them, and returning a seed order would change the seed",
  'blind.endpoints.recovery-pending-as-200':
    'at the spec level a deployment that runs two resumptions one at a time answers each 200 pending, as the defect does (its library twin is reference-only); killed at the reference level',
  // Variants of the merged library's newer defects, found by the seeded sample (seed 1): most are cells the defect's rule
  // never touches (a rule about 404 narrowed to 429), which the domain data does not yet exclude.
  'blind.endpoints.orders-no-cache@operation=createCheckoutPreview':
    'END-CONV-9 broken for operation=createCheckoutPreview only: survived (no check reached the cell) (seeded sample, seed 1)',
  'blind.errors.no-store-missing-on-404@status=429':
    'ERR-PROBLEM-5 broken for status=429 only: survived (no check reached the cell) (seeded sample, seed 1)',
  'errors.no-store-dropped-on-400@status=429':
    'ERR-PROBLEM-5 broken for status=429 only: survived (no check reached the cell) (seeded sample, seed 1)',
  'errors.no-store-dropped-on-400@status=503':
    'ERR-PROBLEM-5 broken for status=503 only: survived (no check reached the cell) (seeded sample, seed 1)',
  'errors.no-store-dropped-on-422@group=public':
    'ERR-PROBLEM-5 broken for group=public only: survived (no check reached the cell) (seeded sample, seed 1)',
  'errors.webhook-refusal-not-problem@status=429':
    'ERR-PROBLEM-1 broken for status=429 only: survived (no check reached the cell) (seeded sample, seed 1)',
  'errors.webhook-refusal-not-problem@status=503':
    'ERR-PROBLEM-1 broken for status=503 only: survived (no check reached the cell) (seeded sample, seed 1)',
};
