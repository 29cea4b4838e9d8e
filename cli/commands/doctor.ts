// `shop-conformance doctor`: can the suite judge this deployment? (Also run first by `run`.)
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { doctor, formatDoctorSteps } from '../../conformance/engine/doctor/doctor.js';
import { readCaFile, readProfileFile } from '../../conformance/engine/runner/params.js';
import { parseDuration, waitForReady } from '../../conformance/engine/doctor/wait.js';
import { FIXTURE_PROFILE } from '../../reference/src/paths.js';
import { EXIT, exitAfterOutput } from '../exit.js';

interface DoctorCliOptions {
  baseUrl: string;
  profile: string;
  json: boolean;
  ca?: string;
  insecure: boolean;
  wait?: string;
}

/** The options checked once: a bad one is a single line naming it, exit 2. */
function parse(o: DoctorCliOptions) {
  try {
    new URL(o.baseUrl);
  } catch {
    throw new Error(`--base-url: not a URL: ${o.baseUrl}`);
  }
  const waitMs = o.wait === undefined ? undefined : parseDuration(o.wait);
  if (o.wait !== undefined && waitMs === undefined) throw new Error(`--wait: not a duration like 60s, 2m or 500ms: ${o.wait}`);
  let ca: string | undefined;
  try {
    ca = o.ca === undefined ? undefined : readCaFile(resolve(o.ca));
  } catch (err) {
    throw new Error(`--ca: ${(err as Error).message}`, { cause: err });
  }
  try {
    return { profile: readProfileFile(resolve(o.profile), { toMint: true }), ca, waitMs };
  } catch (err) {
    throw new Error(`--profile: ${(err as Error).message}`, { cause: err });
  }
}

export function addDoctorCommand(program: Command): void {
  program
    .command('doctor')
    .description(
      'Check that the target is reachable, is this service, and trusts tokens minted from the profile for every caller kind it claims.',
    )
    .requiredOption('--base-url <url>', 'the deployment to check')
    .option('--profile <file>', 'profile the deployment shares with the suite', FIXTURE_PROFILE)
    .option('--ca <file>', "PEM bundle of the CA that issued the deployment's TLS certificate (a private CA)")
    .option('--insecure', 'accept any TLS certificate of the deployment (tests only)', false)
    .option('--json', 'print the steps as JSON', false)
    .option(
      '--wait <duration>',
      'first wait (e.g. 60s, 2m) for /health and then the description documents to answer; time up: exit 3 naming what never answered',
    )
    .addHelpText(
      'after',
      `
Exit codes: 0 ready; 1 a setup route broke the spec (the step names its clauses; the suite can still judge the target);
2 usage or configuration error; 3 nothing answers, TLS untrusted, not this service, or the deployment's refusal says the
suite's tokens are not trusted (signature, issuer, audience, unknown client).

Examples:
  $ shop-conformance doctor --base-url http://127.0.0.1:8787
  $ shop-conformance doctor --base-url "$SHOP_URL" --wait 60s     # a deployment started a moment ago
  $ shop-conformance doctor --base-url https://shop.internal:8443 --ca ./private-ca.pem
  $ shop-conformance doctor --base-url https://shop.example --profile ./profile.json --json`,
    )
    .action(async (o: DoctorCliOptions) => {
      let parsed;
      try {
        parsed = parse(o);
      } catch (err) {
        process.stderr.write(`shop-conformance doctor: ${(err as Error).message}\n`);
        process.exit(EXIT.usage);
      }
      const tls = { ca: parsed.ca, insecure: o.insecure };
      if (parsed.waitMs !== undefined) {
        const waited = await waitForReady(o.baseUrl, { timeoutMs: parsed.waitMs, tls, label: `shop-conformance doctor: --wait ${o.wait}` });
        if (!waited.ready) {
          process.stderr.write(`${waited.line}\n`);
          process.exit(EXIT.unreachable);
        }
      }
      const report = await doctor(o.baseUrl, parsed.profile, { tls });
      if (o.json) process.stdout.write(JSON.stringify(report, null, 2) + '\n');
      else {
        for (const line of formatDoctorSteps(report)) process.stdout.write(`${line}\n`);
        for (const a of report.advice) process.stdout.write(`\n${a}\n`);
      }
      await exitAfterOutput(report.exitCode);
    });
}
