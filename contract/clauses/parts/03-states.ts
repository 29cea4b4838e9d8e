// The clause catalogue, spec part 3: States and transitions (contract/clauses/catalogue.ts assembles the parts). Data only.
import type { Clause } from '../catalogue.js';
import { STA } from '../headings.js';

export const STATES: readonly Clause[] = [
  {
    id: 'STA-LIFE-1',
    part: 'states',
    section: STA,
    severity: 'MUST',
    text: 'A request on behalf of an account in state `deleting` is refused with 401 account_access_ended.',
  },
  {
    id: 'STA-LIFE-2',
    part: 'states',
    section: STA,
    severity: 'MUST',
    text: 'A request on behalf of an account in state `deleted` is refused with 401 account_access_ended.',
  },
  {
    id: 'STA-LIFE-3',
    part: 'states',
    section: STA,
    severity: 'MUST',
    text: 'A request on behalf of an account in state `contact_transition` is refused with 401 account_access_ended.',
  },
  {
    id: 'STA-LIFE-4',
    part: 'states',
    section: STA,
    severity: 'MUST',
    text: 'The email-verification sync may finish a pending email change during `contact_transition`.',
    notTestable: 'the email-verification sync is performed by the storefront and is not a service route (PUR-STOREFRONT-5)',
  },
  {
    id: 'STA-LIFE-5',
    part: 'states',
    section: STA,
    severity: 'MUST',
    text: 'A sign-in that finishes a pending email change is allowed during `contact_transition`.',
    notTestable: 'sign-in happens at the identity provider and storefront; the service is session-unaware and has no sign-in route',
  },
  {
    id: 'STA-RECOVERY-1',
    part: 'states',
    section: STA,
    severity: 'MUST',
    text: 'Recovery status `complete` is returned when the operation has finished.',
  },
  {
    id: 'STA-RECOVERY-2',
    part: 'states',
    section: STA,
    severity: 'MUST',
    text: 'Recovery status `pending` is returned when provider work remains.',
  },
  {
    id: 'STA-RECOVERY-3',
    part: 'states',
    section: STA,
    severity: 'MUST',
    text: 'Recovery status `cancelled` is returned when the authorization is retired.',
  },
  {
    id: 'STA-RECOVERY-4',
    part: 'states',
    section: STA,
    severity: 'MUST',
    text: 'A cancelled recovery authorization is never reopened: repeating the request keeps answering `cancelled`, never `pending` or `complete`.',
  },
  {
    id: 'STA-PARTIAL-1',
    part: 'states',
    section: STA,
    severity: 'MUST',
    text: 'When an email change or account deletion partly fails, the approved operation and its checkpoints are preserved: the same operation can be resumed through the recovery endpoint.',
  },
  {
    id: 'STA-PARTIAL-2',
    part: 'states',
    section: STA,
    severity: 'MUST',
    text: 'After a partial failure the account stays restricted (denied, or in contact transition: 401 account_access_ended) until that same operation is explicitly resumed.',
  },
  {
    id: 'STA-PARTIAL-3',
    part: 'states',
    section: STA,
    severity: 'MUST',
    text: 'No background job retries a partly failed email change or account deletion.',
    notTestable: 'background jobs are invisible to a black box; a retry would only show as a state change at an unknown time',
  },
];
