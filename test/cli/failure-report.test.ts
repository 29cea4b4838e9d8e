// A failing run a person reads: a deployment that drops X-Request-Id from every response fails well over a hundred checks;
// the console stays within its budget, ends with the failures grouped by clause (one example exchange, the count of the
// others, the command that reruns it), prints no transcript whole, writes each transcript once, and the clause matrix is
// a page beside Playwright's HTML report that links into it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { behindProxy } from '../helpers/behind-proxy.js';
import { withoutHeader } from '../helpers/mutating-proxy.js';
import { cli, outputDir, readReport } from '../helpers/cli.js';

/** Every file under `dir`, by path. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));

describe('the failure report', () => {
  test(
    'one header dropped everywhere: >100 failed checks, under 2,000 console lines, grouped by clause',
    { timeout: 600_000 },
    async () => {
      await behindProxy({ response: (a) => ({ ...a, headers: withoutHeader(a.headers, 'x-request-id') }) }, async (url) => {
        const dir = outputDir();
        const r = await cli(['run', '--base-url', url, '--workers', '2', '--output', dir, '--no-doctor'], 540_000);
        assert.equal(r.code, 1, r.out.slice(-3000));
        const report = readReport(dir);
        const failed = report.checks.filter((c) => c.status === 'failed');
        assert.ok(failed.length > 100, `${failed.length} failed checks`);

        const lines = r.out.split('\n');
        assert.ok(lines.length < 2000, `${lines.length} console lines for ${failed.length} failed checks`);
        // The console ends with the failures grouped by clause, the most-failed first, each with its example and rerun.
        const start = lines.findIndex((l) => l.startsWith('Failures by clause'));
        assert.ok(start > 0, 'a failure report');
        assert.match(lines[start]!, new RegExp(`^Failures by clause \\(${failed.length} failed checks on \\d+ clauses?\\):`));
        const tail = lines.slice(start).join('\n');
        assert.match(tail, /^FAIL ERR-PROBLEM-7 MUST: /m);
        assert.match(tail, /^ {2}e\.g\. \[[\w.-]+\] .*X-Request-Id/im);
        assert.match(tail, /^ {4}judged on exchange \d+ of .*transcript.*\.txt:\n {6}\$ curl /m);
        assert.match(tail, /^ {2}and \d+ other checks: /m);
        const rerun = new RegExp(
          `^ {2}rerun it: npx shop-conformance run --repro ([\\w.-]+) --base-url ${url.replace(/[.:/]/g, '\\$&')}$`,
          'm',
        );
        const id = rerun.exec(tail)?.[1];
        assert.ok(id, `a rerun command:\n${tail.slice(0, 3000)}`);
        // No transcript is printed whole: one exchange per example, nothing of the others.
        const curls = lines.filter((l) => l.trim().startsWith('$ curl')).length;
        assert.ok(curls <= 12, `${curls} curl lines on the console`);

        // Every transcript once, in the failed check's attachments; none left beside it.
        const files = filesUnder(join(dir, 'test-results'));
        const transcripts = files.filter((f) => /\/attachments\/transcript-txt-[\w-]+\.txt$/.test(f));
        // (A check that warned keeps its transcript too.)
        assert.equal(transcripts.length, failed.length + report.checks.filter((c) => c.status === 'warning').length);
        assert.deepEqual(
          files.filter((f) => f.endsWith('/transcript.txt')),
          [],
        );
        assert.match(readFileSync(transcripts[0]!, 'utf8'), /^### exchange 1 of \d+\n\$ curl /);

        // The clause matrix page beside the HTML report, linking into it.
        assert.ok(existsSync(join(dir, 'html', 'index.html')));
        const page = readFileSync(join(dir, 'clause-matrix.html'), 'utf8');
        assert.match(page, /<tr (?:id="ERR-PROBLEM-7" )?class="v-failed"><td><b>ERR-PROBLEM-7<\/b>/);
        assert.match(page, /<a href="html\/index\.html#\?testId=[\w-]+">/);
        assert.match(page, /domain coverage/);

        // The command reruns the example alone, and it fails again.
        const again = await cli(['run', '--repro', id!, '--base-url', url, '--output', outputDir(), '--no-doctor']);
        assert.equal(again.code, 1, again.out.slice(-2000));
        assert.match(again.out, new RegExp(`\\[${id!.replace(/\./g, '\\.')}\\] failed\\. Transcript:\\n### exchange 1 of`));
      });
    },
  );
});
