// `shop-conformance report summary RUN`: one run's verdict for a CI page, as Markdown (a job summary) or as GitHub Actions
// annotations, one per failure naming its clauses (conformance/engine/report/summary.ts). Reads a conformance-report.json
// or the output directory holding it; never a server.
import { appendFileSync } from 'node:fs';
import type { Command } from 'commander';
import { BaselineError, readRunReport } from '../../conformance/engine/report/baseline.js';
import { githubAnnotations, markdownSummary } from '../../conformance/engine/report/summary.js';
import { EXIT } from '../exit.js';

const FORMATS = ['markdown', 'github'] as const;

export function addSummaryCommand(report: Command): void {
  report
    .command('summary')
    .description("One run's verdict for a CI page: a Markdown summary, or GitHub Actions annotations (one per failure).")
    .argument('<run>', "the run's conformance-report.json, or the --output directory holding it")
    .option('--format <format>', `markdown or github (workflow-command annotations)`, 'markdown')
    .option('--append <file>', 'append to this file instead of printing (e.g. "$GITHUB_STEP_SUMMARY")')
    .addHelpText(
      'after',
      `
Exit codes: 0 the summary was written (whatever the verdicts), 2 usage error (a file that is not a report).

Examples:
  $ shop-conformance report summary conformance-output --append "$GITHUB_STEP_SUMMARY"
  $ shop-conformance report summary conformance-output --format github`,
    )
    .action((run: string, o: { format: string; append?: string }) => {
      const fail = (message: string): never => {
        process.stderr.write(`shop-conformance report summary: ${message}\n`);
        process.exit(EXIT.usage);
      };
      if (!(FORMATS as readonly string[]).includes(o.format)) fail(`--format: ${o.format} is not one of ${FORMATS.join(', ')}`);
      let parsed;
      try {
        parsed = readRunReport(run);
      } catch (err) {
        if (err instanceof BaselineError) fail(err.message);
        throw err;
      }
      const text = o.format === 'github' ? githubAnnotations(parsed) : markdownSummary(parsed);
      if (o.append === undefined) process.stdout.write(text);
      else {
        try {
          appendFileSync(o.append, text);
        } catch (err) {
          fail(`--append: ${o.append}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
        }
      }
      process.exit(EXIT.ok);
    });
}
