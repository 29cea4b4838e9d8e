// The clauses whose checks depend on a time window or an interval: what a long round trip could turn into a false
// verdict (a budget window that closes while its requests travel, a proof or context judged stale on arrival, a signature
// timestamp outside its tolerance, a keep-alive measured late). The bench's `windows` section runs them all behind the
// latency proxy at 300 ms (the reference, every conforming alternate, and the self-test); test/cli/latency.test.ts runs
// the `short` ones at 40 ms in npm test. One list, so that a clause added here is proven in both.

export interface WindowClause {
  readonly id: string;
  /** Why its check depends on a window. */
  readonly why: string;
  /** Run in npm test's short latency run (seconds, not minutes, at 40 ms). */
  readonly short?: true;
}

export const WINDOW_CLAUSES: readonly WindowClause[] = [
  // Rate limits: a budget is spent within its window; a slow link must neither let the window close mid-spend nor the
  // check read a refill as a missing budget.
  { id: 'LIM-RATE-1', why: 'guest budgets per operation, spent within their window', short: true },
  { id: 'LIM-RATE-2', why: 'assistant per-session budget, spent within its window', short: true },
  { id: 'LIM-RATE-3', why: 'assistant per-client budget, spent within its window', short: true },
  { id: 'LIM-RATE-4', why: '429 rate_limited with Retry-After once a budget is spent within its window' },
  { id: 'ERR-TABLE-12', why: 'the 429 row: reached only by spending a budget within its window' },
  // The processing order around budgets: the budget must still be spent when the refused or invalid request arrives.
  { id: 'AUTH-ORDER-8', why: 'guard before rate limit, judged over a budget spent within its window', short: true },
  { id: 'AUTH-ORDER-9', why: 'rate limit before validation, judged over a budget spent within its window', short: true },
  // DPoP: proofs carry iat (recency), servers hand out nonces (which may expire), accepted jtis are kept for a window.
  { id: 'AUTH-ASST-11', why: 'replay of an accepted proof jti, refused while the jti is kept', short: true },
  { id: 'AUTH-ORDER-12', why: 'a fresh proof recorded once: its iat must still be recent when it arrives' },
  { id: 'AUTH-ORDER-4', why: 'DPoP-Nonce on every answer: proofs carry the latest nonce and a recent iat' },
  { id: 'ERR-TABLE-4', why: 'proof and nonce failures, among them iat an hour off and a stale nonce' },
  // Invited-agent context: a signed context with iat and exp, judged fresh or expired on arrival.
  { id: 'AUTH-CRED-6', why: 'the invited-agent context (iat, exp) judged on arrival, an expired one among its defects' },
  { id: 'AUTH-CRED-7', why: 'the invited-agent context (iat, exp) judged on arrival' },
  // Tokens: exp measured against the server's clock when the token arrives.
  { id: 'AUTH-TOKEN-6', why: 'expired tokens: exp against the clock on arrival' },
  // Guest keys: the previous key verifies only before a deadline set relative to now.
  { id: 'AUTH-GUEST-7', why: 'the previous guest key after its deadline' },
  { id: 'AUTH-GUEST-13', why: 'the previous guest key before its deadline' },
  { id: 'AUTH-GUEST-14', why: 'the previous guest key refused after its deadline' },
  { id: 'AUTH-GUEST-15', why: 'the 30-day rotation window, measured from the run clock' },
  { id: 'LIM-GUESTKEY-1', why: 'the 30-day rotation window (Limits row)' },
  // Webhook: the provider signature carries a timestamp judged within a tolerance.
  { id: 'EVT-WEBHOOK-5', why: "the provider signature's timestamp within its tolerance" },
  // Event streams: a keep-alive comment at least every 15 s, measured on a stream that crosses the link.
  { id: 'EVT-STREAM-1', why: 'keep-alive interval of 15 s on the event stream' },
  { id: 'LIM-STREAM-1', why: 'keep-alive interval of 15 s (Limits row)' },
  // Description documents: a freshness lifetime of 300 s (max-age, else Expires minus Date).
  { id: 'LIM-DOCS-1', why: 'freshness lifetime of 300 s, Expires minus Date where no max-age' },
  { id: 'END-PUBLIC-3', why: 'freshness lifetime of /openapi.json' },
  { id: 'END-PUBLIC-5', why: 'freshness lifetime of /assistant/openapi.json' },
];

export const WINDOW_CLAUSE_IDS: readonly string[] = WINDOW_CLAUSES.map((c) => c.id);
export const SHORT_WINDOW_CLAUSE_IDS: readonly string[] = WINDOW_CLAUSES.filter((c) => c.short).map((c) => c.id);
