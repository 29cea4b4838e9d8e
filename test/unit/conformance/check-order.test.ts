// The order in which a run hands out its checks: the checks that hold a worker longest, by a wait on the clock or by a
// long chain of round trips to a deployment far away, are flagged `long` (CheckSpec.long) and handed out at the start of
// a run (engine/runner/long-first.ts) instead of leaving one worker busy after the others. The listing is Playwright's
// own, through the run's configuration: the order it shows is the order the run's workers take the checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { listChecks, type CheckListing } from '../../../conformance/engine/runner/list.js';

/**
 * The checks longest at a 100 ms round trip once their independent requests go at once (docs/conformance.md): the
 * keep-alive wait (its own clock, about 15 s at any round trip), then the ones bound by the worker's share of the
 * in-flight cap or by requests that must go in turn (a guest budget per operation; assistant budgets; the DPoP
 * negatives, each proof carrying the nonce of the previous answer; the property checks, one value after another).
 */
const LONGEST_AT_A_DISTANCE = [
  'endpoints.conversations.event-stream.keep-alive',
  'limits.rate.guest.every-operation',
  'limits.agents.assistant.client-budget',
  'limits.agents.assistant.session-budget',
  'authentication.dpop.negatives',
  'errors.property.bodies',
  'errors.property.guest-sessions',
  'errors.property.authorization',
];

/** The index of the last element that `p` holds of, or -1. */
const lastIndex = <T>(xs: readonly T[], p: (x: T) => boolean): number => xs.reduce((at, x, i) => (p(x) ? i : at), -1);

/** Flagged too: the same long body at the reference's level, or a budget spent before the request it judges. */
const LONG_BY_THE_SAME_WORK = [
  'authentication.dpop.negatives.reference',
  'limits.agents.assistant.budgets.conversations.reference',
  'limits.auth.order.guard-before-rate-limit.assistant',
];

let listing: Promise<CheckListing[]> | undefined;
const checks = () => (listing ??= listChecks());

test('each of the longest checks is flagged long, and no other check is (the flag is not a way to jump the queue)', async () => {
  const flagged = (await checks()).filter((c) => c.long).map((c) => c.id);
  assert.deepEqual(
    LONGEST_AT_A_DISTANCE.filter((id) => !flagged.includes(id)),
    [],
  );
  assert.deepEqual(
    flagged.filter((id) => !LONGEST_AT_A_DISTANCE.includes(id) && !LONG_BY_THE_SAME_WORK.includes(id)),
    [],
  );
});

test('a run hands out every long check before any check of a file that holds none', async () => {
  const all = await checks();
  const longFiles = new Set(all.filter((c) => c.long).map((c) => c.file));
  const firstOther = all.findIndex((c) => !longFiles.has(c.file));
  const lastLong = lastIndex(all, (c) => c.long);
  assert.ok(firstOther > 0 && lastLong < firstOther, `the last long check at ${lastLong}, the first other file's at ${firstOther}`);
  // Inside a file, its long checks first.
  for (const file of longFiles) {
    const inFile = all.filter((c) => c.file === file);
    assert.ok(inFile.findIndex((c) => !c.long) === -1 || inFile.findIndex((c) => !c.long) > lastIndex(inFile, (c) => c.long), file);
  }
});

test('the keep-alive wait is handed out first, so that a run of two workers starts it at once', async () => {
  assert.equal((await checks())[0]!.id, 'endpoints.conversations.event-stream.keep-alive');
});
