// The checks of the suite, as Playwright lists them (no target needed), in the order a run hands them out: id, title,
// clause tags, level, severity, the `long` flag, file.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { DEPLOYMENT } from './params.js';
import { playwrightEnv } from './native-load.js';
import { PLAN_ENV } from './plan.js';
import { LONG_TAG } from './long-first.js';

const withoutPlan = ({ [PLAN_ENV]: _plan, ...env }: NodeJS.ProcessEnv): NodeJS.ProcessEnv => env;

export interface CheckListing {
  id: string;
  title: string;
  clauses: string[];
  level: 'spec' | 'reference';
  severity: 'MUST' | 'SHOULD';
  /** Flagged `long`: handed out at the start of a run (long-first.ts). */
  long: boolean;
  file: string;
  line: number;
  /** What Playwright's --grep is matched against: the title path (file, describes, title) and the tags. */
  grepTitle: string;
}

const require = createRequire(import.meta.url);
const here = fileURLToPath(new URL('.', import.meta.url));
const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
export const PLAYWRIGHT_CONFIG = join(here, '..', '..', `playwright.config.${ext}`);
const LONG_FIRST = join(here, `long-first.${ext}`);

interface JsonSuite {
  file?: string;
  specs?: JsonSpec[];
  suites?: JsonSuite[];
}
interface JsonSpec {
  title: string;
  tags: string[];
  file: string;
  line: number;
  tests: { annotations: { type: string; description?: string }[] }[];
}

export async function listChecks(): Promise<CheckListing[]> {
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      // --reporter replaces the configuration's: long-first again, so that the listing is in the order of a run.
      [require.resolve('@playwright/test/cli'), 'test', '--config', PLAYWRIGHT_CONFIG, '--list', `--reporter=${LONG_FIRST},json`],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        // No run plan: the checks are listed without a target (the configuration's defaults).
        env: playwrightEnv(PLAYWRIGHT_CONFIG, { ...withoutPlan(process.env), FORCE_COLOR: '0' }),
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('exit', (code) =>
      code === 0 ? resolve(stdout) : reject(new Error(`listing checks failed (${code}): ${stderr.slice(0, 2000)}`)),
    );
  });
  const json = JSON.parse(out) as { suites: JsonSuite[] };
  const specs: (JsonSpec & { path: string[] })[] = [];
  const walk = (s: JsonSuite & { title?: string }, path: string[]) => {
    const here = [...path, s.title ?? ''];
    specs.push(...(s.specs ?? []).map((spec) => ({ ...spec, path: here })));
    (s.suites ?? []).forEach((x) => walk(x, here));
  };
  json.suites.forEach((s) => walk(s, []));
  // A variant's copy of a check (engine/runner/check.ts) is the same check: listed once.
  const own = specs.filter((s) => !(s.tests[0]?.annotations ?? []).some((a) => a.type === DEPLOYMENT));
  return own.map((s) => {
    const annotations = s.tests[0]?.annotations ?? [];
    return {
      id: annotations.find((a) => a.type === 'check')?.description ?? s.title,
      title: s.title,
      clauses: s.tags.filter((t) => /^[A-Z]+-/.test(t)),
      level: s.tags.includes('reference') ? 'reference' : 'spec',
      severity: s.tags.includes('SHOULD') ? 'SHOULD' : 'MUST',
      long: s.tags.includes(LONG_TAG.slice(1)),
      file: s.file,
      line: s.line,
      // The root and project suites have empty titles (no projects outside the embedded run's variants).
      grepTitle: ['', '', ...s.path, s.title, ...s.tags.map((t) => `@${t}`)].join(' '),
    };
  });
}
