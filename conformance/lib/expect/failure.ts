// A failed expectation as data (OIDF's condition result, h2spec's TestError): what was looked at, expected and actual, the
// clauses it enforces, and which exchange of the check's transcript it was judged on. Every helper of the vocabulary
// takes the clause in the same place: a trailing options object `{ clause }`.

/**
 * The clause an assertion enforces, or several where one observation judges them together (the spec states one fact in
 * two parts, or one answer is both a route's and a caller kind's requirement): a failure blames every one of them.
 */
export type ClauseRef = string | readonly string[];

export interface ClauseOption {
  /** Clause id (or ids) the check enforces, carried by the failure. */
  clause?: ClauseRef | undefined;
}

export class CheckFailure extends Error {
  override readonly name = 'CheckFailure';
  /** What was looked at (a case named by inCase() comes first). */
  what: string;
  readonly expected: unknown;
  readonly actual: unknown;
  /** The first clause named (kept for messages and callers that know one). */
  readonly clause: string | undefined;
  /** Every clause the failed assertion names. */
  readonly clauses: readonly string[];
  /** The target refused the setup of a capability the profile claims: a failure of the refusing route's clause, never a skip. */
  readonly setup: boolean;
  /** How many exchanges the check's transcript held when the failure was found (the last one is the one judged). */
  exchange: number | undefined;
  constructor(what: string, details: { expected: unknown; actual: unknown; clause?: ClauseRef | undefined; setup?: boolean }) {
    const clauses = details.clause === undefined ? [] : typeof details.clause === 'string' ? [details.clause] : [...details.clause];
    super(
      `${details.setup ? 'setup failed: ' : ''}${clauses.length ? `[${clauses.join(', ')}] ` : ''}${what}: expected ${show(details.expected)}, got ${show(details.actual)}`,
    );
    this.what = what;
    this.expected = details.expected;
    this.actual = details.actual;
    this.clause = clauses[0];
    this.clauses = clauses;
    this.setup = details.setup ?? false;
    this.exchange = softFailures.exchanges?.();
  }
}

/** A failed expectation: what was looked at, what was expected and what came, and the clause it enforces. */
export function fail(what: string, expected: unknown, actual: unknown, opts: ClauseOption = {}): never {
  throw new CheckFailure(what, { expected, actual, clause: opts.clause });
}

/**
 * A setup step of a claimed capability that the target refused (the identity-provider proxy did not register a session, a
 * documented body was refused): the run fails on the clause of the route that refused, with the transcript.
 */
export function failSetup(what: string, expected: unknown, actual: unknown, opts: { clause: ClauseRef }): never {
  throw new CheckFailure(what, { expected, actual, clause: opts.clause, setup: true });
}

/**
 * What a check needs that the deployment does not declare (a route, a body member's role, a datum the spec leaves open):
 * the check is not judged, with the reason and the declaration that would enable it, and no clause fails.
 */
export class NotDeclared extends Error {
  override readonly name = 'NotDeclared';
  constructor(
    readonly what: string,
    readonly declaration: string,
  ) {
    super(`not judged: the deployment does not declare ${what} (declare ${declaration})`);
  }
}

export function notDeclared(what: string, declaration: string): never {
  throw new NotDeclared(what, declaration);
}

/**
 * The soft failures of the running check (OIDF's callAndContinueOnFailure): the check wrapper opens a ledger per check;
 * a soft failure is recorded there and the check goes on, so that it still judges its own clause. Without an open
 * ledger (a unit test calling an assertion directly) a soft failure throws like any other. `exchanges` counts the
 * check's exchanges so far, for the failure's reference into the transcript.
 */
export const softFailures: { ledger: CheckFailure[] | undefined; exchanges?: (() => number) | undefined } = { ledger: undefined };

/** A failed expectation of a cross-cutting clause (a problem document's member, a header every response carries). */
export function failSoft(what: string, expected: unknown, actual: unknown, opts: { clause: ClauseRef }): void {
  const failure = new CheckFailure(what, { expected, actual, clause: opts.clause });
  if (!softFailures.ledger) throw failure;
  if (!softFailures.ledger.some((f) => f.message === failure.message)) softFailures.ledger.push(failure);
}

/**
 * Runs the assertions of one case of a check and names the case in their failure: `[CLAUSE] <what>: <the assertion's own
 * text>`. An async assertion gives a promise to await.
 */
export function inCase(what: string, assertion: () => Promise<unknown>): Promise<void>;
export function inCase(what: string, assertion: () => void): void;
export function inCase(what: string, assertion: () => unknown): void | Promise<void> {
  const name = (err: unknown): never => {
    if (err instanceof CheckFailure) {
      err.message = err.message.replace(/^(\[[^\]]*\] )?/, (prefix) => `${prefix}${what}: `);
      err.what = `${what}: ${err.what}`;
    }
    throw err;
  };
  let result: unknown;
  try {
    result = assertion();
  } catch (err) {
    return name(err);
  }
  if (result instanceof Promise) return result.then(() => undefined, name);
}

export function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  try {
    const text = JSON.stringify(value);
    return text === undefined ? String(value) : text.length > 300 ? `${text.slice(0, 300)}…` : text;
  } catch {
    return String(value);
  }
}
