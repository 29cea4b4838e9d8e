// The plan of a self-test run, written by the CLI and read by the Playwright configuration: which defect listens where,
// how defects are packed into projects, and which clauses the baseline judges.
//
// Playwright starts a worker per project, so a project per defect would spend most of the run starting workers. Defects
// whose checks are disjoint share a project instead: the project greps the checks of all its defects, and each check
// reaches the proxy of the one defect whose clause it cites (check.ts, `selftestTargets`).
import { readFileSync } from 'node:fs';
import type { TargetVariant } from '../engine/params.js';

export const PLAN_ENV = 'SHOP_CONFORMANCE_SELFTEST_PLAN';

export interface PlannedDefect {
  id: string;
  clause: string;
  url: string;
  /** A narrowed variant: only these checks of its clause (those that reach its cell), not every check citing it. */
  checks?: string[];
}

export interface Plan {
  target: string;
  level: 'spec' | 'reference';
  /** Clauses whose checks run against the target itself: a check failing there kills nothing. */
  baseline: string[];
  /** Defects packed so that no check of a project cites the clauses of two of its defects. */
  projects: { name: string; defects: PlannedDefect[] }[];
  /**
   * Projects judged on a variant deployment of the embedded run (cli/embedded-variants.ts): the checks that only such a
   * deployment can judge (`variant.checks`), against the variant itself (`baseline-variant-<name>`, no defect) or behind a
   * defect's proxy in front of its own instance of the variant (`variant.baseUrl` is then the proxy's).
   */
  variants?: { name: string; variant: TargetVariant; defects: PlannedDefect[] }[];
  /** Set while the CLI lists the checks (one project of every clause, no proxy). */
  listing?: string[];
}

/** A project of the baseline (the target itself, or a variant deployment without defect). */
export const isBaseline = (project: string): boolean => project === 'baseline' || project.startsWith('baseline-');

/** Matches the tests whose check id is one of `ids` (titled `[<id>] …`). */
export const checkGrep = (ids: readonly string[]): RegExp => new RegExp(`\\[(?:${ids.map(escape).join('|')})\\]`);

export function readPlan(env: NodeJS.ProcessEnv = process.env): Plan {
  const path = env[PLAN_ENV];
  if (!path) throw new Error(`${PLAN_ENV} is not set: the self-test configuration is run by \`shop-conformance self-test\``);
  return JSON.parse(readFileSync(path, 'utf8')) as Plan;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Matches the tests tagged with any of `clauses` (Playwright greps the title with its tags). */
export const clauseGrep = (clauses: readonly string[]): RegExp => new RegExp(`@(?:${clauses.map(escape).join('|')})(?![\\w-])`);

/** The tests of a project: the checks of its clauses, but only the listed checks of a defect that lists them. */
export function projectGrep(defects: readonly PlannedDefect[]): RegExp {
  const whole = defects.filter((d) => !d.checks);
  const listed = [...new Set(defects.flatMap((d) => d.checks ?? []))];
  if (listed.length === 0) return clauseGrep(whole.map((d) => d.clause));
  if (whole.length === 0) return checkGrep(listed);
  return new RegExp(`${clauseGrep(whole.map((d) => d.clause)).source}|${checkGrep(listed).source}`);
}

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
