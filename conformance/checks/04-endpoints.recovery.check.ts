// Spec part 4, Endpoints > Recovery endpoint results, with States and transitions (recovery statuses, partial failure):
// ownership, purpose and the persisted phase decide; an unconsumed proof never begins an operation; repeating a request
// never grants fresh authority; a cancelled authorization is never reopened.
//
// Data. The seed's recovery operations that no request can change (RECOVERY_OPERATIONS of _shared/seed-data.ts): complete,
// cancelled, proof_pending and provider_pending (which stays pending however often it is resumed). The approved operation
// is never touched: resuming it completes it, and a rerun would see another phase.
import { check, test } from '../engine/runner/check.js';
import { judgeCases } from '../engine/runner/cases.js';
import { brief, expectNoStore, expectProblem, fail, inCase, expectSameJson } from '../lib/assert.js';
import { freshId } from '../lib/fresh-id.js';
import { expectRecoveryNotFound, recover, resumeProviderPending, unknownOperation } from './_shared/recover-account.js';
import { expectRecoveryStatus } from '../lib/expect/recovery.js';
import { ADA, BEN, DEV, RECOVERY_OPERATIONS } from './_shared/seed-data.js';

/** The `error` member of a 4xx answer's body, if it has one. */
function problemCodeOf(res: { status: number; body?: unknown }): unknown {
  return res.status >= 400 && typeof res.body === 'object' && res.body !== null ? (res.body as { error?: unknown }).error : undefined;
}

test(
  ...check(
    {
      id: 'endpoints.recovery.unknown-operation',
      everyResponse: true,
      title: 'a recovery request for an operation that does not exist is 404 recovery_not_found',
      clauses: ['END-RECOVERY-12'],
      requires: ['recovery'],
    },
    async (shop) => {
      // Three lookups of operations that exist nowhere (nothing to change): cases of their own.
      const cases: [string, object][] = [
        ...(['email', 'delete'] as const).map((purpose): [string, object] => [
          `unknown operation, purpose ${purpose}`,
          unknownOperation(purpose),
        ]),
        ['unknown operation of a seeded account', { subject: ADA.sub, operationId: freshId('recop'), purpose: 'delete' }],
      ];
      await judgeCases(cases, ([what, body]) => expectRecoveryNotFound(shop, body, { what, clause: 'END-RECOVERY-12' }));
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.recovery.cancelled',
      title:
        "the seed's cancelled operation answers 200 status cancelled, and keeps answering it: a retired authorization is never reopened",
      clauses: ['STA-RECOVERY-3', 'STA-RECOVERY-4', 'END-RECOVERY-10', 'RES-RECOVERY-5'],
      requires: ['recovery'],
      seed: true,
    },
    async (shop) => {
      for (let i = 1; i <= 3; i++) {
        const res = await recover(shop, RECOVERY_OPERATIONS.cancelled);
        inCase(`request ${i} for ${RECOVERY_OPERATIONS.cancelled.operationId}`, () =>
          // The first answer is one fact stated twice (States: `cancelled`; Endpoints: 200 status cancelled); a repeat that
          // answers otherwise reopened the retired authorization.
          expectRecoveryStatus(res, 'cancelled', { clause: i === 1 ? ['STA-RECOVERY-3', 'END-RECOVERY-10'] : 'STA-RECOVERY-4' }),
        );
      }
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.recovery.complete',
      title: "the seed's finished operations answer 200 status complete, and a repeat answers the same without reopening anything",
      clauses: ['STA-RECOVERY-1', 'END-RECOVERY-8', 'END-RECOVERY-7', 'RES-RECOVERY-5'],
      requires: ['recovery'],
      seed: true,
    },
    async (shop) => {
      // Two operations of two accounts: a case each. Each one's repeat follows its first request.
      await judgeCases([RECOVERY_OPERATIONS.completeDelete, RECOVERY_OPERATIONS.completeEmail], async (op) => {
        for (let i = 1; i <= 2; i++) {
          const res = await recover(shop, op);
          inCase(`request ${i} for ${op.operationId}`, () =>
            // The first answer is one fact stated twice (States: `complete`; Endpoints: 200 status complete).
            expectRecoveryStatus(res, 'complete', { clause: i === 1 ? ['STA-RECOVERY-1', 'END-RECOVERY-8'] : 'END-RECOVERY-7' }),
          );
        }
      });
      // The deleted account stays deleted: repeating its finished deletion granted it nothing.
      const after = await shop.http.get('/v1/cart', {
        token: await shop.mint.customer({ sub: RECOVERY_OPERATIONS.completeDelete.subject }),
      });
      inCase('a customer token of the deleted account after the repeats', () =>
        expectProblem(after, { status: 401, error: 'account_access_ended', docsUrl: shop.docsUrl, clause: 'END-RECOVERY-7' }),
      );
    },
  ),
);

// Which of the table's refusals an unconsumed proof gets is a reading: no resumable authorization (404
// recovery_not_found, the reference's, judged in 04-endpoints.recovery.request) or a recovery still incomplete (409
// recovery_pending). Never a 200: the endpoint cannot begin the operation.
test(
  ...check(
    {
      id: 'endpoints.recovery.unconsumed-proof',
      title:
        'an operation whose proof was never consumed (proof_pending) is 404 recovery_not_found or 409 recovery_pending, every time, and its account stays restricted',
      clauses: ['END-RECOVERY-4', 'END-RECOVERY-3'],
      requires: ['recovery'],
      seed: true,
    },
    async (shop) => {
      for (let i = 1; i <= 2; i++) {
        const res = await recover(shop, RECOVERY_OPERATIONS.proofPending);
        inCase(`request ${i} for ${RECOVERY_OPERATIONS.proofPending.operationId}`, () => {
          const [status, error] = res.status === 409 ? [409, 'recovery_pending'] : [404, 'recovery_not_found'];
          expectProblem(res, { status, error, docsUrl: shop.docsUrl, clause: 'END-RECOVERY-4' });
        });
      }
      const res = await shop.http.get('/v1/cart', { token: await shop.mint.customer({ sub: RECOVERY_OPERATIONS.proofPending.subject }) });
      inCase('a customer token of the account in contact_transition', () =>
        expectProblem(res, { status: 401, error: 'account_access_ended', docsUrl: shop.docsUrl, clause: 'END-RECOVERY-3' }),
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.recovery.ownership',
      title: 'a subject that does not own the operation gets 404 recovery_not_found (another account, another case)',
      clauses: ['END-RECOVERY-1'],
      requires: ['recovery'],
      seed: true,
    },
    async (shop) => {
      const cases: [string, object][] = [
        [`the cancelled operation for ${ADA.sub}`, { ...RECOVERY_OPERATIONS.cancelled, subject: ADA.sub }],
        [`the finished deletion for ${ADA.sub}`, { ...RECOVERY_OPERATIONS.completeDelete, subject: ADA.sub }],
        [`the finished email change for ${DEV.sub}`, { ...RECOVERY_OPERATIONS.completeEmail, subject: DEV.sub }],
        [`the provider-pending deletion for ${BEN.sub}`, { ...RECOVERY_OPERATIONS.providerPending, subject: BEN.sub }],
        [
          `the cancelled operation for ${RECOVERY_OPERATIONS.cancelled.subject.toUpperCase()}`,
          { ...RECOVERY_OPERATIONS.cancelled, subject: RECOVERY_OPERATIONS.cancelled.subject.toUpperCase() },
        ],
        ['the cancelled operation for a fresh subject', { ...RECOVERY_OPERATIONS.cancelled, subject: shop.subject('cust') }],
      ];
      // Lookups that find nothing to resume (nothing changes): cases of their own.
      await judgeCases(cases, ([what, body]) => expectRecoveryNotFound(shop, body, { what, clause: 'END-RECOVERY-1' }));
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.recovery.purpose-mismatch',
      title: "a purpose other than the operation's gets 404 recovery_not_found",
      clauses: ['END-RECOVERY-2'],
      requires: ['recovery'],
      seed: true,
    },
    async (shop) => {
      const cases: [string, object][] = [
        ['the cancelled deletion as an email change', { ...RECOVERY_OPERATIONS.cancelled, purpose: 'email' }],
        ['the finished deletion as an email change', { ...RECOVERY_OPERATIONS.completeDelete, purpose: 'email' }],
        ['the provider-pending deletion as an email change', { ...RECOVERY_OPERATIONS.providerPending, purpose: 'email' }],
        ['the proof-pending email change as a deletion', { ...RECOVERY_OPERATIONS.proofPending, purpose: 'delete' }],
      ];
      // Lookups that find nothing to resume (nothing changes): cases of their own.
      await judgeCases(cases, ([what, body]) => expectRecoveryNotFound(shop, body, { what, clause: 'END-RECOVERY-2' }));
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.recovery.provider-pending',
      title: "the seed's provider-pending deletion answers 200 status pending on every retry, and its account stays restricted meanwhile",
      clauses: ['STA-RECOVERY-2', 'END-RECOVERY-9', 'STA-PARTIAL-1', 'STA-PARTIAL-2', 'RES-RECOVERY-5'],
      requires: ['recovery'],
      seed: true,
    },
    async (shop) => {
      for (let i = 1; i <= 2; i++) {
        const res = await resumeProviderPending(shop);
        inCase(`attempt ${i} of ${RECOVERY_OPERATIONS.providerPending.operationId}`, () => {
          // A partly failed deletion whose resumption finds no authorization lost its operation and checkpoints (States,
          // Partial failure rule): the same operation must be resumable.
          if (problemCodeOf(res) === 'recovery_not_found')
            fail('resuming the partly failed deletion', '200 (the operation and its checkpoints preserved)', brief(res), {
              clause: 'STA-PARTIAL-1',
            });
          // The first answer is one fact stated twice (States: `pending`; Endpoints: 200 status pending); a retry is Endpoints'.
          expectRecoveryStatus(res, 'pending', { clause: i === 1 ? ['STA-RECOVERY-2', 'END-RECOVERY-9'] : 'END-RECOVERY-9' });
        });
      }
      const cart = await shop.http.get('/v1/cart', {
        token: await shop.mint.customer({ sub: RECOVERY_OPERATIONS.providerPending.subject }),
      });
      inCase('a customer token of the account being deleted', () =>
        expectProblem(cart, { status: 401, error: 'account_access_ended', docsUrl: shop.docsUrl, clause: 'STA-PARTIAL-2' }),
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.recovery.concurrent',
      everyResponse: true,
      title: 'concurrent resumptions of one operation each answer its status (pending) or 409 recovery_pending, nothing else',
      clauses: ['END-RECOVERY-13'],
      requires: ['recovery'],
      seed: true,
    },
    async (shop) => {
      const answers = await Promise.all(Array.from({ length: 8 }, () => recover(shop, RECOVERY_OPERATIONS.providerPending)));
      for (const [i, res] of answers.entries()) {
        inCase(`concurrent request ${i + 1}`, () => {
          if (res.status === 409)
            return void expectProblem(res, { status: 409, error: 'recovery_pending', docsUrl: shop.docsUrl, clause: 'END-RECOVERY-13' });
          expectRecoveryStatus(res, 'pending', { clause: 'END-RECOVERY-13' });
        });
      }
    },
  ),
);

// Reference level: the spec answers 409 recovery_pending while "recovery is still incomplete", but it does not say that two
// resumptions of one operation must ever overlap. A conforming server may serialize them, or finish its provider step before
// it reads the next request, and answer each with its status (endpoints.recovery.concurrent above allows exactly that). The reference
// holds the operation (its `resuming` lock) for its provider step's round trip, so of a burst of resumptions one takes it
// and the others find it held: at least one must be 409 recovery_pending. A burst is retried a bounded number of times,
// in case a loaded machine serializes one; every answer must still be pending or 409 recovery_pending.
const OVERLAP_ROUNDS = 5;
const OVERLAP_BURST = 6;

test(
  ...check(
    {
      id: 'endpoints.recovery.concurrent.reference',
      everyResponse: true,
      title: 'overlapping resumptions of one operation: while one holds it, another is 409 recovery_pending',
      clauses: ['END-RECOVERY-13'],
      level: 'reference',
      requires: ['recovery'],
      seed: true,
    },
    async (shop) => {
      const rounds: string[] = [];
      for (let round = 1; round <= OVERLAP_ROUNDS; round++) {
        const answers = await Promise.all(Array.from({ length: OVERLAP_BURST }, () => recover(shop, RECOVERY_OPERATIONS.providerPending)));
        let conflicts = 0;
        for (const [i, res] of answers.entries()) {
          inCase(`round ${round}, overlapping request ${i + 1}`, () => {
            if (res.status !== 409) return expectRecoveryStatus(res, 'pending', { clause: 'END-RECOVERY-13' });
            expectProblem(res, { status: 409, error: 'recovery_pending', docsUrl: shop.docsUrl, clause: 'END-RECOVERY-13' });
            conflicts++;
          });
        }
        if (conflicts > 0) return;
        rounds.push(answers.map((res) => (res.status === 200 ? `200 ${String(res.body?.status)}` : String(res.status))).join(', '));
      }
      fail(
        `answers to ${OVERLAP_ROUNDS} bursts of ${OVERLAP_BURST} overlapping resumptions of ${RECOVERY_OPERATIONS.providerPending.operationId}`,
        'at least one 409 recovery_pending',
        rounds,
        { clause: 'END-RECOVERY-13' },
      );
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.recovery.response.reference',
      title: "the reference's recovery answer is exactly { status, operationId }, JSON, Cache-Control: no-store",
      clauses: ['RES-RECOVERY-5'],
      level: 'reference',
      requires: ['recovery'],
      seed: true,
    },
    async (shop) => {
      // Three operations whose phase no request changes: cases of their own.
      const cases = [
        [RECOVERY_OPERATIONS.cancelled, 'cancelled'],
        [RECOVERY_OPERATIONS.completeEmail, 'complete'],
        [RECOVERY_OPERATIONS.providerPending, 'pending'],
      ] as const;
      await judgeCases(cases, async ([op, status]) => {
        const res = op === RECOVERY_OPERATIONS.providerPending ? await resumeProviderPending(shop) : await recover(shop, op);
        inCase(op.operationId, () => {
          expectRecoveryStatus(res, status, { clause: 'RES-RECOVERY-5' });
          expectSameJson(res.body, { status, operationId: op.operationId }, { what: 'body', clause: 'RES-RECOVERY-5' });
          if (!/^application\/json/.test(res.headers.get('content-type') ?? ''))
            fail('Content-Type', 'application/json', res.headers.get('content-type'), { clause: 'RES-RECOVERY-5' });
          expectNoStore(res, { clause: 'RES-RECOVERY-5' });
        });
      });
    },
  ),
);
