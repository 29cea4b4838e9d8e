// Clauses whose checks wait for routes and caller kinds the reference does not serve yet. A project test fails when a
// clause has no check, no notTestable reason and no entry here, and when an entry here already has a check (stale).
const WAITING = {
  invited: 'invited-agent callers (web-agent forwarder with an invited-agent context) are not admitted yet',
  assistant: 'assistant callers (DPoP-bound tokens, forwarders, sessions) and conversations are not admitted yet',
} as const;

const entries: [keyof typeof WAITING, readonly string[]][] = [
  ['invited', ["AUTH-KIND-10","AUTH-CRED-5","AUTH-CRED-6","AUTH-CRED-7","AUTH-CUST-9","AUTH-SCOPE-11"]],
  ['assistant', ["PUR-CALLERS-1","END-PUBLIC-19","AUTH-KIND-12","AUTH-CRED-8","AUTH-CRED-9","AUTH-CRED-10","AUTH-ORDER-4","AUTH-ORDER-5","AUTH-ORDER-7","AUTH-ORDER-12","AUTH-SCHEME-1","AUTH-SCOPE-3","AUTH-SCOPE-4","AUTH-SCOPE-5","AUTH-SCOPE-6","AUTH-SCOPE-7","AUTH-SCOPE-8","AUTH-SCOPE-9","AUTH-SCOPE-10","AUTH-ASST-1","AUTH-ASST-3","AUTH-ASST-4","AUTH-ASST-5","AUTH-ASST-6","AUTH-ASST-7","AUTH-ASST-8","AUTH-ASST-9","AUTH-ASST-10","AUTH-ASST-11","AUTH-ASST-14","AUTH-ASST-15","AUTH-ASST-16","AUTH-ASST-17","AUTH-ASST-18","AUTH-SIGNIN-1","AUTH-SIGNIN-2","AUTH-ACTIVE-2","EVT-STREAM-1","ERR-SCOPE-1","ERR-TABLE-4","ERR-TABLE-10","ERR-TABLE-15","LIM-CONV-1","LIM-STREAM-1","LIM-RATE-2","LIM-RATE-3"]],
];

export const PENDING: Readonly<Record<string, string>> = Object.freeze(Object.fromEntries(entries.flatMap(([why, ids]) => ids.map((id) => [id, WAITING[why]]))));
