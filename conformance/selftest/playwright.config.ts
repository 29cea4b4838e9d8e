// The self-test's Playwright configuration: ONE run for the whole kill matrix, one project per defect (its grep: the
// checks citing the defect's clause; its baseURL: the defect's proxy), plus a `baseline` project against the target
// itself. The plan comes from the CLI through a file (conformance/selftest/plan.ts).
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import { ENV } from '../engine/params.js';
import { clauseGrep, readPlan } from './plan.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
const plan = readPlan();
const output = process.env[ENV.output] ?? join(process.cwd(), 'conformance-output');

export default defineConfig({
  testDir: join(here, '..', 'checks'),
  testMatch: /.*\.check\.(ts|js)$/,
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  timeout: 30_000,
  outputDir: join(output, 'self-test-results'),
  reporter: [['dot'], [join(here, `reporter.${ext}`)]],
  grepInvert: plan.level === 'spec' ? /@reference(?![\w-])/ : undefined,
  projects: [
    ...(plan.baseline.length ? [{ name: 'baseline', grep: clauseGrep(plan.baseline), use: { baseURL: plan.target } }] : []),
    ...plan.defects.map((d) => ({ name: d.id, grep: clauseGrep([d.clause]), use: { baseURL: d.url } })),
  ],
});
