// The plan of a self-test run, written by the CLI and read by the Playwright configuration and reporter: which defect
// listens where, and which clauses the baseline judges.
import { readFileSync } from 'node:fs';

export const PLAN_ENV = 'SHOP_CONFORMANCE_SELFTEST_PLAN';

export interface Plan {
  target: string;
  level: 'spec' | 'reference';
  /** Clauses whose checks run against the target itself: a check failing there kills nothing. */
  baseline: string[];
  defects: { id: string; clause: string; url: string }[];
}

export function readPlan(env: NodeJS.ProcessEnv = process.env): Plan {
  const path = env[PLAN_ENV];
  if (!path) throw new Error(`${PLAN_ENV} is not set: the self-test configuration is run by \`shop-conformance self-test\``);
  return JSON.parse(readFileSync(path, 'utf8')) as Plan;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Matches the tests tagged with any of `clauses` (Playwright greps the title with its tags). */
export const clauseGrep = (clauses: readonly string[]): RegExp => new RegExp(`@(?:${clauses.map(escape).join('|')})(?![\\w-])`);
