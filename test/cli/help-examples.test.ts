// Every `--help` example that talks to a deployment runs as printed: the examples of each such command, in order, as one
// bash script against a reference ($SHOP), with `shop-conformance` meaning this checkout's CLI (test/helpers/recipes.ts,
// as the docs' recipes run). Every answer is a success, and the assistant's requests are admitted as an assistant. The
// commands whose examples are not run are listed with the reason.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Command } from 'commander';
import { createProgram } from '../../cli/program.js';
import { startServer, type RunningServer } from '../../reference/src/server.js';
import { loadConfig } from '../../reference/src/config.js';
import { FIXTURE_PROFILE_PATH } from '../helpers/reference.js';
import { runScript } from '../helpers/recipes.js';

/** Commands whose examples are not run, and why. */
const NOT_RUN: Readonly<Record<string, string>> = {
  run: 'the whole suite takes minutes; test/cli/run.test.ts runs run',
  'self-test': 'self-tests take minutes; test/cli/self-test.test.ts runs self-test',
  explore: 'explores for minutes, or a deployment at shop.example; test/cli/explore*.test.ts run explore',
  serve: 'starts a server in the foreground; test/cli/serve.test.ts runs serve',
  idp: 'starts a server in the foreground; test/cli/fixtures.test.ts runs idp',
  doctor: 'deployments at shop.example and shop.internal; test/cli/doctor.test.ts runs doctor',
  clauses: 'a run report in ./reports; test/cli/clauses-show.test.ts runs clauses',
  'report compare': 'needs two runs; test/cli/baseline.test.ts runs report compare',
  'report merge': 'sharded runs of a deployment at shop.example; test/cli/shards.test.ts runs report merge',
  'report grid': 'needs two runs; test/cli/baseline.test.ts runs report grid',
  'report summary': "needs a run's report; test/cli/action.test.ts runs report summary",
};

/** The examples of a help text: each `  $ ` line with its continuation lines (a line ending in a backslash). */
export function helpExamples(help: string): string[] {
  const lines = help.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^ {2}\$ (.*)$/.exec(lines[i]!);
    if (!m) continue;
    let example = m[1]!;
    while (example.endsWith('\\') && i + 1 < lines.length) example += '\n' + lines[++i]!;
    out.push(example);
  }
  return out;
}

/** Every command and subcommand that prints examples, by its path ("assistant session"). */
function commandsWithExamples(program: Command, parents: string[] = []): { path: string; help: string }[] {
  return program.commands.flatMap((c) => {
    const path = [...parents, c.name()];
    // commander's helpInformation() leaves out the addHelpText parts: render them as --help does.
    let help = '';
    c.configureOutput({ writeOut: (s) => (help += s) });
    c.outputHelp();
    const own = helpExamples(help).length > 0 ? [{ path: path.join(' '), help }] : [];
    return [...own, ...commandsWithExamples(c, path)];
  });
}

const program = await createProgram();
const commands = commandsWithExamples(program);

let reference: RunningServer;
before(async () => {
  reference = await startServer(
    loadConfig({ env: {}, profilePath: FIXTURE_PROFILE_PATH, overrides: { port: 0, databasePath: ':memory:', logLevel: 'silent' } }),
  );
});
after(() => reference.close());

test('every command with examples runs them here or says why not', () => {
  const paths = commands.map((c) => c.path);
  for (const must of ['token', 'dpop', 'assistant session', 'guest-session']) assert.ok(paths.includes(must), must);
  const stale = Object.keys(NOT_RUN).filter((p) => !paths.includes(p));
  assert.deepEqual(stale, [], 'NOT_RUN names commands without examples');
});

for (const c of commands.filter((x) => !(x.path in NOT_RUN))) {
  test(`${c.path} --help: its examples run as printed against the reference`, async () => {
    const script = helpExamples(c.help).join('\n');
    const run = await runScript(script, reference.url);
    assert.equal(run.status, 0, `exit ${run.status}\n${script}\n${run.stdout}\n${run.stderr}`);
    // No answer is a refusal: a problem document carries a 4xx or 5xx status.
    assert.doesNotMatch(run.stdout, /"status":\s*[45]\d\d/, `${script}\n${run.stdout}`);
    if (/Authorization: DPoP|token assistant/.test(script)) assert.match(run.stdout, /"caller_kind":"assistant"/, run.stdout);
  });
}
