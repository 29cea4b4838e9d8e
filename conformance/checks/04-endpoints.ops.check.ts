// Spec part 4, Endpoints, for the operator operations under /v1/ops/* (spec, What the service does 1: "/v1/ops/* is
// operator-only"; Credentials per consumer: the backoffice machine token plus an Operator attribution header): who may
// call them. The reference's reads are in 04-endpoints.ops.reads, the writes in 04-endpoints.ops.writes.
//
// Levels. The spec shows none of the operator rows ("the operations under /v1/ops/*: not shown"). At spec level they are
// every operation the target describes under /v1/ops/, found by path whatever their ids: no other caller kind gets a
// successful answer there (PUR-RULE-3); an operator (backoffice token plus Operator header) is served the reads that name
// no record (PUR-SERVE-5, AUTH-KIND-11); the same token without the header matches no caller kind, so it is refused with
// 401 or 403 (AUTH-CRED-4, Token verification 3). The reference's five operations, by its ids, with their codes, scopes
// and bodies, are reference level.
//
// Writes. At reference level every request here that writes is one the domain refuses (a refund of a refunded order, a cancellation of a
// delivered one, stock below zero), so nothing is written, even if a broken guard let it through.
import { check, test, type Shop } from '../engine/runner/check.js';
import { mapCases } from '../engine/runner/cases.js';
import { credentialsOfClaimedKinds } from '../lib/callers.js';
import { expectNoHeader, expectProblem, fail, inCase, notDeclared } from '../lib/assert.js';
import { expectCredentialRefused, expectRefusal } from '../lib/expect/refusals.js';
import { declaredControls, operator, opsBody, requireDescribedOps, route, send, type DescribedOpsRequest } from './_shared/call-ops.js';
import { expectOperatorAdmitted, expectOpsProblem } from '../lib/expect/ops.js';
import { ORDERS, OUT_OF_STOCK_VARIANT } from './_shared/seed-data.js';

// Seed data (docs/seed.md) whose verdicts never change: the domain refuses each of these writes, so nothing is written.
const DELIVERED = ORDERS.adaDelivered.id;
const REFUNDED = ORDERS.adaRefunded.id;

interface OpsRequest {
  operationId: string;
  method: string;
  path: string;
  json?: unknown;
}

/**
 * One request per operator operation, each refused by the domain even if a broken guard let it through; routes and bodies
 * as the target's description documents give them (built inside a check, where the documents are loaded).
 */
const requests = (): readonly OpsRequest[] => [
  { operationId: 'searchOpsOrders', ...route('searchOpsOrders') },
  { operationId: 'getOpsOrder', ...route('getOpsOrder', DELIVERED) },
  { operationId: 'cancelOpsOrder', ...route('cancelOpsOrder', DELIVERED), json: opsBody('cancelOpsOrder') },
  { operationId: 'refundOpsOrder', ...route('refundOpsOrder', REFUNDED), json: opsBody('refundOpsOrder') },
  { operationId: 'adjustStock', ...route('adjustStock', OUT_OF_STOCK_VARIANT), json: opsBody('adjustStock', { 'stock-delta': -1 }) },
];

/** The non-operator callers the profile lets the suite present (customer, delegated, guest). */
const nonOperators = (shop: Shop) => credentialsOfClaimedKinds(shop, ['operator']);

// ------------------------------------------------------------------------------------------------------- spec level
//
// The spec shows no operator operation: at this level they are every operation the target's documents describe under
// /v1/ops/, whatever their ids (call-ops.ts, describedOpsRequests). Path parameters name no record; a write carries the
// document's own example. Only reads that name no record serve as controls: an operator's write could change data.

/** The described reads that name no record (a list, a search): what an operator is served with no data to know. */
const controlReads = (all: readonly DescribedOpsRequest[]) => all.filter((r) => r.method === 'GET' && !r.names);

test(
  ...check(
    {
      id: 'endpoints.ops.non-operators-refused',
      title: 'customer, delegated and guest callers get no successful answer from any operation the documents describe under /v1/ops/*',
      clauses: ['PUR-RULE-3'],
    },
    async (shop) => {
      const all = requireDescribedOps();
      // The callers' requests and the operator's control go at once, judged in turn (the callers first).
      const asCallers = (await nonOperators(shop)).flatMap(([kind, who]) => all.map((r) => ({ kind, who, r })));
      const control = shop.profile.capabilities.operators ? await operator(shop) : undefined;
      const asOperator = control ? controlReads(all) : [];
      const [answers, controls] = await Promise.all([
        mapCases(asCallers, ({ who, r }) => send(shop, r, who)),
        mapCases(asOperator, (r) => send(shop, r, control!)),
      ]);
      for (const [i, { kind, r }] of asCallers.entries()) {
        const res = answers[i]!;
        if (res.status >= 200 && res.status < 400)
          fail(
            `${r.method} ${r.path} (${r.operationId}) as ${kind}`,
            'a refusal (4xx), /v1/ops/* is operator-only',
            `${res.status} ${res.text.slice(0, 200)}`,
            { clause: 'PUR-RULE-3' },
          );
        if (res.status >= 400)
          expectProblem(res, { status: res.status, error: String(res.body?.error ?? ''), docsUrl: shop.docsUrl, clause: 'PUR-RULE-3' });
      }
      // Control: the described reads exist and admit an operator, so that the refusals above are the guard's and not a
      // missing route's (a 404 to everyone would prove nothing). A refusal for a scope the target does not declare is no
      // verdict (the suite's default operator scopes need not be its).
      for (const [r, res] of declaredControls(shop, asOperator, controls)) {
        if ([401, 403, 404, 405].includes(res.status))
          fail(
            `${r.method} ${r.path} as an operator (${r.operationId} in the description documents)`,
            'admitted (not 401, 403, 404 or 405)',
            `${res.status} ${res.text.slice(0, 200)}`,
            { clause: 'PUR-RULE-3' },
          );
      }
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.ops.operator-served',
      everyResponse: true,
      title: 'an operator (backoffice token plus Operator header) is served every described /v1/ops/* read that names no record',
      clauses: ['PUR-SERVE-5', 'AUTH-KIND-11', 'AUTH-CRED-4'],
      requires: ['operators'],
    },
    async (shop) => {
      const reads = controlReads(requireDescribedOps());
      if (reads.length === 0)
        notDeclared('an operator read under /v1/ops/ that names no record (a list or a search)', 'such a GET in /openapi.json');
      const who = await operator(shop);
      // Reads: at once, judged in turn; 2xx whatever their bodies, or a 400 for a query parameter the search wants (the
      // suite sends none; the spec shows no operator route). A refusal for a scope the target does not declare is no verdict.
      const answers = await mapCases(reads, (r) => send(shop, r, who));
      for (const [r, res] of declaredControls(shop, reads, answers))
        inCase(`${r.method} ${r.path} (${r.operationId}) as an operator`, () =>
          expectOperatorAdmitted(shop, res, { what: 'served', clause: ['PUR-SERVE-5', 'AUTH-KIND-11', 'AUTH-CRED-4'] }),
        );
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.ops.operator-header',
      // Without the header the backoffice token matches no caller kind (Caller kinds: operator needs the Operator header),
      // so Token verification 3 applies: 401 or 403, even with a valid signature; or the request lacks a header its
      // credential requires (Credentials per consumer), a 400. Which, and the code, are open (docs/ambiguities.md).
      title:
        'a backoffice token without the Operator attribution header is no operator: refused (400, 401 or 403) on every described operator operation, served with it',
      clauses: ['AUTH-CRED-4', 'AUTH-TOKEN-8'],
      requires: ['operators'],
    },
    async (shop) => {
      const bare = await operator(shop, { header: false });
      const who = await operator(shop);
      const all = requireDescribedOps();
      const reads = controlReads(all);
      // A conforming server refuses every one of these before its handler: they go at once with the control's reads.
      const [refused, served] = await Promise.all([mapCases(all, (r) => send(shop, r, bare)), mapCases(reads, (r) => send(shop, r, who))]);
      // Refused as no caller kind (Token verification 3: 401 or 403) or as a request without a header it requires (400):
      // the spec pins neither reading (docs/ambiguities.md); a success or any other answer fails.
      for (const [i, r] of all.entries())
        inCase(`${r.method} ${r.path} (${r.operationId}) without the Operator header`, () =>
          refused[i]!.status === 400
            ? expectRefusal(shop, refused[i]!, { clause: 'AUTH-CRED-4' })
            : expectCredentialRefused(shop, refused[i]!, { clause: 'AUTH-CRED-4' }),
        );
      // Control: the same kind of token with the header is served the reads (or answered 400 for a query the search
      // wants), so the refusals above are the header's. A refusal for a scope the target does not declare is no verdict.
      for (const [r, res] of declaredControls(shop, reads, served))
        inCase(`${r.method} ${r.path} (${r.operationId}) with the Operator header`, () =>
          expectOperatorAdmitted(shop, res, { what: 'served', clause: 'AUTH-CRED-4' }),
        );
    },
  ),
);

// -------------------------------------------------------------------------------------------------- reference level

test(
  ...check(
    {
      id: 'endpoints.ops.callers.reference',
      title:
        'the five operator operations admit operators only: other kinds 403 caller_not_allowed (no challenge), an operator passes the guard',
      clauses: ['PUR-SERVE-5', 'PUR-RULE-3', 'END-LIST-5', 'ERR-TABLE-8', 'AUTH-KIND-11'],
      level: 'reference',
      requires: ['operators'],
      seed: true,
    },
    async (shop) => {
      // Every write here is one the domain refuses: all at once, judged in turn (the other kinds first, as before).
      const asCallers = (await nonOperators(shop)).flatMap(([kind, who]) => requests().map((r) => ({ kind, who, r })));
      const op = await operator(shop);
      const asOperator = requests();
      const [answers, controls] = await Promise.all([
        mapCases(asCallers, ({ who, r }) => send(shop, r, who)),
        mapCases(asOperator, (r) => send(shop, r, op)),
      ]);
      for (const [i, { kind, r }] of asCallers.entries()) {
        const res = answers[i]!;
        expectOpsProblem(shop, res, 403, 'caller_not_allowed', { clause: 'PUR-RULE-3' });
        expectNoHeader(res, 'www-authenticate', {
          what: `WWW-Authenticate on caller_not_allowed (${kind}, ${r.operationId})`,
          clause: 'ERR-TABLE-8',
        });
      }
      for (const [i, r] of asOperator.entries()) {
        const res = controls[i]!;
        if (res.status === 401 || res.status === 403)
          fail(`operator on ${r.operationId}`, 'past the guard (not 401/403)', `${res.status} ${String(res.body?.error)}`, {
            clause: 'PUR-SERVE-5',
          });
      }
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.ops.operator-header.reference',
      // Without the header the token matches no caller kind (Token verification 3: 401 or 403); the reference answers 403
      // caller_not_allowed. Killed by a server that answers 400 invalid_request (a validation error) or serves the call.
      title:
        'a backoffice token without the Operator attribution header matches no caller kind: 403 caller_not_allowed on every operator operation',
      clauses: ['AUTH-CRED-4', 'AUTH-TOKEN-8', 'ERR-TABLE-8'],
      level: 'reference',
      requires: ['operators'],
    },
    async (shop) => {
      const who = await operator(shop, { header: false });
      // Refused requests (and writes the domain refuses): at once, judged in turn.
      const all = requests();
      const answers = await mapCases(all, (r) => send(shop, r, who));
      for (const res of answers) expectOpsProblem(shop, res, 403, 'caller_not_allowed', { clause: 'AUTH-CRED-4' });
    },
  ),
);

test(
  ...check(
    {
      id: 'endpoints.ops.scopes.reference',
      title: 'operator reads need ops:read and writes ops:write: a token without it is 403 insufficient_scope naming it',
      clauses: ['ERR-TABLE-9'],
      level: 'reference',
      requires: ['operators'],
    },
    async (shop) => {
      const readOnly = await operator(shop, { scope: 'ops:read' });
      const writeOnly = await operator(shop, { scope: 'ops:write' });
      // Refused requests (and writes the domain refuses): at once, judged in turn.
      const all = requests();
      const answers = await mapCases(all, (r) => send(shop, r, r.method !== 'GET' ? readOnly : writeOnly));
      for (const [i, r] of all.entries()) {
        const write = r.method !== 'GET';
        expectOpsProblem(shop, answers[i]!, 403, 'insufficient_scope', {
          clause: 'ERR-TABLE-9',
          extra: {
            scope: write ? 'ops:write' : 'ops:read',
          },
        });
      }
    },
  ),
);
