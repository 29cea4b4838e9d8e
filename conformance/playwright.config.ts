// The suite's Playwright Test configuration, owned by the package. The CLI (`shop-conformance run`) writes the run's
// settings as one run plan (conformance/engine/runner/plan.ts), read here once; reporters are Playwright's plus the matrix.
// Without a plan (the checks listed by `clauses` or `run`'s selection), the defaults below.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type ReporterDescription } from '@playwright/test';
import { currentPlan } from './engine/runner/plan.js';
import { awaitLaunch, workerSettings } from './engine/runner/late.js';
import { installCheckPlugin } from './engine/runner/plugin.js';
import { variantCopies } from './engine/runner/variants.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
const plan = currentPlan();
const output = plan?.output.dir ?? join(process.cwd(), 'conformance-output');
const shard = plan?.selection.shard;
const requested = [...(plan?.output.reporters ?? ['list']), ...(shard ? ['blob'] : [])];

// Listing (`run --list`) keeps Playwright's own list; a run's console is the suite's (engine/report/console.ts).
const listing = process.argv.includes('--list');

const playwrightReporter = (name: string): ReporterDescription => {
  switch (name) {
    case 'list':
    case 'line':
    case 'dot':
      return listing ? [name] : [join(here, 'engine', 'report', `console.${ext}`), { style: name }];
    case 'junit':
      return ['junit', { outputFile: join(output, 'junit.xml') }];
    case 'html':
      return ['html', { outputFolder: join(output, 'html'), open: 'never' }];
    case 'json':
      return ['json', { outputFile: join(output, 'results.json') }];
    case 'blob':
      // One blob per shard, named by it, for `shop-conformance report merge` (Playwright's merge-reports).
      return ['blob', { outputDir: join(output, 'blob'), fileName: `shard-${(shard ?? '1/1').replace('/', '-of-')}.zip` }];
    default:
      return [name];
  }
};

// Against a deployment, Playwright starts while the CLI measures its round trip: the workers come from that (and the
// round trip, the places in flight and their pool are the workers' settings once this returns).
await awaitLaunch(plan);
const workers = workerSettings(plan);

// The embedded run's variants (cli/embedded-variants.ts) are judged inside the one project: each variant check has a copy
// that names its deployment (engine/runner/variants.ts), so no worker of its own starts after the main project's checks.
installCheckPlugin(variantCopies);
export default defineConfig({
  testDir: join(here, 'checks'),
  testMatch: /.*\.check\.(ts|js)$/,
  fullyParallel: true,
  // Checks mostly wait on the target: at least two workers even on one core (`--workers` overrides).
  workers: workers.count ?? Math.max(2, availableParallelism()),
  forbidOnly: true,
  retries: 0,
  // A check against a deployment far away waits a round trip per request: it gets the time of 600 more round trips.
  timeout: 30_000 + 600 * (workers.roundTripMs ?? 0),
  outputDir: join(output, 'test-results'),
  // long-first: its `preprocess` hands out the checks flagged long at the start of the run (it reports nothing). Then
  // keep-worker: it restores the verdict of a failed check before any other reporter sees it.
  reporter: [
    [join(here, 'engine', 'runner', `long-first.${ext}`)],
    [join(here, 'engine', 'runner', `keep-worker.${ext}`)],
    [join(here, 'engine', 'report', `error-context.${ext}`)],
    ...requested.map(playwrightReporter),
    [join(here, 'engine', 'report', `reporter.${ext}`)],
  ],
});
