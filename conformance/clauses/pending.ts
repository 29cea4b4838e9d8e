// Clauses whose checks wait for routes and caller kinds the reference does not serve yet. A project test fails when a
// clause has no check, no notTestable reason and no entry here, and when an entry here already has a check (stale).
const WAITING = {
  account: 'account data routes (/v1/me/*) and the identity read are not served yet',
  checkout: 'checkout routes (previews, saved-card checkout, checkout reads) are not served yet',
  ops: 'operator routes (/v1/ops/*) are not served yet',
  webhook: 'the payment webhook is not served yet',
  internal: 'the internal routes are not served yet',
  recovery: 'the account recovery endpoint is not served yet',
  invited: 'invited-agent callers (web-agent forwarder with an invited-agent context) are not admitted yet',
  assistant: 'assistant callers (DPoP-bound tokens, forwarders, sessions) and conversations are not admitted yet',
} as const;

const entries: [keyof typeof WAITING, readonly string[]][] = [
  ['account', ["PUR-SERVE-4", "PUR-BANNER-1", "PUR-BANNER-2", "END-CONV-2", "END-OPS-GETPROFILE-1", "END-OPS-LISTADDRESSES-1", "END-OPS-ADDADDRESS-1", "END-OPS-DELETEADDRESS-1", "END-OPS-LISTPAYMENTMETHODS-1", "END-OPS-LISTORDERS-1", "END-OPS-GETORDER-1", "END-OPS-CANCELORDER-1", "END-OPS-REQUESTRETURN-1", "END-OPS-GETIDENTITY-1", "END-LIST-2", "END-ME-1", "END-ME-2", "END-IDENT-1", "END-IDENT-2"]],
  ['checkout', ["PUR-SERVE-3", "PUR-IDEM-3", "PUR-IDEM-4", "END-OPS-CHECKOUTSAVEDCARD-1", "END-OPS-GETCHECKOUTADDRESS-1", "END-OPS-GETCHECKOUTMETHODS-1", "END-OPS-CREATECHECKOUTPREVIEW-1", "END-LIST-3", "END-LIST-4", "ERR-TABLE-14"]],
  ['ops', ["PUR-SERVE-5"]],
  ['webhook', ["PUR-SERVE-6", "RES-WEBHOOK-1", "END-PUBLIC-6", "END-PUBLIC-7", "END-PUBLIC-8", "EVT-WEBHOOK-1", "EVT-WEBHOOK-2", "EVT-WEBHOOK-3", "EVT-WEBHOOK-4", "EVT-WEBHOOK-5", "EVT-WEBHOOK-6", "EVT-WEBHOOK-7", "EVT-WEBHOOK-8"]],
  ['internal', ["PUR-RULE-4", "END-PUBLIC-9", "END-PUBLIC-11", "END-PUBLIC-12", "END-PUBLIC-13", "END-PUBLIC-14", "END-PUBLIC-15", "LIM-INTENT-1"]],
  ['recovery', ["RES-RECOVERY-1", "RES-RECOVERY-2", "RES-RECOVERY-3", "RES-RECOVERY-4", "RES-RECOVERY-5", "STA-RECOVERY-1", "STA-RECOVERY-2", "STA-RECOVERY-3", "STA-RECOVERY-4", "STA-PARTIAL-1", "STA-PARTIAL-2", "END-PUBLIC-16", "END-PUBLIC-17", "END-PUBLIC-18", "END-RECOVERY-1", "END-RECOVERY-2", "END-RECOVERY-3", "END-RECOVERY-4", "END-RECOVERY-5", "END-RECOVERY-6", "END-RECOVERY-7", "END-RECOVERY-8", "END-RECOVERY-9", "END-RECOVERY-10", "END-RECOVERY-11", "END-RECOVERY-12", "END-RECOVERY-13", "LIM-RECOVERY-1", "LIM-RECOVERY-2"]],
  ['invited', ["AUTH-KIND-10", "AUTH-CRED-5", "AUTH-CRED-6", "AUTH-CRED-7", "AUTH-CUST-9", "AUTH-SCOPE-11"]],
  ['assistant', ["PUR-CALLERS-1", "END-PUBLIC-19", "AUTH-KIND-12", "AUTH-CRED-8", "AUTH-CRED-9", "AUTH-CRED-10", "AUTH-ORDER-4", "AUTH-ORDER-5", "AUTH-ORDER-7", "AUTH-ORDER-12", "AUTH-SCHEME-1", "AUTH-SCOPE-3", "AUTH-SCOPE-4", "AUTH-SCOPE-5", "AUTH-SCOPE-6", "AUTH-SCOPE-7", "AUTH-SCOPE-8", "AUTH-SCOPE-9", "AUTH-SCOPE-10", "AUTH-ASST-1", "AUTH-ASST-3", "AUTH-ASST-4", "AUTH-ASST-5", "AUTH-ASST-6", "AUTH-ASST-7", "AUTH-ASST-8", "AUTH-ASST-9", "AUTH-ASST-10", "AUTH-ASST-11", "AUTH-ASST-14", "AUTH-ASST-15", "AUTH-ASST-16", "AUTH-ASST-17", "AUTH-ASST-18", "AUTH-SIGNIN-1", "AUTH-SIGNIN-2", "AUTH-ACTIVE-2", "EVT-STREAM-1", "ERR-SCOPE-1", "ERR-TABLE-4", "ERR-TABLE-10", "ERR-TABLE-15", "LIM-CONV-1", "LIM-STREAM-1", "LIM-RATE-2", "LIM-RATE-3"]],
];

export const PENDING: Readonly<Record<string, string>> = Object.freeze(Object.fromEntries(entries.flatMap(([why, ids]) => ids.map((id) => [id, WAITING[why]]))));
