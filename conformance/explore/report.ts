// What `explore` leaves in --output: explore-report.json (the verdict, the runs, the shrunk finding), junit.xml (one test
// case per oracle, a finding as its <failure>), explore.html (the finding as a page: clauses, steps, answers), and per
// finding a replay file (seed + plan, for `explore --replay`) beside a shell script of curl commands. Pure but for the
// writes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { CLAUSES_BY_ID } from '../../contract/clauses/index.js';
import type { Finding } from './exchange.js';
import { describePlan, EXPLORED, CALLERS, MUTATIONS, type PlanStep } from './plan.js';
import type { ExploreResult, Sequence } from './runner.js';

export const REPLAY_FORMAT = 'shop-conformance explore replay 1';

/** A replay file: the seed and the plan a replay resolves again; the steps and findings as they were, for a reader. */
export const replaySchema = z
  .object({
    format: z.literal(REPLAY_FORMAT),
    seed: z.number().int(),
    /** A finding of the concurrent interleavings: the replay runs them again from the seed (plans is then empty). */
    interleavings: z.literal(true).optional(),
    plans: z.array(
      z.object({
        op: z.enum(Object.keys(EXPLORED) as [keyof typeof EXPLORED, ...(keyof typeof EXPLORED)[]]),
        caller: z.enum(CALLERS),
        variant: z.union([z.literal(0), z.literal(1)]),
        quantity: z.number().int(),
        mutation: z.enum(MUTATIONS).optional(),
        idempotencyKey: z.string().optional(),
        repeat: z.boolean().optional(),
      }),
    ),
    steps: z.array(z.unknown()).optional(),
    findings: z.array(z.unknown()).optional(),
  })
  .refine((r) => r.interleavings === true || r.plans.length > 0, { message: 'at least one plan step', path: ['plans'] });
export type ReplayFile = z.infer<typeof replaySchema>;

export function replayFileOf(seq: Sequence): ReplayFile & { steps: unknown[]; answers: unknown[]; findings: Finding[] } {
  return {
    format: REPLAY_FORMAT,
    seed: seq.seed,
    ...(seq.interleavings ? { interleavings: true as const } : {}),
    plans: seq.plans as PlanStep[],
    steps: seq.steps,
    answers: seq.answers,
    findings: seq.findings,
  };
}

/** How a finding reads on the console and in the reports. */
export function formatFinding(seq: Sequence): string[] {
  const lines = seq.findings.map((f) => `[${f.clauses.join(', ')}] ${f.oracle}: ${f.message} (at step ${f.index + 1})`);
  for (const f of seq.findings)
    for (const c of f.clauses) {
      const text = CLAUSES_BY_ID.get(c)?.text;
      if (text) lines.push(`  ${c}: ${text}`);
    }
  lines.push(`shortest sequence (${seq.steps.length} requests):`);
  seq.steps.forEach((s, i) =>
    lines.push(`  ${i + 1}. ${s.method} ${s.path} as ${s.caller}${s.mutation ? ` [${s.mutation}]` : ''} -> ${seq.answers[i]?.status}`),
  );
  lines.push(`plan: ${seq.plans.map(describePlan).join('; ')}`);
  return [...new Set(lines)];
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);

export function junitOf(r: ExploreResult, seconds: number): string {
  const findings = r.failure?.findings ?? [];
  const oracles = ['model', 'differential', 'schema', 'concurrency'] as const;
  const cases = oracles.map((o) => {
    const mine = findings.filter((f) => f.oracle === o);
    const failure = mine.length
      ? `\n    <failure type="ConformanceFailure" message="${esc(mine.map((f) => `[${f.clauses.join(', ')}] ${f.message}`).join('; '))}">${esc(formatFinding(r.failure!).join('\n'))}</failure>\n  `
      : '';
    return `  <testcase classname="explore" name="oracle ${o}" time="${seconds.toFixed(3)}">${failure}</testcase>`;
  });
  const failures = oracles.filter((o) => findings.some((f) => f.oracle === o)).length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="${oracles.length}" failures="${failures}" errors="0" time="${seconds.toFixed(3)}">\n<testsuite name="shop-conformance explore" tests="${oracles.length}" failures="${failures}" errors="0" skipped="0" time="${seconds.toFixed(3)}">\n${cases.join('\n')}\n</testsuite>\n</testsuites>\n`;
}

export function htmlOf(r: ExploreResult, o: { target: string; seed: number; replayFile?: string; scriptFile?: string }): string {
  const seq = r.failure;
  const verdict = seq
    ? `<p class="fail">Finding: ${seq.findings.map((f) => esc(f.message)).join('; ')}</p>`
    : '<p class="pass">No finding.</p>';
  const clauses = seq
    ? `<h2>Clauses</h2><ul>${[...new Set(seq.findings.flatMap((f) => f.clauses))].map((c) => `<li><b>${esc(c)}</b> ${esc(CLAUSES_BY_ID.get(c)?.text ?? '')}</li>`).join('')}</ul>`
    : '';
  const steps = seq
    ? `<h2>Shortest sequence (${seq.steps.length} requests, from ${seq.original})</h2><table><tr><th>#</th><th>request</th><th>as</th><th>mutation</th><th>status</th><th>answer</th></tr>${seq.steps
        .map(
          (s, i) =>
            `<tr${seq.findings.some((f) => f.index === i) ? ' class="fail"' : ''}><td>${i + 1}</td><td>${esc(`${s.method} ${s.path}`)}</td><td>${esc(s.caller)}</td><td>${esc(s.mutation ?? '')}</td><td>${seq.answers[i]?.status ?? ''}</td><td><code>${esc((seq.answers[i]?.text ?? '').slice(0, 300))}</code></td></tr>`,
        )
        .join('')}</table>`
    : '';
  const files = [
    o.replayFile && `replay: <code>shop-conformance explore --replay ${esc(o.replayFile)}</code>`,
    o.scriptFile && `curl script: <code>${esc(o.scriptFile)}</code>`,
  ]
    .filter(Boolean)
    .map((l) => `<p>${l}</p>`)
    .join('');
  return `<!doctype html><html><head><meta charset="utf-8"><title>shop-conformance explore</title><style>
body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
.fail{color:#a00}.pass{color:#070}tr.fail td{background:#fee}code{font-size:12px;white-space:pre-wrap}</style></head><body>
<h1>shop-conformance explore</h1><p>target ${esc(o.target)}, seed ${o.seed}: ${r.runs} sequences, ${r.steps} requests in ${(r.ms / 1000).toFixed(1)} s</p>
${verdict}${clauses}${steps}${files}</body></html>\n`;
}

/** Writes every report; returns the files written (replay and script only with a finding). */
export function writeReports(
  output: string,
  r: ExploreResult,
  o: { target: string; seed: number; budgetMs: number; script?: (seq: Sequence) => string | undefined },
): { report: string; junit: string; html: string; replay?: string; script?: string } {
  mkdirSync(output, { recursive: true });
  const files: ReturnType<typeof writeReports> = {
    report: join(output, 'explore-report.json'),
    junit: join(output, 'junit.xml'),
    html: join(output, 'explore.html'),
  };
  if (r.failure) {
    files.replay = join(output, 'finding-1.replay.json');
    writeFileSync(files.replay, JSON.stringify(replayFileOf(r.failure), null, 2) + '\n');
    const script = o.script?.(r.failure);
    if (script !== undefined) {
      files.script = join(output, 'finding-1.sh');
      writeFileSync(files.script, script, { mode: 0o755 });
    }
  }
  const report = {
    target: o.target,
    seed: o.seed,
    budgetMs: o.budgetMs,
    runs: r.runs,
    requests: r.steps,
    ms: r.ms,
    verdict: r.failure ? 'finding' : 'no finding',
    findings: r.failure ? r.failure.findings.map((f) => ({ ...f, replay: files.replay, script: files.script })) : [],
    sequence: r.failure
      ? { original: r.failure.original, plans: r.failure.plans, steps: r.failure.steps, statuses: r.failure.answers.map((a) => a.status) }
      : null,
  };
  writeFileSync(files.report, JSON.stringify(report, null, 2) + '\n');
  writeFileSync(files.junit, junitOf(r, r.ms / 1000));
  writeFileSync(files.html, htmlOf(r, { target: o.target, seed: o.seed, replayFile: files.replay, scriptFile: files.script }));
  return files;
}
