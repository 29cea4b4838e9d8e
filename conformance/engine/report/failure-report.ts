// The end of a failing run's console: its failed checks grouped by the clause they broke, each group with one example
// (the failure and the exchange it was judged on), how many other checks failed on the clause, and the command that
// reruns the example. Built from the checks' records (check-record.ts) and their transcript files; bounded, so that a
// deployment breaking one header everywhere gives a page, not a log. Pure but for reading the transcript files.
import { existsSync, readFileSync } from 'node:fs';
import { CLAUSES_BY_ID } from '../../../contract/clauses/index.js';
import type { CheckRecord, FailureRecord } from './check-record.js';
import { exchangeOf } from '../transport/transcript.js';

export interface FailedCheck {
  id: string;
  record: CheckRecord | undefined;
  /** The first line of its failure (the report's `reason`). */
  reason: string | undefined;
  /** Its transcript file, when the check wrote one. */
  transcript: string | undefined;
}

export interface FailureReportOptions {
  /** The command that reruns one check (`run --repro`), with the run's target and profile. */
  repro: (id: string) => string;
  width: number;
  /** Groups shown with their example; the others get a line each. */
  detailed?: number;
  /** Lines of the example exchange at most. */
  exchangeLines?: number;
}

interface Group {
  clause: string;
  checks: FailedCheck[];
}

const cut = (line: string, width: number) => (line.length > width ? line.slice(0, width - 1) + '…' : line);

/** The failure of the check's record that names the clause (else its first), and the clauses the check broke. */
const failureOn = (c: FailedCheck, clause: string): FailureRecord | undefined =>
  c.record?.failures.find((f) => f.clauses.includes(clause)) ?? c.record?.failures[0];
const blamedOf = (c: FailedCheck): string[] => (c.record?.blamed.length ? c.record.blamed : ['(no clause named)']);

/** Failed checks by the clauses they broke, most-broken clause first; a check breaking two clauses is in both groups. */
export function groupByClause(failed: readonly FailedCheck[]): Group[] {
  const groups = new Map<string, FailedCheck[]>();
  for (const c of [...failed].sort((a, b) => a.id.localeCompare(b.id)))
    for (const clause of blamedOf(c)) groups.set(clause, [...(groups.get(clause) ?? []), c]);
  return [...groups]
    .map(([clause, checks]) => ({ clause, checks }))
    .sort((a, b) => b.checks.length - a.checks.length || a.clause.localeCompare(b.clause));
}

/** The exchange a failure was judged on, from the check's transcript file (undefined when the file is gone). */
function exampleExchange(c: FailedCheck, f: FailureRecord | undefined): { text: string; n: number } | undefined {
  if (!c.transcript || f?.exchange === undefined) return undefined;
  try {
    const text = exchangeOf(readFileSync(c.transcript, 'utf8'), f.exchange);
    return text === undefined ? undefined : { text, n: f.exchange };
  } catch {
    return undefined;
  }
}

export function formatFailureReport(failed: readonly FailedCheck[], o: FailureReportOptions): string {
  if (failed.length === 0) return '';
  const detailed = o.detailed ?? 12;
  const exchangeLines = o.exchangeLines ?? 16;
  const w = o.width;
  const groups = groupByClause(failed);
  const out = [
    '',
    `Failures by clause (${failed.length} failed check${failed.length === 1 ? '' : 's'} on ${groups.length} clause${groups.length === 1 ? '' : 's'}):`,
  ];
  // Each group's example is a check no earlier group showed, where there is one.
  const shown = new Set<string>();
  for (const [i, g] of groups.entries()) {
    const clause = CLAUSES_BY_ID.get(g.clause);
    const example = g.checks.find((c) => !shown.has(c.id)) ?? g.checks[0]!;
    shown.add(example.id);
    const f = failureOn(example, g.clause);
    const message = (f?.message ?? example.reason ?? '(no message)').split('\n');
    const others = g.checks.length - 1;
    const head = `FAIL ${g.clause}${clause ? ` ${clause.severity}: ${clause.text}` : ''}`;
    if (i >= detailed) {
      out.push(cut(`  ${g.clause}: ${g.checks.length} check(s), e.g. [${example.id}] ${message[0]}`, w));
      continue;
    }
    out.push('', cut(head, w), cut(`  e.g. [${example.id}] ${message[0]}`, w));
    for (const line of message.slice(1, 4)) out.push(cut(`    ${line}`, w));
    if (message.length > 4) out.push(`    … ${message.length - 4} more line(s)`);
    const x = exampleExchange(example, f);
    if (x) {
      const lines = x.text.split('\n');
      out.push(`    judged on exchange ${x.n} of ${example.transcript}:`);
      for (const line of lines.slice(0, exchangeLines)) out.push(cut(`      ${line}`, w));
      if (lines.length > exchangeLines) out.push(`      … ${lines.length - exchangeLines} more line(s)`);
      // A merged run's transcripts stay in the shards' blobs (and the HTML report): no path to a file that is gone.
    } else if (example.transcript && existsSync(example.transcript)) out.push(`    transcript: ${example.transcript}`);
    if (others > 0) {
      const names = g.checks
        .filter((c) => c !== example)
        .slice(0, 5)
        .map((c) => c.id);
      out.push(cut(`  and ${others} other check${others === 1 ? '' : 's'}: ${names.join(', ')}${others > names.length ? ', …' : ''}`, w));
    }
    out.push(cut(`  rerun it: ${o.repro(example.id)}`, w));
    if (i === detailed - 1 && groups.length > detailed) out.push('', `${groups.length - detailed} more clause(s), one line each:`);
  }
  out.push('', 'Every failure, with its transcript: conformance-report.json, the HTML report and clause-matrix.html.');
  return out.join('\n') + '\n';
}
