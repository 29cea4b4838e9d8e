// JUnit for CI dashboards: a check that finds the target breaking a clause is a test *failure*, not an *error*. Playwright's
// JUnit reporter calls every thrown error but an expect() mismatch an `<error>`; a conformance failure (its message opens
// with the clause id it breaks, `[AUTH-GUEST-4] …`) is rewritten as `<failure type="ConformanceFailure">`, and the counts
// of each <testsuite> and of <testsuites> follow. Timeouts and other errors of the run stay errors. Pure.

const CONFORMANCE_ERROR = /^(\s*)<error message="\[[A-Z]+(?:-[A-Z0-9]+)*-\d+\]([^>]*) type="[^"]*">$/;

export function reclassifyJUnit(xml: string): string {
  const lines = xml.split('\n');
  let inConformance = false;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    const m = CONFORMANCE_ERROR.exec(line);
    if (m) {
      lines[i] = line.replace(/^(\s*)<error /, '$1<failure ').replace(/ type="[^"]*">$/, ' type="ConformanceFailure">');
      inConformance = true;
    } else if (inConformance && line.trim() === '</error>') {
      lines[i] = line.replace('</error>', '</failure>');
      inConformance = false;
    }
  }
  return recount(lines.join('\n'));
}

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
