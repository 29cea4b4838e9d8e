// The suite's Playwright Test configuration, owned by the package. The CLI (`shop-conformance run`) passes the run's
// parameters through the environment (conformance/engine/params.ts); reporters are Playwright's plus the matrix.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type ReporterDescription } from '@playwright/test';
import { ENV } from './engine/params.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
const output = process.env[ENV.output] ?? join(process.cwd(), 'conformance-output');
const requested = (process.env[ENV.reporters] ?? 'list')
  .split(',')
  .map((r) => r.trim())
  .filter(Boolean);

const playwrightReporter = (name: string): ReporterDescription => {
  switch (name) {
    case 'junit':
      return ['junit', { outputFile: join(output, 'junit.xml') }];
    case 'html':
      return ['html', { outputFolder: join(output, 'html'), open: 'never' }];
    case 'json':
      return ['json', { outputFile: join(output, 'results.json') }];
    default:
      return [name];
  }
};

export default defineConfig({
  testDir: join(here, 'checks'),
  testMatch: /.*\.check\.(ts|js)$/,
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  timeout: 30_000,
  outputDir: join(output, 'test-results'),
  reporter: [...requested.map(playwrightReporter), [join(here, 'engine', `reporter.${ext}`)]],
});
