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

/** Per status, the `error` codes a refusal may carry; `*` where the spec names none for that status. */
export type ErrorsByStatus = Readonly<Record<number, readonly string[] | '*'>>;

/**
 * The refusals of a credential the spec names, by the stage that refuses it: a token rejected at verification ("malformed,
 * expired or rejected token": 401 invalid_token, ERR-TABLE-2); a combination of client, subject and actor the caller
 * kinds do not derive ("rejected with 401 or 403", AUTH-TOKEN-8: a 401 is a rejected token, a 403's code is not named);
 * a token without the route's scope (403 insufficient_scope, ERR-TABLE-9).
 */
export const CREDENTIAL_REFUSALS = {
  invalid: { 401: ['invalid_token'] },
  combination: { 401: ['invalid_token'], 403: '*' },
  scope: { 403: ['insufficient_scope'] },
} as const satisfies Record<string, ErrorsByStatus>;

/** `401 invalid_token or 403 (any code)`. */
export const describeRefusal = (errorsOf: ErrorsByStatus): string =>
  Object.entries(errorsOf)
    .map(([s, codes]) => `${s} ${codes === '*' ? '(any code)' : codes.join('/')}`)
    .join(' or ');

/**
 * ERR-TABLE-4 read with RFC 9449 §4.3 item 11 (and §11.1): a proof's creation time is judged "by either the iat claim or
 * a server managed timestamp via the nonce claim". A deployment that gives nonces (every one: AUTH-ORDER-4) may time a
 * proof by its nonce, so a proof whose `iat` is far off but whose nonce is current may be accepted, or refused with a
 * proof or nonce error. The DPoP negatives (checks/_shared/dpop-negative-matrix.ts) and `explore`'s proof shapes
 * (proofs-expect.ts) read it alike.
 */
export const IAT_TIMED_BY_NONCE =
  'iat far off, the proof carrying a nonce the deployment issued: RFC 9449 §4.3 item 11 judges the creation time "by either the iat claim or a server managed timestamp via the nonce claim"';

/** A refused credential's answer as the refusal rule reads it: its status, its problem's `error`, the refusal due. */
export interface RefusalJudged {
  status: number;
  error: unknown;
  refusal: ErrorsByStatus;
}

/**
 * AUTH-TOKEN-8, ERR-TABLE-2, ERR-TABLE-9: a credential the spec refuses gets one of the statuses its refusal names, with
 * one of that status's codes. The checks of token verification (lib/expect/refusals.ts) and `explore`'s shaped
 * credentials (tokens-expect.ts) call it; which refusal is due is theirs to say (the stage that refuses first).
 */
export const CREDENTIAL_REFUSED: Rule<RefusalJudged> = {
  name: 'a refused credential gets the refusal the spec names for its stage',
  clause: ['AUTH-TOKEN-8', 'ERR-TABLE-2', 'ERR-TABLE-9'],
  section: 'Authentication > Token verification; Errors',
  scope: { route: 'every', caller: 'every', status: '401, 403', request: 'a request with a credential the spec refuses' },
  applies: () => true,
  judge: ({ status, error, refusal }) => {
    const codes = refusal[status];
    if (codes === '*' || (codes !== undefined && typeof error === 'string' && codes.includes(error))) return undefined;
    return { what: 'the refusal of the credential', expected: describeRefusal(refusal), actual: `${status} ${String(error ?? '')}`.trim() };
  },
};
