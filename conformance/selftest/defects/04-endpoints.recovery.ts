// Defects of the recovery endpoint (END-RECOVERY-*, and what its checks judge besides: the body's members and bounds,
// RES-RECOVERY-*, LIM-RECOVERY-*; its phases and repeats, STA-RECOVERY-*, STA-PARTIAL-*; END-PUBLIC-17 without a secret).
// Leniency defects repair the body before it goes upstream; stateful ones answer a repeat otherwise than the first, or
// lift a restriction after a recovery answer.
import type { ProxyAnswer, ProxyRequest, ProxyRules } from '../proxy.js';
import {
  editJsonBody,
  headerOf,
  jsonAnswer,
  keptBodies,
  notAStream,
  pathOf,
  problemAnswer,
  problemCode,
  servedWithTrace,
  tokenClaims,
} from './helpers.js';
import { lenient, referenceOnly, wire, wireWith, type Defect, type DefectContext } from './types.js';

const isRecover = (req: ProxyRequest) => req.method === 'POST' && pathOf(req) === '/internal/account/recover';

/** The recovery body repaired by `fix` (which mutates it) before it goes upstream. */
const fixRecoveryBody = (fix: (b: Record<string, unknown>) => void) => () => ({
  requestBody(req: ProxyRequest, body: string): string {
    return isRecover(req) ? editJsonBody(body, fix) : body;
  },
});

const KNOWN = ['subject', 'operationId', 'purpose'];

const stripUnknown = (b: Record<string, unknown>) => {
  for (const k of Object.keys(b)) if (!KNOWN.includes(k)) delete b[k];
};

const clip = (member: string, max: number) => (b: Record<string, unknown>) => {
  if (typeof b[member] !== 'string' || b[member] === '') b[member] = 'x';
  else b[member] = (b[member] as string).slice(0, max);
};

const recoveryStatus = (id: string, clause: string, from: string, to: string): Defect =>
  wire(id, clause, `a recovery operation that is ${from} answered with status \`${to}\``, (a, r) => {
    if (!isRecover(r) || a.status !== 200 || a.body === undefined) return a;
    return { ...a, body: a.body.replace(`"status":"${from}"`, `"status":"${to}"`) };
  });

type RecoveryOperation = { operationId: string; subject: string; purpose: 'email' | 'delete' };

type RecoveryOperations = Record<'proofPending' | 'providerPending' | 'completeDelete' | 'completeEmail' | 'cancelled', RecoveryOperation>;

/** The fixture seed's recovery operations (fixtures/seed.json; the checks' defaults, checks/_shared/seed-data.ts). */
const FIXTURE_RECOVERY: RecoveryOperations = {
  proofPending: { operationId: 'recop_0002', subject: 'cust_transition', purpose: 'email' },
  providerPending: { operationId: 'recop_0001', subject: 'cust_deleting', purpose: 'delete' },
  completeDelete: { operationId: 'recop_0003', subject: 'cust_deleted', purpose: 'delete' },
  completeEmail: { operationId: 'recop_0006', subject: 'cust_ben', purpose: 'email' },
  cancelled: { operationId: 'recop_0005', subject: 'cust_dev', purpose: 'delete' },
};

/** The deployment's recovery operations: the profile's `data`, else the fixture seed's. */
const recoveryOperations = (ctx: DefectContext): RecoveryOperations => ctx.profile.data?.recoveryOperations ?? FIXTURE_RECOVERY;

/** The recovery operation a request body names (same subject and operationId), if the deployment holds it. */
const named = (ctx: DefectContext, body: Record<string, unknown> | undefined): [keyof RecoveryOperations, RecoveryOperation] | undefined =>
  (Object.entries(recoveryOperations(ctx)) as [keyof RecoveryOperations, RecoveryOperation][]).find(
    ([, op]) => op.operationId === body?.operationId && op.subject === body?.subject,
  );

/** A 200 recovery answer, as the reference shapes it. */
const recoveryAnswer = (a: ProxyAnswer, status: string, operationId: unknown): ProxyAnswer =>
  jsonAnswer(a, 200, JSON.stringify({ status, operationId }), { contentType: 'application/json; charset=utf-8' });

/** A route answered for an account whose access ended as if it were active (an empty object: nothing of it is read). */
const letIn = (a: ProxyAnswer): ProxyAnswer => jsonAnswer(a, 200, '{}', { contentType: 'application/json; charset=utf-8' });

/**
 * A stateful recovery defect: `lifts` sees each recovery answer with the body of its request and decides whether the
 * subject's restriction is lifted; from then on, requests with a token of that subject refused 401 account_access_ended
 * are let in.
 */
const liftsRestriction = (
  id: string,
  clause: string,
  description: string,
  lifts: (ctx: DefectContext, a: ProxyAnswer, body: Record<string, unknown> | undefined) => boolean,
): Defect => ({
  id,
  clause,
  description,
  kind: 'wire',
  rules: (ctx): ProxyRules => {
    const kept = keptBodies();
    const lifted = new Set<string>();
    return {
      buffer: notAStream,
      requestBody: kept.requestBody,
      response(a, r) {
        if (isRecover(r)) {
          const body = kept.of(r);
          if (typeof body?.subject === 'string' && lifts(ctx, a, body)) lifted.add(body.subject);
          return a;
        }
        const sub = tokenClaims(r)?.sub;
        return typeof sub === 'string' && lifted.has(sub) && problemCode(a) === 'account_access_ended' ? letIn(a) : a;
      },
    };
  },
});

export const ENDPOINTS_RECOVERY_DEFECTS: readonly Defect[] = [
  // ------------------------------------------------------------------------------------- recovery: phases and repeats
  // A provider failure that discards the operation's checkpoints: the partly failed operation cannot be resumed.
  wireWith(
    'endpoints.internal.partial-failure-checkpoints-lost',
    'STA-PARTIAL-1',
    'a partly failed operation loses its checkpoints: resuming it (provider work pending) is 404 recovery_not_found',
    (ctx) => (a, r) =>
      isRecover(r) && a.status === 200 && a.body?.includes('"status":"pending"')
        ? problemAnswer(ctx, a, 404, 'recovery_not_found', 'Not Found')
        : a,
  ),
  liftsRestriction(
    'endpoints.internal.partial-failure-restriction-lifted',
    'STA-PARTIAL-2',
    "a resumption that is still pending lifts the account's restriction: its tokens work again before the operation finishes",
    (_ctx, a) => a.status === 200 && (a.body ?? '').includes('"status":"pending"'),
  ),
  liftsRestriction(
    'endpoints.internal.recovery-phase-unchecked',
    'END-RECOVERY-3',
    'the endpoint advances an operation before it checks its persisted phase: a proof_pending request is refused, but its account leaves contact_transition',
    (ctx, a, body) => problemCode(a) === 'recovery_not_found' && named(ctx, body)?.[0] === 'proofPending',
  ),
  {
    id: 'endpoints.internal.recovery-begins-unconsumed-proof',
    clause: 'END-RECOVERY-4',
    description: 'an operation whose proof was never consumed is begun by the recovery endpoint: answered 200 pending',
    kind: 'wire',
    rules: (ctx): ProxyRules => {
      const kept = keptBodies();
      return {
        buffer: notAStream,
        requestBody: kept.requestBody,
        response(a, r) {
          const body = kept.of(r);
          const op = named(ctx, body);
          return isRecover(r) && problemCode(a) === 'recovery_not_found' && op?.[0] === 'proofPending' && body?.purpose === op[1].purpose
            ? recoveryAnswer(a, 'pending', op[1].operationId)
            : a;
        },
      };
    },
  },
  // The lookup by subject and operationId only: the purpose of the request is taken from the operation found.
  lenient(
    'endpoints.internal.recovery-purpose-unchecked',
    'END-RECOVERY-2',
    'the purpose is not checked: a request naming another purpose resumes the operation',
    (ctx) => {
      const repair = fixRecoveryBody((b) => {
        const op = named(ctx, b);
        if (op) b.purpose = op[1].purpose;
      });
      return repair();
    },
  ),
  {
    // Not every complete answer (that is STA-RECOVERY-1's defect): the first answers `complete`, a repeat restarts it.
    id: 'endpoints.internal.recovery-repeat-restarts',
    clause: 'END-RECOVERY-7',
    description: 'a repeated request for a finished operation restarts it: the first answers `complete`, every repeat `pending`',
    kind: 'wire',
    rules: (): ProxyRules => {
      const answered = new Set<string>();
      return {
        buffer: notAStream,
        response: (a: ProxyAnswer, r: ProxyRequest): ProxyAnswer => {
          if (!isRecover(r) || a.status !== 200 || a.body === undefined || !a.body.includes('"status":"complete"')) return a;
          const operation = /"operationId":"([^"]*)"/.exec(a.body)?.[1] ?? '';
          if (!answered.has(operation)) {
            answered.add(operation);
            return a;
          }
          return { ...a, body: a.body.replace('"status":"complete"', '"status":"pending"') };
        },
      };
    },
  },
  {
    // Judged on a deployment without ACCOUNT_RECOVERY_SECRET (the embedded `closed` variant, cli/embedded-variants.ts).
    id: 'endpoints.internal.recovery-open-without-secret',
    clause: 'END-PUBLIC-17',
    description: 'with no ACCOUNT_RECOVERY_SECRET configured, an empty bearer matches the unset secret: the endpoint answers',
    kind: 'wire',
    rules: (ctx): ProxyRules => {
      const kept = keptBodies();
      const status: Partial<Record<keyof RecoveryOperations, string>> = {
        cancelled: 'cancelled',
        completeDelete: 'complete',
        completeEmail: 'complete',
        providerPending: 'pending',
      };
      return {
        buffer: notAStream,
        requestBody: kept.requestBody,
        response(a, r) {
          if (!isRecover(r) || a.status < 400 || !/^Bearer\s*$/i.test(headerOf(r.headers, 'authorization') ?? '-')) return a;
          const body = kept.of(r);
          const op = named(ctx, body);
          const answer = op && body?.purpose === op[1].purpose ? status[op[0]] : undefined;
          return answer ? recoveryAnswer(a, answer, op![1].operationId) : problemAnswer(ctx, a, 404, 'recovery_not_found', 'Not Found');
        },
      };
    },
  },
  lenient(
    'endpoints.internal.recovery-unknown-members-accepted',
    'RES-RECOVERY-4',
    'unknown members of a recovery body are ignored instead of refused',
    fixRecoveryBody(stripUnknown),
  ),
  lenient(
    'endpoints.internal.recovery-email-accepted',
    'END-RECOVERY-5',
    'a recovery body naming an email is accepted (the member is dropped)',
    fixRecoveryBody(stripUnknown),
  ),
  lenient(
    'endpoints.internal.recovery-command-accepted',
    'END-RECOVERY-6',
    'a recovery body naming a provider command is accepted (the member is dropped)',
    fixRecoveryBody(stripUnknown),
  ),
  lenient(
    'endpoints.internal.recovery-subject-unbounded',
    'RES-RECOVERY-1',
    'an empty or overlong subject is accepted (clipped to 1–256)',
    fixRecoveryBody(clip('subject', 256)),
  ),
  lenient(
    'endpoints.internal.recovery-subject-length',
    'LIM-RECOVERY-1',
    'a 257-character subject is accepted (clipped to 256)',
    fixRecoveryBody(clip('subject', 256)),
  ),
  lenient(
    'endpoints.internal.recovery-operation-unbounded',
    'RES-RECOVERY-2',
    'an empty or overlong operationId is accepted (clipped to 1–128)',
    fixRecoveryBody(clip('operationId', 128)),
  ),
  lenient(
    'endpoints.internal.recovery-operation-length',
    'LIM-RECOVERY-2',
    'a 129-character operationId is accepted (clipped to 128)',
    fixRecoveryBody(clip('operationId', 128)),
  ),
  lenient(
    'endpoints.internal.recovery-any-purpose',
    'RES-RECOVERY-3',
    'any purpose is accepted (read as email)',
    fixRecoveryBody((b) => {
      if (b.purpose !== 'email' && b.purpose !== 'delete') b.purpose = 'email';
    }),
  ),
  recoveryStatus('endpoints.internal.recovery-complete-as-pending', 'STA-RECOVERY-1', 'complete', 'pending'),
  recoveryStatus('endpoints.internal.recovery-finished-as-pending', 'END-RECOVERY-8', 'complete', 'pending'),
  recoveryStatus('endpoints.internal.recovery-pending-as-complete', 'STA-RECOVERY-2', 'pending', 'complete'),
  recoveryStatus('endpoints.internal.recovery-remaining-as-complete', 'END-RECOVERY-9', 'pending', 'complete'),
  recoveryStatus('endpoints.internal.recovery-cancelled-as-pending', 'STA-RECOVERY-3', 'cancelled', 'pending'),
  recoveryStatus('endpoints.internal.recovery-retired-as-pending', 'END-RECOVERY-10', 'cancelled', 'pending'),
  {
    // Not every cancelled answer (that is STA-RECOVERY-3's defect): the retired authorization answers `cancelled` once, and
    // a repeat of the same operation finds it reopened. The proxy remembers, per operation, that it answered once.
    id: 'endpoints.internal.recovery-cancelled-reopened',
    clause: 'STA-RECOVERY-4',
    description: 'a cancelled recovery authorization answers `cancelled` once, then is reopened: every repeat answers `pending`',
    kind: 'wire',
    rules: () => {
      const answered = new Set<string>();
      return {
        buffer: notAStream,
        response: (a: ProxyAnswer, r: ProxyRequest): ProxyAnswer => {
          if (!isRecover(r) || a.status !== 200 || a.body === undefined || !a.body.includes('"status":"cancelled"')) return a;
          const operation = /"operationId":"([^"]*)"/.exec(a.body)?.[1] ?? '';
          if (!answered.has(operation)) {
            answered.add(operation);
            return a;
          }
          return { ...a, body: a.body.replace('"status":"cancelled"', '"status":"pending"') };
        },
      };
    },
  },
  wire('endpoints.internal.recovery-not-found-as-400', 'END-RECOVERY-12', 'recovery_not_found answered 400', (a, r) =>
    isRecover(r) && problemCode(a) === 'recovery_not_found' ? { ...a, status: 400 } : a,
  ),
  wire(
    'endpoints.internal.recovery-ownership-unchecked',
    'END-RECOVERY-1',
    'recovery_not_found answered 200 pending (ownership unchecked)',
    (a, r) => (isRecover(r) && problemCode(a) === 'recovery_not_found' ? jsonAnswer(a, 200, '{"status":"pending"}') : a),
  ),
  wire(
    'endpoints.internal.recovery-credential-refusal-403',
    'END-RECOVERY-11',
    'a wrong recovery credential answered 403 instead of 401',
    (a, r) => (isRecover(r) && a.status === 401 && headerOf(r.headers, 'authorization') ? { ...a, status: 403 } : a),
  ),
  referenceOnly(
    wire('endpoints.recovery-pending-as-200', 'END-RECOVERY-13', '409 recovery_pending answered 200 pending', (a) =>
      problemCode(a) === 'recovery_pending' ? servedWithTrace(a, '{"status":"pending"}') : a,
    ),
    'the spec does not make two resumptions overlap: a deployment that runs them one at a time answers each 200 pending, as the defect does',
  ),
];
