// The clause catalogue, spec part 2: Resources (contract/clauses/catalogue.ts assembles the parts). Data only.
import type { Clause } from '../catalogue.js';
import { RES_PROBLEM, RES_GUEST, RES_RECOVERY, RES_WEBHOOK } from '../headings.js';

export const RESOURCES: readonly Clause[] = [
  {
    id: 'RES-PROBLEM-1',
    part: 'resources',
    section: RES_PROBLEM,
    severity: 'MUST',
    text: 'Every error body is an RFC 9457 problem document with media type application/problem+json.',
  },
  {
    id: 'RES-PROBLEM-2',
    part: 'resources',
    section: RES_PROBLEM,
    severity: 'MUST',
    text: 'A problem document always has an `error` member: a string holding the stable machine code.',
  },
  {
    id: 'RES-PROBLEM-3',
    part: 'resources',
    section: RES_PROBLEM,
    severity: 'MUST',
    text: 'A problem document always has `type`, a URI string equal to {docs_url}/api/problems/<error>.',
  },
  {
    id: 'RES-PROBLEM-4',
    part: 'resources',
    section: RES_PROBLEM,
    severity: 'MUST',
    text: 'A problem document always has `title`, the HTTP reason phrase of its status.',
  },
  {
    id: 'RES-PROBLEM-5',
    part: 'resources',
    section: RES_PROBLEM,
    severity: 'MUST',
    text: 'A problem document always has `status`, an integer equal to the HTTP status of the response.',
  },
  {
    id: 'RES-PROBLEM-6',
    part: 'resources',
    section: RES_PROBLEM,
    severity: 'MUST',
    text: 'The optional `detail` member, when present, is a string.',
  },
  {
    id: 'RES-PROBLEM-7',
    part: 'resources',
    section: RES_PROBLEM,
    severity: 'MUST',
    text: '`detail` is never present on an internal_error problem.',
    notTestable:
      'a black box has no request guaranteed to cause an internal_error in a conforming server (every problem the checks meet is still checked for it)',
  },
  {
    id: 'RES-PROBLEM-8',
    part: 'resources',
    section: RES_PROBLEM,
    severity: 'MUST',
    text: 'A problem document always has `instance`, a string equal to the X-Request-Id of the request (as written on the response).',
  },
  {
    id: 'RES-PROBLEM-9',
    part: 'resources',
    section: RES_PROBLEM,
    severity: 'MUST',
    text: '`issues` appears only on validation errors (invalid_request), as an array of at most 20 items.',
  },
  {
    id: 'RES-PROBLEM-10',
    part: 'resources',
    section: RES_PROBLEM,
    severity: 'MUST',
    text: 'Each `issues` item has the members `path`, `code` and `message`.',
  },
  {
    id: 'RES-PROBLEM-11',
    part: 'resources',
    section: RES_PROBLEM,
    severity: 'MUST',
    text: '`scope` appears only on insufficient_scope problems, and names the missing scope.',
  },
  {
    id: 'RES-PROBLEM-12',
    part: 'resources',
    section: RES_PROBLEM,
    severity: 'MUST',
    text: '`conversation_id` appears only on direct_conversation_open problems, and names the conversation concerned.',
  },

  {
    id: 'RES-GUEST-1',
    part: 'resources',
    section: RES_GUEST,
    severity: 'MUST',
    text: 'A Guest-Session value has the format gs1.<uuid>.<signature>; any other shape is malformed (401 invalid_guest_session).',
  },
  {
    id: 'RES-GUEST-2',
    part: 'resources',
    section: RES_GUEST,
    severity: 'MUST',
    text: 'The <uuid> of a guest session value is a lowercase UUID and is the cart id; an uppercase UUID is malformed.',
  },
  {
    id: 'RES-GUEST-3',
    part: 'resources',
    section: RES_GUEST,
    severity: 'MUST',
    text: 'The <signature> of a guest session value is the 43-character base64url (unpadded) HMAC-SHA256 of the id under the shared guest key; any other signature is refused.',
  },

  {
    id: 'RES-RECOVERY-1',
    part: 'resources',
    section: RES_RECOVERY,
    severity: 'MUST',
    text: 'The recovery request body requires `subject`, a string of 1–256 characters.',
  },
  {
    id: 'RES-RECOVERY-2',
    part: 'resources',
    section: RES_RECOVERY,
    severity: 'MUST',
    text: 'The recovery request body requires `operationId`, a string of 1–128 characters.',
  },
  {
    id: 'RES-RECOVERY-3',
    part: 'resources',
    section: RES_RECOVERY,
    severity: 'MUST',
    text: 'The recovery request body requires `purpose`, exactly `email` or `delete`.',
  },
  {
    id: 'RES-RECOVERY-4',
    part: 'resources',
    section: RES_RECOVERY,
    severity: 'MUST',
    text: 'The recovery request body accepts no other fields: an unknown member is refused with 400 invalid_request.',
  },
  {
    id: 'RES-RECOVERY-5',
    part: 'resources',
    section: RES_RECOVERY,
    severity: 'MUST',
    text: 'A successful recovery response carries `status`, one of `complete`, `pending`, `cancelled`.',
  },

  {
    id: 'RES-WEBHOOK-1',
    part: 'resources',
    section: RES_WEBHOOK,
    severity: 'MUST',
    text: 'The payment webhook success body is the JSON object {"received": true}, `received` a boolean.',
  },
];
