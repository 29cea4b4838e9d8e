// A run against a failing deployment beside a run against a passing one, in the same bench run: the reference behind a
// pass-through proxy, then behind a proxy that drops X-Request-Id from every answer (one broken header that fails most
// checks). Both at level spec with the published bin. Target: the failing run takes at most about 2 × the passing one.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startProxy, type ProxyRules } from '../conformance/selftest/proxy.js';
import { loadConfig } from '../reference/src/config.js';
import { startServer } from '../reference/src/server.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

async function timedRun(rules: ProxyRules): Promise<{ wallS: number; exit: number | null }> {
  const reference = await startServer(
    loadConfig({
      env: {},
      profilePath: join(ROOT, 'fixtures/profile.json'),
      overrides: { port: 0, databasePath: ':memory:', logLevel: 'silent' },
    }),
  );
  const proxy = await startProxy(reference.url, rules);
  const output = mkdtempSync(join(tmpdir(), 'bench-failing-'));
  try {
    const started = process.hrtime.bigint();
    const child = spawn(
      process.execPath,
      [
        `${ROOT}dist/cli/main.js`,
        'run',
        '--base-url',
        proxy.url,
        '--profile',
        join(ROOT, 'fixtures/profile.json'),
        '--level',
        'spec',
        '--output',
        output,
      ],
      { cwd: ROOT, stdio: 'ignore' },
    );
    const exit = await new Promise<number | null>((resolve) => child.on('close', resolve));
    return { wallS: Number(process.hrtime.bigint() - started) / 1e9, exit };
  } finally {
    await proxy.close();
    await reference.close();
    rmSync(output, { recursive: true, force: true });
  }
}

export async function benchFailing(rounds: number): Promise<{ passingS: number; failingS: number; exits: string }> {
  const passing: number[] = [];
  const failing: number[] = [];
  const exits = new Set<string>();
  for (let i = 0; i < rounds; i++) {
    const ok = await timedRun({});
    const broken = await timedRun({
      response: (a) => ({ ...a, headers: a.headers.filter(([k]) => k.toLowerCase() !== 'x-request-id') }),
    });
    passing.push(ok.wallS);
    failing.push(broken.wallS);
    exits.add(`${ok.exit}/${broken.exit}`);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  return { passingS: median(passing), failingS: median(failing), exits: [...exits].join(', ') };
}
