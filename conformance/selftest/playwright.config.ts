// The self-test's Playwright configuration: ONE run for the whole kill matrix, projects of defects packed so that each
// check of a project reaches the proxy of the one defect whose clause it cites (plan.ts), plus a `baseline` project
// against the target itself. The plan comes from the CLI through a file.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import { ENV, type TargetVariant } from '../engine/params.js';
import { checkGrep, clauseGrep, projectGrep, readPlan } from './plan.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
const plan = readPlan();
const output = process.env[ENV.output] ?? join(process.cwd(), 'conformance-output');

// `selftestTargets` and `shopVariant` are the suite's own fixture options (engine/check.ts).
export default defineConfig<{ selftestTargets?: Record<string, string> }, { shopVariant: TargetVariant | undefined }>({
  testDir: join(here, '..', 'checks'),
  testMatch: /.*\.check\.(ts|js)$/,
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  // As the suite's own configuration: a check against a deployment far away gets the time of 600 more round trips.
  timeout: 30_000 + 600 * (Number(process.env[ENV.roundTrip]) || 0),
  outputDir: join(output, 'self-test-results'),
  reporter: [['dot'], [join(here, `reporter.${ext}`)]],
  grepInvert: plan.level === 'spec' ? /@reference(?![\w-])/ : undefined,
  projects: plan.listing
    ? [{ name: 'listing', grep: clauseGrep(plan.listing) }]
    : [
        ...(plan.baseline.length ? [{ name: 'baseline', grep: clauseGrep(plan.baseline), use: { baseURL: plan.target } }] : []),
        ...plan.projects.map((p) => ({
          name: p.name,
          grep: projectGrep(p.defects),
          use: { selftestTargets: Object.fromEntries(p.defects.map((d) => [d.clause, d.url])) },
        })),
        // A variant deployment's checks, against the variant (baseline) or behind one defect's proxy in front of its own
        // instance of the variant (plan.ts).
        ...(plan.variants ?? []).map((p) => ({ name: p.name, grep: checkGrep(p.variant.checks), use: { shopVariant: p.variant } })),
      ],
});
