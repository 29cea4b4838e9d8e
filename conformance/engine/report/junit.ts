// JUnit for CI dashboards: a check that finds the target breaking a clause is a test *failure*, not an *error*. Playwright's
// JUnit reporter calls every thrown error but an expect() mismatch an `<error>`; the error of a test case whose check
// recorded a failed verdict (check-record.ts) is rewritten as `<failure type="ConformanceFailure">`, and the counts of
// each <testsuite> and of <testsuites> follow. Timeouts and other errors of the run stay errors. Pure.
import type { TestCase } from '@playwright/test/reporter';

/** The name Playwright's JUnit reporter gives a test case: its title path below the root, project and file suites. */
export const testcaseName = (test: Pick<TestCase, 'titlePath'>): string => test.titlePath().slice(3).join(' \u203a ');

const unescape = (s: string) =>
  s.replace(/&(amp|quot|apos|lt|gt);/g, (_m, e: string) => ({ amp: '&', quot: '"', apos: "'", lt: '<', gt: '>' })[e]!);

/**
 * `failed`: the names (testcaseName) of the test cases whose check recorded a failed verdict. `skipped`: by name, why a
 * skipped test case was skipped or not run (a run stopped by --max-failures), given as the `message` of its <skipped>.
 */
export function reclassifyJUnit(xml: string, failed: ReadonlySet<string>, skipped: ReadonlyMap<string, string> = new Map()): string {
  const lines = xml.split('\n');
  let current: string | undefined;
  let inConformance = false;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    const testcase = /^\s*<testcase name="([^"]*)"/.exec(line);
    if (testcase) current = unescape(testcase[1]!);
    else if (/^\s*<\/testcase>/.test(line)) current = undefined;
    else if (current !== undefined && skipped.has(current) && /^\s*<skipped>$/.test(line))
      lines[i] = line.replace('<skipped>', `<skipped message="${escapeAttribute(skipped.get(current)!)}">`);
    else if (current !== undefined && failed.has(current) && /^\s*<error /.test(line)) {
      lines[i] = line.replace(/^(\s*)<error /, '$1<failure ').replace(/ type="[^"]*">$/, ' type="ConformanceFailure">');
      inConformance = true;
    } else if (inConformance && line.trim() === '</error>') {
      lines[i] = line.replace('</error>', '</failure>');
      inConformance = false;
    }
  }
  return recount(lines.join('\n'));
}
const escapeAttribute = (s: string) =>
  s.replace(/[&"'<>]/g, (c) => ({ '&': '&amp;', '"': '&quot;', "'": '&apos;', '<': '&lt;', '>': '&gt;' })[c]!);

/** failures= and errors= of every <testsuite>, then of <testsuites>, from the elements they hold. */
function recount(xml: string): string {
  let failures = 0;
  let errors = 0;
  const suites = xml.replace(/<testsuite (?![^>]*\/>)[^>]*>[\s\S]*?<\/testsuite>/g, (suite) => {
    const f = (suite.match(/^\s*<failure /gm) ?? []).length;
    const e = (suite.match(/^\s*<error /gm) ?? []).length;
    failures += f;
    errors += e;
    return suite.replace(/^<testsuite ([^>]*)>/, (head) =>
      head.replace(/ failures="\d+"/, ` failures="${f}"`).replace(/ errors="\d+"/, ` errors="${e}"`),
    );
  });
  return suites.replace(/<testsuites ([^>]*)>/, (head) =>
    head.replace(/ failures="\d+"/, ` failures="${failures}"`).replace(/ errors="\d+"/, ` errors="${errors}"`),
  );
}
