// The rules of the spec's Authentication part judged on more than one exchange (spec, Authentication > Request
// processing order). Each is one named condition (rule.ts); the every-response judge, the checks, `explore` and the doctor
// call it.
import { headerOf, isDpopRequest, type Credentials, type HeaderBag } from '../../contract/requests.js';
import { enforce, type Enforcement, type Rule } from './rule.js';

/** The header a server gives its nonce in (RFC 9449 section 8), lower-cased as the transports hold it. */
export const DPOP_NONCE_HEADER = 'dpop-nonce';

/** The nonce an answer carries: its DPoP-Nonce header, trimmed; undefined when absent or blank. */
export function nonceOf(headers: HeaderBag): string | undefined {
  const nonce = headerOf(headers, DPOP_NONCE_HEADER)?.trim();
  return nonce === undefined || nonce === '' ? undefined : nonce;
}

/** An answer as the nonce rule reads it. */
export interface Answered {
  status: number;
  headers: HeaderBag;
}

/**
 * AUTH-ORDER-4: "a DPoP request gets a fresh DPoP-Nonce on every response" (the authenticate stage), success or failure,
 * whatever route, caller or status. Whether the request is a DPoP request is contract/requests.ts `isDpopRequest`.
 * Freshness (a value never given before) needs two answers: the checks that send twice judge it on `nonceOf`.
 */
export const NONCE_ON_EVERY_RESPONSE: Rule<Answered, Credentials> = {
  name: 'a DPoP-Nonce on every response to a DPoP request',
  clause: 'AUTH-ORDER-4',
  section: 'Authentication > Request processing order',
  scope: { route: 'every', caller: 'every', status: 'every', request: 'a DPoP request (contract/requests.ts isDpopRequest)' },
  applies: isDpopRequest,
  judge: (res) =>
    nonceOf(res.headers) !== undefined
      ? undefined
      : {
          what: 'DPoP-Nonce on the answer to a DPoP request',
          expected: 'a nonce',
          actual: headerOf(res.headers, DPOP_NONCE_HEADER) ?? null,
        },
};

/**
 * The nonce rule on one answer to a DPoP request: hard by default, softly with `soft`; `at` names the answer, `clause`
 * replaces AUTH-ORDER-4 (a check that blames its own clause, or the error table's row besides).
 */
export function expectDpopNonce(res: Answered, o: Enforcement = {}): void {
  enforce(NONCE_ON_EVERY_RESPONSE, res, o);
}
