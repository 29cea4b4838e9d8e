// What `explore` leaves in --output: explore-report.json (the verdict, the runs, every shrunk finding with its files),
// junit.xml (one test case per finding under its oracle, the finding as its <failure>), explore.html (a section per
// finding: clauses, steps, answers), and per finding N a replay file (seed + plan, or the concurrency scenario, for
// `explore --replay`) beside a shell script of curl commands. Pure but for the writes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { CLAUSES_BY_ID } from '../../contract/clauses/index.js';
import type { Finding, Step } from './exchange.js';
import { describePlan, CALLERS, MUTATIONS, type PlanStep } from './plan.js';
import { COMMAND_IDS } from './commands.js';
import type { BodyShape } from './bodies.js';
import type { TokenShape } from './tokens.js';
import type { ProofShape } from './proofs.js';
import type { SessionShape } from './sessions.js';
import type { ContextShape } from './contexts.js';
import { coverageHtml } from './coverage-html.js';
import type { ExploreResult, Sequence } from './runner.js';

export const REPLAY_FORMAT = 'shop-conformance explore replay 1';

/** A replay file: the seed and the plan a replay resolves again; the steps and findings as they were, for a reader. */
export const replaySchema = z
  .object({
    format: z.literal(REPLAY_FORMAT),
    seed: z.number().int(),
    /** A finding of the concurrent interleavings: the replay runs them again from the seed (plans is then empty). */
    interleavings: z.literal(true).optional(),
    /** Of such a finding: the one scenario to rerun, its size and the release order of its concurrent steps. */
    concurrency: z
      .object({
        scenario: z.enum(['adds', 'checkouts', 'proof', 'budget']),
        clients: z.number().int().min(2).max(64).optional(),
        extra: z.number().int().min(1).max(1000).optional(),
        schedule: z.array(z.number().int().min(0)),
      })
      .optional(),
    plans: z.array(
      z.object({
        op: z.enum(COMMAND_IDS),
        caller: z.enum(CALLERS),
        variant: z.union([z.literal(0), z.literal(1)]),
        quantity: z.number().int(),
        mutation: z.enum(MUTATIONS).optional(),
        idempotencyKey: z.string().optional(),
        repeat: z.boolean().optional(),
        rekey: z.boolean().optional(),
        reuse: z.boolean().optional(),
        query: z.boolean().optional(),
        // A generated body (bodies.ts), as the arbitrary made it: read back as it was written.
        // A shaped token (tokens.ts): each varied claim, header member, signing or form by its variation's name.
        token: z.custom<TokenShape>((v) => typeof v === 'object' && v !== null && !Array.isArray(v)).optional(),
        // A shaped DPoP proof (proofs.ts), likewise.
        proof: z.custom<ProofShape>((v) => typeof v === 'object' && v !== null && !Array.isArray(v)).optional(),
        // A shaped guest session (sessions.ts) or invited-agent context (contexts.ts), likewise.
        session: z.custom<SessionShape>((v) => typeof v === 'object' && v !== null && !Array.isArray(v)).optional(),
        context: z.custom<ContextShape>((v) => typeof v === 'object' && v !== null && !Array.isArray(v)).optional(),
        bodyShape: z
          .custom<BodyShape>((v) => typeof v === 'object' && v !== null && Array.isArray((v as { steps?: unknown }).steps))
          .optional(),
      }),
    ),
    steps: z.array(z.unknown()).optional(),
    findings: z.array(z.unknown()).optional(),
    /** The profile the finding was found with (absolute path), when not the fixture profile: --replay uses it. */
    profile: z.string().min(1).optional(),
  })
  .refine((r) => r.interleavings === true || r.plans.length > 0, { message: 'at least one plan step', path: ['plans'] });
export type ReplayFile = z.infer<typeof replaySchema>;

export function replayFileOf(seq: Sequence, profile?: string): ReplayFile & { steps: unknown[]; answers: unknown[]; findings: Finding[] } {
  return {
    format: REPLAY_FORMAT,
    ...(profile !== undefined ? { profile } : {}),
    seed: seq.seed,
    ...(seq.interleavings ? { interleavings: true as const } : {}),
    ...(seq.concurrency ? { concurrency: seq.concurrency } : {}),
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
  // Steps sent at once that are alike (a budget spent: one request many times) read as one line.
  const groupOf = new Map((seq.parallel ?? []).flatMap((group) => group.map((i) => [i, group] as const)));
  const line = (s: Step, i: number) => {
    const status = seq.answers[i]?.status;
    return `${s.method} ${s.path} as ${s.caller}${s.mutation ? ` [${s.mutation}]` : ''}${status ? ` -> ${status}` : ''}`;
  };
  lines.push(`shortest sequence (${seq.steps.length} requests${seq.original !== undefined ? `, from ${seq.original}` : ''}):`);
  seq.steps.forEach((s, i) => {
    const group = groupOf.get(i);
    if (!group) return void lines.push(`  ${i + 1}. ${line(s, i)}`);
    if (group[0] !== i) return;
    lines.push(`  ${group[0]! + 1}-${group.at(-1)! + 1}: ${group.length} at once, in the order the scheduler released them:`);
    const alike = new Map<string, number>();
    for (const g of group) alike.set(line(seq.steps[g]!, g), (alike.get(line(seq.steps[g]!, g)) ?? 0) + 1);
    for (const [text, count] of alike) lines.push(`     ${count > 1 ? `${count} × ` : ''}${text}`);
  });
  if (seq.concurrency)
    lines.push(
      `scenario: ${seq.concurrency.scenario}${seq.concurrency.clients ? `, ${seq.concurrency.clients} clients` : ''}${seq.concurrency.extra ? `, ${seq.concurrency.extra} past the budget` : ''}; released in the order ${seq.concurrency.schedule.slice(0, 12).join(' ')}${seq.concurrency.schedule.length > 12 ? ` … (${seq.concurrency.schedule.length} in all, in the replay file)` : ''}`,
    );
  else lines.push(`plan: ${seq.plans.map(describePlan).join('; ')}`);
  return [...new Set(lines)];
}

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
const ORACLES = ['model', 'differential', 'schema', 'concurrency'] as const;

/** One test case per finding, under its oracle (classname); an oracle without a finding is one passing case. */
export function junitOf(r: ExploreResult, seconds: number): string {
  const cases: string[] = [];
  let failures = 0;
  for (const o of ORACLES) {
    const mine = r.failures.flatMap((seq, n) => seq.findings.filter((f) => f.oracle === o).map((f) => ({ f, seq, n })));
    if (mine.length === 0) cases.push(`  <testcase classname="explore.${o}" name="oracle ${o}" time="${seconds.toFixed(3)}"></testcase>`);
    for (const { f, seq, n } of mine) {
      failures++;
      cases.push(
        `  <testcase classname="explore.${o}" name="finding ${n + 1} [${esc(f.clauses.join(', '))}]" time="${seconds.toFixed(3)}">\n    <failure type="ConformanceFailure" message="${esc(`[${f.clauses.join(', ')}] ${f.message}`)}">${esc(formatFinding(seq).join('\n'))}</failure>\n  </testcase>`,
      );
    }
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="${cases.length}" failures="${failures}" errors="0" time="${seconds.toFixed(3)}">\n<testsuite name="shop-conformance explore" tests="${cases.length}" failures="${failures}" errors="0" skipped="0" time="${seconds.toFixed(3)}">\n${cases.join('\n')}\n</testsuite>\n</testsuites>\n`;
}

export interface FindingFiles {
  replay: string;
  script?: string;
}

function sectionOf(seq: Sequence, n: number, files: FindingFiles | undefined): string {
  const clauses = `<ul>${[...new Set(seq.findings.flatMap((f) => f.clauses))].map((c) => `<li><b>${esc(c)}</b> ${esc(CLAUSES_BY_ID.get(c)?.text ?? '')}</li>`).join('')}</ul>`;
  const together = new Set((seq.parallel ?? []).flat());
  const steps = `<h3>Shortest sequence (${seq.steps.length} requests${seq.original !== undefined ? `, from ${seq.original}` : ''})</h3><table><tr><th>#</th><th>request</th><th>as</th><th>mutation</th><th>status</th><th>answer</th></tr>${seq.steps
    .map(
      (s, i) =>
        `<tr${seq.findings.some((f) => f.index === i) ? ' class="fail"' : ''}><td>${i + 1}${together.has(i) ? ' ∥' : ''}</td><td>${esc(`${s.method} ${s.path}`)}</td><td>${esc(s.caller)}</td><td>${esc(s.mutation ?? '')}</td><td>${seq.answers[i]?.status ?? ''}</td><td><code>${esc((seq.answers[i]?.text ?? '').slice(0, 300))}</code></td></tr>`,
    )
    .join('')}</table>${together.size ? '<p>∥ sent at once, in the order the scheduler released them.</p>' : ''}`;
  const links = files
    ? `<p>replay: <code>shop-conformance explore --replay ${esc(files.replay)}</code></p>${files.script ? `<p>curl script: <code>${esc(files.script)}</code></p>` : ''}`
    : '';
  return `<section id="finding-${n}"><h2 class="fail">Finding ${n}: ${seq.findings.map((f) => `${esc(f.oracle)}: ${esc(f.message)}`).join('; ')}</h2>${clauses}${steps}${links}</section>`;
}

export function htmlOf(r: ExploreResult, o: { target: string; seed: number; files?: (FindingFiles | undefined)[] }): string {
  const verdict = r.failures.length
    ? `<p class="fail">${r.failures.length} finding${r.failures.length > 1 ? 's' : ''}.</p>`
    : '<p class="pass">No finding.</p>';
  const sections = r.failures.map((seq, i) => sectionOf(seq, i + 1, o.files?.[i])).join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><title>shop-conformance explore</title><style>
body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;vertical-align:top}
.fail{color:#a00}.pass{color:#070}tr.fail td{background:#fee}code{font-size:12px;white-space:pre-wrap}section{margin-bottom:2em}</style></head><body>
<h1>shop-conformance explore</h1><p>target ${esc(o.target)}, seed ${o.seed}: ${r.runs} sequences, ${r.steps} requests in ${(r.ms / 1000).toFixed(1)} s</p>
${verdict}${sections}${r.coverage ? coverageHtml(r.coverage) : ''}</body></html>\n`;
}

/** Writes every report, and per finding N its finding-N.replay.json and finding-N.sh; returns the files written. */
export function writeReports(
  output: string,
  r: ExploreResult,
  o: {
    target: string;
    seed: number;
    budgetMs: number;
    script?: (seq: Sequence) => string | undefined;
    /** The profile's path, recorded in each replay file (absent: the fixture profile). */
    profile?: string;
  },
): { report: string; junit: string; html: string; findings: FindingFiles[] } {
  mkdirSync(output, { recursive: true });
  const findings = r.failures.map((seq, i): FindingFiles => {
    const replay = join(output, `finding-${i + 1}.replay.json`);
    writeFileSync(replay, JSON.stringify(replayFileOf(seq, o.profile), null, 2) + '\n');
    const text = o.script?.(seq);
    if (text === undefined) return { replay };
    const script = join(output, `finding-${i + 1}.sh`);
    writeFileSync(script, text, { mode: 0o755 });
    return { replay, script };
  });
  const files = {
    report: join(output, 'explore-report.json'),
    junit: join(output, 'junit.xml'),
    html: join(output, 'explore.html'),
    findings,
  };
  const report = {
    target: o.target,
    seed: o.seed,
    budgetMs: o.budgetMs,
    runs: r.runs,
    requests: r.steps,
    ms: r.ms,
    verdict: r.failures.length ? 'finding' : 'no finding',
    ...(r.coverage ? { coverage: r.coverage } : {}),
    findings: r.failures.flatMap((seq, i) => seq.findings.map((f) => ({ finding: i + 1, ...f, ...findings[i] }))),
    sequences: r.failures.map((seq, i) => ({
      finding: i + 1,
      ...findings[i],
      original: seq.original,
      ...(seq.concurrency ? { concurrency: seq.concurrency, parallel: seq.parallel } : { plans: seq.plans }),
      steps: seq.steps,
      statuses: seq.answers.map((a) => a.status),
    })),
  };
  writeFileSync(files.report, JSON.stringify(report, null, 2) + '\n');
  writeFileSync(files.junit, junitOf(r, r.ms / 1000));
  writeFileSync(files.html, htmlOf(r, { target: o.target, seed: o.seed, files: findings }));
  return files;
}
