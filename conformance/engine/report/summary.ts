// One run's verdict for a CI page (`report summary`): a Markdown summary (a GitHub job summary, a merge request comment)
// and GitHub Actions annotations, one per failure, each naming its clause. Pure: reads a report already parsed.
import type { RunReport } from './baseline.js';
import type { CheckOutcome } from './verdicts.js';

type SummaryReport = RunReport;

/** What happened to one failed or warning check, as the summary tells it. */
export interface SummaryLine {
  check: string;
  clauses: string[];
  /** `failed`: fails the run; `expected`: the baseline lists it; `warning`: a SHOULD not met (fails only with --strict). */
  kind: 'failed' | 'expected' | 'warning';
  /** The first line of its failure, at most 300 characters. */
  reason: string;
  deployment?: string;
}

const firstLine = (s: string | undefined) => (s ?? '').split('\n')[0]!.slice(0, 300);

/** The run's failed and warning checks, in the report's order, each with its kind. */
export function summaryLines(report: SummaryReport): SummaryLine[] {
  const expected = new Set(report.baseline?.expected.map((e) => e.check) ?? []);
  const kindOf = (c: CheckOutcome): SummaryLine['kind'] | undefined =>
    c.status === 'warning' ? 'warning' : c.status !== 'failed' ? undefined : expected.has(c.id) ? 'expected' : 'failed';
  return report.checks.flatMap((c) => {
    const kind = kindOf(c);
    if (kind === undefined) return [];
    const clauses = c.failedClauses?.length ? c.failedClauses : c.clauses;
    return [{ check: c.id, clauses, kind, reason: firstLine(c.reason), ...(c.deployment ? { deployment: c.deployment } : {}) }];
  });
}

/** The status a run's report states, or the one its checks imply when it states none. */
function statusOf(report: SummaryReport): string {
  return report.status ?? (report.checks.some((c) => c.status === 'failed') ? 'failed' : 'passed');
}

const cell = (s: string) => s.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** A Markdown summary: the status, the counts, the failures by check with their clauses, and what the baseline found. */
export function markdownSummary(report: SummaryReport): string {
  const status = statusOf(report);
  const mark = status === 'failed' ? '❌' : '✅';
  const count = (s: string) => report.checks.filter((c) => c.status === s).length;
  const clauses = (v: string) => report.clauses.filter((c) => c.verdict === v).length;
  const out = [
    `## ${mark} shop-conformance: ${status}`,
    '',
    `Target: ${report.target ?? 'the embedded reference'} · level: ${report.level}`,
    '',
    `Checks: ${count('passed')} passed, ${count('failed')} failed, ${count('warning')} warnings, ${count('skipped')} skipped.` +
      ` Clauses: ${clauses('passed')} passed, ${clauses('failed')} failed, ${clauses('warning')} warnings.`,
  ];
  const lines = summaryLines(report);
  const section = (title: string, kind: SummaryLine['kind']) => {
    const rows = lines.filter((l) => l.kind === kind);
    if (rows.length === 0) return;
    out.push('', `### ${title} (${rows.length})`, '', '| check | clauses | first failure |', '|---|---|---|');
    for (const l of rows)
      out.push(`| \`${l.check}\`${l.deployment ? ` (${l.deployment})` : ''} | ${l.clauses.join(', ')} | ${cell(l.reason)} |`);
  };
  section('Failures', 'failed');
  section('Expected failures (listed in the baseline)', 'expected');
  section('Warnings', 'warning');
  const b = report.baseline;
  if (b) {
    const problems = [...b.stale.map((s) => `stale: ${s}`), ...b.expired.map((s) => `expired: ${s}`)];
    if (problems.length > 0) out.push('', `### Baseline ${b.file}`, '', ...problems.map((p) => `- ${cell(p)}`));
  }
  return out.join('\n') + '\n';
}

/** A workflow command's message or property, escaped as GitHub Actions reads them. */
const escapeData = (s: string) => s.replaceAll('%', '%25').replaceAll('\r', '%0D').replaceAll('\n', '%0A');
const escapeProperty = (s: string) => escapeData(s).replaceAll(':', '%3A').replaceAll(',', '%2C');

/**
 * GitHub Actions annotations: `::error` per check that fails the run and per stale or expired baseline entry, `::warning`
 * per SHOULD not met, `::notice` per failure the baseline lists. Each title names the clauses, the message the check and
 * its first failure.
 */
export function githubAnnotations(report: SummaryReport): string {
  const level = { failed: 'error', warning: 'warning', expected: 'notice' } as const;
  const out = summaryLines(report).map((l) => {
    const title = escapeProperty(`${l.clauses.join(' ')}${l.kind === 'expected' ? ' (expected failure)' : ''}`);
    return `::${level[l.kind]} title=${title}::${escapeData(`[${l.check}] ${l.reason}`)}`;
  });
  const b = report.baseline;
  for (const s of [...(b?.stale ?? []), ...(b?.expired ?? [])])
    out.push(`::error title=${escapeProperty(`baseline ${b!.file}`)}::${escapeData(s)}`);
  return out.length === 0 ? '' : out.join('\n') + '\n';
}
