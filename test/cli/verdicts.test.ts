// Verdict integrity, end to end: a broken header fails only its own clause (blame per assertion, soft format
// assertions), and a claimed capability whose setup the target refuses fails the run instead of skipping.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { behindProxy } from '../helpers/behind-proxy.js';
import { mapHeader, withoutHeader } from '../helpers/mutating-proxy.js';
import { cli, outputDir, readReport } from '../helpers/cli.js';

describe('verdicts', { concurrency: 2 }, () => {
  test(
    "Cache-Control: no-store dropped from every 4xx: only ERR-PROBLEM-5 fails; the checks' own clauses still pass",
    { timeout: 180_000 },
    async () => {
      await behindProxy(
        {
          response: (a) =>
            a.status >= 400 ? { ...a, headers: mapHeader(withoutHeader(a.headers, 'cache-control'), 'x-none', (v) => v) } : a,
        },
        async (url) => {
          const dir = outputDir();
          const r = await cli([
            'run',
            '--base-url',
            url,
            '--level',
            'spec',
            '--grep',
            '\\[(errors|resources\\.problem|authentication\\.token)\\.',
            '--reporter',
            'dot',
            '--output',
            dir,
            '--no-doctor',
          ]);
          assert.equal(r.code, 1, r.out.slice(-3000));
          const report = readReport(dir);
          const failed = report.clauses.filter((c) => c.verdict === 'failed').map((c) => c.id);
          assert.deepEqual(failed, ['ERR-PROBLEM-5'], r.out.slice(-3000));
          // The checks that met the broken header still judged their own clauses.
          for (const id of ['ERR-TABLE-1', 'AUTH-TOKEN-2', 'RES-PROBLEM-3'])
            assert.equal(report.clauses.find((c) => c.id === id)?.verdict, 'passed', id);
        },
      );
    },
  );

  test(
    "the identity-provider proxy routes refuse the suite: the assistant checks fail on the refusing route's clause, not skip",
    { timeout: 180_000 },
    async () => {
      const refuse = {
        request: (req: { method: string; path: string; headers: [string, string][] }) =>
          req.path.startsWith('/internal/assistant/') ? { ...req, path: '/internal/assistant/refused-here' } : req,
      };
      await behindProxy(refuse, async (url) => {
        const dir = outputDir();
        const r = await cli([
          'run',
          '--base-url',
          url,
          '--level',
          'spec',
          '--grep',
          '\\[authentication\\.dpop\\.',
          '--reporter',
          'dot',
          '--output',
          dir,
          '--no-doctor',
        ]);
        assert.equal(r.code, 1, r.out.slice(-3000));
        assert.match(r.out, /setup refused by the target/);
        const report = readReport(dir) as unknown as {
          checks: { status: string; setupFailed?: boolean }[];
          clauses: { id: string; verdict: string }[];
        };
        assert.ok(
          report.checks.some((c) => c.status === 'failed' && c.setupFailed),
          'a check marked setupFailed',
        );
        assert.equal(report.checks.filter((c) => c.status === 'skipped').length, 0, 'no check of the claimed capability skipped');
        assert.equal(report.clauses.find((c) => c.id === 'END-PUBLIC-12')?.verdict, 'failed');
      });
    },
  );
});
