// The docs' recipes run as written: every ```sh block marked `<!-- recipe: name -->` in docs/ runs in bash against a
// reference on an ephemeral port ($SHOP), with `npx shop-conformance` meaning this checkout's CLI (its sources).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer, type RunningServer } from '../../reference/src/server.js';
import { loadConfig } from '../../reference/src/config.js';
import { FIXTURE_PROFILE_PATH } from '../helpers/reference.js';

const DOCS = new URL('../../docs/', import.meta.url).pathname;
const CLI = new URL('../../cli/main.ts', import.meta.url).pathname;
// tsx by its absolute URL: the recipe runs in a directory of its own, where `--import tsx` would not resolve.
const TSX = import.meta.resolve('tsx');

/** Every marked recipe of the docs: its file, name and shell text. */
export function recipes(): { file: string; name: string; script: string }[] {
  const out: { file: string; name: string; script: string }[] = [];
  for (const file of readdirSync(DOCS).filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(join(DOCS, file), 'utf8');
    for (const m of text.matchAll(/<!-- recipe: ([\w-]+) -->\n```sh\n([\s\S]*?)```/g)) out.push({ file, name: m[1]!, script: m[2]! });
  }
  return out;
}

let reference: RunningServer;
before(async () => {
  reference = await startServer(
    loadConfig({ env: {}, profilePath: FIXTURE_PROFILE_PATH, overrides: { port: 0, databasePath: ':memory:', logLevel: 'silent' } }),
  );
});
after(() => reference.close());

test('the docs mark their recipes (the assistant recipe of agent-developers.md among them)', () => {
  assert.ok(recipes().some((r) => r.file === 'agent-developers.md' && r.name === 'assistant'));
});

for (const r of recipes()) {
  test(`docs/${r.file}, recipe "${r.name}", runs as written`, async () => {
    const prelude = [
      'set -euo pipefail',
      `export SHOP=${reference.url}`,
      `npx() { if [ "$1" = shop-conformance ]; then shift; node --import ${TSX} ${CLI} "$@"; else command npx "$@"; fi; }`,
    ].join('\n');
    // Not spawnSync: the reference answers from this process, so its event loop must keep running.
    const child = spawn('bash', ['-c', `${prelude}\n${r.script}`], { cwd: mkdtempSync(join(tmpdir(), 'shop-recipe-')) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const status = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    const run = { status, stdout, stderr };
    assert.equal(run.status, 0, `exit ${run.status}\n${run.stdout}\n${run.stderr}`);
    if (r.name === 'assistant') assert.match(run.stdout, /"caller_kind":"assistant"/);
  });
}
