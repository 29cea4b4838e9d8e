// Fixed-window counters (guest budgets per operation id and shopper). In memory: each instance counts its own traffic.
import type { Clock } from './domain.js';

export interface RateLimitDecision {
  allowed: boolean;
  remaining: number;
  /** Seconds until the window resets (at least 1). */
  resetSeconds: number;
}

export interface RateLimiter {
  hit(key: string): RateLimitDecision;
  readonly budget: number;
  readonly windowSeconds: number;
}

export function createRateLimiter(budget: number, windowSeconds: number, clock: Clock): RateLimiter {
  const windows = new Map<string, { start: number; count: number }>();
  const windowMs = windowSeconds * 1000;
  let lastSweep = 0;
  return {
    budget,
    windowSeconds,
    // [LIM-RATE-1] [LIM-RATE-2] [LIM-RATE-3] one window per key: the stage keys guests per operation id, assistants per session and client.
    hit(key) {
      const now = clock().getTime();
      if (now - lastSweep > windowMs) {
        for (const [k, w] of windows) if (now - w.start >= windowMs) windows.delete(k);
        lastSweep = now;
      }
      let w = windows.get(key);
      if (!w || now - w.start >= windowMs) {
        w = { start: now, count: 0 };
        windows.set(key, w);
      }
      w.count += 1;
      const resetSeconds = Math.max(1, Math.ceil((w.start + windowMs - now) / 1000));
      return { allowed: w.count <= budget, remaining: Math.max(0, budget - w.count), resetSeconds };
    },
  };
}
