// The independent implementations in implementations/<name>/ (docs/implementations.md): servers written from the spec and
// the public docs by authors who read neither the reference nor the checks, in other stacks, with their own names, shapes,
// keys and documents. Each is judged with `run --level spec` against its own profile and its expected-failures baseline
// (every failure a confirmed deviation of that implementation; a listed one that passes is stale and fails), and with a
// short seeded `explore`, whose findings must each be one its expected-findings.json lists. `IMPLEMENTATIONS=name,name`
// runs only those.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, describeOutcome, outputDir, tryReport } from '../helpers/cli.js';

const ROOT = new URL('../../implementations/', import.meta.url).pathname;

export interface ExpectedFinding {
  /** Every one of these clauses is among the finding's. */
  clauses: string[];
  /** The confirmed deviation, with the spec sentence it breaks. */
  reason: string;
}

const names = readdirSync(ROOT, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(ROOT, d.name, 'main.ts')))
  .map((d) => d.name)
  .filter((name) => !process.env.IMPLEMENTATIONS || process.env.IMPLEMENTATIONS.split(',').includes(name));

/** Starts an implementation on an ephemeral port; resolves with its base URL once it prints it. */
function start(name: string): Promise<{ url: string; child: ChildProcess; ms: number }> {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, name, 'main.ts'), '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${name} printed no URL within 20 s:\n${out}`)), 20_000);
    const read = (d: Buffer) => {
      out += d;
      const m = /listening on (https?:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!.replace(/\/$/, ''), child, ms: Date.now() - started });
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.once('exit', (code) => reject(new Error(`${name} exited (${code}) before printing its URL:\n${out}`)));
  });
}

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.exitCode !== null ? resolve() : (child.once('exit', () => resolve()), child.kill())));

describe('independent implementations', { concurrency: 1 }, () => {
  for (const name of names) {
    const dir = join(ROOT, name);
    const profile = join(dir, 'profile.json');

    test(`${name}: run --level spec fails only the confirmed deviations of its baseline`, { timeout: 600_000 }, async () => {
      const server = await start(name);
      try {
        const out = outputDir();
        const baseline = join(dir, 'expected-failures.json');
        const args = ['run', '--level', 'spec', '--base-url', server.url, '--profile', profile, '--workers', '2', '--output', out];
        const { code, out: text } = await cli([...args, ...(existsSync(baseline) ? ['--expected-failures', baseline] : [])], 540_000);
        const report = tryReport(out) as (ReturnType<typeof tryReport> & { status?: string; baseline?: unknown }) | undefined;
        assert.equal(
          code,
          0,
          `${name}: exit ${code}\n${describeOutcome(report, text)}\n${text
            .split('\n')
            .filter((l) => /baseline|stale|expired|new failure/i.test(l))
            .join('\n')}`,
        );
      } finally {
        await stop(server.child);
      }
    });

    test(`${name}: a seeded explore finds only the confirmed deviations it lists`, { timeout: 300_000 }, async () => {
      const server = await start(name);
      try {
        const out = outputDir();
        const { code, out: text } = await cli(
          ['explore', '--base-url', server.url, '--profile', profile, '--seed', '7', '--budget', '20s', '--output', out],
          280_000,
        );
        assert.ok(code === 0 || code === 1, `${name}: explore exited ${code}\n${text.slice(-3000)}`);
        const report = JSON.parse(readFileSync(join(out, 'explore-report.json'), 'utf8')) as {
          findings: { finding: number; clauses: string[]; message?: string }[];
        };
        const expectedFile = join(dir, 'expected-findings.json');
        const expected: ExpectedFinding[] = existsSync(expectedFile)
          ? (JSON.parse(readFileSync(expectedFile, 'utf8')) as { expectedFindings: ExpectedFinding[] }).expectedFindings
          : [];
        const unexpected = report.findings.filter((f) => !expected.some((e) => e.clauses.every((c) => f.clauses.includes(c))));
        assert.deepEqual(
          unexpected.map((f) => `finding ${f.finding} [${f.clauses.join(', ')}] ${f.message ?? ''}`),
          [],
          `${name}: explore findings not in ${expectedFile}`,
        );
      } finally {
        await stop(server.child);
      }
    });

    test(`${name}: starts in well under a second`, async () => {
      const server = await start(name);
      await stop(server.child);
      // Process start and tsx's compile included; the server's own start is a small part of it.
      assert.ok(server.ms < 5_000, `${name} took ${server.ms} ms to print its URL`);
    });
  }
});
