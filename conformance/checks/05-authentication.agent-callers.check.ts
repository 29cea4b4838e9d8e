// Spec part 5, Authentication, for the agent caller kinds (invited-agent, assistant) against the caller list of every
// operation (part 1, What the service does, rules 1 to 3; Endpoints > Caller lists by name): every operation of
// contract/operations.ts is sent as each agent kind, with bodies that fail validation (so nothing is written). The
// guard precedes input validation, so a 400 shows that the guard let the caller through. The other caller kinds are
// tried operation by operation (conformance/lib/callers.ts).
//
// Every check makes its own agents: fresh account subjects, fresh invited-agent ids, fresh assistant sessions registered
// through the identity-provider proxy's internal routes (conformance/checks/_shared/assistant.ts).
import { CALLER_LISTS } from '../../contract/callers.js';
import { BASE_API_SCOPES, PERMISSION_API_SCOPES } from '../../contract/scopes.js';
import { OPERATIONS, type Operation } from '../../contract/operations.js';
import { check, learned, test, type Shop } from '../engine/runner/check.js';
import { mapCases } from '../engine/runner/cases.js';
import type { ShopResponse } from '../engine/transport/http.js';
import { AssistantAgent } from './_shared/assistant.js';
import { expectNoHeader, expectProblem, inCase } from '../lib/assert.js';
import { expectCredentialRefused } from '../lib/expect/refusals.js';
import { describedOperatorOperations, invitedAgent, probe, sendAssistant, sendInvited, type Send } from './_shared/probe-agents.js';
import { expectPassesGuard } from '../lib/expect/agents.js';

type AgentKind = 'invited-agent' | 'assistant';

/**
 * Whether an agent with every permission may be refused `insufficient_scope` on `op` at the spec level: the spec does not
 * show the row's scopes, and the target's documents either declare none or declare one that no permission maps to (spec,
 * Scope translation: an agent's guard requires the operation's scopes within its mapped permissions).
 */
function scopesOpen(op: Operation): boolean {
  if (!op.notShown?.includes('apiScopes') && !op.notShown?.includes('agentScopes')) return false;
  const declared = learned().securityScopes(op.operationId);
  const mapped = new Set<string>([...BASE_API_SCOPES, ...Object.values(PERMISSION_API_SCOPES).flat()]);
  return declared === undefined || declared.some((scope) => !mapped.has(scope));
}

/** The spec shows the callers of a row when the row's list is shown and the row does not leave its callers out. */
const callersShown = (op: Operation) => !op.notShown?.includes('callers') && CALLER_LISTS[op.callers].shownInSpec;

/** How many assistants of their own share the probes of an assistant matrix. */
const ASSISTANT_SESSIONS = 8;

/**
 * Each operation's probe sent as `kind`, in the operations' order: one case per operation. A probe changes nothing: an
 * invited agent's are cases of no shared state. An assistant's calls go in turn (each proof carries the nonce of the answer
 * before it, and a deployment may honour only its newest), so the probes are shared among assistants of their own (each
 * its own session, key, client and account, with every permission), each assistant a lane that sends its share in turn.
 */
async function probeAs(shop: Shop, kind: AgentKind, ops: readonly Operation[]): Promise<ShopResponse[]> {
  if (kind === 'invited-agent') {
    const send = sendInvited(shop, await invitedAgent(shop));
    return mapCases(ops, (op) => send(probe(op)));
  }
  // Each lane's assistant is made by the lane's first case: a lane's cases run one after another.
  const sessions: Promise<Send>[] = [];
  const sendAs = (n: number) => (sessions[n] ??= AssistantAgent.create(shop).then((agent) => sendAssistant(agent)));
  return mapCases(ops, async (op, i) => (await sendAs(i % ASSISTANT_SESSIONS))(probe(op)), {
    lane: (_op, i) => `assistant ${i % ASSISTANT_SESSIONS}`,
  });
}

async function expectMatrix(shop: Shop, kind: AgentKind, ops: readonly Operation[], level: 'spec' | 'reference'): Promise<void> {
  const answers = await probeAs(shop, kind, ops);
  for (const [i, op] of ops.entries()) {
    const res = answers[i]!;
    const allowed = CALLER_LISTS[op.callers].members.includes(kind);
    const clause = op.group === 'operator' ? 'PUR-RULE-3' : 'PUR-RULE-2';
    inCase(`${kind} on ${op.operationId} (${op.method} ${op.path})`, () => {
      if (allowed) {
        if (level === 'spec' && scopesOpen(op) && res.status === 403 && res.body?.error === 'insufficient_scope') return;
        return expectPassesGuard(res, { what: op.operationId, clause });
      }
      // /v1/ops/* is operator-only (spec, rule 1); its rows are not shown, so the spec level asks for a refusal only.
      if (level === 'spec' && op.group === 'operator') return expectCredentialRefused(shop, res, { clause });
      expectProblem(res, { status: 403, error: 'caller_not_allowed', docsUrl: shop.docsUrl, clause: 'ERR-TABLE-8' });
      expectNoHeader(res, 'www-authenticate', { what: 'WWW-Authenticate on caller_not_allowed', clause: 'ERR-TABLE-8' });
    });
  }
}

const MATRIX: readonly [AgentKind, 'invitedAgents' | 'assistants'][] = [
  ['invited-agent', 'invitedAgents'],
  ['assistant', 'assistants'],
];

for (const [kind, capability] of MATRIX) {
  test(
    ...check(
      {
        id: `authentication.agents.matrix.${kind}`,
        title: `${kind} × every operation whose callers the spec shows (and /v1/ops/*): listed operations pass the guard, the others are refused`,
        clauses: [
          'PUR-RULE-2',
          'PUR-RULE-3',
          'END-LIST-1',
          'END-LIST-2',
          'END-LIST-3',
          'END-LIST-4',
          kind === 'assistant' ? 'AUTH-KIND-12' : 'AUTH-KIND-10',
        ],
        requires: [capability],
        seed: true,
      },
      async (shop) => {
        // The operator rows are the ones the target describes under /v1/ops/ (the spec shows none of them).
        await expectMatrix(shop, kind, [...OPERATIONS.filter(callersShown), ...describedOperatorOperations()], 'spec');
      },
    ),
  );

  test(
    ...check(
      {
        id: `authentication.agents.matrix.${kind}.reference`,
        title: `${kind} × every operation of contract/operations.ts: the reference's caller lists, 403 caller_not_allowed (no challenge) outside them`,
        clauses: ['PUR-RULE-2', 'PUR-RULE-3', 'ERR-TABLE-8', 'END-LIST-6'],
        level: 'reference',
        requires: [capability],
        seed: true,
      },
      async (shop) => {
        await expectMatrix(shop, kind, OPERATIONS, 'reference');
      },
    ),
  );
}
