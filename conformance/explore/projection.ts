// The differential oracle's comparison (docs/explore.md): the spec-pinned projection of an answer, and the fields where a
// target's projection differs from the reference's. Only what the spec pins is projected; what it leaves to the deployment
// (bodies, ids, ops paths, detail texts, the status and code of a "not shown" refusal, numeric rate budgets) is never
// compared, so a conforming alternate raises no finding. Pure: no network, no engine.
import { ERRORS, type ErrorCode } from '../../contract/errors.js';
import { OPERATIONS_BY_ID } from '../../contract/operations.js';
import { freshnessLifetime } from '../lib/freshness.js';
import { CHALLENGE_LEFT_OPEN } from '../lib/expect/problem.js';
import { parseCacheControl } from '../lib/expect/cache.js';
import { parseChallenges } from '../lib/www-authenticate.js';
import type { Answer, Finding, Step } from './exchange.js';

export type CacheClass = 'no-store' | 'private, no-cache' | 'no-cache' | `fresh ${number}` | 'absent' | 'other';
export type MediaClass = 'problem+json' | 'json' | 'none' | 'other';

/** What the spec pins of one answer. */
export interface Projection {
  status: number;
  /** The problem `error` code of a failure (status 400 or above), `null` when the body has none. */
  error: string | null;
  /** `true` when the spec names `error` (contract/errors.ts `shownInSpec`): its status and headers are then pinned. */
  pinned: boolean;
  /** The challenges as `<scheme> <error>` (scheme lower-cased, `-` without error), sorted; `[]` without WWW-Authenticate. */
  challenge: string[] | 'malformed';
  dpopNonce: boolean;
  requestId: boolean;
  /** On a problem document: whether `instance` equals the X-Request-Id of the answer. */
  instanceMatches?: boolean;
  cache: CacheClass;
  media: MediaClass;
  location: boolean;
}

/** What the differential oracle compares, with the clauses that pin it and when it applies (the docs cite this table). */
export const COMPARED: readonly { field: keyof Projection | 'status class'; when: string; clauses: readonly string[] }[] = [
  { field: 'status class', when: 'always: success, refusal (4xx) or server error', clauses: ['END-OPS-<operation>-1'] },
  {
    field: 'status',
    when: 'when either side answers an error code the spec names with its status; 201 of a create, 204 of a delete, 304',
    clauses: ['ERR-TABLE-*', 'END-CONV-1', 'END-CONV-3', 'END-CONV-8'],
  },
  { field: 'error', when: 'when either side answers an error code the spec names', clauses: ['RES-PROBLEM-2', 'ERR-TABLE-*'] },
  {
    field: 'challenge',
    when: 'both sides answer the same code, other than insufficient_scope: schemes and their `error` parameter',
    clauses: ['ERR-TABLE-1..6', 'ERR-TABLE-10', 'AUTH-SCHEME-*', 'ERR-PROBLEM-8'],
  },
  {
    field: 'dpopNonce',
    when: 'presence, on the answer to a DPoP request and on a domain error',
    clauses: ['AUTH-ORDER-4', 'ERR-TABLE-4', 'ERR-PROBLEM-8'],
  },
  { field: 'requestId', when: 'presence, always', clauses: ['AUTH-ORDER-2', 'ERR-PROBLEM-7'] },
  { field: 'instanceMatches', when: "on both sides' problem documents", clauses: ['RES-PROBLEM-8', 'ERR-PROBLEM-6'] },
  {
    field: 'cache',
    when: 'class: no-store, private no-cache (catalog GETs), fresh N seconds (description documents), absent',
    clauses: ['END-CONV-7', 'END-CONV-9', 'ERR-PROBLEM-5', 'LIM-DOCS-1'],
  },
  { field: 'media', when: "on failures (status 400 or above): the media type's essence", clauses: ['RES-PROBLEM-1', 'ERR-PROBLEM-4'] },
  { field: 'location', when: 'presence on a 201 of checkoutSavedCard (the order has a GET URL)', clauses: ['END-CONV-2'] },
];

/** What is never compared, and why (the spec leaves it to the deployment). */
export const NEVER_COMPARED: readonly { what: string; why: string }[] = [
  { what: 'bodies of successes', why: 'payload shapes of every operation are not shown (Endpoints)' },
  { what: 'ids, Location values, ETag values, X-Request-Id values', why: "their form is the deployment's choice" },
  { what: 'problem detail, title wording beyond the status, type URL base', why: "human text and the docs base are the deployment's" },
  {
    what: 'status and code of a refusal whose code the spec does not name (not_found, invalid_json, payload_too_large, ...)',
    why: 'the spec leaves them open ("not shown"): a 404 and a 403 refusal are the same answer; only "a refusal" (4xx) is compared',
  },
  {
    what: 'invalid_request against a refusal whose code the spec does not name',
    why: 'payload shapes are not shown: which inputs a deployment refuses as invalid and which as unknown is its choice',
  },
  { what: 'status of direct_conversation_open', why: 'not shown (Errors table)' },
  {
    what: 'whether a request is rate limited',
    why: 'numeric budgets and windows are not shown (Limits); the concurrency oracle checks budgets are never exceeded',
  },
  { what: 'the exact 2xx status of operations other than creates and deletes', why: 'only creates (201) and deletes (204) are pinned' },
  { what: 'the challenge of insufficient_scope', why: 'left to the error mapper (Errors table)' },
  { what: 'success media types, ops paths and methods, event streams', why: 'not shown' },
];

/** Operations whose success is a create (201) or a delete (204) (Endpoints, Conventions). */
const CREATES = new Set(['checkoutSavedCard', 'addAddress']);
const DELETES = new Set(['deleteAddress', 'removeCartItem']);
/** Creates whose resource has a GET URL (getOrder), so the 201 carries Location (END-CONV-2). */
const LOCATION_PINNED = new Set(['checkoutSavedCard']);

const header = (a: Answer, name: string): string | undefined => a.headers[name] ?? a.headers[name.toLowerCase()];
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function errorOf(answer: Answer): string | null {
  if (answer.status < 400 || !isObject(answer.json)) return null;
  return typeof answer.json.error === 'string' ? answer.json.error : null;
}

const isPinned = (code: string | null): boolean => code !== null && code in ERRORS && ERRORS[code as ErrorCode].shownInSpec;

function challengeOf(answer: Answer): string[] | 'malformed' {
  const value = header(answer, 'www-authenticate');
  if (value === undefined) return [];
  try {
    return parseChallenges(value)
      .map((c) => `${c.scheme.toLowerCase()} ${c.params.error ?? '-'}`)
      .sort();
  } catch {
    return 'malformed';
  }
}

function cacheOf(answer: Answer): CacheClass {
  const cc = header(answer, 'cache-control');
  const directives = parseCacheControl(cc ?? null);
  if (directives.has('no-store')) return 'no-store';
  if (directives.has('no-cache')) return directives.has('private') ? 'private, no-cache' : 'no-cache';
  const f = freshnessLifetime({ get: (n: string) => header(answer, n.toLowerCase()) ?? null });
  if (f.stored && f.lifetime !== undefined) return `fresh ${f.lifetime}`;
  return cc === undefined && header(answer, 'expires') === undefined ? 'absent' : 'other';
}

function mediaOf(answer: Answer): MediaClass {
  const type = header(answer, 'content-type');
  if (type === undefined || type === '') return 'none';
  const essence = type.split(';')[0]!.trim().toLowerCase();
  if (essence === 'application/problem+json') return 'problem+json';
  return essence === 'application/json' || essence.endsWith('+json') ? 'json' : 'other';
}

/** The spec-pinned projection of an answer to a step. */
export function projectAnswer(_step: Step, answer: Answer): Projection {
  const error = errorOf(answer);
  const requestId = header(answer, 'x-request-id');
  const projection: Projection = {
    status: answer.status,
    error,
    pinned: isPinned(error),
    challenge: challengeOf(answer),
    dpopNonce: (header(answer, 'dpop-nonce') ?? '').trim() !== '',
    requestId: requestId !== undefined && requestId !== '',
    cache: cacheOf(answer),
    media: mediaOf(answer),
    location: (header(answer, 'location') ?? '') !== '',
  };
  if (answer.status >= 400 && isObject(answer.json)) projection.instanceMatches = answer.json.instance === requestId;
  return projection;
}

/** Whether the step carries a DPoP proof or token (the answer then carries a fresh DPoP-Nonce, AUTH-ORDER-4). */
export const sendsDpop = (step: Step): boolean =>
  'dpop' in step.headers || /^assistant/.test(step.caller) || /^dpop/i.test(String(step.headers.authorization ?? ''));

/** Whether the step is sent with no credential at all (caller label `none`, `anonymous` or empty). */
const noCredential = (step: Step): boolean => /^(none|anonymous)?$/.test(step.caller) && !('authorization' in step.headers);

/** The clauses an error code's row pins (its status, its headers). */
const CODE_CLAUSES: Readonly<Record<string, readonly string[]>> = {
  invalid_token: ['ERR-TABLE-2', 'AUTH-SCHEME-6'],
  invalid_dpop_proof: ['ERR-TABLE-4', 'AUTH-ASST-11'],
  use_dpop_nonce: ['ERR-TABLE-4'],
  account_access_ended: ['ERR-TABLE-5'],
  invalid_guest_session: ['ERR-TABLE-6', 'AUTH-GUEST-5'],
  guest_session_required: ['ERR-TABLE-7', 'AUTH-GUEST-4'],
  caller_not_allowed: ['ERR-TABLE-8'],
  insufficient_scope: ['ERR-TABLE-9'],
  sign_in_required: ['ERR-TABLE-10', 'AUTH-SIGNIN-1'],
  invalid_request: ['ERR-TABLE-11'],
  rate_limited: ['ERR-TABLE-12', 'LIM-RATE-4'],
  unavailable: ['ERR-TABLE-13'],
  cart_empty: ['ERR-TABLE-14', 'PUR-IDEM-4'],
  direct_conversation_open: ['ERR-TABLE-15'],
  internal_error: ['ERR-TABLE-16'],
  not_configured: ['EVT-WEBHOOK-2'],
  webhook_secret_missing: ['EVT-WEBHOOK-3'],
  missing_signature: ['EVT-WEBHOOK-4'],
  invalid_signature: ['EVT-WEBHOOK-5'],
  processing_failed: ['EVT-WEBHOOK-6'],
  recovery_not_found: ['END-RECOVERY-12'],
  recovery_pending: ['END-RECOVERY-13'],
};

/** The clause of the step's operation row, for a success/refusal difference no code explains. */
export function operationClause(step: Step): string[] {
  const op = OPERATIONS_BY_ID.get(step.operationId);
  if (!op) return ['PUR-SERVE-1'];
  if (op.group === 'operator') return ['PUR-RULE-3'];
  if (op.group === 'conversation') return ['END-PUBLIC-19'];
  return [`END-OPS-${op.operationId.toUpperCase()}-1`];
}

const statusClass = (s: number) => (s < 300 ? 'success' : s < 400 ? 'redirect' : s < 500 ? 'refusal' : 'server error');
const clausesOfCodes = (...codes: (string | null)[]) => [...new Set(codes.flatMap((c) => (c ? (CODE_CLAUSES[c] ?? []) : [])))];

/**
 * One Finding per projected field where the target's answer differs from the reference's, each naming its clauses. Fields
 * a difference of status or code explains (headers that belong to another row) are not reported again.
 */
export function compareProjections(step: Step, target: Answer, reference: Answer, index: number): Finding[] {
  const t = projectAnswer(step, target);
  const r = projectAnswer(step, reference);
  const out: Finding[] = [];
  const at = `${step.method} ${step.path}`;
  const differ = (field: string, clauses: readonly string[], expected: unknown, actual: unknown) =>
    out.push({
      oracle: 'differential',
      clauses: [...clauses],
      message: `${at}: ${field} differs from the reference's (${JSON.stringify(expected)} expected, ${JSON.stringify(actual)} answered)`,
      index,
      expected,
      actual,
    });

  // A rate limit on one side only: budgets are not shown, so the two answers are not comparable.
  if ((t.error === 'rate_limited') !== (r.error === 'rate_limited')) return out;

  // Status and code.
  let outcomeAgrees = true;
  if (statusClass(t.status) !== statusClass(r.status)) {
    differ('status', [...clausesOfCodes(r.error, t.error), ...operationClause(step)], r.status, t.status);
    outcomeAgrees = false;
  } else if (t.status >= 400 && (t.pinned || r.pinned) && !inputRefusals(t, r)) {
    if (t.error !== r.error) {
      differ('problem error', ['RES-PROBLEM-2', ...clausesOfCodes(r.error, t.error)], r.error, t.error);
      outcomeAgrees = false;
    } else if (t.status !== r.status && r.error !== 'direct_conversation_open') {
      differ('status', clausesOfCodes(r.error), r.status, t.status);
    }
  } else if (t.status < 300 && t.status !== r.status) {
    const pinned = CREATES.has(step.operationId) || DELETES.has(step.operationId) || t.status === 304 || r.status === 304;
    if (pinned)
      differ(
        'status',
        [CREATES.has(step.operationId) ? 'END-CONV-1' : DELETES.has(step.operationId) ? 'END-CONV-3' : 'END-CONV-8'],
        r.status,
        t.status,
      );
  }

  // Challenge: pinned per row once both sides answer the same code.
  if (
    outcomeAgrees &&
    t.status >= 400 &&
    t.error === r.error &&
    (t.pinned || isDomainCode(t.error)) &&
    !CHALLENGE_LEFT_OPEN.has(t.error ?? '')
  ) {
    if (JSON.stringify(t.challenge) !== JSON.stringify(r.challenge)) {
      const own = clausesOfCodes(r.error);
      const clauses = ERRORS[r.error as ErrorCode]?.headers.includes('WWW-Authenticate') ? own : ['ERR-PROBLEM-8', ...own];
      // The row of the invalid_token challenge: no token at all (ERR-TABLE-1), an assistant's token (ERR-TABLE-3), any other.
      if (r.error === 'invalid_token') clauses.unshift(...(noCredential(step) ? ['ERR-TABLE-1'] : sendsDpop(step) ? ['ERR-TABLE-3'] : []));
      differ('WWW-Authenticate challenge', clauses, r.challenge, t.challenge);
    }
  }

  // DPoP-Nonce: every answer to a DPoP request carries one; a domain error to any other carries none.
  if (t.dpopNonce !== r.dpopNonce && (sendsDpop(step) || (t.error === r.error && isDomainCode(t.error))))
    differ('DPoP-Nonce presence', sendsDpop(step) ? ['AUTH-ORDER-4'] : ['ERR-PROBLEM-8'], r.dpopNonce, t.dpopNonce);

  if (t.requestId !== r.requestId) differ('X-Request-Id presence', ['AUTH-ORDER-2', 'ERR-PROBLEM-7'], r.requestId, t.requestId);
  if (t.instanceMatches !== undefined && r.instanceMatches !== undefined && t.instanceMatches !== r.instanceMatches)
    differ('problem instance equal to X-Request-Id', ['RES-PROBLEM-8', 'ERR-PROBLEM-6'], r.instanceMatches, t.instanceMatches);

  if (outcomeAgrees && t.status !== 304 && r.status !== 304 && !sameCache(t.cache, r.cache))
    differ('Cache-Control class', cacheClauses(t.status), r.cache, t.cache);

  if (t.status >= 400 && r.status >= 400 && t.media !== r.media) differ('media type', ['RES-PROBLEM-1', 'ERR-PROBLEM-4'], r.media, t.media);

  if (t.status === 201 && r.status === 201 && LOCATION_PINNED.has(step.operationId) && t.location !== r.location)
    differ('Location presence', ['END-CONV-2'], r.location, t.location);
  return out;
}

/**
 * invalid_request and a refusal of a code the spec does not name are the same answer: which input shapes a deployment
 * validates as such, and how it refuses an id it does not know, is its choice (payload shapes are not shown).
 */
const inputRefusals = (a: Projection, b: Projection): boolean =>
  (a.error === 'invalid_request' && !b.pinned) || (b.error === 'invalid_request' && !a.pinned);

const isDomainCode = (code: string | null): boolean =>
  code !== null && !(code in ERRORS && ERRORS[code as ErrorCode].headers.includes('WWW-Authenticate')) && code !== 'internal_error';

/** A lifetime stated with Expires may be one second off (HTTP-dates have whole seconds). */
function sameCache(a: CacheClass, b: CacheClass): boolean {
  if (a === b) return true;
  const fa = /^fresh (\d+)$/.exec(a);
  const fb = /^fresh (\d+)$/.exec(b);
  return !!fa && !!fb && Math.abs(Number(fa[1]) - Number(fb[1])) <= 1;
}

function cacheClauses(status: number): string[] {
  if (status >= 400) return ['ERR-PROBLEM-5'];
  return ['END-CONV-7', 'END-CONV-9', 'LIM-DOCS-1'];
}
