// The self-test's plan as one Playwright project: which copies a check gets, and where each copy sends its requests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copiesOf, defectsJudgedBy, makeupPlan, targetOf, type Plan } from '../../../conformance/selftest/plan.js';

const variant = { name: 'outage', baseUrl: 'http://127.0.0.1:7003', profilePath: '/tmp/outage.json', checks: ['errors.outage'] };
const plan: Plan = {
  target: 'http://127.0.0.1:7000',
  level: 'spec',
  baseline: ['AUTH-GUEST-5', 'ERR-TABLE-6'],
  projects: [
    {
      name: 'defects-1',
      defects: [
        { id: 'a', clause: 'AUTH-GUEST-5', url: 'http://127.0.0.1:7101' },
        { id: 'b', clause: 'CART-LINE-2', url: 'http://127.0.0.1:7102' },
      ],
    },
    {
      name: 'defects-2',
      defects: [
        { id: 'c', clause: 'AUTH-GUEST-5', url: 'http://127.0.0.1:7201' },
        // A narrowed variant: only the checks that reach its cell.
        { id: 'd@caller=guest', clause: 'ERR-TABLE-6', url: 'http://127.0.0.1:7202', checks: ['errors.table.guest'] },
      ],
    },
  ],
  variants: [{ name: 'variant-outage-1', variant, defects: [{ id: 'e', clause: 'ERR-OUTAGE-1', url: variant.baseUrl }] }],
};

test('a check is copied into the baseline and into each project with a defect it judges, in that order', () => {
  assert.deepEqual(copiesOf(plan, 'auth.guest.five', ['AUTH-GUEST-5']), ['baseline', 'defects-1', 'defects-2']);
  assert.deepEqual(copiesOf(plan, 'cart.line', ['CART-LINE-2']), ['defects-1']);
  // A narrowed defect judges only the checks it lists, though others cite its clause.
  assert.deepEqual(copiesOf(plan, 'errors.table.guest', ['ERR-TABLE-6']), ['baseline', 'defects-2']);
  assert.deepEqual(copiesOf(plan, 'errors.table.customer', ['ERR-TABLE-6']), ['baseline']);
  assert.deepEqual(copiesOf(plan, 'errors.outage', ['ERR-OUTAGE-1']), ['variant-outage-1']);
  assert.deepEqual(copiesOf(plan, 'unrelated', ['PUR-SERVE-1']), []);
  assert.deepEqual(copiesOf({ ...plan, listing: ['AUTH-GUEST-5'] }, 'unrelated', ['PUR-SERVE-1']), []);
});

test("each copy reaches the target, its defect's proxy (by the clause it judges) or its variant deployment", () => {
  assert.deepEqual(targetOf(plan, 'baseline', 'auth.guest.five', ['AUTH-GUEST-5']), { baseUrl: plan.target });
  const [p1, p2] = plan.projects;
  assert.deepEqual(targetOf(plan, 'defects-1', 'auth.guest.five', ['AUTH-GUEST-5']), {
    baseUrl: 'http://127.0.0.1:7101',
    defect: p1!.defects[0],
  });
  assert.deepEqual(targetOf(plan, 'defects-1', 'cart.line', ['CART-LINE-2', 'ERR-PROBLEM-1']), {
    baseUrl: 'http://127.0.0.1:7102',
    defect: p1!.defects[1],
  });
  assert.deepEqual(targetOf(plan, 'defects-2', 'auth.guest.five', ['AUTH-GUEST-5']), {
    baseUrl: 'http://127.0.0.1:7201',
    defect: p2!.defects[0],
  });
  assert.deepEqual(targetOf(plan, 'defects-2', 'errors.table.guest', ['ERR-TABLE-6']), {
    baseUrl: 'http://127.0.0.1:7202',
    defect: p2!.defects[1],
  });
  assert.deepEqual(targetOf(plan, 'variant-outage-1', 'errors.outage', ['ERR-OUTAGE-1']), {
    variant,
    defect: plan.variants![0]!.defects[0],
  });
  // A variant judged without defect is a baseline: no defect.
  const bare = { ...plan, variants: [{ name: 'baseline-variant-outage', variant, defects: [] }] };
  assert.deepEqual(targetOf(bare, 'baseline-variant-outage', 'errors.outage', ['ERR-OUTAGE-1']), { variant });
  assert.throws(() => targetOf(plan, 'defects-2', 'errors.table.customer', ['ERR-TABLE-6']), /no defect of project defects-2/);
  assert.throws(() => targetOf(plan, 'defects-9', 'cart.line', ['CART-LINE-2']), /no defect of project defects-9/);
});

test('the makeup plan runs only the checks the first kill left unrun, of the defects named, with their baseline and no ledger', () => {
  const bare = { name: 'baseline-variant-outage', variant: { ...variant, checks: ['errors.outage', 'errors.outage.late'] }, defects: [] };
  const made = makeupPlan({ ...plan, variants: [...plan.variants!, bare], kills: '/tmp/kills' }, [
    { id: 'b', clause: 'CART-LINE-2', afterKill: ['cart.line.two'] },
    { id: 'e', clause: 'ERR-OUTAGE-1', afterKill: ['errors.outage.late'] },
  ]);
  assert.deepEqual(made, {
    target: plan.target,
    level: 'spec',
    baseline: ['CART-LINE-2', 'ERR-OUTAGE-1'],
    projects: [
      { name: 'defects-1', defects: [{ id: 'b', clause: 'CART-LINE-2', url: 'http://127.0.0.1:7102', checks: ['cart.line.two'] }] },
    ],
    variants: [
      { ...plan.variants![0]!, variant: { ...variant, checks: ['errors.outage.late'] } },
      { ...bare, variant: { ...variant, checks: ['errors.outage.late'] } },
    ],
  });
  // Its copies: the named check under its old plan project, nothing for the others.
  assert.deepEqual(copiesOf(made, 'cart.line.two', ['CART-LINE-2']), ['baseline', 'defects-1']);
  assert.deepEqual(copiesOf(made, 'cart.line', ['CART-LINE-2']), ['baseline']);
  assert.deepEqual(copiesOf(made, 'auth.guest.five', ['AUTH-GUEST-5']), []);
});

test('the defects a check judges: one per plan project it is copied into, none for the baseline', () => {
  const [p1, p2] = plan.projects;
  assert.deepEqual(defectsJudgedBy(plan, 'auth.guest.five', ['AUTH-GUEST-5']), [p1!.defects[0], p2!.defects[0]]);
  assert.deepEqual(defectsJudgedBy(plan, 'errors.table.customer', ['ERR-TABLE-6']), []);
  assert.deepEqual(defectsJudgedBy(plan, 'errors.outage', ['ERR-OUTAGE-1']), [plan.variants![0]!.defects[0]]);
});
