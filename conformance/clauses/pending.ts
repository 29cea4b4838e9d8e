// Clauses whose checks wait for routes and caller kinds the reference does not serve yet. A project test fails when a
// clause has no check, no notTestable reason and no entry here, and when an entry here already has a check (stale).
export const PENDING: Readonly<Record<string, string>> = {};
