// Spec, Limits. Data only; sizes in bytes, durations in seconds.

export const LIMITS = {
  requestBodyBytes: 256 * 1024,
  conversationWriteBytes: 64 * 1024,
  securityIntentBytes: 8 * 1024,
  validationIssues: 20,
  shopperIpChars: 64,
  recoverySubjectChars: { min: 1, max: 256 },
  recoveryOperationIdChars: { min: 1, max: 128 },
  descriptionCacheSeconds: 300,
  eventStreamKeepAliveSeconds: 15,
  outageRetryAfterSeconds: 5,
  previousGuestKeyWindowDays: 30,
  delegatedSignInProofMaxAgeSeconds: 600,
} as const;

/** Guest rate-limit defaults: the spec does not show budgets or windows; the reference's choice (configurable). */
export const GUEST_RATE_LIMIT_DEFAULTS = { budget: 120, windowSeconds: 60 } as const;
