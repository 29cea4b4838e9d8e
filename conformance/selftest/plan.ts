// The plan of a self-test run, written by the CLI and read by the Playwright configuration: which defect listens where,
// how defects are packed into projects, and which clauses the baseline judges.
//
// A "project" of the plan is a set of defects judged together: defects whose checks are disjoint share one, and each
// check reaches the proxy of the one defect whose clause it cites. Playwright runs them all as ONE project of its own:
// a worker can only run the tests of one Playwright project, so a Playwright project per plan project would stop and
// start workers all through the run (about a second of CPU each). Instead each check registers a copy of itself per
// plan project that judges it (`copiesOf`, copies.ts), named by an annotation that the `shop` fixture resolves to
// its target (`targetOf`) and the reporter to its plan project.
import { z } from 'zod';
import type { TargetVariant } from '../engine/runner/params.js';
import { currentPlan, firstIssue, variantSchema, type RunPlan } from '../engine/runner/plan.js';

const plannedDefectSchema = z.strictObject({
  id: z.string().min(1),
  clause: z.string().min(1),
  url: z.url(),
  /** A narrowed variant: only these checks of its clause (those that reach its cell), not every check citing it. */
  checks: z.array(z.string().min(1)).optional(),
});

export type PlannedDefect = z.infer<typeof plannedDefectSchema>;

/** The self-test's part of the run plan (engine/runner/plan.ts, `selfTest`), validated here, where it is owned. */
export const selfTestPlanSchema = z.strictObject({
  target: z.string().min(1),
  level: z.enum(['spec', 'reference']),
  /** Clauses whose checks run against the target itself: a check failing there kills nothing. */
  baseline: z.array(z.string().min(1)),
  /** Defects packed so that no check of a project cites the clauses of two of its defects. */
  projects: z.array(z.strictObject({ name: z.string().min(1), defects: z.array(plannedDefectSchema) })),
  /**
   * Projects judged on a variant deployment of the embedded run (cli/embedded-variants.ts): the checks that only such a
   * deployment can judge (`variant.checks`), against the variant itself (`baseline-variant-<name>`, no defect) or behind a
   * defect's proxy in front of its own instance of the variant (`variant.baseUrl` is then the proxy's).
   */
  variants: z.array(z.strictObject({ name: z.string().min(1), variant: variantSchema, defects: z.array(plannedDefectSchema) })).optional(),
  /** Set while the CLI lists the checks (one project of every clause, no proxy). */
  listing: z.array(z.string().min(1)).optional(),
  /** The kill ledger's directory (kill-ledger.ts): a defect's checks stop at its first kill. Unset: every check runs. */
  kills: z.string().min(1).optional(),
  /**
   * With a ledger, the run goes in two phases: the `quick` checks first, then the `long` ones (the checks flagged `long`,
   * long at any round trip: engine/runner/long-first.ts) for the defects still alive. Unset: every check at once.
   */
  phase: z.enum(['quick', 'long']).optional(),
});

export type Plan = z.infer<typeof selfTestPlanSchema>;

/** The self-test's plan in a run plan; throws one line naming the field when it is malformed, undefined when absent. */
export function selfTestPlanOf(run: Pick<RunPlan, 'selfTest'> | undefined): Plan | undefined {
  if (run?.selfTest === undefined) return undefined;
  const parsed = selfTestPlanSchema.safeParse(run.selfTest);
  if (!parsed.success) throw new Error(`run plan: selfTest.${firstIssue(parsed.error)}`);
  return parsed.data;
}

/** This process's self-test plan (the run plan's `selfTest`); throws outside `shop-conformance self-test`. */
export function readPlan(): Plan {
  const plan = selfTestPlanOf(currentPlan());
  if (!plan) throw new Error('the run plan has no selfTest: the self-test configuration is run by `shop-conformance self-test`');
  return plan;
}

/**
 * The plan that runs, for each of `rows` (defects whose every kill failed on the baseline too), the checks the first kill
 * left unrun: the same plan projects and variants, narrowed to those checks, without a ledger, and with the baseline of
 * their clauses (a baseline copy is not run once its check's defects are all dead, so it may never have run).
 */
export function makeupPlan(plan: Plan, rows: readonly { id: string; clause: string; afterKill: readonly string[] }[]): Plan {
  const left = new Map(rows.map((r) => [r.id, [...r.afterKill]]));
  const projects = plan.projects
    .map((p) => ({ name: p.name, defects: p.defects.filter((d) => left.has(d.id)).map((d) => ({ ...d, checks: left.get(d.id)! })) }))
    .filter((p) => p.defects.length > 0);
  const variants = (plan.variants ?? [])
    .filter((p) => p.defects[0] && left.has(p.defects[0].id))
    .map((p) => ({ ...p, variant: { ...p.variant, checks: left.get(p.defects[0]!.id)! } }));
  // A variant's baseline is its own deployment without defect.
  for (const p of (plan.variants ?? []).filter((x) => isBaseline(x.name))) {
    const checks = [...new Set(variants.filter((v) => v.variant.name === p.variant.name).flatMap((v) => v.variant.checks))];
    if (checks.length) variants.push({ ...p, variant: { ...p.variant, checks } });
  }
  const baseline = [...new Set(rows.map((r) => r.clause))];
  return { target: plan.target, level: plan.level, baseline, projects, ...(variants.length ? { variants } : {}) };
}

/** A project of the baseline (the target itself, or a variant deployment without defect). */
export const isBaseline = (project: string): boolean => project === 'baseline' || project.startsWith('baseline-');

/** The annotation naming the plan project of a check's copy (baseline, defects-N, or a variant's). */
export const SELFTEST_PROJECT = 'selftest-project';

/** The tag of a check's own test under the self-test: its copies run, it does not (the configuration greps it out). */
export const SELFTEST_SOURCE_TAG = '@selftest-source';

/** Whether a defect is judged by the check `id` citing `clauses`: every check of its clause, or those it lists. */
const judges = (d: PlannedDefect, id: string, clauses: readonly string[]) =>
  d.checks ? d.checks.includes(id) : clauses.includes(d.clause);

/** The plan projects that judge a check (its id and clauses): a copy of it runs in each, in this order. */
export function copiesOf(plan: Plan, id: string, clauses: readonly string[]): string[] {
  return [
    ...(plan.baseline.some((c) => clauses.includes(c)) ? ['baseline'] : []),
    ...plan.projects.filter((p) => p.defects.some((d) => judges(d, id, clauses))).map((p) => p.name),
    ...(plan.variants ?? []).filter((p) => p.variant.checks.includes(id)).map((p) => p.name),
  ];
}

/** Where a copy in plan project `name` sends its requests: the target, a defect's proxy (by the check's clauses), or a variant. */
export function targetOf(plan: Plan, name: string, id: string, clauses: readonly string[]): CopyTarget {
  if (name === 'baseline') return { baseUrl: plan.target };
  const variant = plan.variants?.find((p) => p.name === name);
  if (variant) return { variant: variant.variant, ...(variant.defects[0] ? { defect: variant.defects[0] } : {}) };
  const defect = plan.projects.find((p) => p.name === name)?.defects.find((d) => judges(d, id, clauses));
  if (!defect) throw new Error(`the self-test's plan has no defect of project ${name} for clauses ${clauses.join(' ')}`);
  return { baseUrl: defect.url, defect };
}

/** The defects a check (its id and clauses) judges in the plan: one per plan project it has a copy in, but the baseline. */
export function defectsJudgedBy(plan: Plan, id: string, clauses: readonly string[]): PlannedDefect[] {
  return copiesOf(plan, id, clauses)
    .filter((name) => name !== 'baseline')
    .flatMap((name) => targetOf(plan, name, id, clauses).defect ?? []);
}

/** Where a copy goes, and the defect it judges (none: a baseline, of the target or of a variant deployment). */
export type CopyTarget = ({ baseUrl: string; variant?: undefined } | { variant: TargetVariant; baseUrl?: undefined }) & {
  defect?: PlannedDefect;
};

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Matches the tests tagged with any of `clauses` (Playwright greps the title with its tags). */
export const clauseGrep = (clauses: readonly string[]): RegExp => new RegExp(`@(?:${clauses.map(escape).join('|')})(?![\\w-])`);

/**
 * Greedy packing: defects in order of how many checks they have, each into the first project where it conflicts with no
 * defect (same clause, or a check citing both clauses). `checks` holds the clause list of every selectable check.
 */
export function packDefects<D extends { id: string; clause: string }>(
  defects: readonly D[],
  checks: readonly (readonly string[])[],
): D[][] {
  const partners = new Map<string, Set<string>>();
  for (const clauses of checks)
    for (const a of clauses)
      for (const b of clauses) {
        if (!partners.has(a)) partners.set(a, new Set());
        partners.get(a)!.add(b);
      }
  const weight = (d: D) => checks.filter((c) => c.includes(d.clause)).length;
  const ordered = [...defects].sort((a, b) => weight(b) - weight(a));
  const projects: D[][] = [];
  for (const d of ordered) {
    const mine = partners.get(d.clause) ?? new Set([d.clause]);
    const home = projects.find((p) => p.every((o) => o.clause !== d.clause && !mine.has(o.clause)));
    if (home) home.push(d);
    else projects.push([d]);
  }
  return projects;
}
