// What the spec says must be answered to a generated body (bodies-shape.ts), decided from the spec alone: Endpoints
// (conventions, the recovery endpoint), Errors, Limits, Resources (the recovery request), Authentication > Request
// processing order; and RFC 8259 where the spec says "JSON" and leaves the rest to it. Where the spec leaves a choice
// open, the expectation leaves it open too (never a status the spec does not pin).
//
// The expectation is about the body alone: the request is assumed otherwise acceptable (an admitted caller with valid
// credentials, a path that names something). Stages before input validation may still refuse first (authentication,
// the guard, the rate limit: Request processing order); that is for the caller to combine, except that a body that is
// not JSON fails while decoding, before authentication (AUTH-ORDER-11), and so is 400 whoever sends it.
import { Buffer } from 'node:buffer';
import { LIMITS } from '../../contract/limits.js';
import { isConversationPath, matchesTemplate } from '../../contract/requests.js';
import { INTERNAL_ROWS, SPECIAL_PATHS, WEBHOOK_PREFIX } from '../../contract/routes.js';
import { buildBody } from './bodies-apply.js';
import type { BodyShape } from './bodies-shape.js';

export interface BodyRoute {
  readonly operationId: string;
  readonly method: string;
  readonly path: string;
}

/**
 * What must be answered: one of `statuses`, and, for an answer of 400 or above, an `error` among `errors` when they are
 * given; or any status below 500. Every answer of 400 or above is a problem document either way (ERR-PROBLEM-1,
 * ERR-PROBLEM-4), which the caller judges with the rules of every response.
 */
export type BodyExpectation =
  | { statuses: readonly number[]; errors?: readonly string[]; clauses: readonly string[]; why: string }
  | { statuses: 'any-not-5xx'; clauses: readonly string[]; why: string };

const ANY_4XX: readonly number[] = Array.from({ length: 100 }, (_, i) => 400 + i);

// [END-CONV-4] [AUTH-ORDER-11] [ERR-PROBLEM-2] [ERR-PROBLEM-6] A body that is not JSON is refused with a 400 problem while
// decoding, before authentication. The spec names no `error` code for decoding failures, so none is expected.
const NOT_JSON: BodyExpectation = {
  statuses: [400],
  clauses: ['END-CONV-4', 'AUTH-ORDER-11', 'ERR-PROBLEM-2', 'ERR-PROBLEM-6'],
  why: 'not JSON (RFC 8259): 400 while decoding, before authentication; the spec names no code',
};

// Payload shapes of every operation but the recovery endpoint and the webhook are "not shown" (Endpoints): a deployment
// may take, ignore or refuse a member it does not use, with a code of its own. What the spec still pins: a body it
// cannot take is a validation failure, 400 (ERR-TABLE-11), never an unexpected failure, and every failure is a problem
// document (ERR-PROBLEM-1, ERR-PROBLEM-4, RES-PROBLEM-1).
const NOT_SHOWN: BodyExpectation = {
  statuses: 'any-not-5xx',
  clauses: ['ERR-TABLE-11', 'ERR-PROBLEM-1', 'ERR-PROBLEM-4', 'RES-PROBLEM-1'],
  why: 'the payload is not shown: taken or refused as the deployment chooses, never a 5xx',
};

const anyNot5xx = (why: string, clauses: readonly string[] = NOT_SHOWN.clauses): BodyExpectation => ({
  statuses: 'any-not-5xx',
  clauses,
  why,
});

/** Either expectation may hold: their statuses together, codes only where both pin them. */
function either(a: BodyExpectation, b: BodyExpectation): BodyExpectation {
  const clauses = [...new Set([...a.clauses, ...b.clauses])];
  const why = `${a.why}; or ${b.why}`;
  if (a.statuses === 'any-not-5xx' || b.statuses === 'any-not-5xx') return { statuses: 'any-not-5xx', clauses, why };
  const statuses = [...new Set([...a.statuses, ...b.statuses])].sort((x, y) => x - y);
  const errors = 'errors' in a && a.errors && 'errors' in b && b.errors ? [...new Set([...a.errors, ...b.errors])] : undefined;
  return { statuses, ...(errors ? { errors } : {}), clauses, why };
}

const isRecovery = (r: BodyRoute) => r.method.toUpperCase() === 'POST' && r.path === SPECIAL_PATHS.recoverAccount;
/** The body cap of a route and the clause that sets it (spec, Limits; bounded internal routes: contract/routes.ts). */
export function capOf(route: BodyRoute): { bytes: number; clause: string } {
  // [LIM-CONV-1] conversation writes are capped at 64 KiB.
  if (isConversationPath(route.path)) return { bytes: LIMITS.conversationWriteBytes, clause: 'LIM-CONV-1' };
  const row = INTERNAL_ROWS.find((r) => r.method === route.method.toUpperCase() && matchesTemplate(r.path, route.path));
  // [LIM-INTENT-1] the security-intents route reads at most 8 KiB; the internal conversation routes 64 KiB (LIM-CONV-1).
  if (row?.bodyLimit === LIMITS.securityIntentBytes) return { bytes: row.bodyLimit, clause: 'LIM-INTENT-1' };
  if (row?.bodyLimit === LIMITS.conversationWriteBytes) return { bytes: row.bodyLimit, clause: 'LIM-CONV-1' };
  // [LIM-BODY-1] every other request body is capped at 256 KiB.
  return { bytes: LIMITS.requestBodyBytes, clause: 'LIM-BODY-1' };
}

/** A stand-in valid body where the caller gives none: the recovery request in the spec's field order, else two members. */
const standIn = (route: BodyRoute): unknown =>
  isRecovery(route) ? { subject: 'cust_nobody', operationId: 'recop_nobody', purpose: 'email' } : { a: 1, b: 'x' };

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** Whether a scalar or a member name of the value passes `p`; iterative, as a generated body may nest thousands deep. */
function someLeaf(value: unknown, p: (leaf: unknown) => boolean): boolean {
  const todo: unknown[] = [value];
  while (todo.length > 0) {
    const v = todo.pop();
    if (Array.isArray(v)) todo.push(...(v as unknown[]));
    else if (typeof v === 'object' && v !== null)
      for (const [k, x] of Object.entries(v)) {
        if (p(k)) return true;
        todo.push(x);
      }
    else if (p(v)) return true;
  }
  return false;
}

/** RFC 8259 §9: a parser may limit the range and precision of numbers; these are beyond a double's. */
const outOfRange = (leaf: unknown) =>
  typeof leaf === 'number' && (!Number.isFinite(leaf) || (Number.isInteger(leaf) && !Number.isSafeInteger(leaf)));

/**
 * A recovery request's string field of `min`–`max` characters. The spec counts "characters" without saying which: where
 * UTF-16 units and code points disagree on the bound, both readings are taken ('open').
 */
function fieldFits(v: unknown, min: number, max: number): boolean | 'open' {
  if (typeof v !== 'string') return false;
  const units = v.length >= min && v.length <= max;
  const points = [...v].length >= min && [...v].length <= max;
  return units === points ? units : 'open';
}

/**
 * The recovery request (Resources > Account recovery request; Limits): `subject` 1–256 characters, `operationId` 1–128,
 * `purpose` `email` or `delete`, all required, no other field. Invalid: 400 invalid_request (ERR-TABLE-11). Valid: the
 * endpoint's results with the right credential (Endpoints > recovery endpoint results): 200, 404 recovery_not_found,
 * 409 recovery_pending.
 */
function judgeRecovery(body: unknown): BodyExpectation {
  const invalid = (clauses: string[], why: string): BodyExpectation => ({
    statuses: [400],
    errors: ['invalid_request'],
    clauses: [...clauses, 'ERR-TABLE-11'],
    why: `recovery request ${why}: 400 invalid_request`,
  });
  const valid: BodyExpectation = {
    statuses: [200, 404, 409],
    errors: ['recovery_not_found', 'recovery_pending'],
    clauses: ['END-RECOVERY-8', 'END-RECOVERY-9', 'END-RECOVERY-10', 'END-RECOVERY-12', 'END-RECOVERY-13'],
    why: 'a valid recovery request: 200, 404 recovery_not_found or 409 recovery_pending',
  };
  // [RES-RECOVERY-1] [RES-RECOVERY-2] [RES-RECOVERY-3] the body is an object of the three required fields.
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return invalid(['RES-RECOVERY-1', 'RES-RECOVERY-2', 'RES-RECOVERY-3'], 'not an object');
  const record = body as Record<string, unknown>;
  // [RES-RECOVERY-4] no other fields are accepted; [END-RECOVERY-5] not a new email; [END-RECOVERY-6] not a command.
  const others = Object.keys(record).filter((k) => !['subject', 'operationId', 'purpose'].includes(k));
  if (others.length > 0)
    return invalid(
      [
        'RES-RECOVERY-4',
        ...(others.some((k) => /email/i.test(k)) ? ['END-RECOVERY-5'] : []),
        ...(others.some((k) => /command|provider|action/i.test(k)) ? ['END-RECOVERY-6'] : []),
      ],
      `with another member (${others.map((k) => JSON.stringify(k)).join(', ')})`,
    );
  // [RES-RECOVERY-3] purpose is exactly `email` or `delete`.
  if (record.purpose !== 'email' && record.purpose !== 'delete') return invalid(['RES-RECOVERY-3'], 'with a wrong `purpose`');
  // [RES-RECOVERY-1] [LIM-RECOVERY-1] subject 1–256 characters; [RES-RECOVERY-2] [LIM-RECOVERY-2] operationId 1–128.
  const fields = [
    {
      fits: fieldFits(record.subject, LIMITS.recoverySubjectChars.min, LIMITS.recoverySubjectChars.max),
      name: 'subject',
      clauses: ['RES-RECOVERY-1', 'LIM-RECOVERY-1'],
    },
    {
      fits: fieldFits(record.operationId, LIMITS.recoveryOperationIdChars.min, LIMITS.recoveryOperationIdChars.max),
      name: 'operationId',
      clauses: ['RES-RECOVERY-2', 'LIM-RECOVERY-2'],
    },
  ];
  const wrong = fields.find((f) => f.fits === false);
  if (wrong) return invalid(wrong.clauses, `with a wrong \`${wrong.name}\``);
  const open = fields.filter((f) => f.fits === 'open');
  if (open.length > 0)
    return either(
      valid,
      invalid(
        open.flatMap((f) => f.clauses),
        `whose characters count two ways (${open.map((f) => f.name).join(', ')})`,
      ),
    );
  return { ...valid, clauses: [...valid.clauses, 'LIM-RECOVERY-1', 'LIM-RECOVERY-2'] };
}

/**
 * What must be answered to `shape` applied to `valid` (the body the shape is applied to; without it, a stand-in: the
 * recovery request in the spec's field order, else a small object; the sizes of the 8 and 64 KiB routes are then
 * measured on the stand-in). Throws for the payment webhook, whose body is raw bytes under a provider signature
 * (END-PUBLIC-8): a not-JSON body there may be verified first and fail as `processing_failed`, a 500 the spec names.
 */
export function expectedOfBody(route: BodyRoute, shape: BodyShape, valid?: unknown): BodyExpectation {
  if (route.path.startsWith(WEBHOOK_PREFIX))
    throw new Error(`expectedOfBody: ${route.path} reads its body as raw bytes under a provider signature; not judged here`);
  // The decoding rule is read for writes only (docs/ambiguities.md 9): a body on a GET or DELETE has no meaning (RFC 9110
  // 9.3.1, 9.3.5), and may be ignored unread, its size too. It still must not make the deployment fail.
  if (!['POST', 'PUT', 'PATCH'].includes(route.method.toUpperCase()))
    return anyNot5xx(`a body on a ${route.method.toUpperCase()}: its meaning (and the decoding rule) is left open`);

  const built = buildBody(valid ?? standIn(route), shape);
  const cap = capOf(route);
  // [LIM-BODY-1] [LIM-CONV-1] [LIM-INTENT-1] [ERR-PROBLEM-3] [ERR-PROBLEM-6] a body over its cap is refused with a problem
  // document. The spec names neither the status nor the code (413 is HTTP's, RFC 9110 15.5.14, and the reference's), nor
  // the stage: checked while decoding or after authentication, it is a refusal either way, so any 4xx, whatever else is
  // wrong with the body. Exactly at the cap is within it ("capped at 256 KiB").
  if (Buffer.byteLength(built.text, 'utf8') > cap.bytes)
    return {
      statuses: ANY_4XX,
      clauses: [cap.clause, 'ERR-PROBLEM-3', 'ERR-PROBLEM-6'],
      why: `over the ${cap.bytes}-byte cap: refused (any 4xx; the spec names no status or code)`,
    };

  let parsed: unknown;
  let bom = false;
  try {
    parsed = JSON.parse(built.text);
  } catch {
    // RFC 8259 §8.1: a parser MAY ignore a byte order mark at the start rather than treat it as an error; anywhere
    // else, and any other text outside the grammar, is not JSON.
    if (!built.text.startsWith('\ufeff')) return NOT_JSON;
    try {
      parsed = JSON.parse(built.text.slice(1));
      bom = true;
    } catch {
      return NOT_JSON;
    }
  }
  // RFC 8259 §4: names SHOULD be unique; with a name twice, "the behavior of software that receives such an object is
  // unpredictable" (first wins, last wins, or an error): nothing but "no 5xx" is pinned, on any route.
  if (built.duplicated) return anyNot5xx('a member name twice: RFC 8259 §4 leaves the outcome unpredictable');
  // RFC 8259 §8.2: a string with a lone surrogate is grammatical, and its handling "unpredictable".
  if (someLeaf(parsed, (leaf) => typeof leaf === 'string' && LONE_SURROGATE.test(leaf)))
    return anyNot5xx('a lone surrogate: RFC 8259 §8.2 leaves the outcome unpredictable');

  let expected = isRecovery(route) ? judgeRecovery(parsed) : NOT_SHOWN;
  // RFC 8259 §9: a parser may limit nesting depth, and the range and precision of numbers, naming no minimum: such a
  // body may fail while decoding (400) instead.
  if (built.deep) expected = either(expected, { ...NOT_JSON, why: 'nesting beyond the parser limit (RFC 8259 §9): 400 while decoding' });
  else if (someLeaf(parsed, outOfRange))
    expected = either(expected, { ...NOT_JSON, why: 'a number beyond the parser limit (RFC 8259 §9): 400 while decoding' });
  if (bom) expected = either(expected, { ...NOT_JSON, why: 'a byte order mark the parser does not ignore (RFC 8259 §8.1): 400' });
  return expected;
}
