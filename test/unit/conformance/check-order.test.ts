// The order in which a run hands out its checks: Playwright takes the check files in name order (localeCompare), so the
// checks that hold a worker longest, by a wait on the clock or by a long chain of round trips to a deployment far away,
// are in `00-long-wait.` files and start at the beginning of a run instead of leaving one worker busy after the others.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../../../reference/src/paths.js';

const CHECKS = join(PACKAGE_ROOT, 'conformance', 'checks');
const PREFIX = '00-long-wait.';

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

/** The check files in the order Playwright takes them. */
const files = () =>
  readdirSync(CHECKS)
    .filter((f) => /\.check\.ts$/.test(f))
    .sort((a, b) => a.localeCompare(b));

/** The ids a check file declares (`id: 'x'`, or `id: cond ? 'x' : 'y'`). */
const idsOf = (file: string) =>
  [...readFileSync(join(CHECKS, file), 'utf8').matchAll(/\bid: ([^\n]+)/g)].flatMap((m) =>
    [...m[1]!.matchAll(/'([^']+)'/g)].map((q) => q[1]!),
  );

test('the checks longest at a round trip are in the files a run takes first', () => {
  const order = files();
  const leading = order.slice(
    0,
    order.findIndex((f) => !f.startsWith(PREFIX)),
  );
  const early = new Set(leading.flatMap(idsOf));
  assert.deepEqual(
    LONGEST_AT_A_DISTANCE.filter((id) => !early.has(id)),
    [],
    'each is declared in a 00-long-wait. file, ahead of every other check file',
  );
});

test('the keep-alive wait is handed out first, so that a run of two workers starts it at once', () => {
  assert.equal(idsOf(files()[0]!)[0], 'endpoints.conversations.event-stream.keep-alive');
});

test('a 00-long-wait. file holds at least one of the longest checks (the prefix is not a way to jump the queue)', () => {
  const longest = new Set(LONGEST_AT_A_DISTANCE);
  const idle = files()
    .filter((f) => f.startsWith(PREFIX))
    .filter((f) => !idsOf(f).some((id) => longest.has(id)));
  assert.deepEqual(idle, []);
});
