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
import { LONG_TAG } from '../engine/runner/long-first.js';
import { clauseGrep, readPlan, SELFTEST_SOURCE_TAG } from './plan.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
const run = runPlan();
const plan = readPlan();
installCheckPlugin(selfTestCopies(plan));

// The quick phase leaves out the checks flagged long; the long phase is those checks alone (plan.ts, `phase`).
const invert = [
  ...(plan.listing ? [] : [SELFTEST_SOURCE_TAG]),
  ...(plan.level === 'spec' ? ['@reference'] : []),
  ...(plan.phase === 'quick' ? [LONG_TAG] : []),
];
const tagged = (tags: readonly string[]) => new RegExp(tags.map((t) => `${t}(?![\\w-])`).join('|'));

// One Playwright project: the plan's projects are copies of each check inside it (plan.ts, copies.ts), so that
// workers run every copy without restarting. The listing (the CLI's) is the checks of the selected clauses.
export default defineConfig({
  testDir: join(here, '..', 'checks'),
  testMatch: /.*\.check\.(ts|js)$/,
  ...(plan.phase === 'long' ? { grep: tagged([LONG_TAG]) } : {}),
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  // As the suite's own configuration: a check against a deployment far away gets the time of 600 more round trips.
  timeout: 30_000 + 600 * (run.workers.roundTripMs ?? 0),
  outputDir: join(run.output.dir, 'self-test-results'),
  // As the suite's own configuration, the checks flagged long are handed out first.
  reporter: [[join(here, '..', 'engine', 'runner', `long-first.${ext}`)], ['dot'], [join(here, `reporter.${ext}`)]],
  // A check's own test stands aside for its copies; the spec level leaves out the reference's own checks.
  grepInvert: invert.length ? tagged(invert) : undefined,
  projects: plan.listing ? [{ name: 'listing', grep: clauseGrep(plan.listing) }] : [{ name: 'self-test' }],
});
