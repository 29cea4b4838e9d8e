// Requests to the account recovery endpoint (POST /internal/account/recover) with its bearer credential, and what the
// spec says of their answers (Resources > Account recovery request; Endpoints > Recovery endpoint results).
import { notApplicable, type Shop } from '../../engine/runner/check.js';
import type { ShopResponse } from '../../engine/transport/http.js';
import { type ClauseRef, expectProblem, inCase } from '../../lib/assert.js';
import { freshId } from '../../lib/fresh-id.js';
import { bearer } from '../../lib/internal-routes.js';
import { RECOVERY_OPERATIONS } from './seed-data.js';
import { SPECIAL_PATHS } from '../../../contract/routes.js';

export const RECOVER = SPECIAL_PATHS.recoverAccount;

/** A well-formed request for an operation that exists nowhere. */
export const unknownOperation = (purpose: 'email' | 'delete' = 'email') => ({
  subject: freshId('chk'),
  operationId: freshId('recop'),
  purpose,
});

/** The recovery secret, or a not-applicable end when the profile has none (then the route is closed). */
export function recoverySecret(shop: Shop): string {
  const secret = shop.profile.secrets.accountRecoverySecret;
  if (secret === null) notApplicable('the profile claims recovery but has no accountRecoverySecret');
  return secret!;
}

/** POSTs `body` to the recovery endpoint, with its own credential unless `headers` are given. */
export const recover = (shop: Shop, body: unknown, headers: Record<string, string> = bearer(recoverySecret(shop))) =>
  shop.http.post(RECOVER, { headers, json: body });

/** The request is refused as invalid: 400 invalid_request. */
export async function expectInvalidRecovery(
  shop: Shop,
  body: unknown,
  { what, clause }: { what: string; clause: ClauseRef },
): Promise<void> {
  const res = await recover(shop, body);
  inCase(what, () => expectProblem(res, { status: 400, error: 'invalid_request', docsUrl: shop.docsUrl, clause }));
}

/** The request reaches the lookup and finds no resumable authorization: 404 recovery_not_found. */
export async function expectRecoveryNotFound(shop: Shop, body: unknown, { what, clause }: { what: string; clause: string }): Promise<void> {
  const res = await recover(shop, body);
  inCase(what, () => expectProblem(res, { status: 404, error: 'recovery_not_found', docsUrl: shop.docsUrl, clause }));
}

/** Resumes the provider-pending operation; a concurrent resumption by another check may hold it: retry on 409 recovery_pending. */
export async function resumeProviderPending(shop: Shop): Promise<ShopResponse> {
  let res = await recover(shop, RECOVERY_OPERATIONS.providerPending);
  for (let i = 0; i < 5 && res.status === 409 && res.body?.error === 'recovery_pending'; i++) {
    await new Promise((r) => setTimeout(r, 200));
    res = await recover(shop, RECOVERY_OPERATIONS.providerPending);
  }
  return res;
}
