// `shop-conformance report`: what two runs' reports say about each other (`compare`). Reads conformance-report.json files
// (or the output directories holding them); never a server.
import type { Command } from 'commander';
import { BaselineError, compareRuns, formatComparison, readRunReport } from '../../conformance/engine/baseline.js';
import { EXIT } from '../exit.js';

export function addReportCommand(program: Command): void {
  const report = program.command('report').description('Read and compare the reports of runs (conformance-report.json).');
  report
    .command('compare')
    .description('New failures, fixed checks and changed clause verdicts from the OLD run to the NEW one; exits 1 on a new failure.')
    .argument('<old>', 'conformance-report.json of the earlier run, or the --output directory holding it')
    .argument('<new>', 'conformance-report.json of the later run, or its --output directory')
    .option('--json', 'print the comparison as JSON', false)
    .addHelpText(
      'after',
      `
Examples:
  $ shop-conformance report compare ./main-reports ./branch-reports
  $ shop-conformance report compare staging/conformance-report.json production/conformance-report.json --json`,
    )
    .action((oldPath: string, newPath: string, o: { json: boolean }) => {
      let before, after;
      try {
        before = readRunReport(oldPath);
        after = readRunReport(newPath);
      } catch (err) {
        if (!(err instanceof BaselineError)) throw err;
        process.stderr.write(`shop-conformance report compare: ${err.message}\n`);
        process.exit(EXIT.usage);
      }
      const c = compareRuns(before, after);
      process.stdout.write(o.json ? JSON.stringify(c, null, 2) + '\n' : formatComparison(c, oldPath, newPath));
      process.exit(c.newFailures.length > 0 ? EXIT.failed : EXIT.ok);
    });
}
