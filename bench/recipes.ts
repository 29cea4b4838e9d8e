// The docs' recipes that take minutes, run as written (`npm run bench -- --only recipes`): the blocks of docs/ci.md and
// docs/conformance.md that judge a deployment at $SHOP_URL with the whole suite, its shards and their merge, a written
// baseline, a rerun of one check and a minute of `explore`, in the order a reader meets them, in one project directory
// (its `conformance/profile.json` the fixture profile), against the reference. `npx shop-conformance` is this checkout's
// CLI. test/cli/doc-recipes.test.ts names these blocks as run here; the short recipes run in `npm test`.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../reference/src/config.js';
import { startServer } from '../reference/src/server.js';
import { shellBlocks, type DocBlock } from '../test/helpers/recipes.js';

const CLI = new URL('../cli/main.ts', import.meta.url).pathname;
const TSX = import.meta.resolve('tsx');
const FIXTURE_PROFILE = new URL('../fixtures/profile.json', import.meta.url).pathname;

/** The blocks run here, by file and first command line, in the order they run. */
export const LONG_RECIPES: readonly { file: string; first: string }[] = [
  { file: 'ci.md', first: 'npx shop-conformance run --base-url "$SHOP_URL" --profile ./conformance/profile.json \\' },
  { file: 'ci.md', first: 'npx shop-conformance run --base-url "$SHOP_URL" --update-expected-failures conformance/expected-failures.json' },
  { file: 'ci.md', first: 'npx shop-conformance run --base-url "$SHOP_URL" --shard 1/2 --output shard-1' },
  { file: 'ci.md', first: 'npx shop-conformance report merge shard-1 shard-2 --expected-failures conformance/expected-failures.json' },
  {
    file: 'conformance.md',
    first:
      'npx shop-conformance run --base-url "$SHOP_URL" --profile conformance/profile.json --repro authentication.dpop.replay --show-secrets',
  },
  {
    file: 'ci.md',
    first:
      'npx shop-conformance explore --base-url "$SHOP_URL" --profile conformance/profile.json --seed 7 --budget 60s --output explore-output',
  },
];

const firstLine = (b: DocBlock) => b.text.split('\n').find((l) => l.trim() && !l.trim().startsWith('#')) ?? '';

/** The blocks of LONG_RECIPES as the docs hold them now; a recipe the docs no longer have throws. */
export function longRecipes(): DocBlock[] {
  const blocks = shellBlocks();
  return LONG_RECIPES.map((r) => {
    const b = blocks.find((x) => x.file === r.file && firstLine(x) === r.first);
    if (!b) throw new Error(`docs/${r.file} no longer has the recipe "${r.first}"`);
    return b;
  });
}

function runIn(dir: string, script: string, shopUrl: string): Promise<{ code: number | null; out: string }> {
  const prelude = [
    'set -euo pipefail',
    `export SHOP_URL=${shopUrl}`,
    `shop-conformance() { node --import ${TSX} ${CLI} "$@"; }`,
    `npx() { if [ "$1" = shop-conformance ]; then shift; shop-conformance "$@"; else command npx "$@"; fi; }`,
  ].join('\n');
  const child = spawn('bash', ['-c', `${prelude}\n${script}`], { cwd: dir, env: { ...process.env, FORCE_COLOR: '0' } });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, out })));
}

export async function benchRecipes(line: (s: string) => void, verdict: (ok: boolean) => string): Promise<void> {
  line("\n== The docs' recipes that take minutes, as written, against the reference (target: each exits 0)");
  const recipes = longRecipes();
  const project = mkdtempSync(join(tmpdir(), 'shop-long-recipes-'));
  mkdirSync(join(project, 'conformance'));
  copyFileSync(FIXTURE_PROFILE, join(project, 'conformance', 'profile.json'));
  const server = await startServer(
    loadConfig({ env: {}, profilePath: FIXTURE_PROFILE, overrides: { port: 0, databasePath: ':memory:', logLevel: 'silent' } }),
  );
  try {
    for (const b of recipes) {
      const started = Date.now();
      const { code, out } = await runIn(project, b.text, server.url);
      const s = ((Date.now() - started) / 1000).toFixed(0);
      line(`   docs/${b.file}:${b.line}  ${firstLine(b).slice(0, 70)}…  exit ${code}, ${s} s  ${verdict(code === 0)}`);
      if (code !== 0)
        line(
          out
            .split('\n')
            .slice(-15)
            .map((l) => `      ${l}`)
            .join('\n'),
        );
    }
  } finally {
    await server.close();
  }
}
