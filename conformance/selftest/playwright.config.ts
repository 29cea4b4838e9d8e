// The self-test's Playwright configuration: ONE run for the whole kill matrix. The self-test's plan (the run plan's
// `selfTest`, written by the CLI) packs defects into projects so that each check of a project reaches the proxy of the one
// defect whose clause it cites, plus a `baseline` against the target itself; each check runs a copy of itself per project
// that needs it, registered by the self-test's plug-in (copies.ts), which this configuration installs in the runner and
// in every worker before any check loads.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import { installCheckPlugin } from '../engine/runner/plugin.js';
import { runPlan } from '../engine/runner/plan.js';
import { selfTestCopies } from './copies.js';
import { clauseGrep, LONG_CHECK_FILES, readPlan, SELFTEST_SOURCE_TAG } from './plan.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
const run = runPlan();
const plan = readPlan();
installCheckPlugin(selfTestCopies(plan));

const invert = [...(plan.listing ? [] : [SELFTEST_SOURCE_TAG]), ...(plan.level === 'spec' ? ['@reference'] : [])];

// One Playwright project: the plan's projects are copies of each check inside it (plan.ts, copies.ts), so that
// workers run every copy without restarting. The listing (the CLI's) is the checks of the selected clauses.
export default defineConfig({
  testDir: join(here, '..', 'checks'),
  testMatch: plan.phase === 'long' ? LONG_CHECK_FILES : /.*\.check\.(ts|js)$/,
  ...(plan.phase === 'quick' ? { testIgnore: LONG_CHECK_FILES } : {}),
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  // As the suite's own configuration: a check against a deployment far away gets the time of 600 more round trips.
  timeout: 30_000 + 600 * (run.workers.roundTripMs ?? 0),
  outputDir: join(run.output.dir, 'self-test-results'),
  reporter: [['dot'], [join(here, `reporter.${ext}`)]],
  // A check's own test stands aside for its copies; the spec level leaves out the reference's own checks.
  grepInvert: invert.length ? new RegExp(invert.map((t) => `${t}(?![\\w-])`).join('|')) : undefined,
  projects: plan.listing ? [{ name: 'listing', grep: clauseGrep(plan.listing) }] : [{ name: 'self-test' }],
});
