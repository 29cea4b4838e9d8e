// Scoped defects: the cell classifier (request → operation, caller kind, group), the narrowing of a defect to one cell,
// and the kill matrix's verdicts for narrowed variants.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CLAUSES_BY_ID } from '../../../contract/clauses/index.js';
import { DIMENSION_VALUES, DOMAINS } from '../../../contract/clauses/domains.js';
import { cellContext, classify } from '../../../conformance/engine/report/cells.js';
import { createMinter } from '../../../conformance/lib/mint.js';
import { DEFECTS, type Defect } from '../../../conformance/selftest/defects/index.js';
import { wire } from '../../../conformance/selftest/defects/types.js';
import { buildMatrix, formatMatrix, matrixPasses, type Outcome } from '../../../conformance/selftest/matrix.js';
import type { ProxyAnswer, ProxyRequest } from '../../../conformance/selftest/proxy.js';
import { deriveVariants, reachOf, reachingChecks, resetReach, sampleVariants } from '../../../conformance/selftest/scoped.js';
import { copiesOf, type Plan } from '../../../conformance/selftest/plan.js';
import { encodeFacts } from '../../../conformance/engine/report/cells.js';
import { fixtureProfile } from '../../helpers/reference.js';

const profile = fixtureProfile;
const mint = createMinter(profile);
const ctx = cellContext(profile, 'http://127.0.0.1:9/');
const bearer = (t: string) => `Bearer ${t}`;

async function callerHeaders(kind: string): Promise<[string, string][]> {
  switch (kind) {
    case 'customer':
      return [['Authorization', bearer(await mint.customer({ sub: 'auth0|ada' }))]];
    case 'delegated':
      return [['Authorization', bearer(await mint.delegated({ sub: 'auth0|ada', channel: 'openapi' }))]];
    case 'guest':
      return [
        ['Authorization', bearer(await mint.guest())],
        ['Guest-Session', 'gs1.x.y'],
      ];
    case 'operator':
      return [
        ['Authorization', bearer(await mint.operator())],
        ['Operator', 'a@b'],
      ];
    case 'invited-agent': {
      const forwarder = await mint.invitedAgentForwarder();
      const context = await mint.invitedAgentContext({ sub: 'auth0|ada', agentId: 'a1', permissions: [], forwarderToken: forwarder });
      return [
        ['Authorization', bearer(forwarder)],
        ['Invited-Agent-Context', context],
      ];
    }
    case 'assistant':
      return [
        ['Authorization', `DPoP ${await mint.assistant({ sub: 'auth0|ada', jkt: 'j'.repeat(43), sid: 's1' })}`],
        ['DPoP', 'proof'],
      ];
    case 'assistant-mcp':
      return [['Authorization', bearer(await mint.mcpAgentForwarder())]];
    case 'anonymous':
      return [];
  }
  throw new Error(kind);
}

describe('cell classifier', () => {
  const vectors: [method: string, path: string, operation: string | undefined, group: string][] = [
    ['GET', '/v1/me/identity', 'getIdentity', 'operations'],
    ['HEAD', '/v1/catalog/products/mug?x=1', 'getProduct', 'operations'],
    ['DELETE', '/v1/me/addresses/a-1', 'deleteAddress', 'operations'],
    ['POST', '/v1/me/orders/o1/returns', 'requestReturn', 'operations'],
    ['PUT', '/v1/me/identity', undefined, 'operations'],
    ['GET', '/assistant/conversations/c1/events', 'streamConversationEvents', 'conversation'],
    ['POST', '/internal/agent-authorization', undefined, 'internal'],
    ['POST', '/webhooks/stripe', undefined, 'webhook'],
    ['GET', '/health', undefined, 'public'],
    ['GET', '/assistant/openapi.json', undefined, 'public'],
    ['GET', '/v2/nothing', undefined, 'unmatched'],
  ];
  for (const [method, path, operation, group] of vectors)
    test(`${method} ${path} → ${operation ?? '(no operation)'}, ${group}`, () => {
      const f = classify({ method, path, headers: {} }, ctx);
      assert.equal(f.operation, operation);
      assert.equal(f.group, group);
      assert.equal(f.caller, 'anonymous');
    });

  test('the target base path is removed before matching', () => {
    const f = classify({ method: 'GET', path: '/shop/v1/cart', headers: {} }, cellContext(profile, 'https://x.test/shop/'));
    assert.equal(f.operation, 'getCart');
  });

  const kinds: [string, string][] = [
    ['customer', 'customer'],
    ['delegated', 'delegated'],
    ['guest', 'guest'],
    ['operator', 'operator'],
    ['invited-agent', 'invited-agent'],
    ['assistant', 'assistant'],
    ['assistant-mcp', 'assistant'],
    ['anonymous', 'anonymous'],
  ];
  for (const [credential, kind] of kinds)
    test(`caller kind: ${credential} → ${kind}`, async () => {
      const f = classify({ method: 'GET', path: '/v1/me/identity', headers: await callerHeaders(credential) }, ctx);
      assert.equal(f.caller, kind);
    });

  test('the forwarder without an artifact is no kind; status, error and DPoP come from the exchange', async () => {
    const forwarder = await mint.invitedAgentForwarder();
    const f = classify(
      {
        method: 'GET',
        path: '/v1/cart',
        headers: { authorization: bearer(forwarder), DPoP: 'x' },
        status: 403,
        body: '{"error":"caller_not_allowed"}',
      },
      ctx,
    );
    assert.deepEqual([f.caller, f.status, f.error, f.dpop], ['unknown', '403', 'caller_not_allowed', true]);
  });

  test('every domain names real clauses and cells of its dimension', () => {
    for (const d of DOMAINS) {
      assert.ok(CLAUSES_BY_ID.has(d.clause), d.clause);
      for (const a of d.axes) {
        assert.ok(a.cells.length > 0, `${d.clause} ${a.dimension}`);
        for (const c of a.cells) assert.ok(DIMENSION_VALUES[a.dimension].includes(c), `${d.clause}: ${a.dimension}=${c}`);
      }
    }
    const banner = DOMAINS.find((d) => d.clause === 'PUR-BANNER-2')!;
    assert.deepEqual(banner.axes[0]!.cells, ['invited-agent', 'assistant']);
  });
});

describe('narrowed variants', () => {
  const leak = DEFECTS.find((d) => d.id === 'purpose.endpoints.identity-leaks-email')!;

  test('a defect of a clause with a domain gets one variant per cell; a configuration defect or a clause without a domain none', () => {
    assert.deepEqual(
      deriveVariants(leak).map((v) => v.id),
      ['purpose.endpoints.identity-leaks-email@caller=invited-agent', 'purpose.endpoints.identity-leaks-email@caller=assistant'],
    );
    for (const d of DEFECTS.filter((x) => x.configure)) assert.deepEqual(deriveVariants(d), []);
    assert.deepEqual(deriveVariants(wire('x.y', 'AUTH-ORDER-3', 'no domain', (a) => a)), []);
  });

  test("a wire defect narrowed to one caller kind changes only that kind's answers", async () => {
    resetReach();
    const variant = deriveVariants(leak).find((v) => v.id.endsWith('caller=invited-agent'))!;
    const rules = variant.rules({ profile, mint, target: 'http://127.0.0.1:9/' });
    const answer = (): ProxyAnswer => ({ status: 200, headers: [['Content-Type', 'application/json']], body: '{"display_name":"Ada"}' });
    const asKind = async (kind: string): Promise<ProxyRequest> => ({
      method: 'GET',
      path: '/v1/me/identity',
      headers: await callerHeaders(kind),
    });
    for (const kind of ['customer', 'assistant', 'delegated', 'guest'])
      assert.equal(rules.response!(answer(), await asKind(kind)).body, '{"display_name":"Ada"}', kind);
    assert.match(rules.response!(answer(), await asKind('invited-agent')).body!, /leak@example\.test/);
    // Another operation of the same kind: the cell holds, the broad rule (identity reads only) does not apply.
    const cart = { ...(await asKind('invited-agent')), path: '/v1/cart' };
    assert.equal(rules.response!(answer(), cart).body, '{"display_name":"Ada"}');
    assert.deepEqual(reachOf(variant.id), { reached: 1, applied: 1 });
  });

  test('a leniency defect is not narrowed to an answer-side cell', () => {
    const lenientOne: Defect = { ...leak, id: 'x.lenient', kind: 'leniency', clause: 'ERR-PROBLEM-5' };
    assert.deepEqual(
      deriveVariants(lenientOne).map((v) => v.scope!.cell),
      ['group=operations', 'group=conversation', 'group=public', 'group=internal', 'group=webhook', 'group=unmatched'],
    );
  });

  test('the sample is seeded: same seed, same pick', () => {
    const all = DEFECTS.flatMap((d) => deriveVariants(d));
    const a = sampleVariants(all, 40, 7).map((v) => v.id);
    assert.equal(a.length, 40);
    assert.deepEqual(
      sampleVariants(all, 40, 7).map((v) => v.id),
      a,
    );
    assert.notDeepEqual(
      sampleVariants(all, 40, 8).map((v) => v.id),
      a,
    );
  });
});

describe('kill matrix of narrowed variants', () => {
  const leak = DEFECTS.find((d) => d.id === 'purpose.endpoints.identity-leaks-email')!;
  const [invited, assistant] = deriveVariants(leak);
  const outcome = (project: string, failed: string[]): Outcome => ({
    project,
    check: 'endpoints.account.identity',
    status: 'passed',
    failedClauses: failed,
    setupFailed: false,
  });
  const reach: Record<string, { reached: number; applied: number }> = {
    [invited!.id]: { reached: 2, applied: 2 },
    [assistant!.id]: { reached: 0, applied: 0 },
  };
  const build = (known = {}) =>
    buildMatrix({
      target: 't',
      level: 'reference',
      defects: [leak, invited!, assistant!],
      library: DEFECTS,
      outcomes: [outcome(leak.id, ['PUR-BANNER-2']), outcome(invited!.id, []), outcome(assistant!.id, [])],
      reach: (id) => reach[id],
      known,
    });

  test('a variant that survives while its broad defect is killed is a survivor naming the clause and the cell', () => {
    const m = build();
    const row = m.defects.find((d) => d.id === invited!.id)!;
    assert.equal(row.verdict, 'survived');
    assert.equal(row.message, 'PUR-BANNER-2 broken for invited-agent only: survived (the broad defect is killed)');
    assert.match(formatMatrix(m), /Survivors: PUR-BANNER-2 broken for invited-agent only: survived/);
    assert.equal(matrixPasses(m), false);
  });

  test('a variant whose cell no check reached survives too; one reached but never applied is set aside', () => {
    const m = build();
    assert.equal(
      m.defects.find((d) => d.id === assistant!.id)!.message,
      'PUR-BANNER-2 broken for assistant only: survived (no check reached the cell)',
    );
    reach[assistant!.id] = { reached: 3, applied: 0 };
    const n = build();
    assert.equal(
      n.defects.find((d) => d.id === assistant!.id),
      undefined,
    );
    assert.deepEqual(n.notApplicable, [{ id: assistant!.id, clause: 'PUR-BANNER-2', cell: 'caller=assistant' }]);
    reach[assistant!.id] = { reached: 0, applied: 0 };
  });

  test('known survivors are reported and do not fail the run', () => {
    const m = build({ [invited!.id]: 'the check reads as a customer', [assistant!.id]: 'idem' });
    assert.equal(m.summary.knownSurvivors, 2);
    assert.equal(matrixPasses(m), true);
    assert.match(formatMatrix(m), /Known survivors \(2/);
  });
});

describe('screening', () => {
  const leak = DEFECTS.find((d) => d.id === 'purpose.endpoints.identity-leaks-email')!;
  const [invited, assistant] = deriveVariants(leak);
  const point = (caller: string, operation: string) =>
    encodeFacts({ operation, caller: caller as 'customer', group: 'operations', method: 'GET', status: '200', dpop: false });

  test("a variant runs the baseline checks of its clause that reached its cell (within the axis' fixed coordinates)", () => {
    const reaching = reachingChecks(
      [invited!, assistant!],
      [
        { check: 'a', tags: ['PUR-BANNER-2'], cells: [point('customer', 'getIdentity'), point('invited-agent', 'getIdentity')] },
        { check: 'b', tags: ['PUR-BANNER-2'], cells: [point('assistant', 'getCart')] },
        { check: 'c', tags: ['END-CONV-9'], cells: [point('assistant', 'getIdentity')] },
      ],
    );
    assert.deepEqual(reaching.get(invited!.id), ['a']);
    assert.deepEqual(reaching.get(assistant!.id), []);
  });

  test('a project runs the listed checks of a screened variant and every check of a whole defect', () => {
    const plan: Plan = {
      target: 't',
      level: 'spec',
      baseline: [],
      projects: [
        {
          name: 'defects-1',
          defects: [
            { id: 'x', clause: 'END-CONV-9', url: 'u' },
            { id: 'y', clause: 'PUR-BANNER-2', url: 'v', checks: ['endpoints.account.identity'] },
          ],
        },
      ],
    };
    assert.deepEqual(copiesOf(plan, 'endpoints.account.identity', ['PUR-BANNER-2']), ['defects-1']);
    assert.deepEqual(copiesOf(plan, 'other', ['END-CONV-9']), ['defects-1']);
    assert.deepEqual(copiesOf(plan, 'endpoints.account.identity.reference', ['PUR-BANNER-2']), []);
  });
});
