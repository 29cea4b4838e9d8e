// Clauses whose checks wait for routes or caller kinds the reference does not serve yet, each with what it waits for. A
// project test fails when a clause has no check, no notTestable reason and no entry here, and when an entry here already
// has a check (a stale entry would hide a regression). Empty: every testable clause has checks.
export const PENDING: Readonly<Record<string, string>> = Object.freeze({});
