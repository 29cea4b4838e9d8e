// Defects of States (spec part 3, STA-LIFE-*): an account whose access ended is refused 403 instead of as an ended token.
// The recovery states (STA-RECOVERY-*, STA-PARTIAL-*) are judged by the recovery endpoint's checks: 04-endpoints.recovery.ts.
import { editJson, problemCode } from './helpers.js';
import { wire, type Defect } from './types.js';

export const accessEndedAs403 = (id: string, clause: string): Defect =>
  wire(id, clause, 'account_access_ended answered 403', (a) =>
    problemCode(a) === 'account_access_ended'
      ? editJson({ ...a, status: 403 }, (b) => {
          b.status = 403;
          b.title = 'Forbidden';
        })
      : a,
  );

export const STATES_DEFECTS: readonly Defect[] = [
  accessEndedAs403('states.deleting-as-403', 'STA-LIFE-1'),
  accessEndedAs403('states.deleted-as-403', 'STA-LIFE-2'),
  accessEndedAs403('states.contact-transition-as-403', 'STA-LIFE-3'),
];
