// The run plan (conformance/engine/runner/plan.ts): the one file that carries a run's settings from the CLI to the
// Playwright side. A valid plan is read back as written and frozen; a malformed one is refused in one line naming the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import {
  currentPlan,
  parsePlan,
  PLAN_ENV,
  PlanError,
  planEnv,
  readPlanFile,
  runPlan,
  writePlan,
  type RunPlan,
} from '../../../conformance/engine/runner/plan.js';
import { selfTestPlanOf } from '../../../conformance/selftest/plan.js';

const plan: RunPlan = {
  target: { baseUrl: 'http://127.0.0.1:8080', profilePath: '/tmp/profile.json', kind: 'external', insecure: false },
  level: 'spec',
  strict: false,
  seed: 1,
  showSecrets: false,
  selection: { partial: 'whole', clauses: [], repro: false, reproArgs: '--base-url http://127.0.0.1:8080' },
  workers: { count: 2, maxInFlight: 8 },
  output: { dir: '/tmp/out', reporters: ['list', 'junit'] },
  variants: [{ name: 'closed', checks: ['endpoints.recovery.closed-without-secret'] }],
  late: { target: '/tmp/late/late-target.json', from: 1234 },
};

test('a valid plan is written, read back as written, and frozen', () => {
  const file = writePlan(mkdtempSync(join(tmpdir(), 'plan-')), plan);
  assert.deepEqual(readPlanFile(file), plan);
  const env = planEnv(file, {});
  assert.deepEqual(Object.keys(env).sort(), ['FORCE_COLOR', PLAN_ENV]);
  const read = runPlan(env);
  assert.deepEqual(read, plan);
  assert.ok(Object.isFrozen(read) && Object.isFrozen(read.target) && Object.isFrozen(read.selection.clauses));
  assert.equal(runPlan(env), read, 'read once');
});

test('without a plan: none for the configuration, an error for a check', () => {
  assert.equal(currentPlan({}), undefined);
  assert.throws(() => runPlan({}), new RegExp(`${PLAN_ENV} is not set`));
});

const refusals: { description: string; change: (p: any) => void; expected: RegExp }[] = [
  { description: 'a level that is neither', change: (p) => (p.level = 'strictest'), expected: /^run plan x\.json: level: / },
  { description: 'a seed out of range', change: (p) => (p.seed = -1), expected: /^run plan x\.json: seed: / },
  {
    description: 'a base URL that is no URL',
    change: (p) => (p.target.baseUrl = 'shop'),
    expected: /^run plan x\.json: target\.baseUrl: /,
  },
  { description: 'a missing output', change: (p) => delete p.output, expected: /^run plan x\.json: output: / },
  { description: 'workers below one', change: (p) => (p.workers.count = 0), expected: /^run plan x\.json: workers\.count: / },
  {
    description: 'a malformed shard',
    change: (p) => (p.selection.shard = 'one of two'),
    expected: /^run plan x\.json: selection\.shard: /,
  },
  { description: 'an unknown setting', change: (p) => (p.target.colour = 'red'), expected: /^run plan x\.json: target: .*colour/ },
];

for (const r of refusals)
  test(`a malformed plan is refused in one line naming the field: ${r.description}`, () => {
    const bad = structuredClone(plan);
    r.change(bad);
    assert.throws(
      () => parsePlan(bad, 'x.json'),
      (err: Error) => err instanceof PlanError && r.expected.test(err.message) && !err.message.includes('\n'),
    );
  });

test('a plan file that is not JSON names the file', () => {
  const file = join(mkdtempSync(join(tmpdir(), 'plan-')), 'run-plan.json');
  writeFileSync(file, '{');
  assert.throws(
    () => readPlanFile(file),
    (err: Error) => err.message.startsWith(`run plan ${file}: not JSON`),
  );
});

test("the self-test's part is validated by the self-test, naming the field", () => {
  assert.equal(selfTestPlanOf(plan), undefined);
  const selfTest = { target: 'http://127.0.0.1:8080', level: 'spec', baseline: [], projects: [] };
  assert.deepEqual(selfTestPlanOf({ selfTest }), selfTest);
  assert.throws(() => selfTestPlanOf({ selfTest: { ...selfTest, projects: [{ name: 'defects-1', defects: [{ id: 'a' }] }] } }), {
    message: /^run plan: selfTest\.projects\.0\.defects\.0\.clause: /,
  });
});

test('no setting travels in an environment variable of its own: the plan pointer and the documented user-facing ones only', () => {
  // SHOP_CONFORMANCE_CHROMIUM is the user's (docs/conformance.md): which browser the CORS checks drive.
  const allowed = new Set([PLAN_ENV, 'SHOP_CONFORMANCE_CHROMIUM']);
  const found: string[] = [];
  for (const dir of ['conformance', 'cli']) {
    const root = new URL(`../../../${dir}`, import.meta.url).pathname;
    for (const f of (readdirSync(root, { recursive: true }) as string[]).filter((x) => x.endsWith('.ts')))
      for (const m of readFileSync(join(root, f), 'utf8').matchAll(/SHOP_CONFORMANCE_[A-Z_]+/g))
        if (!allowed.has(m[0])) found.push(`${relative(process.cwd(), join(root, f))}: ${m[0]}`);
  }
  assert.deepEqual(found, []);
});
