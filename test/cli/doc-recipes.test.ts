// The docs' recipes run as written: every ```sh block marked `<!-- recipe: name -->` in docs/ runs in bash against a
// reference on an ephemeral port ($SHOP), with `npx shop-conformance` meaning this checkout's CLI (its sources); blocks of
// one file marked with the same name run as one script, in order. Every other shell block of docs/ is listed below with
// the reason it is not run.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, type RunningServer } from '../../reference/src/server.js';
import { loadConfig } from '../../reference/src/config.js';
import { FIXTURE_PROFILE_PATH } from '../helpers/reference.js';
import { recipes, runScript, shellBlocks } from '../helpers/recipes.js';
import { longRecipes } from '../../bench/recipes.js';

/** Files whose blocks other tests own. */
const FILES_NOT_RUN: Readonly<Record<string, string>> = {
  'conformance.md':
    "its blocks run the whole suite (minutes) or name a deployment of the reader's own; test/cli/run.test.ts covers `run`, and `npm run bench -- --only recipes` runs its --repro block as written",
};

/** Unmarked shell blocks, by file and first line: why each is not run. */
const BLOCKS_NOT_RUN: Readonly<Record<string, string>> = {
  'agent-developers.md: npx shop-conformance serve': 'starts a server in the foreground; the test gives $SHOP instead',
  'agent-developers.md: npx shop-conformance idp --profile ./conformance/profile.json --host 0.0.0.0 --port 8788':
    'starts a server in the foreground on a fixed port; test/cli/fixtures.test.ts runs idp',
  'agent-developers.md: (set -a; . deploy/shop.env; set +a; npx shop-conformance serve --port 8080)':
    'starts a server in the foreground on a fixed port; test/unit/profile-init.test.ts checks the env file',
  'agent-developers.md: curl https://shop.example/v1/me -H "Authorization: Bearer $(npx shop-conformance token customer --profile ./conformance/profile.json)"':
    "a deployment of the reader's own (shop.example)",
  'ci.md: npm install --save-dev shop-conformance':
    'installs from the npm registry; test/cli/ci-recipes.test.ts installs the package into a project as a dev dependency',
  'ci.md: npm install --save-dev ./shop-conformance-0.1.0.tgz          # `npm pack` in a checkout of shop-conformance makes it':
    'needs a packed tarball and the network; npm run test:pack (test/cli/pack.test.ts) packs one and installs it',
  'ci.md: npx shop-conformance run --base-url "$SHOP_URL" --profile ./conformance/profile.json \\':
    'takes minutes: `npm run bench -- --only recipes` runs it as written against the reference (bench/recipes.ts)',
  'ci.md: npx shop-conformance run --base-url "$SHOP_URL" --update-expected-failures conformance/expected-failures.json':
    'takes minutes: `npm run bench -- --only recipes` runs it as written against the reference (bench/recipes.ts)',
  'ci.md: npx shop-conformance report compare ./reports-main ./reports-branch':
    'needs two runs; test/cli/baseline.test.ts runs report compare',
  'ci.md: npx shop-conformance run --base-url "$SHOP_URL" --shard 1/2 --output shard-1':
    'takes minutes: `npm run bench -- --only recipes` runs it as written against the reference (bench/recipes.ts)',
  'ci.md: npx shop-conformance report merge shard-1 shard-2 --expected-failures conformance/expected-failures.json':
    'takes minutes: `npm run bench -- --only recipes` runs it as written against the reference (bench/recipes.ts)',
  'ci.md: npx shop-conformance explore --base-url "$SHOP_URL" --profile conformance/profile.json --seed 7 --budget 60s --output explore-output':
    'takes minutes: `npm run bench -- --only recipes` runs it as written against the reference (bench/recipes.ts)',
  'ci.md: set -euo pipefail': 'the plain-shell CI recipe (`<!-- ci-recipe: shell -->`): test/cli/ci-recipes.test.ts runs it',
  'ci.md: exec npx shop-conformance serve --port 8787 --profile conformance/profile.json':
    "the CI recipes' start script; test/cli/ci-recipes.test.ts starts the reference through npx the same way",
  'checkout.md: PAYMENT_PROVIDER=stripe STRIPE_SECRET_KEY=sk_test_... npx shop-conformance serve':
    'needs a Stripe test key and starts a server in the foreground',
  'cli.md: shop-conformance report compare ./reports-main ./reports-branch':
    'needs two runs; test/cli/baseline.test.ts runs report compare',
  'cli.md: shop-conformance self-test --defect endpoints.create-without-location authentication.expired-token-accepted --workers 2':
    'self-tests take minutes; test/cli/self-test.test.ts runs self-test',
  'configuration.md: npx shop-conformance serve': 'starts a server in the foreground; test/cli/serve.test.ts runs serve',
  'explore.md: npx shop-conformance explore --budget 30s --seed 7                     # the embedded reference':
    'explores for minutes, and against a deployment ($SHOP_URL); test/cli/explore*.test.ts run explore and --replay',
  'implementations.md: npx shop-conformance report grid reference-run plainhttp-run fastify-run --label reference plainhttp fastify --output grid':
    'needs three runs of minutes each; test/cli/baseline.test.ts runs report grid',
  'implementations.md: npx shop-conformance run --level spec --base-url "$URL" --profile implementations/<name>/profile.json \\':
    'a template (<name>); test/cli/implementations.test.ts runs each implementation',
  'self-test.md: shop-conformance self-test                                   # every defect, embedded reference':
    'self-tests take minutes; test/cli/self-test.test.ts runs self-test',
  "self-test.md: shop-conformance self-test --clause PUR-BANNER-2 --scoped all          # the clause's defects and all their variants":
    'self-tests take minutes; test/cli/self-test.test.ts runs the scoped variants',
  'self-test.md: shop-conformance clauses --coverage                         # from ./conformance-output/conformance-report.json':
    'needs a run report; test/cli/clauses-show.test.ts and the coverage tests read one',
};

const firstLine = (text: string) => text.split('\n').find((l) => l.trim() && !l.trim().startsWith('#')) ?? '';

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

test('every shell block of docs/ is a recipe, or is listed with the reason it is not run', () => {
  const unmarked = shellBlocks().filter((b) => !b.recipe && !(b.file in FILES_NOT_RUN));
  const keys = unmarked.map((b) => `${b.file}: ${firstLine(b.text)}`);
  const unexplained = unmarked.flatMap((b, i) => (keys[i]! in BLOCKS_NOT_RUN ? [] : [`docs/${b.file}:${b.line} ${keys[i]}`]));
  assert.deepEqual(unexplained, [], 'mark these `<!-- recipe: name -->`, or say in BLOCKS_NOT_RUN why they are not run');
  const stale = Object.keys(BLOCKS_NOT_RUN).filter((k) => !keys.includes(k));
  assert.deepEqual(stale, [], 'BLOCKS_NOT_RUN names blocks the docs no longer have (or that are recipes now)');
});

test('the recipes that take minutes, which the bench runs as written, are still in the docs', () => {
  assert.equal(longRecipes().length, 6);
});

for (const r of recipes()) {
  test(`docs/${r.file}, recipe "${r.name}", runs as written`, async () => {
    const run = await runScript(r.script, reference.url);
    assert.equal(run.status, 0, `exit ${run.status}\n${run.stdout}\n${run.stderr}`);
    if (r.name === 'assistant') assert.match(run.stdout, /"caller_kind":"assistant"/);
  });
}
