// Spec part 4, Endpoints, for the body of the recovery endpoint (Resources > Account recovery request, and its rows of
// Limits): the body of POST /internal/account/recover has exactly `subject` (1–256 characters), `operationId` (1–128
// characters) and `purpose` (`email` or `delete`); a new email or a provider command cannot be passed (Endpoints,
// Additional route facts). Invalid bodies are 400 invalid_request; valid ones naming an operation that exists nowhere
// reach the lookup (404 recovery_not_found), so nothing is written.
import { judgeCases } from '../engine/runner/cases.js';
import { check, test, type Shop } from '../engine/runner/check.js';
import type { ClauseRef } from '../lib/assert.js';
import { freshId } from '../lib/fresh-id.js';
import { expectInvalidRecovery, expectRecoveryNotFound, unknownOperation } from './_shared/recover-account.js';
import { RECOVERY_OPERATIONS } from './_shared/seed-data.js';

/** One body of a recovery request: invalid (400 invalid_request), or valid and naming an operation that exists nowhere. */
interface BodyCase {
  what: string;
  body: unknown;
  clause: string;
  valid?: true;
}

/** An invalid body is 400 invalid_request; a valid one reaches the lookup and finds nothing (404 recovery_not_found). */
const judgeBody = (shop: Shop, { what, body, clause, valid }: BodyCase): Promise<void> =>
  valid ? expectRecoveryNotFound(shop, body, { what, clause }) : expectInvalidRecovery(shop, body, { what, clause });

test(
  ...check(
    {
      id: 'endpoints.recovery.body.no-other-members',
      title:
        'the recovery request accepts no member beyond subject, operationId and purpose: a new email or a provider command is 400 invalid_request',
      clauses: ['RES-RECOVERY-4', 'END-RECOVERY-5', 'END-RECOVERY-6'],
      requires: ['recovery'],
    },
    async (shop) => {
      // A new email or a provider command is an unknown member too: that case judges both clauses.
      const email = ['RES-RECOVERY-4', 'END-RECOVERY-5'] as const;
      const command = ['RES-RECOVERY-4', 'END-RECOVERY-6'] as const;
      const cases: [ClauseRef, string, Record<string, unknown>][] = [
        ['RES-RECOVERY-4', 'an unknown member', { note: 'hello' }],
        ['RES-RECOVERY-4', 'freshIntentId', { freshIntentId: freshId('intent') }],
        ['RES-RECOVERY-4', 'a status', { status: 'complete' }],
        [email, 'email', { email: 'new.address@example.com' }],
        [email, 'newEmail', { newEmail: 'new.address@example.com' }],
        [email, 'pendingEmail', { pendingEmail: 'new.address@example.com' }],
        [command, 'command', { command: 'delete_user' }],
        [command, 'a provider action', { provider: { action: 'force_complete' } }],
      ];
      // Every case is judged, and each case that fails is a failure of its own: a server that takes a new email is blamed
      // for it even when it also ignores other unknown members. Every body names an operation that exists nowhere (a
      // service that ignored the member would answer 404, and change nothing): cases of their own.
      await judgeCases(cases, ([clause, what, extra]) =>
        expectInvalidRecovery(shop, { ...unknownOperation(), ...extra }, { what, clause }),
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.recovery.body.subject',
      title:
        'the recovery `subject` is a required string of 1–256 characters: missing, non-string, empty or 257 is 400; 1 and 256 reach the lookup',
      clauses: ['RES-RECOVERY-1', 'LIM-RECOVERY-1'],
      requires: ['recovery'],
    },
    async (shop) => {
      const base = unknownOperation();
      const { subject: _s, ...missing } = base;
      // Every body names an operation that exists nowhere (the valid ones reach the lookup and find nothing), so none
      // changes anything: cases of their own.
      const cases: BodyCase[] = [
        { what: 'subject missing', body: missing, clause: 'RES-RECOVERY-1' },
        { what: 'subject a number', body: { ...base, subject: 42 }, clause: 'RES-RECOVERY-1' },
        { what: 'subject null', body: { ...base, subject: null }, clause: 'RES-RECOVERY-1' },
        { what: 'subject of 0 characters', body: { ...base, subject: '' }, clause: 'LIM-RECOVERY-1' },
        { what: 'subject of 257 characters', body: { ...base, subject: 's'.repeat(257) }, clause: 'LIM-RECOVERY-1' },
        {
          what: 'subject of 1 character (valid; the operation does not exist)',
          body: { ...base, subject: 's' },
          clause: 'LIM-RECOVERY-1',
          valid: true,
        },
        {
          what: 'subject of 256 characters (valid; the operation does not exist)',
          body: { ...base, subject: 's'.repeat(256) },
          clause: 'LIM-RECOVERY-1',
          valid: true,
        },
      ];
      await judgeCases(cases, (c) => judgeBody(shop, c));
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.recovery.body.operation-id',
      title:
        'the recovery `operationId` is a required string of 1–128 characters: missing, non-string, empty or 129 is 400; 1 and 128 reach the lookup',
      clauses: ['RES-RECOVERY-2', 'LIM-RECOVERY-2'],
      requires: ['recovery'],
    },
    async (shop) => {
      const base = unknownOperation();
      const { operationId: _o, ...missing } = base;
      // Every body names an operation that exists nowhere (the valid ones reach the lookup and find nothing), so none
      // changes anything: cases of their own.
      const cases: BodyCase[] = [
        { what: 'operationId missing', body: missing, clause: 'RES-RECOVERY-2' },
        { what: 'operationId a number', body: { ...base, operationId: 7 }, clause: 'RES-RECOVERY-2' },
        {
          what: 'operationId an array',
          body: { ...base, operationId: [RECOVERY_OPERATIONS.cancelled.operationId] },
          clause: 'RES-RECOVERY-2',
        },
        { what: 'operationId of 0 characters', body: { ...base, operationId: '' }, clause: 'LIM-RECOVERY-2' },
        { what: 'operationId of 129 characters', body: { ...base, operationId: 'o'.repeat(129) }, clause: 'LIM-RECOVERY-2' },
        // One character could name a real operation of another deployment: "~" is an unlikely id.
        {
          what: 'operationId of 1 character (valid; the operation does not exist)',
          body: { ...base, operationId: '~' },
          clause: 'LIM-RECOVERY-2',
          valid: true,
        },
        {
          what: 'operationId of 128 characters (valid; the operation does not exist)',
          body: { ...base, operationId: freshId('recop').padEnd(128, 'x') },
          clause: 'LIM-RECOVERY-2',
          valid: true,
        },
      ];
      await judgeCases(cases, (c) => judgeBody(shop, c));
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.recovery.body.purpose',
      title: 'the recovery `purpose` is exactly `email` or `delete`: missing, another value, another case or a non-string is 400',
      clauses: ['RES-RECOVERY-3'],
      requires: ['recovery'],
    },
    async (shop) => {
      const base = unknownOperation();
      const { purpose: _p, ...missing } = base;
      // Every body names an operation that exists nowhere (the valid ones reach the lookup and find nothing), so none
      // changes anything: cases of their own.
      const cases: BodyCase[] = [
        { what: 'purpose missing', body: missing, clause: 'RES-RECOVERY-3' },
        ...['Email', 'DELETE', 'phone', 'deletion', '', 'email ', 1, null, ['email']].map((purpose): BodyCase => ({
          what: `purpose ${JSON.stringify(purpose)}`,
          body: { ...base, purpose },
          clause: 'RES-RECOVERY-3',
        })),
        ...(['email', 'delete'] as const).map((purpose): BodyCase => ({
          what: `purpose "${purpose}" (valid; the operation does not exist)`,
          body: { ...base, purpose },
          clause: 'RES-RECOVERY-3',
          valid: true,
        })),
      ];
      await judgeCases(cases, (c) => judgeBody(shop, c));
    },
  ),
);

// The reference's reading of an unconsumed proof (endpoints.recovery.unconsumed-proof in 04-endpoints.recovery accepts 404 or 409):
// no resumable authorization matches it.
test(
  ...check(
    {
      id: 'endpoints.recovery.unconsumed-proof.reference',
      title: 'an operation whose proof was never consumed (proof_pending) is 404 recovery_not_found',
      clauses: ['END-RECOVERY-4'],
      level: 'reference',
      requires: ['recovery'],
      seed: true,
    },
    async (shop) => {
      await expectRecoveryNotFound(shop, RECOVERY_OPERATIONS.proofPending, {
        what: `a request for ${RECOVERY_OPERATIONS.proofPending.operationId}`,
        clause: 'END-RECOVERY-4',
      });
    },
  ),
);
