// Blind defects of "Limits" (spec part 8): bounds accepted one character over, and rate counting.
import { headerOf, notAStream, pathOf, problemAnswer } from '../helpers.js';
import { lenient, type Defect } from '../types.js';
import { kindOf, statefulWire } from './shared.js';

/** The recovery body with one string member cut to `max` characters. */
const truncateMember = (body: string, member: string, max: number): string => {
  try {
    const v = JSON.parse(body) as Record<string, unknown>;
    const s = v?.[member];
    if (typeof s !== 'string' || s.length <= max) return body;
    return JSON.stringify({ ...v, [member]: s.slice(0, max) });
  } catch {
    return body;
  }
};

export const BLIND_LIMITS_DEFECTS: readonly Defect[] = [
  // Limits: "recovery `subject` | 1–256 characters". Broken: a longer subject is cut to 256.
  lenient(
    'blind.limits.recovery-subject-truncated',
    'LIM-RECOVERY-1',
    'a recovery subject over 256 characters is truncated, not refused',
    () => ({
      requestBody: (r, body) => (pathOf(r) === '/internal/account/recover' ? truncateMember(body, 'subject', 256) : body),
    }),
  ),
  // Limits: "recovery `operationId` | 1–128 characters". Broken: a longer operationId is cut to 128.
  lenient(
    'blind.limits.recovery-operation-id-truncated',
    'LIM-RECOVERY-2',
    'a recovery operationId over 128 characters is truncated, not refused',
    () => ({
      requestBody: (r, body) => (pathOf(r) === '/internal/account/recover' ? truncateMember(body, 'operationId', 128) : body),
    }),
  ),
  // "Rate limiting: guests are counted exactly per operation id". Broken: one counter per shopper across all operations.
  statefulWire(
    'blind.limits.guest-rate-shared-across-operations',
    'LIM-RATE-1',
    'guest requests share one budget across operations',
    (ctx) => {
      const limits = ctx.profile.rateLimits;
      if (!limits) return {};
      const counters = new Map<string, { start: number; count: number }>();
      return {
        buffer: notAStream,
        response(a, r) {
          if (kindOf(ctx.profile, r) !== 'guest' || a.status >= 400) return a;
          const key = headerOf(r.headers, 'shopper-ip') ?? headerOf(r.headers, 'guest-session') ?? 'storefront';
          const now = Date.now();
          let c = counters.get(key);
          if (!c || now - c.start >= limits.guestWindowSeconds * 1000) counters.set(key, (c = { start: now, count: 0 }));
          c.count += 1;
          if (c.count <= limits.guestBudget) return a;
          const retry = Math.max(1, Math.ceil((c.start + limits.guestWindowSeconds * 1000 - now) / 1000));
          return problemAnswer(ctx, a, 429, 'rate_limited', 'Too Many Requests', [['Retry-After', String(retry)]]);
        },
      };
    },
  ),
];
