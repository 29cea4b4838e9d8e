// Concurrency (docs/explore.md): the same commands from several clients against one owner, their starts interleaved by a
// seeded fast-check scheduler, then judged by what the spec pins whatever the order: concurrent adds lose no line, a
// checkout after an order finds the cart empty (PUR-IDEM-4), one DPoP proof is accepted once (AUTH-ASST-11), and a
// budget spent from several connections never lets more than the budget through. Requests leave through `send` only.
import fc from 'fast-check';
import type { BodyRole } from '../engine/transport/target.js';
import {
  codeOf,
  finding,
  interleave,
  ok,
  sequenceOf,
  stepOf,
  type ConcurrencyFinding,
  type InterleavingOptions,
  type ScenarioName,
} from './interleave.js';

export type { ConcurrencyFinding, InterleavingOptions, ScenarioName, ScenarioRun } from './interleave.js';

/** What each scenario sends at once and what it judges, with its clauses (the docs cite this table). */
export const CONCURRENCY_SCENARIOS: readonly { scenario: string; sends: string; judges: string; clauses: readonly string[] }[] = [
  {
    scenario: 'adds',
    sends: 'addCartItem of distinct variants by one owner, then getCart',
    judges: 'every accepted add is a line of the cart (no lost line); no 5xx',
    clauses: ['PUR-SERVE-2', 'END-OPS-ADDCARTITEM-1'],
  },
  {
    scenario: 'checkouts',
    sends: 'checkoutSavedCard of one non-empty cart from several clients, then one more',
    // How many of the simultaneous ones may succeed the spec does not pin (its rule is sequential: "a submission after a
    // paid order finds the cart empty"): "at most one order" is the reference's (level reference; the check
    // endpoints.checkout.concurrent.reference), not judged by explore's runner.
    judges: 'not every one refused as cart_empty; the one after an order is 422 cart_empty; at reference level, at most one order',
    clauses: ['PUR-IDEM-4', 'ERR-TABLE-14'],
  },
  {
    scenario: 'proof',
    sends: 'one assistant request with the same DPoP proof, twice at once',
    judges: 'accepted once; the replay refused',
    clauses: ['AUTH-ASST-11', 'AUTH-ASST-12'],
  },
  {
    scenario: 'budget',
    sends: 'the budget plus a few requests of one fresh caller at once (two fresh callers before a finding)',
    judges: 'never more accepted than the budget',
    clauses: ['LIM-RATE-4', 'ERR-TABLE-12'],
  },
];

/** Runs every scenario the options allow, `runs` seeded interleavings each; returns what broke, once per scenario. */
export async function runInterleavings(o: InterleavingOptions): Promise<ConcurrencyFinding[]> {
  const runs = o.runs ?? 3;
  // One seeded series of schedulers per scenario, so that adding a scenario leaves the others' interleavings unchanged.
  const schedulers = (k: number) => fc.sample(fc.scheduler(), { seed: o.seed + k, numRuns: runs });
  const findings: ConcurrencyFinding[] = [];
  const scenarios: [ScenarioName, (s: fc.Scheduler, run: number) => Promise<ConcurrencyFinding[]>][] = [
    ['adds', (s) => concurrentAdds(o, s)],
  ];
  if (o.paymentMethod !== undefined) scenarios.push(['checkouts', (s) => concurrentCheckouts(o, s)]);
  if (o.assistant) scenarios.push(['proof', (s) => proofTwice(o, s)]);
  const wanted = (name: ScenarioName) => !o.scenarios || o.scenarios.includes(name);
  for (const [k, [name, scenario]] of scenarios.entries()) {
    if (!wanted(name)) continue;
    const series = schedulers(k);
    for (let run = 0; run < runs; run++) {
      const found = await scenario(series[run]!, run);
      if (found.length > 0) {
        findings.push(...found);
        break;
      }
    }
  }
  if (o.budget && wanted('budget')) findings.push(...(await spendBudget(o, schedulers(scenarios.length)[0]!)));
  return findings;
}

/** Empties the owner's cart of the variants the scenarios add (a line that is not there is refused; that is fine). */
async function clearCart(o: InterleavingOptions): Promise<void> {
  for (const v of o.variants) await o.send(stepOf(o, 'removeCartItem', o.owner, {}, v));
}

const addStep = (o: InterleavingOptions, variant: string) =>
  stepOf(o, 'addCartItem', o.owner, {
    body: { json: o.target.body('addCartItem', { variant, quantity: 1 } as Partial<Record<BodyRole, unknown>>) },
  });

/** Concurrent adds of distinct variants to one cart: every accepted add is a line of the cart read afterwards. */
async function concurrentAdds(o: InterleavingOptions, s: fc.Scheduler): Promise<ConcurrencyFinding[]> {
  await clearCart(o);
  const variants = o.variants.slice(0, Math.max(2, o.clients ?? 3));
  const adds = variants.map((v) => addStep(o, v));
  const { answers, order, batch } = await interleave(o, s, adds);
  const run = { scenario: 'adds' as const, clients: variants.length };
  o.onBatch?.('adds', answers);
  const read = stepOf(o, 'getCart', o.owner);
  const cart = await o.send(read);
  const seq = sequenceOf([], order, [read]);
  const out: ConcurrencyFinding[] = [];
  const server = answers.findIndex((a) => a.status >= 500);
  if (server >= 0)
    out.push(
      finding(
        run,
        batch,
        seq,
        ['END-OPS-ADDCARTITEM-1'],
        `concurrent addCartItem answered ${answers[server]!.status}`,
        order.indexOf(adds[server]!),
        'not a server error',
        answers[server]!.status,
      ),
    );
  const lost = variants.filter((v, i) => ok(answers[i]!) && !cart.text.includes(v));
  if (ok(cart) && lost.length > 0)
    out.push(
      finding(
        run,
        batch,
        seq,
        ['PUR-SERVE-2', 'END-OPS-ADDCARTITEM-1'],
        `${lost.length} of ${variants.length} concurrent adds accepted but missing from the cart read after them (lost lines: ${lost.join(', ')})`,
        seq.steps.length - 1,
        variants.filter((_, i) => ok(answers[i]!)),
        cart.text.slice(0, 300),
      ),
    );
  await clearCart(o);
  return out;
}

/**
 * Concurrent checkouts of one non-empty cart: not every one refused as cart_empty, and the cart is then empty (422
 * cart_empty on a resubmission). At reference level only, at most one of them places an order.
 */
async function concurrentCheckouts(o: InterleavingOptions, s: fc.Scheduler): Promise<ConcurrencyFinding[]> {
  await clearCart(o);
  const add = addStep(o, o.variants[0]!);
  if (!ok(await o.send(add))) return [];
  const body = o.target.body('checkoutSavedCard', { 'payment-method': o.paymentMethod } as Partial<Record<BodyRole, unknown>>, {
    address: o.address,
  });
  const checkout = () => stepOf(o, 'checkoutSavedCard', o.owner, { body: { json: body } });
  const tries = Array.from({ length: Math.max(2, o.clients ?? 3) }, checkout);
  const { answers, order, batch } = await interleave(o, s, tries);
  const run = { scenario: 'checkouts' as const, clients: tries.length };
  o.onBatch?.('checkouts', answers);
  const again = checkout();
  const resubmitted = await o.send(again);
  const seq = sequenceOf([add], order, [again]);
  const placed = answers.filter(ok).length;
  const out: ConcurrencyFinding[] = [];
  if (placed > 1 && (o.level ?? 'reference') === 'reference') {
    // The second order placed is the divergence (in release order).
    const second = answers
      .map((a, i) => (ok(a) ? 1 + order.indexOf(tries[i]!) : -1))
      .filter((i) => i > 0)
      .sort((x, y) => x - y)[1];
    out.push(
      finding(
        run,
        batch,
        seq,
        ['PUR-IDEM-4', 'ERR-TABLE-14'],
        `${placed} of ${answers.length} concurrent checkouts of one cart each placed an order (the reference's choice)`,
        second ?? 1,
        'one order, the others refused',
        answers.map((a) => a.status),
      ),
    );
  }
  if (placed === 0 && answers.every((a) => codeOf(a) === 'cart_empty'))
    out.push(
      finding(
        run,
        batch,
        seq,
        ['ERR-TABLE-14', 'END-OPS-CHECKOUTSAVEDCARD-1'],
        'every concurrent checkout of a non-empty cart was refused as cart_empty: no order placed',
        1,
        'one order',
        answers.map((a) => a.status),
      ),
    );
  if (placed >= 1 && !(resubmitted.status === 422 && codeOf(resubmitted) === 'cart_empty'))
    out.push(
      finding(
        run,
        batch,
        seq,
        ['PUR-IDEM-4', 'ERR-TABLE-14'],
        `a checkout after the order answered ${resubmitted.status} ${String(codeOf(resubmitted) ?? '')}: the cart was not emptied`,
        seq.steps.length - 1,
        '422 cart_empty',
        resubmitted.status,
      ),
    );
  await clearCart(o);
  return out;
}

/** One DPoP proof sent twice at once: accepted once, the replay refused (AUTH-ASST-11). */
async function proofTwice(o: InterleavingOptions, s: fc.Scheduler): Promise<ConcurrencyFinding[]> {
  const probe = stepOf(o, 'listCollections', 'none');
  const url = `${(o.baseUrl ?? '').replace(/\/+$/, '')}${probe.path}`;
  let nonce: string | undefined;
  for (let attempt = 0; attempt < 3; attempt++) {
    const headers = await o.assistant!({ method: probe.method, url, ...(nonce !== undefined ? { nonce } : {}) });
    const twice = [0, 1].map(() => ({ ...probe, headers, mutation: 'the same DPoP proof, twice at once' }));
    const { answers, batch } = await interleave(o, s, twice);
    o.onBatch?.('proof', answers);
    // On replay, the caller's fresh proof and then that same proof again (the script mints; the headers sent here expire).
    const mutation = 'the same DPoP proof, twice at once';
    const label = o.assistantCaller ?? 'assistant';
    const seq = sequenceOf(
      [],
      [
        { ...probe, caller: label, mutation },
        { ...probe, caller: `${label}:replay`, mutation },
      ],
    );
    const retry = answers.find((a) => codeOf(a) === 'use_dpop_nonce' && a.headers['dpop-nonce']);
    if (!answers.some(ok) && retry) {
      nonce = retry.headers['dpop-nonce'];
      continue;
    }
    const accepted = answers.filter(ok).length;
    if (accepted > 1)
      return [
        finding(
          { scenario: 'proof' },
          batch,
          seq,
          ['AUTH-ASST-11', 'AUTH-ASST-12'],
          'one DPoP proof sent twice at once was accepted twice',
          1,
          'accepted once, the replay refused with 401',
          answers.map((a) => a.status),
        ),
      ];
    if (accepted === 0 && answers.every((a) => codeOf(a) === 'invalid_dpop_proof'))
      return [
        finding(
          { scenario: 'proof' },
          batch,
          seq,
          ['AUTH-ASST-11'],
          'one valid DPoP proof sent twice at once was refused both times as a replay',
          0,
          'accepted once',
          answers.map((a) => `${a.status} ${String(codeOf(a))}`),
        ),
      ];
    return [];
  }
  return [];
}

/** A budget spent from several connections at once never lets more than its limit through (LIM-RATE-4). */
async function spendBudget(o: InterleavingOptions, s: fc.Scheduler): Promise<ConcurrencyFinding[]> {
  const budget = o.budget!;
  const extra = Math.max(1, o.extra ?? Math.max(2, o.clients ?? 3) * 2);
  let last: ConcurrencyFinding | undefined;
  // A spending that straddles a window boundary may legitimately pass more: a finding only when two fresh attempts both do.
  for (let attempt = 0; attempt < 2; attempt++) {
    const caller = budget.caller(attempt);
    const headers = budget.headers?.(attempt) ?? {};
    const steps = Array.from({ length: budget.limit + extra }, () =>
      stepOf(o, budget.operationId ?? 'listCollections', caller, { headers }),
    );
    const { answers, order, batch } = await interleave(o, s, steps);
    o.onBatch?.('budget', answers);
    const accepted = answers.filter(ok).length;
    if (accepted <= budget.limit) return [];
    last = finding(
      { scenario: 'budget', extra },
      batch,
      sequenceOf([], order),
      budget.clauses ?? ['LIM-RATE-4', 'ERR-TABLE-12'],
      `${accepted} of ${steps.length} requests spent at once were accepted against a budget of ${budget.limit}`,
      budget.limit,
      `at most ${budget.limit} accepted`,
      accepted,
    );
  }
  return last ? [last] : [];
}
