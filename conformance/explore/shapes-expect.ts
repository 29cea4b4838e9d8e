// What every credential shape's expectation shares (tokens-expect.ts, proofs-expect.ts, sessions-expect.ts,
// contexts-expect.ts): the three-way expectation, a verdict of one variation at a stage of the spec's request processing,
// the combination of verdicts (the earliest stage with a definite refusal decides; an unsure verdict at or before it may
// decide instead, its refusal joining the allowed answers), and the judgement of one answer on an expectation, whose
// refusals are the rule book's (CREDENTIAL_REFUSED). Pure.
import { CREDENTIAL_REFUSED, describeRefusal, type ErrorsByStatus } from '../rules/05-authentication.js';

export type ShapeExpectation =
  | { readonly accept: true }
  | {
      readonly accept: false;
      readonly statuses: readonly number[];
      /** Every code named for any of the statuses (`errorsOf` pairs them). */
      readonly errors: readonly string[];
      readonly clauses: readonly string[];
      readonly errorsOf: ErrorsByStatus;
    }
  | { readonly accept: 'either'; readonly clauses: readonly string[]; readonly why: string };

/** A verdict of one variation at a stage: a definite refusal, or one the spec reads two ways (the refusal if refused). */
export interface Verdict<S extends string> {
  stage: S;
  definite: boolean;
  refusal: ErrorsByStatus;
  clauses: readonly string[];
  why?: string;
}

export const refuse = <S extends string>(stage: S, refusal: ErrorsByStatus, clauses: readonly string[]): Verdict<S> => ({
  stage,
  definite: true,
  refusal,
  clauses,
});
export const unsure = <S extends string>(stage: S, refusal: ErrorsByStatus, clauses: readonly string[], why: string): Verdict<S> => ({
  stage,
  definite: false,
  refusal,
  clauses,
  why,
});

/** Any 4xx, any code (ambiguities.md 14: "any 4xx problem document"). */
export const ANY_4XX: ErrorsByStatus = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [400 + i, '*' as const]));

/** `401 invalid_token or 403 (any code)`; `any 4xx` for the whole class. */
export const describeErrors = (errorsOf: ErrorsByStatus): string =>
  Object.keys(errorsOf).length === 100 && Object.values(errorsOf).every((v) => v === '*') ? 'any 4xx' : describeRefusal(errorsOf);

function union(a: ErrorsByStatus, b: ErrorsByStatus): ErrorsByStatus {
  const out: Record<number, readonly string[] | '*'> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const had = out[Number(k)];
    out[Number(k)] = had === '*' || v === '*' ? '*' : [...new Set([...(had ?? []), ...v])];
  }
  return out;
}

const uniq = (xs: readonly string[]) => [...new Set(xs)];

/** The expectation of a set of verdicts over ordered stages: the first stage with a definite refusal decides. */
export function decide<S extends string>(stages: readonly S[], verdicts: readonly Verdict<S>[]): ShapeExpectation {
  const rank = (s: S) => stages.indexOf(s);
  const definite = verdicts.filter((v) => v.definite);
  if (definite.length > 0) {
    const first = Math.min(...definite.map((v) => rank(v.stage)));
    // Definite refusals of the first stage, in any order among them; unsure ones before or at it may come first.
    const deciding = verdicts.filter((v) => (v.definite ? rank(v.stage) === first : rank(v.stage) <= first));
    const errorsOf = deciding.reduce<ErrorsByStatus>((r, v) => union(r, v.refusal), {});
    return {
      accept: false,
      statuses: Object.keys(errorsOf)
        .map(Number)
        .sort((a, b) => a - b),
      errors: uniq(Object.values(errorsOf).flatMap((v) => (v === '*' ? [] : v))),
      clauses: uniq(deciding.flatMap((v) => v.clauses)),
      errorsOf,
    };
  }
  if (verdicts.length > 0)
    return { accept: 'either', clauses: uniq(verdicts.flatMap((v) => v.clauses)), why: uniq(verdicts.map((v) => v.why ?? '')).join('; ') };
  return { accept: true };
}

/**
 * An answer judged on an expectation: undefined when it fits, else what was expected. Accepted: a 2xx (`accepted` names
 * the clauses a refusal of it breaks). Refused: one of the statuses, with one of that status's codes (CREDENTIAL_REFUSED).
 * Either way: never a 5xx.
 */
export function judgeExpectation(
  e: ShapeExpectation,
  status: number,
  error: unknown,
  accepted: readonly string[],
): { expected: string; clauses: readonly string[] } | undefined {
  const clauses = e.accept === true ? accepted : e.clauses;
  if (status >= 500) return { expected: 'no 5xx', clauses };
  if (e.accept === 'either') return undefined;
  if (e.accept === true) return status >= 200 && status < 300 ? undefined : { expected: 'accepted (2xx)', clauses };
  return CREDENTIAL_REFUSED.judge({ status, error, refusal: e.errorsOf }) ? { expected: describeErrors(e.errorsOf), clauses } : undefined;
}
