// A rule of the spec as one named condition (the OpenID suite's `CheckForDpopNonceInResponse`, STYLE.md 19): the clause
// it enforces, what it applies to (in the contract's terms: route, caller, status, request kind), and its judgement of
// one exchange. A rule never throws: `judge` gives what failed, and `failureOf` the failure record of
// lib/expect/failure.ts; `enforce` hands it to the fail machinery, hard (the check stops) or soft (recorded, the check
// goes on). Checks, the every-response judge, `explore` and the doctor call the rule; none re-implements it.
import { CheckFailure, fail, failSoft, type ClauseRef } from '../lib/expect/failure.js';

/** What a rule applies to, in the contract's terms; `every` where the rule does not narrow the dimension. */
export interface RuleScope {
  /** Routes: `every`, or the contract's route group or operations. */
  route: string;
  /** Caller kinds (contract/callers.ts). */
  caller: string;
  /** Statuses or error codes (contract/errors.ts). */
  status: string;
  /** The kind of request (contract/requests.ts: a DPoP request, any request). */
  request: string;
}

/** What a rule found wrong in one exchange: what was looked at, expected and actual (the clause is the rule's). */
export interface Verdict {
  what: string;
  expected: unknown;
  actual: unknown;
  /** Where the rule blames other clauses as well as its own for this exchange (the error table's row of the answer). */
  clause?: ClauseRef;
}

export interface Rule<Judged, Request = unknown> {
  /** A short name, for the rule book (docs/rules.md). */
  readonly name: string;
  /** The clause (or clauses) the rule enforces. */
  readonly clause: ClauseRef;
  /** The spec section the rule is written in. */
  readonly section: string;
  readonly scope: RuleScope;
  /** Whether the rule applies to a request (its scope, read with contract/ lookups). */
  applies(request: Request): boolean;
  /** The rule's judgement of one answer: undefined when it holds. */
  judge(judged: Judged): Verdict | undefined;
}

/**
 * How a rule's failure is reported: `at` names the answer; `clause`, when the key is given, replaces the rule's, even
 * when undefined (a hard failure then blames the check's own clauses; a soft one falls back to the rule's).
 */
export interface Enforcement {
  at?: string | undefined;
  clause?: ClauseRef | undefined;
  soft?: boolean | undefined;
}

const clauseOf = (rule: Pick<Rule<never>, 'clause'>, v: Verdict, o: Enforcement): ClauseRef | undefined =>
  'clause' in o ? o.clause : (v.clause ?? rule.clause);

/** The failure record of a verdict, as lib/expect/failure.ts records one; undefined when the rule holds. */
export function failureOf<J>(rule: Rule<J, any>, judged: J, o: Enforcement = {}): CheckFailure | undefined {
  const v = rule.judge(judged);
  if (!v) return undefined;
  return new CheckFailure(o.at ? `${o.at}: ${v.what}` : v.what, {
    expected: v.expected,
    actual: v.actual,
    clause: clauseOf(rule, v, o) ?? rule.clause,
  });
}

/** Judges one answer on a rule and reports a failure, hard (fail) or soft (failSoft). */
export function enforce<J>(rule: Rule<J, any>, judged: J, o: Enforcement = {}): void {
  const v = rule.judge(judged);
  if (!v) return;
  const what = o.at ? `${o.at}: ${v.what}` : v.what;
  const clause = clauseOf(rule, v, o);
  if (o.soft) failSoft(what, v.expected, v.actual, { clause: clause ?? v.clause ?? rule.clause });
  else fail(what, v.expected, v.actual, { clause });
}
