// The suite's Playwright Test configuration, owned by the package. The CLI (`shop-conformance run`) passes the run's
// parameters through the environment (conformance/engine/params.ts); reporters are Playwright's plus the matrix.
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type ReporterDescription } from '@playwright/test';
import { ENV } from './engine/params.js';
import { awaitLaunchParams } from './engine/late-params.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
const output = process.env[ENV.output] ?? join(process.cwd(), 'conformance-output');
const requested = [
  ...(process.env[ENV.reporters] ?? 'list')
    .split(',')
    .map((r) => r.trim())
    .filter(Boolean),
  ...(process.env[ENV.shard] ? ['blob'] : []),
];

// Listing (`run --list`) keeps Playwright's own list; a run's console is the suite's (engine/console.ts).
const listing = process.argv.includes('--list');

const playwrightReporter = (name: string): ReporterDescription => {
  switch (name) {
    case 'list':
    case 'line':
    case 'dot':
      return listing ? [name] : [join(here, 'engine', `console.${ext}`), { style: name }];
    case 'junit':
      return ['junit', { outputFile: join(output, 'junit.xml') }];
    case 'html':
      return ['html', { outputFolder: join(output, 'html'), open: 'never' }];
    case 'json':
      return ['json', { outputFile: join(output, 'results.json') }];
    case 'blob':
      // One blob per shard, named by it, for `shop-conformance report merge` (Playwright's merge-reports).
      return ['blob', { outputDir: join(output, 'blob'), fileName: `shard-${(process.env[ENV.shard] ?? '1/1').replace('/', '-of-')}.zip` }];
    default:
      return [name];
  }
};

// Against a deployment, Playwright starts while the CLI measures its round trip: the workers come from that (and the
// round trip, the places in flight and their pool are in the environment once this returns).
const launched = await awaitLaunchParams();

// The embedded run's variants (cli/embedded-variants.ts) are judged inside the one project: each variant check has a copy
// that names its deployment (engine/check.ts), so no worker of its own starts after the main project's checks.
export default defineConfig({
  testDir: join(here, 'checks'),
  testMatch: /.*\.check\.(ts|js)$/,
  fullyParallel: true,
  // Checks mostly wait on the target: at least two workers even on one core (`--workers` overrides).
  workers: launched ?? Math.max(2, availableParallelism()),
  forbidOnly: true,
  retries: 0,
  // A check against a deployment far away waits a round trip per request: it gets the time of 600 more round trips.
  timeout: 30_000 + 600 * (Number(process.env[ENV.roundTrip]) || 0),
  outputDir: join(output, 'test-results'),
  // keep-worker first: it restores the verdict of a failed check before any other reporter sees it.
  reporter: [
    [join(here, 'engine', `keep-worker.${ext}`)],
    [join(here, 'engine', `error-context.${ext}`)],
    ...requested.map(playwrightReporter),
    [join(here, 'engine', `reporter.${ext}`)],
  ],
});
