// Account recovery (spec, Resources > Account recovery request; Endpoints > recovery endpoint results; States and
// transitions > partial failure rule): the store's state machine over the seed's operations (one per phase), the
// `resuming` lock and its 409, failures that preserve the operation, and the endpoint over HTTP: its one credential, its
// closure, the body's bounds, and the account after a completed operation.
import { after, before, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { bearer, startReference, startReferenceOnFile, testClock, type Harness } from '../helpers/reference.js';
import { expectNoStore, expectProblem } from '../../conformance/lib/assert.js';
import { openDatabase, type Db } from '../../reference/src/db/open.js';
import { loadSeed, readSeed } from '../../reference/src/db/seed.js';
import { FIXTURE_SEED } from '../../reference/src/paths.js';
import { findAccount } from '../../reference/src/store/accounts.js';
import {
  clearProviderCondition,
  findRecoveryOperation,
  RECOVERY_LOCK_STALE_MS,
  resumeRecovery,
  type ProviderStep,
  type RecoveryRequest,
} from '../../reference/src/store/recovery.js';
import { connectAgent, getAgentAuthorization, getAssistantSession } from '../../reference/src/store/internal.js';

/** The seed's operations (docs/seed.md), one per phase. */
const SEED = {
  proofPending: { operationId: 'recop_0002', subject: 'cust_transition', purpose: 'email' },
  approved: { operationId: 'recop_0004', subject: 'cust_chloe', purpose: 'email' },
  providerPending: { operationId: 'recop_0001', subject: 'cust_deleting', purpose: 'delete' },
  completeDelete: { operationId: 'recop_0003', subject: 'cust_deleted', purpose: 'delete' },
  completeEmail: { operationId: 'recop_0006', subject: 'cust_ben', purpose: 'email' },
  cancelled: { operationId: 'recop_0005', subject: 'cust_dev', purpose: 'delete' },
} as const satisfies Record<string, RecoveryRequest>;

function insertOperation(
  db: Db,
  op: { operationId: string; subject: string; purpose: 'email' | 'delete'; phase: string; pendingEmail?: string | null },
): void {
  db.prepare(
    'INSERT INTO recovery_operations (operation_id, subject, purpose, phase, pending_email, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
  ).run(op.operationId, op.subject, op.purpose, op.phase, op.pendingEmail ?? null, new Date().toISOString());
}

// ------------------------------------------------------------------------------------------------------------- the store

describe('recovery store', () => {
  let db: Db;
  const clock = testClock(new Date('2030-01-01T00:00:00Z'));
  const now = () => clock.now();
  beforeEach(() => {
    db = openDatabase(':memory:');
    loadSeed(db, readSeed(FIXTURE_SEED), now());
  });

  const resume = (req: RecoveryRequest, provider?: ProviderStep) => resumeRecovery(db, req, now, provider);

  test('each seed phase: proof_pending 404, approved → complete, provider_pending → pending, complete, cancelled', async () => {
    assert.deepEqual(await resume(SEED.proofPending), { kind: 'not_found' });
    assert.deepEqual(await resume(SEED.approved), { kind: 'status', status: 'complete' });
    assert.deepEqual(await resume(SEED.providerPending), { kind: 'status', status: 'pending' });
    assert.deepEqual(await resume(SEED.completeDelete), { kind: 'status', status: 'complete' });
    assert.deepEqual(await resume(SEED.completeEmail), { kind: 'status', status: 'complete' });
    assert.deepEqual(await resume(SEED.cancelled), { kind: 'status', status: 'cancelled' });
    assert.equal(findRecoveryOperation(db, 'recop_0002')?.phase, 'proof_pending', 'unconsumed proof is never begun');
  });

  test('no match: unknown id, another subject, another purpose, a differently cased subject', async () => {
    for (const req of [
      { ...SEED.cancelled, operationId: 'recop_9999' },
      { ...SEED.cancelled, subject: 'cust_ada' },
      { ...SEED.cancelled, subject: 'CUST_DEV' },
      { ...SEED.completeEmail, purpose: 'delete' as const },
      { ...SEED.approved, subject: 'cust_ben' },
      { ...SEED.approved, purpose: 'delete' as const },
      { ...SEED.providerPending, purpose: 'email' as const },
    ]) {
      assert.deepEqual(await resume(req), { kind: 'not_found' }, JSON.stringify(req));
    }
    const op = findRecoveryOperation(db, 'recop_0004')!;
    assert.deepEqual([op.phase, op.attempts], ['approved', 0], 'a mismatch touches nothing');
  });

  test("approved email: the pending email becomes the account's; a repeat never applies it again", async () => {
    assert.deepEqual(await resume(SEED.approved), { kind: 'status', status: 'complete' });
    let account = findAccount(db, 'cust_chloe')!;
    assert.equal(account.email, 'chloe.martin@example.net');
    assert.equal(account.state, 'active');
    const op = findRecoveryOperation(db, 'recop_0004')!;
    assert.deepEqual([op.phase, op.attempts, op.locked_from, op.locked_at], ['complete', 1, null, null]);
    // The customer changes the address later; repeating the finished operation grants nothing fresh.
    db.prepare('UPDATE accounts SET email = ? WHERE sub = ?').run('chloe@later.example', 'cust_chloe');
    assert.deepEqual(await resume(SEED.approved), { kind: 'status', status: 'complete' });
    account = findAccount(db, 'cust_chloe')!;
    assert.equal(account.email, 'chloe@later.example');
    assert.equal(findRecoveryOperation(db, 'recop_0004')!.attempts, 1, 'a finished operation is not attempted again');
  });

  test('approved email of an account in contact_transition: the account becomes active', async () => {
    insertOperation(db, {
      operationId: 'recop_t1',
      subject: 'cust_transition',
      purpose: 'email',
      phase: 'approved',
      pendingEmail: 'tara@new.example',
    });
    assert.deepEqual(await resume({ operationId: 'recop_t1', subject: 'cust_transition', purpose: 'email' }), {
      kind: 'status',
      status: 'complete',
    });
    const account = findAccount(db, 'cust_transition')!;
    assert.deepEqual([account.email, account.state], ['tara@new.example', 'active']);
  });

  test('an email operation without its approved address is no resumable authorization', async () => {
    insertOperation(db, { operationId: 'recop_t2', subject: 'cust_ada', purpose: 'email', phase: 'approved', pendingEmail: null });
    assert.deepEqual(await resume({ operationId: 'recop_t2', subject: 'cust_ada', purpose: 'email' }), { kind: 'not_found' });
    assert.equal(findRecoveryOperation(db, 'recop_t2')!.phase, 'approved');
  });

  test('provider_pending: pending on every retry, attempts counted, the account stays restricted; once the condition clears, complete', async () => {
    for (let i = 1; i <= 3; i++) {
      assert.deepEqual(await resume(SEED.providerPending), { kind: 'status', status: 'pending' });
      const op = findRecoveryOperation(db, 'recop_0001')!;
      assert.deepEqual([op.phase, op.attempts, op.locked_from], ['provider_pending', i, null]);
      assert.equal(findAccount(db, 'cust_deleting')!.state, 'deleting');
    }
    assert.equal(clearProviderCondition(db, 'recop_0001', now()), true);
    assert.equal(clearProviderCondition(db, 'recop_0004', now()), false, 'only an operation in provider_pending');
    assert.deepEqual(await resume(SEED.providerPending), { kind: 'status', status: 'complete' });
    assert.equal(findAccount(db, 'cust_deleting')!.state, 'deleted');
    assert.deepEqual(await resume(SEED.providerPending), { kind: 'status', status: 'complete' });
    assert.equal(findRecoveryOperation(db, 'recop_0001')!.attempts, 4);
  });

  test('cancelled is never reopened, however often it is asked', async () => {
    for (let i = 0; i < 3; i++) assert.deepEqual(await resume(SEED.cancelled), { kind: 'status', status: 'cancelled' });
    const op = findRecoveryOperation(db, 'recop_0005')!;
    assert.deepEqual([op.phase, op.attempts], ['cancelled', 0]);
    assert.equal(findAccount(db, 'cust_dev')!.state, 'active');
  });

  test('a concurrent resumption of the same operation is in_progress (409) while the lock is held', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let called = 0;
    const slow: ProviderStep = async () => {
      called++;
      await gate;
      return 'clear' as const;
    };
    const first = resume(SEED.approved, slow);
    await new Promise((r) => setImmediate(r));
    assert.equal(findRecoveryOperation(db, 'recop_0004')!.phase, 'resuming');
    assert.deepEqual(await resume(SEED.approved, slow), { kind: 'in_progress' });
    assert.deepEqual(
      await resume({ ...SEED.approved, subject: 'cust_ada' }, slow),
      { kind: 'not_found' },
      'ownership is checked before the lock',
    );
    assert.deepEqual(await resume(SEED.cancelled, slow), { kind: 'status', status: 'cancelled' }, 'other operations are not blocked');
    release();
    assert.deepEqual(await first, { kind: 'status', status: 'complete' });
    assert.equal(called, 1);
    assert.deepEqual(await resume(SEED.approved, slow), { kind: 'status', status: 'complete' });
    assert.equal(called, 1, 'the provider is not asked again for a finished operation');
  });

  test('a lock older than RECOVERY_LOCK_STALE_MS is taken over; its late holder finds it lost', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const stuck = resume(SEED.providerPending, async () => {
      await gate;
      return 'clear' as const;
    });
    await new Promise((r) => setImmediate(r));
    clock.advance(RECOVERY_LOCK_STALE_MS - 1);
    assert.deepEqual(await resume(SEED.providerPending), { kind: 'in_progress' });
    clock.advance(2);
    assert.deepEqual(await resume(SEED.providerPending), { kind: 'status', status: 'pending' }, 'taken over from provider_pending');
    release();
    assert.deepEqual(await stuck, { kind: 'in_progress' }, 'the abandoned holder does not apply anything');
    assert.equal(findAccount(db, 'cust_deleting')!.state, 'deleting');
    assert.equal(findRecoveryOperation(db, 'recop_0001')!.phase, 'provider_pending');
  });

  test('a failing provider step releases the lock: the operation is preserved in the phase it was resumed from', async () => {
    const email = findAccount(db, 'cust_chloe')!.email;
    await assert.rejects(
      resume(SEED.approved, () => {
        throw new Error('provider exploded');
      }),
      /provider exploded/,
    );
    const op = findRecoveryOperation(db, 'recop_0004')!;
    assert.deepEqual([op.phase, op.attempts, op.locked_from, op.locked_at], ['approved', 1, null, null]);
    assert.equal(findAccount(db, 'cust_chloe')!.email, email);
    assert.deepEqual(await resume(SEED.approved), { kind: 'status', status: 'complete' });
  });

  test('a failure while applying rolls the account back and keeps the operation approved (partial failure rule)', async () => {
    const before = findAccount(db, 'cust_chloe')!;
    db.exec(`CREATE TRIGGER fail_account BEFORE UPDATE ON accounts BEGIN SELECT RAISE(ABORT, 'account store down'); END`);
    await assert.rejects(resume(SEED.approved), /account store down/);
    assert.deepEqual(findAccount(db, 'cust_chloe'), before);
    assert.equal(findRecoveryOperation(db, 'recop_0004')!.phase, 'approved');
    db.exec('DROP TRIGGER fail_account');
    assert.deepEqual(await resume(SEED.approved), { kind: 'status', status: 'complete' });
  });

  test("a deletion ends the agents' authority over the account", async () => {
    connectAgent(
      db,
      { subject: 'cust_deleting', agent_id: 'agent-1', client_id: 'c', permissions: ['assistant:read'], session_id: 'sess-del' },
      now(),
    );
    clearProviderCondition(db, 'recop_0001', now());
    assert.deepEqual(await resume(SEED.providerPending), { kind: 'status', status: 'complete' });
    assert.equal(getAgentAuthorization(db, 'cust_deleting', 'agent-1')?.decision, 'revoked');
    const s = getAssistantSession(db, 'sess-del')!;
    assert.deepEqual([s.state, s.subject, s.scopes], ['signed_out', null, []]);
  });

  test('every attempt that reaches the provider is in the audit log, without secrets', async () => {
    await resume(SEED.providerPending);
    await resume(SEED.approved);
    await resume(SEED.cancelled);
    const rows = db.prepare(`SELECT actor, action, target, details FROM audit_log WHERE action = 'account.recover' ORDER BY id`).all() as {
      actor: string;
      target: string;
      details: string;
    }[];
    assert.deepEqual(
      rows.map((r) => [r.actor, r.target, JSON.parse(r.details).outcome]),
      [
        ['recovery', 'recop_0001', 'pending'],
        ['recovery', 'recop_0004', 'complete'],
      ],
    );
  });
});

// ------------------------------------------------------------------------------------------------------------- over HTTP

describe('POST /internal/account/recover over HTTP', () => {
  let h: Harness;
  let db: Db;
  let onFile: Awaited<ReturnType<typeof startReferenceOnFile>>;
  before(async () => {
    onFile = await startReferenceOnFile('shop-recovery-');
    ({ h, db } = onFile);
  });
  after(() => onFile.close());

  const secret = () => h.profile.secrets.accountRecoverySecret!;
  const recover = (body: unknown, headers: Record<string, string> = bearer(secret())) =>
    h.call('/internal/account/recover', { method: 'POST', headers, json: body });
  const expectStatus = async (body: RecoveryRequest, status: 'complete' | 'pending' | 'cancelled') => {
    const res = await recover(body);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { status, operationId: body.operationId });
    expectNoStore(res);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
  };
  const expectNotFound = async (body: unknown) =>
    expectProblem(await recover(body), { status: 404, error: 'recovery_not_found', docsUrl: h.profile.docsUrl });
  const expectInvalid = async (body: unknown, path?: string) => {
    const res = await recover(body);
    const doc = expectProblem(res, { status: 400, error: 'invalid_request', docsUrl: h.profile.docsUrl });
    if (path)
      assert.ok(
        (doc.issues as { path: string }[]).some((i) => i.path === path),
        `issue at ${path}: ${res.text}`,
      );
  };

  test('only its own bearer credential: missing, wrong, other secrets, access tokens, another carrier are 401', async () => {
    const body = SEED.cancelled;
    const refusals: [string, Record<string, string>][] = [
      ['none', {}],
      ['wrong', bearer(secret().slice(1) + 'x')],
      ['lowercase scheme, wrong', { authorization: `bearer ${secret().toUpperCase()}` }],
      ['Basic', { authorization: `Basic ${Buffer.from(`x:${secret()}`).toString('base64')}` }],
      ['in X-Proxy-Idp-Secret', { 'x-proxy-idp-secret': secret() }],
      ['in X-Account-Recovery-Secret', { 'x-account-recovery-secret': secret() }],
      ['DPoP scheme', { authorization: `DPoP ${secret()}` }],
    ];
    for (const key of ['proxyIdpSecret', 'idpActionSecret', 'conversationHubSecret', 'guestSessionKey', 'webSessionContextKey'] as const) {
      refusals.push([key, bearer(h.profile.secrets[key]!)]);
      if (key === 'proxyIdpSecret') refusals.push(['proxy secret in its header', { 'x-proxy-idp-secret': h.profile.secrets[key]! }]);
    }
    refusals.push(['customer token', bearer(await h.minter.customer({ sub: 'cust_dev' }))]);
    refusals.push(['operator token', { ...bearer(await h.minter.operator()), operator: 'op_1' }]);
    refusals.push(['delegated token', bearer(await h.minter.delegated({ sub: 'cust_dev' }))]);
    for (const [what, headers] of refusals) {
      const res = await recover(body, headers);
      expectProblem(res, { status: 401, error: 'invalid_credentials', docsUrl: h.profile.docsUrl });
      assert.equal(res.headers.get('www-authenticate'), 'Bearer error="invalid_token"', what);
    }
    await expectStatus(body, 'cancelled');
  });

  test('the body: exactly subject, operationId, purpose; no other member (no email, no command)', async () => {
    const base = { subject: 'cust_nobody', operationId: 'recop_none', purpose: 'email' };
    for (const extra of [
      { email: 'new@example.com' },
      { newEmail: 'new@example.com' },
      { pendingEmail: 'x@example.com' },
      { command: 'reset' },
      { provider: { action: 'delete_user' } },
      { freshIntentId: 'int_1' },
      { status: 'complete' },
    ]) {
      await expectInvalid({ ...base, ...extra }, 'body');
      await expectInvalid({ ...SEED.approved, ...extra });
    }
    for (const field of ['subject', 'operationId', 'purpose'] as const) {
      const { [field]: _gone, ...rest } = base;
      await expectInvalid(rest, `body.${field}`);
      await expectInvalid({ ...base, [field]: 7 }, `body.${field}`);
      await expectInvalid({ ...base, [field]: null }, `body.${field}`);
    }
    for (const purpose of ['Email', 'DELETE', 'delete ', '', 'phone']) await expectInvalid({ ...base, purpose }, 'body.purpose');
    assert.equal(findRecoveryOperation(db, 'recop_0004')!.phase, 'approved', 'no refused body touched the approved operation');
  });

  test('bounds: subject 1–256, operationId 1–128 characters (code points); valid bounds reach the lookup (404)', async () => {
    const base = { subject: 'cust_nobody', operationId: 'recop_none', purpose: 'delete' };
    await expectInvalid({ ...base, subject: '' }, 'body.subject');
    await expectNotFound({ ...base, subject: 's' });
    await expectNotFound({ ...base, subject: 's'.repeat(256) });
    await expectInvalid({ ...base, subject: 's'.repeat(257) }, 'body.subject');
    await expectNotFound({ ...base, subject: '😀'.repeat(256) });
    await expectInvalid({ ...base, subject: '😀'.repeat(257) }, 'body.subject');
    await expectInvalid({ ...base, operationId: '' }, 'body.operationId');
    await expectNotFound({ ...base, operationId: 'o' });
    await expectNotFound({ ...base, operationId: 'o'.repeat(128) });
    await expectInvalid({ ...base, operationId: 'o'.repeat(129) }, 'body.operationId');
    await expectNotFound({ ...base, operationId: 'é'.repeat(128) });
    const both = await recover({ subject: '', operationId: 'o'.repeat(129), purpose: 'x', extra: 1 });
    assert.deepEqual((both.body.issues as { path: string }[]).map((i) => i.path).sort(), [
      'body',
      'body.operationId',
      'body.purpose',
      'body.subject',
    ]);
  });

  test('the state machine over the seed: 404 for unconsumed proof, mismatches and unknown ids; complete, pending, cancelled, each idempotent', async () => {
    await expectNotFound(SEED.proofPending);
    await expectNotFound(SEED.proofPending);
    await expectNotFound({ ...SEED.cancelled, subject: 'cust_ada' });
    await expectNotFound({ ...SEED.completeEmail, purpose: 'delete' });
    await expectNotFound({ ...SEED.completeDelete, purpose: 'email' });
    await expectNotFound({ ...SEED.completeDelete, subject: 'cust_deleting' });
    await expectNotFound({ ...SEED.cancelled, operationId: 'recop_0007' });
    for (let i = 0; i < 2; i++) {
      await expectStatus(SEED.completeDelete, 'complete');
      await expectStatus(SEED.completeEmail, 'complete');
      await expectStatus(SEED.cancelled, 'cancelled');
      await expectStatus(SEED.providerPending, 'pending');
    }
    assert.equal(findRecoveryOperation(db, 'recop_0001')!.attempts, 2);
    assert.equal(findRecoveryOperation(db, 'recop_0002')!.phase, 'proof_pending');
  });

  test('409 recovery_pending while another resumption holds the lock; ownership still first; a stale lock is taken over', async () => {
    const insert = (id: string, lockedAt: Date) =>
      db
        .prepare(
          `INSERT INTO recovery_operations (operation_id, subject, purpose, phase, pending_email, updated_at, locked_from, locked_at)
        VALUES (?, 'cust_eve', 'email', 'resuming', 'eve@new.example', ?, 'approved', ?)`,
        )
        .run(id, lockedAt.toISOString(), lockedAt.toISOString());
    insert('recop_locked', h.clock.now());
    const locked = { operationId: 'recop_locked', subject: 'cust_eve', purpose: 'email' } as const;
    const res = await recover(locked);
    expectProblem(res, { status: 409, error: 'recovery_pending', docsUrl: h.profile.docsUrl });
    assert.equal(res.headers.get('www-authenticate'), null);
    expectProblem(await recover(locked), { status: 409, error: 'recovery_pending', docsUrl: h.profile.docsUrl });
    await expectNotFound({ ...locked, subject: 'cust_ada' });
    await expectNotFound({ ...locked, purpose: 'delete' });
    // Released (here: by its holder finishing), the same request completes.
    db.prepare(
      `UPDATE recovery_operations SET phase = 'approved', locked_from = NULL, locked_at = NULL WHERE operation_id = 'recop_locked'`,
    ).run();
    await expectStatus(locked, 'complete');
    assert.equal(findAccount(db, 'cust_eve')!.email, 'eve@new.example');

    insert('recop_stale', new Date(h.clock.now().getTime() - RECOVERY_LOCK_STALE_MS - 1000));
    await expectStatus({ ...locked, operationId: 'recop_stale' }, 'complete');
  });

  test('approved email change of an account in contact_transition: complete, the account active again with the new email', async () => {
    const token = await h.minter.customer({ sub: 'cust_transition' });
    expectProblem(await h.call('/v1/cart', { headers: bearer(token) }), {
      status: 401,
      error: 'account_access_ended',
      docsUrl: h.profile.docsUrl,
    });
    insertOperation(db, {
      operationId: 'recop_tara',
      subject: 'cust_transition',
      purpose: 'email',
      phase: 'approved',
      pendingEmail: 'tara@new.example',
    });
    const op = { operationId: 'recop_tara', subject: 'cust_transition', purpose: 'email' } as const;
    await expectStatus(op, 'complete');
    const account = findAccount(db, 'cust_transition')!;
    assert.deepEqual([account.state, account.email], ['active', 'tara@new.example']);
    assert.equal((await h.call('/v1/cart', { headers: bearer(token) })).status, 200);
    await expectStatus(op, 'complete');
  });

  test("the seed's approved email change (cust_chloe) completes once; the account keeps working", async () => {
    await expectStatus(SEED.approved, 'complete');
    assert.equal(findAccount(db, 'cust_chloe')!.email, 'chloe.martin@example.net');
    assert.equal((await h.call('/v1/cart', { headers: bearer(await h.minter.customer({ sub: 'cust_chloe' })) })).status, 200);
    await expectStatus(SEED.approved, 'complete');
    assert.equal(findRecoveryOperation(db, 'recop_0004')!.attempts, 1);
  });

  test('partial failure: cust_deleting stays restricted while pending; once the provider clears, complete and deleted', async () => {
    const token = await h.minter.customer({ sub: 'cust_deleting' });
    await expectStatus(SEED.providerPending, 'pending');
    assert.equal(findAccount(db, 'cust_deleting')!.state, 'deleting');
    expectProblem(await h.call('/v1/cart', { headers: bearer(token) }), {
      status: 401,
      error: 'account_access_ended',
      docsUrl: h.profile.docsUrl,
    });
    assert.equal(clearProviderCondition(db, 'recop_0001', h.clock.now()), true);
    await expectStatus(SEED.providerPending, 'complete');
    assert.equal(findAccount(db, 'cust_deleting')!.state, 'deleted');
    const after = await h.call('/v1/cart', { headers: bearer(token) });
    expectProblem(after, { status: 401, error: 'account_access_ended', docsUrl: h.profile.docsUrl });
    assert.match(after.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    await expectStatus(SEED.providerPending, 'complete');
  });

  test('two overlapping resumptions of one operation: one finishes it, the other is 409 recovery_pending (one instance, and two sharing the file)', async () => {
    const insert = (id: string) =>
      db
        .prepare(
          `INSERT INTO recovery_operations (operation_id, subject, purpose, phase, pending_email, updated_at)
        VALUES (?, 'cust_eve', 'email', 'approved', 'eve@overlap.example', ?)`,
        )
        .run(id, h.clock.now().toISOString());
    const body = (id: string) => ({ operationId: id, subject: 'cust_eve', purpose: 'email' });
    insert('recop_overlap_1');
    const one = await Promise.all([recover(body('recop_overlap_1')), recover(body('recop_overlap_1'))]);
    assert.deepEqual(one.map((r) => r.status).sort(), [200, 409], one.map((r) => r.text).join('\n'));
    expectProblem(
      one.find((r) => r.status === 409)!,
      { status: 409, error: 'recovery_pending', docsUrl: h.profile.docsUrl },
    );
    await expectStatus(body('recop_overlap_1') as RecoveryRequest, 'complete');

    const other = await startReference({ overrides: { databasePath: h.config.databasePath }, seed: false });
    try {
      insert('recop_overlap_2');
      const call = (x: Harness) =>
        x.call('/internal/account/recover', { method: 'POST', headers: bearer(secret()), json: body('recop_overlap_2') });
      const two = await Promise.all([call(h), call(other)]);
      assert.deepEqual(two.map((r) => r.status).sort(), [200, 409], two.map((r) => r.text).join('\n'));
      assert.equal(findRecoveryOperation(db, 'recop_overlap_2')!.phase, 'complete');
    } finally {
      await other.close();
    }
  });

  test('closed when ACCOUNT_RECOVERY_SECRET is unset: 404 not_configured even with the former secret', async () => {
    const closed = await startReference({ overrides: { accountRecoverySecret: null } });
    try {
      for (const headers of [bearer(secret()), {}, bearer(closed.profile.secrets.proxyIdpSecret!)]) {
        const res = await closed.call('/internal/account/recover', { method: 'POST', headers, json: SEED.cancelled });
        expectProblem(res, { status: 404, error: 'not_configured', docsUrl: closed.profile.docsUrl });
      }
    } finally {
      await closed.close();
    }
  });

  test("an environment with ACCOUNT_RECOVERY_SECRET empty closes it too; another value replaces the profile's", async () => {
    const empty = await startReference({ env: { ACCOUNT_RECOVERY_SECRET: '' } });
    const other = await startReference({ env: { ACCOUNT_RECOVERY_SECRET: 'another-recovery-secret-0123456789' } });
    try {
      expectProblem(await empty.call('/internal/account/recover', { method: 'POST', headers: bearer(secret()), json: SEED.cancelled }), {
        status: 404,
        error: 'not_configured',
        docsUrl: empty.profile.docsUrl,
      });
      expectProblem(await other.call('/internal/account/recover', { method: 'POST', headers: bearer(secret()), json: SEED.cancelled }), {
        status: 401,
        error: 'invalid_credentials',
        docsUrl: other.profile.docsUrl,
      });
      const ok = await other.call('/internal/account/recover', {
        method: 'POST',
        headers: bearer('another-recovery-secret-0123456789'),
        json: SEED.cancelled,
      });
      assert.deepEqual(ok.body, { status: 'cancelled', operationId: 'recop_0005' });
    } finally {
      await empty.close();
      await other.close();
    }
  });
});
