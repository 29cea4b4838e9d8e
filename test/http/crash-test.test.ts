// A short run of the crash test (`npm run crash-test`, scripts/crash-test.ts): the reference killed at each step of a
// checkout and at one random moment of a checkout loop (after the round placed an order), restarted on the same file,
// audited after every restart.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runCrashTest } from '../../scripts/crash-test.js';

test('killed at every checkout step and once at random: no charge without its order or its refund, nothing doubled', async () => {
  const lines: string[] = [];
  const books = await runCrashTest({ rounds: 1, seed: 3, log: (l) => lines.push(l) });
  assert.equal(books.kills, 6, lines.join('\n'));
  assert.ok(books.orders >= 3, `orders were placed through the crashes: ${JSON.stringify(books)}`);
  assert.ok(books.fewestOrdersInRound >= 1, 'the random round placed an order before its kill');
  assert.equal(books.attempts.abandoned, 1, 'the attempt killed before its charge is abandoned, not charged');
  assert.equal(books.attempts.refunded, 1, 'the charge whose cart was emptied is refunded once');
  assert.equal(books.refunds, 1);
  // The charge killed before its order stayed without it at least until the restart.
  assert.ok(books.longestUnsettledMs > 0, `a charge waited for its order: ${books.longestUnsettledMs} ms`);
});
