// The differential oracle's comparison (docs/explore.md): the spec-pinned projection of an answer, and the fields where a
// target's projection differs from the reference's. Only what the spec pins is projected; what it leaves to the deployment
// (bodies, ids, ops paths, detail texts, the status and code of a "not shown" refusal, numeric rate budgets) is never
// compared, so a conforming alternate raises no finding. Pure: no network, no engine.
import { ERRORS, type ErrorCode } from '../../contract/errors.js';
import { OPERATIONS_BY_ID } from '../../contract/operations.js';
import { mayBeDpopRequest } from '../../contract/requests.js';
import { freshnessLifetime } from '../lib/freshness.js';
import { CHALLENGE_LEFT_OPEN } from '../lib/expect/problem.js';
import { parseCacheControl } from '../lib/expect/cache.js';
import { parseChallenges } from '../lib/www-authenticate.js';
import { NONCE_ON_EVERY_RESPONSE, nonceOf } from '../rules/05-authentication.js';
import { credentialsOfStep } from './agent-callers.js';
import type { Answer, Finding, Step } from './exchange.js';
import { CODE_CLAUSES, labelOf, type ComparedField } from './projection-table.js';
import { inputRefusals, outcomeComparable, outcomeOpen, unorderedRefusals, type DifferentialContext } from './comparable.js';

export { COMPARED, NEVER_COMPARED } from './projection-table.js';
export type { DifferentialContext } from './comparable.js';

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
  /** Retry-After: absent, present, or its value on a 503 unavailable (pinned to 5). */
  retryAfter: string | boolean;
}

/**
 * Operations whose success is a create (201) or a delete (204) (Endpoints, Conventions). addAddress is the spec's own
 * example of a create; whether a checkout is one is the deployment's choice (a 200 checkout is not a create), judged by the
 * spec-level checks from the target's documents (lib/expect/created.ts, engine/transport/target.ts declaresCreate), so its exact 2xx is not compared here.
 */
const CREATES = new Set(['addAddress']);
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

function retryAfterOf(answer: Answer, error: string | null): string | boolean {
  const value = header(answer, 'retry-after')?.trim();
  if (value === undefined || value === '') return false;
  return error === 'unavailable' ? value : true;
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
    dpopNonce: nonceOf(answer.headers) !== undefined,
    requestId: requestId !== undefined && requestId !== '',
    cache: cacheOf(answer),
    media: mediaOf(answer),
    location: (header(answer, 'location') ?? '') !== '',
    retryAfter: retryAfterOf(answer, error),
  };
  if (answer.status >= 400 && isObject(answer.json)) projection.instanceMatches = answer.json.instance === requestId;
  return projection;
}

/**
 * Whether the step is a DPoP request (contract/requests.ts isDpopRequest, on the credentials its caller presents): the
 * nonce rule applies to its answer (rules/05-authentication.ts, AUTH-ORDER-4). An assistant's token as Bearer without a
 * proof is not one: its nonce the spec does not pin (the DPoP checks' negative matrix: `nonce: false`).
 */
export const sendsDpop = (step: Step): boolean => NONCE_ON_EVERY_RESPONSE.applies(credentialsOfStep(step));

/** Whether the step carries an assistant's token, whatever its scheme (the invalid_token row of ERR-TABLE-3). */
const assistantToken = (step: Step): boolean => {
  const c = credentialsOfStep(step);
  return c.assistantToken || mayBeDpopRequest(c);
};

/** Whether the step is sent with no credential at all (no Authorization: its caller sends none, or the step removed it). */
const noCredential = (step: Step): boolean => credentialsOfStep(step).scheme === undefined;

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
export function compareProjections(
  step: Step,
  target: Answer,
  reference: Answer,
  index: number,
  context: DifferentialContext = {},
): Finding[] {
  const t = projectAnswer(step, target);
  const r = projectAnswer(step, reference);
  const out: Finding[] = [];
  const at = `${step.method} ${step.path}`;
  const differ = (field: ComparedField, clauses: readonly string[], expected: unknown, actual: unknown) =>
    out.push({
      oracle: 'differential',
      clauses: [...clauses],
      message: `${at}: ${labelOf(field)} differs from the reference's (${JSON.stringify(expected)} expected, ${JSON.stringify(actual)} answered)`,
      index,
      expected,
      actual,
    });

  // A rate limit on one side only: budgets are not shown, so the two answers are not comparable.
  if ((t.error === 'rate_limited') !== (r.error === 'rate_limited')) return out;

  // Status and code.
  let outcomeAgrees = true;
  const classesDiffer = statusClass(t.status) !== statusClass(r.status);
  // A mutation whose handling is not pinned, or a success against a refusal the spec does not show: not compared.
  if (outcomeOpen(step, t, r, classesDiffer) || (classesDiffer && !outcomeComparable(step, t, r, context))) outcomeAgrees = false;
  else if (classesDiffer) {
    const notModified = t.status === 304 || r.status === 304 ? ['END-CONV-8'] : [];
    differ('status class', [...notModified, ...clausesOfCodes(r.error, t.error), ...operationClause(step)], r.status, t.status);
    outcomeAgrees = false;
  } else if (t.status >= 400 && (t.pinned || r.pinned) && !inputRefusals(t, r) && !unorderedRefusals(t, r)) {
    if (t.error !== r.error) {
      differ('error', ['RES-PROBLEM-2', ...clausesOfCodes(r.error, t.error)], r.error, t.error);
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
      if (r.error === 'invalid_token')
        clauses.unshift(...(noCredential(step) ? ['ERR-TABLE-1'] : assistantToken(step) ? ['ERR-TABLE-3'] : []));
      differ('challenge', clauses, r.challenge, t.challenge);
    }
  }

  // DPoP-Nonce: every answer to a DPoP request carries one. Any other request's is not compared: a nonce on its domain
  // error is judged by the model with the suite's own rule (expectDomainErrorHeaders), and the rest is not pinned.
  if (t.dpopNonce !== r.dpopNonce && sendsDpop(step)) differ('dpopNonce', ['AUTH-ORDER-4'], r.dpopNonce, t.dpopNonce);

  if (t.requestId !== r.requestId) differ('requestId', ['AUTH-ORDER-2', 'ERR-PROBLEM-7'], r.requestId, t.requestId);
  if (t.instanceMatches !== undefined && r.instanceMatches !== undefined && t.instanceMatches !== r.instanceMatches)
    differ('instanceMatches', ['RES-PROBLEM-8', 'ERR-PROBLEM-6'], r.instanceMatches, t.instanceMatches);

  if (outcomeAgrees && t.status !== 304 && r.status !== 304 && !sameCache(t.cache, r.cache))
    differ('cache', cacheClauses(t.status), r.cache, t.cache);

  if (t.status >= 400 && r.status >= 400 && t.media !== r.media) differ('media', ['RES-PROBLEM-1', 'ERR-PROBLEM-4'], r.media, t.media);

  if (t.status === 201 && r.status === 201 && LOCATION_PINNED.has(step.operationId) && t.location !== r.location)
    differ('location', ['END-CONV-2'], r.location, t.location);

  // Retry-After on the rows that carry it: rate_limited (present), unavailable (5).
  if (t.error === r.error && (t.error === 'rate_limited' || t.error === 'unavailable') && t.retryAfter !== r.retryAfter)
    differ(
      'retryAfter',
      t.error === 'unavailable' ? ['ERR-TABLE-13', 'LIM-RETRY-1'] : ['ERR-TABLE-12', 'LIM-RATE-4'],
      r.retryAfter,
      t.retryAfter,
    );
  return out;
}

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
