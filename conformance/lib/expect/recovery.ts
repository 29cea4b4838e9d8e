// An account recovery operation's answer (spec, States > Account recovery; Resources): its `status`.
import { fail, expectStatus, type ClauseRef } from '../assert.js';
import type { Answer } from './response.js';

/** 200 with `status` equal to `want` (the member the spec names; others are not judged). */
export function expectRecoveryStatus(res: Answer, want: 'complete' | 'pending' | 'cancelled', { clause }: { clause: ClauseRef }): void {
  expectStatus(res, 200, { clause });
  if (typeof res.body !== 'object' || res.body === null) fail('a JSON object body', '{ "status": … }', res.text.slice(0, 300), { clause });
  if (!['complete', 'pending', 'cancelled'].includes(res.body.status))
    fail('"status" is one of complete, pending, cancelled', ['complete', 'pending', 'cancelled'], res.body.status, {
      clause: 'RES-RECOVERY-5',
    });
  if (res.body.status !== want) fail('"status"', want, res.body.status, { clause });
}
