// explore's reach (conformance/explore/commands.ts, admission.ts, coverage.ts): every route of the contract is a command,
// the rule book's guard and own-credential rules judge who may use a route, and the coverage map counts what was reached
// and lists the cells never reached. Pure: no network.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ROUTES } from '../../../contract/operations.js';
import { readProfileFile } from '../../../conformance/engine/runner/params.js';
import { FIXTURE_PROFILE } from '../../../reference/src/paths.js';
import { COMMANDS, COMMANDS_BY_ID, admittedKinds } from '../../../conformance/explore/commands.js';
import { judgeAdmission } from '../../../conformance/explore/admission.js';
import { CoverageMap, familyOf, formatCoverageMap, kindsOf } from '../../../conformance/explore/coverage.js';
import type { Answer, Step } from '../../../conformance/explore/exchange.js';
import type { PlanStep } from '../../../conformance/explore/plan.js';

const plan = (op: string, caller: string, extra: Partial<PlanStep> = {}): PlanStep =>
  ({ op, caller, variant: 0, quantity: 1, ...extra }) as PlanStep;
const stepOf = (p: PlanStep): Step => {
  const c = COMMANDS_BY_ID.get(p.op)!;
  return { operationId: p.op, method: c.method, path: c.path.replace(/\{[^}]+\}/g, 'x_1'), caller: p.caller, headers: {} };
};
const answer = (status: number, error?: string): Answer => ({
  status,
  headers: {},
  text: error ? JSON.stringify({ error }) : '{}',
  ...(error ? { json: { error } } : { json: {} }),
});
const judge = (p: PlanStep, a: Answer) => judgeAdmission(p, stepOf(p), a, 0);

test('every route of the contract is a command, once', () => {
  assert.deepEqual(COMMANDS.map((c) => c.id).sort(), ROUTES.map((r) => r.operationId).sort());
  assert.equal(COMMANDS_BY_ID.get('streamConversationEvents')?.ref, 'unknown', 'an event stream is never opened');
  assert.equal(COMMANDS_BY_ID.get('getOrder')?.ref, 'order');
  assert.deepEqual(admittedKinds(COMMANDS_BY_ID.get('recoverAccount')!), []);
});

test('the guard rule: a listed kind refused, and an unlisted kind served, are both findings', () => {
  assert.deepEqual(judge(plan('listOrders', 'customer:a'), answer(200)), []);
  assert.deepEqual(judge(plan('listOrders', 'guest:a'), answer(403, 'caller_not_allowed')), []);
  const served = judge(plan('listOrders', 'guest:a'), answer(200));
  assert.equal(served.length, 1);
  assert.ok(served[0]!.clauses.includes('END-LIST-2') && served[0]!.clauses.includes('PUR-RULE-2'), served[0]!.clauses.join());
  // checkoutSavedCard is the agent-checkout list: a delegated caller passes, a customer does not.
  assert.deepEqual(judge(plan('checkoutSavedCard', 'customer:b'), answer(403, 'caller_not_allowed')), []);
  const refused = judge(plan('checkoutSavedCard', 'delegated:a'), answer(403, 'caller_not_allowed'));
  assert.ok(refused[0]?.clauses.includes('END-LIST-4'));
  // An operator on a storefront route: END-LIST-5 blames the operator list.
  assert.ok(judge(plan('getCart', 'operator'), answer(200))[0]?.clauses.includes('END-LIST-5'));
});

test('the guard rule stays silent where the spec does not pin the answer', () => {
  // The diagnostic list, the preview's callers, the conversations: the deployment's choice.
  assert.deepEqual(judge(plan('getMe', 'operator'), answer(403, 'caller_not_allowed')), []);
  assert.deepEqual(judge(plan('createCheckoutPreview', 'guest:a'), answer(200)), []);
  assert.deepEqual(judge(plan('listConversations', 'customer:a'), answer(200)), []);
  // A mutated request, or a defective credential, may be refused for that before the guard.
  assert.deepEqual(judge(plan('listOrders', 'customer:a', { mutation: 'absent-header' }), answer(401, 'invalid_token')), []);
  assert.deepEqual(judge(plan('listOrders', 'customer:expired'), answer(401, 'invalid_token')), []);
  // Scopes nobody can know (the checkout reads): insufficient_scope stands for a listed kind.
  assert.deepEqual(judge(plan('getIdentity', 'customer:a'), answer(403, 'insufficient_scope')), []);
  // Scopes the spec shows and the token carries: insufficient_scope is a refusal that should have been an answer.
  assert.equal(judge(plan('listOrders', 'customer:a'), answer(403, 'insufficient_scope')).length, 1);
});

test('an internal route or the webhook serves nobody without its own credential', () => {
  assert.deepEqual(judge(plan('recordConversationTurn', 'secret:own'), answer(404, 'not_found')), []);
  assert.deepEqual(judge(plan('recordConversationTurn', 'customer:a'), answer(401, 'invalid_credentials')), []);
  const served = judge(plan('recordConversationTurn', 'customer:a'), answer(202));
  assert.deepEqual(served[0]?.clauses, ['END-PUBLIC-14']);
  assert.ok(judge(plan('receivePaymentWebhook', 'secret:wrong'), answer(200))[0]?.clauses.includes('END-PUBLIC-7'));
  assert.ok(judge(plan('recoverAccount', 'anonymous'), answer(200))[0]?.clauses.includes('END-PUBLIC-16'));
});

test('the coverage map: cells per command × kind × family, statuses, the cells never reached', () => {
  const profile = readProfileFile(FIXTURE_PROFILE, { toMint: true });
  const map = new CoverageMap(profile, 'http://127.0.0.1:1');
  const steps: [PlanStep, number][] = [
    [plan('listOrders', 'customer:a'), 200],
    [plan('listOrders', 'customer:a'), 200],
    [plan('listOrders', 'guest:a'), 403],
    [plan('listOrders', 'customer:expired'), 401],
    [plan('listOrders', 'customer:a', { mutation: 'wrong-method' }), 405],
  ];
  for (const [p, status] of steps) map.record(p, stepOf(p), answer(status));
  map.skipped(plan('adjustStock', 'operator'));
  const r = map.report();
  const row = (kind: string, family: string) => r.rows.find((x) => x.command === 'listOrders' && x.kind === kind && x.family === family);
  assert.deepEqual(row('customer', 'none')?.statuses, { '200': 2 });
  assert.equal(row('guest', 'none')?.admitted, false);
  assert.equal(row('customer', 'credential')?.steps, 1);
  assert.equal(row('customer', 'method')?.steps, 1);
  assert.equal(familyOf(plan('getCart', 'secret:own')), 'none');
  // Every other cell is listed, but for the route the target does not describe.
  const kinds = kindsOf(profile);
  assert.ok(r.unreached.some((u) => u.command === 'listOrders' && u.kind === 'operator' && !u.admitted));
  assert.ok(!r.unreached.some((u) => u.command === 'listOrders' && (u.kind === 'customer' || u.kind === 'guest')));
  assert.ok(!r.unreached.some((u) => u.command === 'adjustStock'));
  assert.ok(r.unreached.some((u) => u.command === 'recoverAccount' && u.kind === 'secret'));
  assert.ok(!r.unreached.some((u) => u.command === 'getCart' && u.kind === 'secret'), 'secret only where a route has one');
  assert.ok(kinds.includes('anonymous'));
  assert.deepEqual(r.undeclared, { adjustStock: 1 });
  // The clause domains: the listOrders cells the exchanges fell in are reached.
  const owner = r.clauses.find((c) => c.axes.some((a) => a.judged.includes('listOrders')));
  assert.ok(owner, 'a clause domain names listOrders as reached');
  const text = formatCoverageMap(r).join('\n');
  assert.match(text, /listOrders +customer 4, \[guest\] 1/);
  assert.match(text, /never reached \(\d+ command × caller-kind cells\)/);
  assert.match(text, /not described by the target: adjustStock \(1 steps not sent\)/);
});
