// Domain coverage: the cells each check recorded, aggregated per clause with a declared domain over the checks citing it
// that ran; the MUST clauses with untried cells are listed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DOMAINS } from '../../../contract/clauses/domains.js';
import { encodeFacts, type Facts } from '../../../conformance/engine/report/cells.js';
import { domainCoverage, formatCoverage, untriedMust } from '../../../conformance/engine/report/coverage.js';

const point = (f: Partial<Facts>): string => encodeFacts({ caller: 'customer', group: 'operations', method: 'GET', dpop: false, ...f });
const banner = DOMAINS.filter((d) => d.clause === 'PUR-BANNER-2' || d.clause === 'ERR-PROBLEM-5');

test('cells count for a clause only from checks citing it that ran, and only within the axis fixed coordinates', () => {
  const rows = domainCoverage(
    [
      // The identity read as an invited agent: judged.
      {
        id: 'a',
        clauses: ['PUR-BANNER-2'],
        status: 'passed',
        cells: [point({ operation: 'getIdentity', caller: 'invited-agent', status: '200' })],
      },
      // An assistant, but on another operation: outside `where` (operation getIdentity).
      {
        id: 'b',
        clauses: ['PUR-BANNER-2'],
        status: 'failed',
        cells: [point({ operation: 'getCart', caller: 'assistant', status: '200' })],
      },
      // An assistant on the identity read, but the check was skipped: nothing judged.
      { id: 'c', clauses: ['PUR-BANNER-2'], status: 'skipped', cells: [point({ operation: 'getIdentity', caller: 'assistant' })] },
      // Another clause's check: nothing for PUR-BANNER-2; its 401 and 403 count for ERR-PROBLEM-5.
      {
        id: 'd',
        clauses: ['ERR-PROBLEM-5'],
        status: 'passed',
        cells: [point({ operation: 'getIdentity', caller: 'assistant', status: '401' }), point({ group: 'unmatched', status: '404' })],
      },
    ],
    banner,
  );
  const b = rows.find((r) => r.clause === 'PUR-BANNER-2')!;
  assert.deepEqual(b.checks, ['a', 'b']);
  assert.deepEqual(b.axes[0]!.judged, ['invited-agent']);
  assert.deepEqual(b.axes[0]!.untried, ['assistant']);
  const e = rows.find((r) => r.clause === 'ERR-PROBLEM-5')!;
  assert.deepEqual(e.axes[0]!.judged, ['401', '404']);
  assert.ok(e.axes[0]!.untried.includes('403'));
  assert.deepEqual(e.axes[1]!.judged, ['operations', 'unmatched']);
  assert.deepEqual(
    untriedMust(rows).map((r) => r.clause),
    ['PUR-BANNER-2', 'ERR-PROBLEM-5'],
  );
  assert.match(formatCoverage(rows), /caller \(operation getIdentity\): judged 1\/2 \[invited-agent\]; never tried: assistant/);
});

test('a clause none of whose checks ran is not listed as judged on part of its domain', () => {
  const rows = domainCoverage([{ id: 'a', clauses: ['PUR-BANNER-2'], status: 'skipped' }], banner);
  assert.deepEqual(untriedMust(rows), []);
  assert.match(formatCoverage(rows), /no check ran/);
});
