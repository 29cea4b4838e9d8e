// Blind defects of "States and transitions" (spec part 3): one lifecycle state or one recovery status answered wrongly.
import { editJson, notAStream, pathOf, withoutHeader } from '../helpers.js';
import { wire, wireWith, type Defect } from '../types.js';
import { endedAccounts, isCode, statefulWire, subOf, withCode, withStatus } from './shared.js';

export const BLIND_STATES_DEFECTS: readonly Defect[] = [
  // "An account in any of these three is refused with 401 `account_access_ended`". Broken for `deleting` only: 403.
  wireWith(
    'blind.states.deleting-403',
    'STA-LIFE-1',
    'an account in state deleting is refused with 403, not 401',
    (ctx) => (a, r) => (isCode(a, 'account_access_ended') && subOf(r) === endedAccounts(ctx.profile).deleting ? withStatus(a, 403) : a),
  ),
  // Same sentence. Broken for `deleted` only: the code is `account_deleted`.
  wireWith(
    'blind.states.deleted-code',
    'STA-LIFE-2',
    'an account in state deleted is refused with error account_deleted',
    (ctx) => (a, r) =>
      isCode(a, 'account_access_ended') && subOf(r) === endedAccounts(ctx.profile).deleted ? withCode(ctx, a, 'account_deleted') : a,
  ),
  // Errors table: "ended account access | 401 | `account_access_ended` | `invalid_token` challenge". Broken for
  // `contact_transition` only: the refusal carries no challenge.
  wireWith(
    'blind.states.transition-no-challenge',
    'ERR-TABLE-5',
    'account_access_ended for an account in contact_transition carries no WWW-Authenticate',
    (ctx) => (a, r) =>
      isCode(a, 'account_access_ended') && subOf(r) === endedAccounts(ctx.profile).contactTransition
        ? { ...a, headers: withoutHeader(a.headers, 'www-authenticate') }
        : a,
  ),
  // "`cancelled` (authorization retired; never reopened)". Broken: a repeated request on a cancelled operation answers
  // `pending`, as if the authorization had been reopened.
  statefulWire('blind.states.cancelled-reopened', 'STA-RECOVERY-4', 'a repeated recovery of a cancelled operation answers pending', () => {
    const seen = new Set<string>();
    return {
      buffer: notAStream,
      response(a, r) {
        if (pathOf(r) !== '/internal/account/recover' || a.status !== 200) return a;
        return editJson(a, (b) => {
          if (b.status !== 'cancelled') return;
          const key = JSON.stringify(b.operationId ?? b.operation_id ?? 'op');
          if (seen.has(key)) b.status = 'pending';
          seen.add(key);
        });
      },
    };
  }),
  // Resources: "Response carries `status` (`complete`, `pending`, `cancelled`)." Broken: `pending` is spelled `in_progress`.
  wire(
    'blind.states.pending-spelled-in-progress',
    'RES-RECOVERY-5',
    'a recovery with provider work remaining answers status in_progress',
    (a, r) =>
      pathOf(r) === '/internal/account/recover' && a.status === 200
        ? editJson(a, (b) => void (b.status === 'pending' && (b.status = 'in_progress')))
        : a,
  ),
  // "`pending` (provider work remains)". Broken: an operation whose provider work remains is reported `complete`.
  wire(
    'blind.states.pending-reported-complete',
    'STA-RECOVERY-2',
    'a recovery with provider work remaining answers status complete',
    (a, r) =>
      pathOf(r) === '/internal/account/recover' && a.status === 200
        ? editJson(a, (b) => void (b.status === 'pending' && (b.status = 'complete')))
        : a,
  ),
];
