// Expected failures (`run --expected-failures FILE`) and the comparison of two runs (`report compare`). Pure: reads
// conformance-report.json documents, never a server. A baseline lets a deployment adopt the suite before it passes every
// check, without letting anything slip: a listed failure does not fail the run, but a failure not listed does, a listed
// check or clause that passes does (the entry is stale and would hide a regression), and so does an expired entry.
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { CLAUSES_BY_ID } from '../../../contract/clauses/index.js';
import type { CheckOutcome, ClauseRow } from './verdicts.js';

const isoDate = z.iso.date('an ISO date, YYYY-MM-DD');
const entrySchema = z
  .strictObject({
    check: z.string().min(1).optional(),
    clause: z
      .string()
      .regex(/^[A-Z]+(-[A-Z0-9]+)*-\d+$/, 'a clause id like AUTH-GUEST-3')
      .optional(),
    reason: z.string().min(1),
    expires: isoDate,
  })
  .refine((e) => (e.check === undefined) !== (e.clause === undefined), { message: 'names either a check or a clause', path: ['check'] });
export const baselineSchema = z.strictObject({
  $schema: z.string().optional(),
  expectedFailures: z.array(entrySchema),
});
export type Baseline = z.infer<typeof baselineSchema>;

/**
 * The baseline file's JSON Schema, as fixtures/expected-failures.schema.json publishes it for editors and other tools: the
 * zod schema above, plus the one rule JSON Schema cannot take from it (an entry names a check or a clause, not both).
 */
export function baselineJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(baselineSchema, { target: 'draft-2020-12', io: 'input' }) as Record<string, any>;
  schema.properties.expectedFailures.items.oneOf = [{ required: ['check'] }, { required: ['clause'] }];
  return { ...schema, title: 'shop-conformance expected failures (run --expected-failures)' };
}
export type BaselineEntry = z.infer<typeof entrySchema>;

/** The parts of conformance-report.json the baseline and the comparison read. */
export interface RunReport {
  target: string | null;
  level: string;
  checks: CheckOutcome[];
  clauses: ClauseRow[];
  /** The run's gated status (`passed`, `passed-with-expected-failures`, `failed`), where the report states it. */
  status?: string;
  /** The baseline's verdict on the run, where it ran with --expected-failures. */
  baseline?: (BaselineVerdict & { file: string }) | null;
}

export class BaselineError extends Error {
  override name = 'BaselineError';
}

/** Reads and validates a baseline; the error names the file and the failing field. */
export function readBaseline(path: string): Baseline {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new BaselineError(`${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'not JSON'}`);
  }
  const parsed = baselineSchema.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new BaselineError(`${path}: ${i.path.join('.') || '(root)'}: ${i.message}`);
  }
  return parsed.data;
}

/**
 * An entry naming a check or a clause the suite does not have would never match and never go stale: it is refused, the
 * error naming the file and the entry. `checks`: every check id of the suite (its check list, not a run's selection).
 */
export function checkBaselineIds(baseline: Baseline, path: string, checks: ReadonlySet<string>): void {
  baseline.expectedFailures.forEach((e, i) => {
    if (e.clause !== undefined && !CLAUSES_BY_ID.has(e.clause))
      throw new BaselineError(`${path}: expectedFailures.${i}: clause ${e.clause} is not a clause of the catalogue`);
    if (e.check !== undefined && !checks.has(e.check))
      throw new BaselineError(`${path}: expectedFailures.${i}: check ${e.check} is not a check of the suite`);
  });
}

/** What the reason of a written baseline says until a person replaces it. */
export const REASON_PLACEHOLDER = 'TODO: why this failure is accepted, and who fixes it';
/** How long an entry of a written baseline holds: a baseline is a plan to fix, not a place to forget. */
export const BASELINE_DAYS = 90;

/**
 * A baseline listing a run's failed checks, one entry each: the reason a placeholder followed by the check's first
 * failure, the expiry `days` after `today`.
 */
export function baselineFrom(report: RunReport, today: string, days = BASELINE_DAYS): Baseline {
  const expires = new Date(Date.parse(today) + days * 86_400_000).toISOString().slice(0, 10);
  const failed = report.checks.filter((c) => c.status === 'failed').sort((a, b) => a.id.localeCompare(b.id));
  return {
    expectedFailures: failed.map((c) => ({
      check: c.id,
      reason: c.reason ? `${REASON_PLACEHOLDER} (failed with: ${c.reason.slice(0, 200)})` : REASON_PLACEHOLDER,
      expires,
    })),
  };
}

/** Writes a baseline, refusing to replace an existing file unless `force`. */
export function writeBaseline(path: string, baseline: Baseline, force: boolean): void {
  if (!force && existsSync(path)) throw new BaselineError(`${path}: exists (add --force to replace it)`);
  writeFileSync(path, JSON.stringify(baseline, null, 2) + '\n');
}

/** A report file, or the conformance-report.json of a run's output directory. */
export function readRunReport(path: string): RunReport {
  const file = statSync(path, { throwIfNoEntry: false })?.isDirectory() ? join(path, 'conformance-report.json') : path;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new BaselineError(`${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : 'not JSON'}`);
  }
  const r = raw as Partial<RunReport>;
  if (!Array.isArray(r.checks) || !Array.isArray(r.clauses)) throw new BaselineError(`${file}: not a conformance report (checks, clauses)`);
  return {
    target: r.target ?? null,
    level: r.level ?? 'spec',
    checks: r.checks,
    clauses: r.clauses,
    ...(typeof r.status === 'string' ? { status: r.status } : {}),
    ...(r.baseline ? { baseline: r.baseline } : {}),
  };
}

const nameOf = (e: BaselineEntry) => (e.check !== undefined ? `check ${e.check}` : `clause ${e.clause}`);

export interface BaselineVerdict {
  /** Failed checks every failure of which the baseline lists. */
  expected: { check: string; by: string[] }[];
  /** Failed checks with a failure the baseline does not list: they fail the run. */
  unexpected: string[];
  /** Listed entries whose check or clause passed: stale, they fail the run. */
  stale: string[];
  /** Entries past their date: they fail the run. */
  expired: string[];
  /** Listed entries that this run did not judge (not selected, skipped): reported, not failing. */
  unjudged: string[];
  ok: boolean;
}

/** Judges a run against a baseline; `today` is an ISO date (the run's day). */
export function applyBaseline(report: RunReport, baseline: Baseline, today: string): BaselineVerdict {
  const entries = baseline.expectedFailures;
  const byCheck = new Map(entries.filter((e) => e.check !== undefined).map((e) => [e.check!, e]));
  const byClause = new Map(entries.filter((e) => e.clause !== undefined).map((e) => [e.clause!, e]));
  const used = new Set<BaselineEntry>();
  const expected: BaselineVerdict['expected'] = [];
  const unexpected: string[] = [];
  for (const c of report.checks.filter((o) => o.status === 'failed')) {
    const own = byCheck.get(c.id);
    if (own) {
      used.add(own);
      expected.push({ check: c.id, by: [nameOf(own)] });
      continue;
    }
    // A check failing on clauses that are all listed is expected; one unlisted failed clause makes it new.
    const failed = c.failedClauses?.length ? c.failedClauses : c.clauses;
    const listed = failed.map((id) => byClause.get(id));
    if (failed.length > 0 && listed.every((e) => e !== undefined)) {
      for (const e of listed) used.add(e!);
      expected.push({ check: c.id, by: [...new Set(listed.map((e) => nameOf(e!)))] });
    } else unexpected.push(c.id);
  }
  const stale: string[] = [];
  const unjudged: string[] = [];
  for (const e of entries) {
    if (used.has(e)) continue;
    const outcome =
      e.check !== undefined
        ? report.checks.filter((c) => c.id === e.check).map((c) => c.status)
        : report.clauses.filter((r) => r.id === e.clause).map((r) => r.verdict);
    if (outcome.some((s) => s === 'passed' || s === 'warning')) stale.push(`${nameOf(e)} passed: remove it from the baseline`);
    else unjudged.push(`${nameOf(e)}: not judged by this run`);
  }
  const expired = entries.filter((e) => e.expires < today).map((e) => `${nameOf(e)} expired on ${e.expires} (${e.reason})`);
  return { expected, unexpected, stale, expired, unjudged, ok: unexpected.length === 0 && stale.length === 0 && expired.length === 0 };
}

/**
 * The run's status once the baseline has judged it (the report's top-level `status`): `passed` when nothing failed,
 * `passed-with-expected-failures` when every failure is listed and no entry is stale or expired, `failed` otherwise.
 */
export function gatedStatus(report: RunReport, v: BaselineVerdict): 'passed' | 'passed-with-expected-failures' | 'failed' {
  if (!v.ok) return 'failed';
  return report.checks.some((c) => c.status === 'failed') ? 'passed-with-expected-failures' : 'passed';
}

export function formatBaselineVerdict(v: BaselineVerdict, file: string): string {
  const lines = [
    `baseline ${file}: ${v.expected.length} expected failure(s), ${v.unexpected.length} new, ${v.stale.length} stale, ${v.expired.length} expired`,
    ...v.unexpected.map((id) => `  new failure:  ${id}`),
    ...v.stale.map((s) => `  stale entry:  ${s}`),
    ...v.expired.map((s) => `  expired:      ${s}`),
    ...v.unjudged.map((s) => `  not judged:   ${s}`),
  ];
  return lines.join('\n') + '\n';
}

export interface Comparison {
  newFailures: string[];
  fixed: string[];
  /** Clauses whose verdict changed, `ID: old -> new`. */
  changed: string[];
}

/** What changed from one run to another (two deployments, or before and after a change). */
export function compareRuns(before: RunReport, after: RunReport): Comparison {
  const status = (r: RunReport) => new Map(r.checks.map((c) => [c.id, c.status]));
  const was = status(before);
  const now = status(after);
  const newFailures = [...now].filter(([id, s]) => s === 'failed' && was.get(id) !== 'failed').map(([id]) => id);
  const fixed = [...now].filter(([id, s]) => s === 'passed' && was.get(id) === 'failed').map(([id]) => id);
  const verdicts = new Map(before.clauses.map((r) => [r.id, r.verdict]));
  const changed = after.clauses
    .filter((r) => verdicts.has(r.id) && verdicts.get(r.id) !== r.verdict)
    .map((r) => `${r.id}: ${verdicts.get(r.id)} -> ${r.verdict}`);
  return { newFailures: newFailures.sort(), fixed: fixed.sort(), changed };
}

export function formatComparison(c: Comparison, before: string, after: string): string {
  return (
    [
      `compare ${before} -> ${after}: ${c.newFailures.length} new failure(s), ${c.fixed.length} fixed, ${c.changed.length} clause verdict(s) changed`,
      ...c.newFailures.map((id) => `  new failure:  ${id}`),
      ...c.fixed.map((id) => `  fixed:        ${id}`),
      ...c.changed.map((s) => `  clause:       ${s}`),
    ].join('\n') + '\n'
  );
}
